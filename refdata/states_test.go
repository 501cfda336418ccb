package refdata_test

import (
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/refdata"
)

// TestStatesCascade checks the address form's cascade: every embedded
// city's stateCode is the code of a state of its country, as
// States(countryCode) answers it (same code, no country prefix).
func TestStatesCascade(t *testing.T) {
	t.Parallel()
	cities, err := refdata.DefaultCities()
	require.NoError(t, err)
	byCountry := map[string]map[string]refdata.State{}
	checked := 0
	for _, c := range cities {
		if c.StateCode == "" {
			continue
		}
		states, ok := byCountry[c.CountryCode]
		if !ok {
			list, err := refdata.States(c.CountryCode)
			require.NoError(t, err)
			states = map[string]refdata.State{}
			for _, s := range list {
				states[s.Code] = s
			}
			byCountry[c.CountryCode] = states
		}
		_, ok = states[c.StateCode]
		if assert.Truef(t, ok, "%s, %s: state %s is not among the country's states", c.Name, c.CountryCode, c.StateCode) {
			checked++
		}
	}
	assert.Greater(t, checked, 1000, "the cascade covers the embedded cities")
}

func TestStates(t *testing.T) {
	t.Parallel()
	all, err := refdata.States("")
	require.NoError(t, err)
	assert.Greater(t, len(all), 5000, "every level of every country")
	for _, s := range all {
		assert.NotEmpty(t, s.Name)
		assert.NotNil(t, s.Tags, "tags are an empty array, never null")
		assert.Nil(t, s.AdministrativeDivision, "no source gives the category")
	}
	us, err := refdata.States(" us ")
	require.NoError(t, err)
	assert.Len(t, us, 57, "50 states, DC and 6 outlying areas")
	assert.Contains(t, us, refdata.State{CountryCode: "US", Code: "CA", Name: "California", Tags: []string{}})
	fr, err := refdata.States("FR")
	require.NoError(t, err)
	var ain refdata.State
	for _, s := range fr {
		assert.Equal(t, "FR", s.CountryCode)
		if s.Code == "01" {
			ain = s
		}
	}
	if assert.NotNil(t, ain.ParentCode) {
		assert.Equal(t, "ARA", *ain.ParentCode, "a department names its region")
	}
	for _, cc := range []string{"ZZ", "U", "usa", "00"} {
		none, err := refdata.States(cc)
		require.NoError(t, err)
		assert.NotNil(t, none)
		assert.Emptyf(t, none, "%q selects nothing", cc)
	}
}

// TestStateNamesHoldNoMarks checks every state's name: none holds a
// footnote mark of the source (a superscript digit or other Unicode "No"
// number, †, ‡, *) or a CLDR annotation ("(EH-partial)"), which CLDR puts
// on names that repeat. A repeated name is told apart by its code.
func TestStateNamesHoldNoMarks(t *testing.T) {
	t.Parallel()
	all, err := refdata.States("")
	require.NoError(t, err)
	annotation := regexp.MustCompile(`\([A-Z]{2}-[A-Za-z]+\)`)
	var marked []string
	for _, s := range all {
		if strings.ContainsFunc(s.Name, func(r rune) bool { return unicode.Is(unicode.No, r) || strings.ContainsRune("†‡*", r) }) ||
			annotation.MatchString(s.Name) {
			marked = append(marked, s.CountryCode+"-"+s.Code+" "+s.Name)
		}
	}
	assert.Empty(t, marked, "names with a footnote mark or an annotation")

	names := map[string]string{}
	for _, s := range all {
		names[s.CountryCode+"-"+s.Code] = s.Name
	}
	for code, want := range map[string]string{
		"FR-IDF": "Île-de-France", "MA-TAF": "Tarfaya", "UG-330": "Zombo", "MK-801": "Aerodrom",
		"EE-897": "Viljandi", "EE-899": "Viljandi", // Estonia's town and rural municipality: one name, two codes
		"EE-661": "Rakvere", "EE-663": "Rakvere",
		"FR-973": "Guyane (française)", // a name's own parentheses stay
	} {
		assert.Equalf(t, want, names[code], "%s", code)
	}
}

// TestStatesRenamed checks the names the source lags behind, as the
// generator's renamings give them: Nepal's provinces by their names, not
// their numbers.
func TestStatesRenamed(t *testing.T) {
	t.Parallel()
	np, err := refdata.States("NP")
	require.NoError(t, err)
	names := map[string]string{}
	for _, s := range np {
		names[s.Code] = s.Name
	}
	assert.Equal(t, map[string]string{
		"P1": "Koshi", "P2": "Madhesh", "P3": "Bagmati", "P4": "Gandaki",
		"P5": "Lumbini", "P6": "Karnali", "P7": "Sudurpashchim",
	}, names)
}
