package main

import (
	"bytes"
	"encoding/csv"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func testSource() source {
	return source{
		version: "99.0.0", cldr: "99",
		containment: map[string][]string{
			"FR":    {"frara", "fr20r", "frbl", "fr973"},
			"frara": {"fr01"},
			"BQ":    {"bqse"},
			"NO":    {"no30"},
			"CN":    {"cnhk", "cnnm"},
			"EE":    {"ee897", "ee899"},
			"MA":    {"mataf"},
			"NP":    {"npp1", "npp2", "npp3", "npp4", "npp5", "npp6", "npp7"},
		},
		names: map[string]string{
			"frara": "Auvergne-Rhône-Alpes", "fr20r": "Corsica", "fr01": "Ain", "bqse": "Sint Eustatius", "no30": "Viken",
			"ee897": "Viljandi²", "ee899": "Viljandi³ ", "mataf": "Tarfaya (EH-partial)", "fr973": "Guyane (française)",
			"npp1": "Province 1", "npp2": "Province 2", "npp3": "Province 3", "npp4": "Gandaki²",
			"npp5": "Province 5", "npp6": "Karnali²", "npp7": "Province 7",
		},
		aliases: map[string]string{"frbl": "BL"},
	}
}

func TestGenerate(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	require.NoError(t, generate(testSource(), &out, "2099-01-02"))
	text := out.String()
	assert.Contains(t, text, "# Source: Unicode CLDR 99 (cldr-json 99.0.0: ")
	assert.Contains(t, text, "under the Unicode License v3 (refdata/data/LICENSE-CLDR).\n")
	assert.Contains(t, text, "# Converted: 2099-01-02 by refdata/internal/gensubdivisions.\n")
	_, body, ok := strings.Cut(text, "\ncountryCode,")
	require.True(t, ok, "a header row after the comments")
	lines := strings.Split(strings.TrimSuffix("countryCode,"+body, "\n"), "\n")
	assert.Equal(t, []string{
		"countryCode,code,name,parent,note",
		"BQ,SE,Sint Eustatius,,",
		"CN,HK,Hong Kong SAR China,,",
		"CN,NM,Inner Mongolia,,no English name in CLDR 48; the English name in common use (ISO: Nei Mongol Zizhiqu)",
		"EE,897,Viljandi,,",
		"EE,899,Viljandi,,",
		"FR,01,Ain,ARA,",
		"FR,20R,Corsica,,",
		"FR,973,Guyane (française),,",
		"FR,ARA,Auvergne-Rhône-Alpes,,",
		"FR,BL,St. Barthélemy,,",
		"MA,TAF,Tarfaya,,",
		"NO,30,Viken,,",
		`NO,31,Østfold,,"county number since 2024-01-01 (from Viken, NO-30); not yet in ISO 3166-2"`,
		`NO,32,Akershus,,"county number since 2024-01-01 (from Viken, NO-30); not yet in ISO 3166-2"`,
		`NO,33,Buskerud,,"county number since 2024-01-01 (from Viken, NO-30); not yet in ISO 3166-2"`,
		`NO,39,Vestfold,,"county number since 2024-01-01 (from Vestfold og Telemark, NO-38); not yet in ISO 3166-2"`,
		`NO,40,Telemark,,"county number since 2024-01-01 (from Vestfold og Telemark, NO-38); not yet in ISO 3166-2"`,
		`NO,55,Troms,,"county number since 2024-01-01 (from Troms og Finnmark, NO-54); not yet in ISO 3166-2"`,
		`NO,56,Finnmark,,"county number since 2024-01-01 (from Troms og Finnmark, NO-54); not yet in ISO 3166-2"`,
		"NP,P1,Koshi,,named Koshi on 2023-03-01 (CLDR 99: Province 1)",
		"NP,P2,Madhesh,,named Madhesh on 2022-01-17 (CLDR 99: Province 2)",
		"NP,P3,Bagmati,,named Bagmati on 2020-01-12 (CLDR 99: Province 3)",
		"NP,P4,Gandaki,,",
		"NP,P5,Lumbini,,named Lumbini on 2020-10-06 (CLDR 99: Province 5)",
		"NP,P6,Karnali,,",
		"NP,P7,Sudurpashchim,,named Sudurpashchim on 2018-09-28 (CLDR 99: Province 7)",
	}, lines, "sorted by country and code, prefixes dropped, parents from containment, unnamed ones named as their region, "+
		"footnote marks and annotations stripped (a name's own parentheses kept), renamings applied, additions and renamings noted")
	assert.Contains(t, text, "\n# Rows with a note (13) are missing from the source, unnamed there, or named there by an old name; the note says why.\n")
}

func TestGenerateRefuses(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		change func(*source)
		date   string
		want   string
	}{
		"no subdivisions": {func(s *source) { s.containment = nil }, "2099-01-02", "no subdivisions"},
		"malformed id":    {func(s *source) { s.containment["FR"] = append(s.containment["FR"], "FR01") }, "2099-01-02", "malformed"},
		"twice":           {func(s *source) { s.containment["BQ"] = append(s.containment["BQ"], "fr01") }, "2099-01-02", "fr01 is contained twice"},
		"no name":         {func(s *source) { delete(s.names, "fr01") }, "2099-01-02", "fr01 has no English name"},
		"addition now in": {func(s *source) {
			s.containment["NO"] = append(s.containment["NO"], "no31")
			s.names["no31"] = "Østfold"
		}, "2099-01-02", "NO-31 is in the source now: remove it from the additions"},
		"bad date":                 {func(*source) {}, "2099-13-02", "date"},
		"mark inside a name":       {func(s *source) { s.names["fr01"] = "Ain² Nord" }, "2099-01-02", `fr01: name "Ain² Nord" holds a mark`},
		"annotation inside a name": {func(s *source) { s.names["fr01"] = "Ain (EH-partial) Nord" }, "2099-01-02", "fr01: name"},
		"renaming caught up": {func(s *source) { s.names["npp1"] = "Koshi" }, "2099-01-02",
			`npp1: the source names it "Koshi" now: remove it from the renamings`},
		"renamed otherwise": {func(s *source) { s.names["npp5"] = "Lumbini Province" }, "2099-01-02",
			`npp5: the source names it "Lumbini Province", not "Province 5": check its renaming`},
		"renamed one gone": {func(s *source) { s.containment["NP"] = []string{"npp1", "npp2", "npp3", "npp4", "npp5", "npp6"} }, "2099-01-02",
			"npp7 is not in the source: check its renaming"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			src := testSource()
			tt.change(&src)
			err := generate(src, &bytes.Buffer{}, tt.date)
			assert.ErrorContains(t, err, tt.want)
		})
	}
}

