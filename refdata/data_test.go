package refdata

import (
	"encoding/csv"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/text/currency"
	"golang.org/x/text/language"
)

// The tests in this file check the facts of the embedded dataset
// (data/*.csv) against golang.org/x/text and against each other. Run them
// with `go test ./refdata/ -run Data`.
//
// x/text carries CLDR 32 (2017). Where the world or ISO 4217 moved on since,
// or where CLDR deliberately departs from ISO 4217, the expected value is
// listed below with the reason: every exception is explicit.

// dataISODigits lists the ISO 4217 minor units of currencies for which
// currency.Standard.Rounding (CLDR's "digits", what people write in
// practice) differs from ISO 4217, and of ISO codes newer than CLDR 32.
var dataISODigits = map[string]int{
	// CLDR formats these without decimals; ISO 4217 keeps the minor unit.
	"AFN": 2, "ALL": 2, "AMD": 2, "COP": 2, "GYD": 2, "IDR": 2, "IQD": 3, "IRR": 2,
	"KPW": 2, "LAK": 2, "LBP": 2, "MGA": 2, "MMK": 2, "MNT": 2, "MUR": 2, "PKR": 2,
	"RSD": 2, "SLL": 2, "SOS": 2, "SYP": 2, "TZS": 2, "UZS": 2, "YER": 2,
	// ISO 4217 codes introduced after CLDR 32, unknown to x/text.
	"MRU": 2, // Mauritanian ouguiya, redenominated 2018 (replaces MRO)
	"SLE": 2, // Sierra Leonean leone, redenominated 2022
	"UYW": 4, // Uruguayan unidad previsional, 2018
	"VED": 2, // Venezuelan digital bolívar, 2021
	"VES": 2, // Venezuelan bolívar soberano, 2018 (replaces VEF)
	"XCG": 2, // Caribbean guilder, 2025 (replaces ANG in CW and SX)
	"ZWG": 2, // Zimbabwe Gold, 2024 (replaces ZWL)
}

// dataNewerThanCLDR lists the listed ISO codes that currency.ParseISO does
// not know (they are newer than CLDR 32).
var dataNewerThanCLDR = []string{"MRU", "SLE", "UYW", "VED", "VES", "XCG", "ZWG"}

// dataRetired lists the codes that CLDR 32 still reports as legal tender
// somewhere but that have been withdrawn since, so the dataset leaves them
// out; and the current non-tender codes it leaves out on purpose.
var dataRetired = map[string]string{
	"ANG": "replaced by XCG on 2025-03-31",
	"BGN": "Bulgaria adopted the euro on 2026-01-01",
	"HRK": "Croatia adopted the euro on 2023-01-01",
	"MRO": "replaced by MRU in 2018",
	"VEF": "replaced by VES in 2018",
	"CNH": "offshore yuan: a market convention, not an ISO 4217 code",
	"XBA": "European bond-market unit, unused",
	"XBB": "European bond-market unit, unused",
	"XBC": "European bond-market unit, unused",
	"XBD": "European bond-market unit, unused",
	"XTS": "reserved for testing",
	"XXX": "no currency",
}

// dataCashRounding lists cash-rounding increments that CLDR 32 does not
// record: national rules in force since the smallest coins were withdrawn.
var dataCashRounding = map[string]float64{
	"AUD": 0.05, // Australia, 1 and 2 cent coins withdrawn in 1992
	"NZD": 0.1,  // New Zealand, 5 cent coin withdrawn in 2006
	"HUF": 5,    // Hungary, 1 and 2 forint coins withdrawn in 2008
	"ILS": 0.1,  // Israel, 5 agorot coin withdrawn in 2008
}

// dataCurrencyTags is the vocabulary of currency tags.
var dataCurrencyTags = []string{"fiat", "fund", "unit-of-account", "precious-metal", "crypto", "stablecoin", "major"}

// dataCountryTags is the vocabulary of country tags.
var dataCountryTags = []string{
	"un", "eu", "eurozone", "schengen", "g7", "g20", "nato", "oecd", "commonwealth",
	"brics", "opec", "asean", "mercosur", "territory", "island", "landlocked",
}