func TestCleanName(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"Île-de-France²":        "Île-de-France",
		"Viljandi³":             "Viljandi",
		"Zombo²":                "Zombo",
		"Rakvere¹⁰":             "Rakvere",
		"Aerodrom †":            "Aerodrom",
		"Butel ‡":               "Butel",
		"Lacs*":                 "Lacs",
		"Tarfaya (EH-partial)":  "Tarfaya",
		"Tarfaya² (EH-partial)": "Tarfaya",
		" Gandaki² ":            "Gandaki",
		"Guyane (française)":    "Guyane (française)",
		"Prague 10":             "Prague 10",
		"Province 1":            "Province 1",
		"Ain":                   "Ain",
	}
	for in, want := range tests {
		t.Run(in, func(t *testing.T) {
			t.Parallel()
			got := cleanName(in)
			assert.Equal(t, want, got)
			assert.False(t, hasMark(got), "no mark is left")
		})
	}
}

// TestRenamingsApplied checks the committed list, refdata/data/subdivisions.csv,
// against the renamings: each renamed subdivision bears its new name, with a
// note, and no subdivision of its country bears the source's old one.
func TestRenamingsApplied(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../../data/subdivisions.csv")
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^# Source: Unicode CLDR (\d+) `).FindSubmatch(raw)
	require.NotNil(t, m, "the header names the CLDR release")
	cldr := string(m[1])
	cr := csv.NewReader(bytes.NewReader(raw))
	cr.Comment = '#'
	recs, err := cr.ReadAll()
	require.NoError(t, err)
	require.NotEmpty(t, renamings)
	for _, rn := range renamings {
		t.Run(rn.id, func(t *testing.T) {
			t.Parallel()
			country, code := strings.ToUpper(rn.id[:2]), strings.ToUpper(rn.id[2:])
			assert.Regexp(t, `^\d{4}-\d{2}-\d{2}$`, rn.date)
			assert.True(t, strings.HasPrefix(rn.source, "https://"), "the row cites its source")
			found := false
			for _, r := range recs[1:] {
				if r[0] != country {
					continue
				}
				assert.NotEqualf(t, rn.from, r[2], "%s-%s bears the source's old name", r[0], r[1])
				if r[1] == code {
					found = true
					assert.Equal(t, rn.to, r[2])
					assert.Equal(t, "named "+rn.to+" on "+rn.date+" (CLDR "+cldr+": "+rn.from+")", r[4])
				}
			}
			assert.Truef(t, found, "%s-%s is listed", country, code)
		})
	}
}