// dataMayBeEmpty lists, per country, the fields that are empty because the
// fact does not exist: no capital, no currency of its own, no region in
// UN M49 (Antarctica), no telephone code.
var dataMayBeEmpty = map[string][]string{
	"AQ": {"capital", "currency", "region", "subregion"},
	"BV": {"capital", "codePhone"},
	"HM": {"capital", "codePhone"},
	"UM": {"capital"},
}

// dataSubregions maps each UN M49 subregion name to its region name and M49 code.
var dataSubregions = map[string]struct{ region, m49 string }{
	"Northern Africa": {"Africa", "015"}, "Eastern Africa": {"Africa", "014"},
	"Middle Africa": {"Africa", "017"}, "Southern Africa": {"Africa", "018"},
	"Western Africa": {"Africa", "011"}, "Caribbean": {"Americas", "029"},
	"Central America": {"Americas", "013"}, "South America": {"Americas", "005"},
	"Northern America": {"Americas", "021"}, "Central Asia": {"Asia", "143"},
	"Eastern Asia": {"Asia", "030"}, "South-eastern Asia": {"Asia", "035"},
	"Southern Asia": {"Asia", "034"}, "Western Asia": {"Asia", "145"},
	"Eastern Europe": {"Europe", "151"}, "Northern Europe": {"Europe", "154"},
	"Southern Europe": {"Europe", "039"}, "Western Europe": {"Europe", "155"},
	"Australia and New Zealand": {"Oceania", "053"}, "Melanesia": {"Oceania", "054"},
	"Micronesia": {"Oceania", "057"}, "Polynesia": {"Oceania", "061"},
}

// dataOutlying lists the territories that CLDR groups under QO ("Outlying
// Oceania") instead of the UN M49 subregion the dataset gives them.
var dataOutlying = []string{"BV", "CC", "CX", "GS", "HM", "IO", "TF", "UM"}

// dataTags splits a comma-separated tag list.
func dataTags(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

func dataCurrencies(t *testing.T) []Currency {
	t.Helper()
	cs, err := DefaultCurrencies()
	require.NoError(t, err)
	require.NotEmpty(t, cs)
	return cs
}

func dataCountries(t *testing.T) []Country {
	t.Helper()
	cs, err := DefaultCountries()
	require.NoError(t, err)
	require.NotEmpty(t, cs)
	return cs
}

func TestDataCurrenciesWellFormed(t *testing.T) {
	t.Parallel()
	fiatCode := regexp.MustCompile(`^[A-Z]{3}$`)
	coinCode := regexp.MustCompile(`^[A-Z]{2,6}$`)
	seenCode, seenID := map[string]bool{}, map[string]bool{}
	for _, c := range dataCurrencies(t) {
		assert.Falsef(t, seenCode[c.Code], "%s: duplicate code", c.Code)
		assert.Falsef(t, seenID[c.ID], "%s: duplicate id", c.Code)
		seenCode[c.Code], seenID[c.ID] = true, true
		assert.Equal(t, CurrencyID(c.Code), c.ID, c.Code)
		for field, v := range map[string]string{
			"code": c.Code, "name": c.Name, "namePlural": c.NamePlural, "symbol": c.Symbol,
			"symbolNative": c.SymbolNative, "tags": c.Tags, "keywords": c.Keywords,
		} {
			assert.Equalf(t, strings.TrimSpace(v), v, "%s: %s has surrounding space", c.Code, field)
			assert.NotEmptyf(t, v, "%s: %s is empty", c.Code, field)
		}
		assert.Falsef(t, c.IsDefault, "%s: the dataset never sets isDefault", c.Code)
		assert.GreaterOrEqualf(t, c.Rounding, 0.0, "%s: rounding", c.Code)
		tags := dataTags(c.Tags)
		for _, tag := range tags {
			assert.Containsf(t, dataCurrencyTags, tag, "%s: unknown tag", c.Code)
		}
		assert.Equalf(t, slices.Contains(tags, "crypto"), c.IsCoin, "%s: isCoin iff tagged crypto", c.Code)
		if c.IsCoin {
			assert.Regexp(t, coinCode, c.Code)
			assert.Zerof(t, c.Rounding, "%s: a coin has no cash rounding", c.Code)
			assert.LessOrEqual(t, c.DecimalDigits, int32(24), c.Code)
			continue
		}
		assert.Regexp(t, fiatCode, c.Code)
		kinds := 0
		for _, k := range []string{"fiat", "fund", "unit-of-account", "precious-metal"} {
			if slices.Contains(tags, k) {
				kinds++
			}
		}
		assert.Equalf(t, 1, kinds, "%s: exactly one of fiat, fund, unit-of-account, precious-metal", c.Code)
		assert.Falsef(t, slices.Contains(tags, "stablecoin"), "%s: stablecoin on a non-coin", c.Code)
	}
}

// TestDataCurrencyCodesAndDigits checks every ISO 4217 code and its minor
// units against x/text. currency.Standard.Rounding gives CLDR's digits,
// which equal ISO 4217's minor units except for dataISODigits; for the
// codes ISO lists as "N.A." (XAU, XDR, ...) the dataset uses CLDR's 2.
// currency.Cash gives the cash rounding.
func TestDataCurrencyCodesAndDigits(t *testing.T) {
	t.Parallel()
	for _, c := range dataCurrencies(t) {
		u, err := currency.ParseISO(c.Code)
		if c.IsCoin {
			assert.Errorf(t, err, "%s: a coin must not shadow an ISO 4217 code", c.Code)
			continue
		}
		if slices.Contains(dataNewerThanCLDR, c.Code) {
			assert.Errorf(t, err, "%s: x/text knows it now: drop it from dataNewerThanCLDR", c.Code)
			assert.Equal(t, dataISODigits[c.Code], int(c.DecimalDigits), c.Code)
			continue
		}
		if !assert.NoErrorf(t, err, "%s: not an ISO 4217 code", c.Code) {
			continue
		}
		assert.Equal(t, c.Code, u.String())
		scale, _ := currency.Standard.Rounding(u)
		want, ok := dataISODigits[c.Code]
		if ok {
			assert.NotEqualf(t, scale, want, "%s: x/text agrees with ISO now: drop the exception", c.Code)
		} else {
			want = scale
		}
		assert.Equalf(t, want, int(c.DecimalDigits), "%s: decimalDigits", c.Code)

		// Cash rounding: the increment in major units when cash is rounded
		// more coarsely than the minor unit, else 0.
		wantRounding, ok := dataCashRounding[c.Code]
		if !ok {
			cs, ci := currency.Cash.Rounding(u)
			if cs != want || ci != 1 {
				wantRounding = float64(ci) / math.Pow10(cs)
			}
		}
		assert.InDeltaf(t, wantRounding, c.Rounding, 1e-9, "%s: rounding", c.Code)
	}
}

// TestDataCurrenciesComplete checks that every currency x/text knows as in
// use today is listed, unless dataRetired says why not.
func TestDataCurrenciesComplete(t *testing.T) {
	t.Parallel()
	listed := map[string]bool{}
	for _, c := range dataCurrencies(t) {
		listed[c.Code] = true
	}
	for code, why := range dataRetired {
		assert.Falsef(t, listed[code], "%s is listed but dataRetired says: %s", code, why)
	}
	for it := currency.Query(currency.NonTender); it.Next(); {
		code := it.Unit().String()
		if _, retired := dataRetired[code]; !retired {
			assert.Truef(t, listed[code], "%s (in use in %s per CLDR) is not listed", code, it.Region())
		}
	}
}

func TestDataCountriesWellFormed(t *testing.T) {
	t.Parallel()
	countries := dataCountries(t)
	require.Len(t, countries, 249, "ISO 3166-1 has 249 entries")

	currencies := map[string]Currency{}
	for _, c := range dataCurrencies(t) {
		currencies[c.Code] = c
	}
	phone := regexp.MustCompile(`^\+[1-9][0-9]{0,3}$`)
	seen := map[string]bool{}
	once := func(kind, v string) {
		t.Helper()
		assert.Falsef(t, seen[kind+":"+v], "duplicate %s %s", kind, v)
		seen[kind+":"+v] = true
	}
	for _, c := range countries {
		once("alpha2", c.CodeAlpha2)
		once("alpha3", c.CodeAlpha3)
		once("numeric", strconv.Itoa(int(c.CodeNumeric)))
		once("id", c.ID)
		once("name", c.Name)
		assert.Equal(t, CountryID(c.CodeAlpha2), c.ID, c.CodeAlpha2)

		fields := map[string]string{
			"codeAlpha2": c.CodeAlpha2, "codeAlpha3": c.CodeAlpha3, "codePhone": c.CodePhone,
			"name": c.Name, "capital": c.Capital, "currency": c.Currency, "tld": c.Tld,
			"native": c.Native, "region": c.Region, "subregion": c.Subregion,
		}
		for field, v := range fields {
			assert.Equalf(t, strings.TrimSpace(v), v, "%s: %s has surrounding space", c.CodeAlpha2, field)
			if slices.Contains(dataMayBeEmpty[c.CodeAlpha2], field) {
				assert.Emptyf(t, v, "%s: %s is filled: drop it from dataMayBeEmpty", c.CodeAlpha2, field)
			} else {
				assert.NotEmptyf(t, v, "%s: %s is empty", c.CodeAlpha2, field)
			}
		}
		assert.NotContainsf(t, c.Capital, ",", "%s: capital without qualifiers", c.CodeAlpha2)
		if c.CodePhone != "" {
			assert.Regexp(t, phone, c.CodePhone, c.CodeAlpha2)
		}
		if c.Currency != "" {
			cur, ok := currencies[c.Currency]
			if assert.Truef(t, ok, "%s: currency %s is not listed", c.CodeAlpha2, c.Currency) {
				assert.Falsef(t, cur.IsCoin, "%s: currency %s is a coin", c.CodeAlpha2, c.Currency)
			}
		}
		for _, tag := range dataTags(c.Tags) {
			assert.Containsf(t, dataCountryTags, tag, "%s: unknown tag", c.CodeAlpha2)
		}
	}
}

// TestDataCountryCodes checks alpha-2, alpha-3, numeric code and ccTLD
// against x/text's ISO 3166-1 and UN M49 data, and region and subregion
// against its M49 containment.
func TestDataCountryCodes(t *testing.T) {
	t.Parallel()
	for _, c := range dataCountries(t) {
		r, err := language.ParseRegion(c.CodeAlpha2)
		if !assert.NoErrorf(t, err, "%s: not an ISO 3166-1 code", c.CodeAlpha2) {
			continue
		}
		assert.Equal(t, c.CodeAlpha2, r.String())
		assert.Truef(t, r.IsCountry(), "%s: not a country code", c.CodeAlpha2)
		assert.Equalf(t, r.ISO3(), c.CodeAlpha3, "%s: alpha-3", c.CodeAlpha2)
		assert.Equalf(t, r.M49(), int(c.CodeNumeric), "%s: numeric", c.CodeAlpha2)
		if tld, err := r.TLD(); assert.NoError(t, err, c.CodeAlpha2) {
			assert.Equalf(t, "."+strings.ToLower(tld.String()), c.Tld, "%s: tld", c.CodeAlpha2)
		}

		if slices.Contains(dataMayBeEmpty[c.CodeAlpha2], "subregion") {
			continue
		}
		sub, ok := dataSubregions[c.Subregion]
		if !assert.Truef(t, ok, "%s: %q is not a UN M49 subregion", c.CodeAlpha2, c.Subregion) {
			continue
		}
		assert.Equalf(t, sub.region, c.Region, "%s: region of %s", c.CodeAlpha2, c.Subregion)
		group := language.MustParseRegion(sub.m49)
		if slices.Contains(dataOutlying, c.CodeAlpha2) {
			group = language.MustParseRegion("QO")
		}
		assert.Truef(t, group.Contains(r), "%s: not in %s (%s)", c.CodeAlpha2, group, c.Subregion)
	}
}

// TestDataCountryTags checks the membership tags against the size of each
// group and the rules that bind them, so that a typo or a stale membership
// shows. A change of membership is made on purpose, here and in the data.
func TestDataCountryTags(t *testing.T) {
	t.Parallel()
	count := map[string]int{}
	for _, c := range dataCountries(t) {
		tags := dataTags(c.Tags)
		for _, tag := range tags {
			count[tag]++
		}
		has := func(tag string) bool { return slices.Contains(tags, tag) }
		assert.Falsef(t, has("un") && has("territory"), "%s: a UN member is not a territory", c.CodeAlpha2)
		if has("eurozone") {
			assert.Truef(t, has("eu"), "%s: eurozone without eu", c.CodeAlpha2)
			assert.Equalf(t, "EUR", c.Currency, "%s: eurozone without EUR", c.CodeAlpha2)
		}
		if has("eu") && c.Currency == "EUR" {
			assert.Truef(t, has("eurozone"), "%s: EU member paying in EUR without eurozone", c.CodeAlpha2)
		}
		if has("g7") {
			assert.Truef(t, has("g20"), "%s: g7 without g20", c.CodeAlpha2)
		}
	}
	want := map[string]int{
		"un": 193, "eu": 27, "eurozone": 21, "schengen": 29, "g7": 7, "g20": 19,
		"nato": 32, "oecd": 38, "commonwealth": 56, "landlocked": 44,
	}
	for tag, n := range want {
		assert.Equalf(t, n, count[tag], "countries tagged %s", tag)
	}
}

// TestDataCities checks the cities against the countries: each city's
// country is listed, its stateCode carries no country prefix, no city is
// listed twice, and each country's capital is a city of that country tagged
// capital (and no other city is).
func TestDataCities(t *testing.T) {
	t.Parallel()
	countries := map[string]Country{}
	for _, c := range dataCountries(t) {
		countries[c.CodeAlpha2] = c
	}
	cities, err := DefaultCities()
	require.NoError(t, err)
	require.NotEmpty(t, cities)

	state := regexp.MustCompile(`^[A-Z0-9]{1,3}$`)
	seen := map[string]bool{}
	capitals := map[string][]string{} // country -> names of the cities tagged capital
	var problems []string
	for _, c := range cities {
		if _, ok := countries[c.CountryCode]; !ok {
			problems = append(problems, fmt.Sprintf("%s %q: country is not listed", c.CountryCode, c.Name))
		}
		if c.Name == "" || strings.TrimSpace(c.Name) != c.Name {
			problems = append(problems, fmt.Sprintf("%s %q: bad name", c.CountryCode, c.Name))
		}
		if c.StateCode != "" && !state.MatchString(c.StateCode) {
			problems = append(problems, fmt.Sprintf("%s %q: stateCode %q is not an ISO 3166-2 suffix", c.CountryCode, c.Name, c.StateCode))
		}
		key := c.CountryCode + "|" + c.StateCode + "|" + c.Name
		if seen[key] {
			problems = append(problems, fmt.Sprintf("%s %s %q: listed twice", c.CountryCode, c.StateCode, c.Name))
		}
		seen[key] = true
		if slices.Contains(dataTags(c.Tags), "capital") {
			capitals[c.CountryCode] = append(capitals[c.CountryCode], c.Name)
		}
	}
	assert.Empty(t, problems, "cities:\n%s", strings.Join(problems, "\n"))

	var mismatch []string
	for _, c := range dataCountries(t) {
		got := capitals[c.CodeAlpha2]
		switch {
		case c.Capital == "" && len(got) > 0:
			mismatch = append(mismatch, fmt.Sprintf("%s: no capital, but cities tagged capital: %q", c.CodeAlpha2, got))
		case c.Capital == "":
		case len(got) == 0:
			mismatch = append(mismatch, fmt.Sprintf("%s: capital %q: no city tagged capital", c.CodeAlpha2, c.Capital))
		case len(got) > 1 || got[0] != c.Capital:
			mismatch = append(mismatch, fmt.Sprintf("%s: capital %q: cities tagged capital: %q", c.CodeAlpha2, c.Capital, got))
		}
	}
	assert.Empty(t, mismatch, "capitals:\n%s", strings.Join(mismatch, "\n"))
}

// dataCurrencyChanged lists the countries whose currency differs from the
// one CLDR 32 gives them, with the reason.
var dataCurrencyChanged = map[string]string{
	"BG": "EUR since 2026-01-01",
	"HR": "EUR since 2023-01-01",
	"CW": "XCG replaced ANG in 2025",
	"SX": "XCG replaced ANG in 2025",
	"MR": "MRU replaced MRO in 2018",
	"SL": "SLE replaced SLL in 2022",
	"VE": "VES replaced VEF in 2018",
	"ZW": "ZWG since 2024; CLDR 32 gives USD",
	"LS": "LSL and ZAR are both tender; CLDR 32 lists ZAR first",
}

// TestDataCountryCurrencies checks each country's currency against CLDR's
// current legal tender of that region, except where dataCurrencyChanged
// says why not.
func TestDataCountryCurrencies(t *testing.T) {
	t.Parallel()
	for _, c := range dataCountries(t) {
		want := ""
		if u, ok := currency.FromRegion(language.MustParseRegion(c.CodeAlpha2)); ok {
			want = u.String()
		}
		if why, ok := dataCurrencyChanged[c.CodeAlpha2]; ok {
			assert.NotEqualf(t, want, c.Currency, "%s: x/text agrees now (%s): drop the exception", c.CodeAlpha2, why)
			continue
		}
		assert.Equalf(t, want, c.Currency, "%s: currency", c.CodeAlpha2)
	}
}

// dataSubdivisionsAdded lists the codes of data/subdivisions.csv that its
// source (CLDR) does not hold, does not name, or names by an old name, with
// the reason. The file
// marks them with a note; refdata/internal/gensubdivisions adds them.
var dataSubdivisionsAdded = map[string]string{
	"NO-31": "Østfold, a county again since 2024-01-01 (Viken, NO-30, divided)",
	"NO-32": "Akershus, a county again since 2024-01-01 (Viken, NO-30, divided)",
	"NO-33": "Buskerud, a county again since 2024-01-01 (Viken, NO-30, divided)",
	"NO-39": "Vestfold, a county again since 2024-01-01 (Vestfold og Telemark, NO-38, divided)",
	"NO-40": "Telemark, a county again since 2024-01-01 (Vestfold og Telemark, NO-38, divided)",
	"NO-55": "Troms, a county again since 2024-01-01 (Troms og Finnmark, NO-54, divided)",
	"NO-56": "Finnmark, a county again since 2024-01-01 (Troms og Finnmark, NO-54, divided)",
	"CN-NM": "Inner Mongolia, named in no locale of CLDR 48",
	"NP-P1": "Koshi, named 2023-03-01; CLDR 48 still says Province 1",
	"NP-P2": "Madhesh, named 2022-01-17; CLDR 48 still says Province 2",
	"NP-P3": "Bagmati, named 2020-01-12; CLDR 48 still says Province 3",
	"NP-P5": "Lumbini, named 2020-10-06; CLDR 48 still says Province 5",
	"NP-P7": "Sudurpashchim, named 2018-09-28; CLDR 48 still says Province 7",
}

// dataSubdivisionsDissolved lists codes still on the list (ISO 3166-2 has
// not withdrawn them) whose subdivision no longer exists: no embedded city
// may use them.
var dataSubdivisionsDissolved = []string{"NO-30", "NO-38", "NO-54"}

// TestDataSubdivisions checks data/subdivisions.csv: its header names the
// source and the date of the conversion; rows are unique, sorted by country
// and code, of listed countries, and their parents are listed; the rows not
// from the source are exactly dataSubdivisionsAdded; and the changes of
// ISO 3166-2 since 2017 that the cities depend on are in.
func TestDataSubdivisions(t *testing.T) {
	t.Parallel()
	raw, err := data.ReadFile("data/subdivisions.csv")
	require.NoError(t, err)
	text := string(raw)
	assert.Regexp(t, `(?m)^# Source: Unicode CLDR \d+ \(cldr-json \d+\.\d+\.\d+: .*https://github\.com/unicode-org/cldr-json$`, text)
	assert.Regexp(t, `(?m)^#   Copyright © 2004-\d{4} Unicode, Inc\.; under the Unicode License v3 \(refdata/data/LICENSE-CLDR\)\.$`, text)
	assert.Regexp(t, `(?m)^# Converted: \d{4}-\d{2}-\d{2} by refdata/internal/gensubdivisions\.$`, text)

	countries := map[string]bool{}
	for _, c := range dataCountries(t) {
		countries[c.CodeAlpha2] = true
	}
	cr := csv.NewReader(strings.NewReader(text))
	cr.Comment = '#'
	recs, err := cr.ReadAll()
	require.NoError(t, err)
	require.Equal(t, subdivisionColumns, recs[0])
	recs = recs[1:]
	require.Greater(t, len(recs), 5000, "every level of every country")

	code := regexp.MustCompile(`^[A-Z0-9]{1,3}$`)
	listed := map[string]bool{}
	for _, r := range recs {
		listed[r[0]+"-"+r[1]] = true
	}
	added := map[string]string{}
	var problems []string
	for i, r := range recs {
		full := r[0] + "-" + r[1]
		if !countries[r[0]] {
			problems = append(problems, full+": country is not listed")
		}
		if !code.MatchString(r[1]) {
			problems = append(problems, full+": code is not 1 to 3 letters and digits")
		}
		if r[2] == "" || strings.TrimSpace(r[2]) != r[2] {
			problems = append(problems, full+": bad name")
		}
		if r[3] != "" && !listed[r[0]+"-"+r[3]] {
			problems = append(problems, full+": parent "+r[3]+" is not listed")
		}
		if i > 0 && (recs[i-1][0] > r[0] || recs[i-1][0] == r[0] && recs[i-1][1] >= r[1]) {
			problems = append(problems, full+": out of order or listed twice")
		}
		if r[4] != "" {
			added[full] = r[4]
		}
	}
	assert.Empty(t, problems, "subdivisions:\n%s", strings.Join(problems, "\n"))
	assert.ElementsMatch(t, slices.Collect(maps.Keys(dataSubdivisionsAdded)), slices.Collect(maps.Keys(added)),
		"the rows with a note are the listed additions")

	set, err := subdivisions()
	require.NoError(t, err)
	assert.Len(t, set, len(recs), "the embedded set holds every row")
	for _, c := range []string{
		"GT-01", "GT-22", "IN-CG", "IN-OD", "IN-TS", "IN-UK", "FR-20R", "FR-2A", "FR-2B",
		"EE-37", "EE-39", "EE-45", "EE-50", "EE-52", "EE-56", "EE-60", "EE-64", "EE-68", "EE-71", "EE-74",
		"EE-79", "EE-81", "EE-84", "EE-87", "EE-793", // Tartu, urban municipality
		"KZ-10", "KZ-33", "KZ-62", "KZ-71", "KZ-75", "KZ-79", // 2022: numeric codes, Abai, Zhetysu, Ulytau
		"ID-PD", "ID-PE", "ID-PS", "ID-PT", "ET-SI", "ET-SW",
		"NO-03", "NO-11", "NO-15", "NO-18", "NO-31", "NO-32", "NO-33", "NO-34", "NO-39", "NO-40", "NO-42",
		"NO-46", "NO-50", "NO-55", "NO-56",
	} {
		cc, sc, _ := strings.Cut(c, "-")
		assert.Truef(t, set[subdivisionKey{cc, sc}], "%s is listed", c)
	}
	for _, c := range []string{
		"GT-GU", "GT-AV", "IN-CT", "IN-OR", "IN-TG", "IN-UT", "FR-COR", "EE-44", "EE-78", "EE-86",
		"KZ-AST", "KZ-ALA", "KZ-SHY", "NO-01", "NO-19",
	} {
		cc, sc, _ := strings.Cut(c, "-")
		assert.Falsef(t, set[subdivisionKey{cc, sc}], "%s was replaced: not listed", c)
	}
}

// TestDataCityStateCodes checks that every embedded city's stateCode is an
// ISO 3166-2 code of its country on data/subdivisions.csv, and not the code
// of a dissolved subdivision.
func TestDataCityStateCodes(t *testing.T) {
	t.Parallel()
	set, err := subdivisions()
	require.NoError(t, err)
	cities, err := DefaultCities()
	require.NoError(t, err)
	var problems []string
	for _, c := range cities {
		full := c.CountryCode + "-" + c.StateCode
		switch {
		case c.StateCode == "":
		case !set[subdivisionKey{c.CountryCode, c.StateCode}]:
			problems = append(problems, fmt.Sprintf("%s %q: stateCode %s is not on the ISO 3166-2 list", c.CountryCode, c.Name, full))
		case slices.Contains(dataSubdivisionsDissolved, full):
			problems = append(problems, fmt.Sprintf("%s %q: stateCode %s names a dissolved subdivision", c.CountryCode, c.Name, full))
		}
	}
	assert.Empty(t, problems, "cities:\n%s", strings.Join(problems, "\n"))
}
