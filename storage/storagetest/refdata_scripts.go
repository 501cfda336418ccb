package storagetest

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/storage"
)

// shortNameCities are test cities (in XC, another user-assigned code) whose
// names hold accented, ligature and non-Latin letters, for the Name filter
// of one or two runes.
var shortNameCities = []refdata.City{
	{CountryCode: "XC", StateCode: "ZH", Name: "Zürich", Tags: "capital"},
	{CountryCode: "XC", StateCode: "ZG", Name: "Zug"},
	{CountryCode: "XC", StateCode: "13", Name: "東京", Tags: "capital"},
	{CountryCode: "XC", StateCode: "26", Name: "京都"},
	{CountryCode: "XC", StateCode: "27", Name: "東大阪"},
	{CountryCode: "XC", StateCode: "BY", Name: "Straße"},
	{CountryCode: "XC", StateCode: "LD", Name: "Łódź"},
	{CountryCode: "XC", StateCode: "82", Name: "Ærøskøbing", Tags: "port"},
	{CountryCode: "XC", StateCode: "I", Name: "Αθήνα", Tags: "capital"},
	{CountryCode: "XC", StateCode: "B", Name: "Θεσσαλονίκη", Tags: "port"},
	{CountryCode: "XC", StateCode: "MOW", Name: "Москва"},
	{CountryCode: "XC", StateCode: "", Name: "N'Djamena"},
	{CountryCode: "XC", StateCode: "42", Name: "Saint-Étienne"},
	{CountryCode: "XC", StateCode: "SP", Name: "São Paulo", Tags: "port"},
}

// scriptCities are test cities (in XD, another user-assigned code) whose
// names and tags are words of scripts that write combining marks inside
// words (Devanagari, Tamil, Bengali, Khmer, Myanmar, Sinhala), and a name
// with an enclosing mark (U+20DD), for the Keywords filter.
var scriptCities = []refdata.City{
	{CountryCode: "XD", StateCode: "NP", Name: "काठमाडौं", Tags: "नेपाल"},
	{CountryCode: "XD", StateCode: "TN", Name: "சென்னை", Tags: "தமிழ்"},
	{CountryCode: "XD", StateCode: "BD", Name: "ঢাকা"},
	{CountryCode: "XD", StateCode: "KH", Name: "ភ្នំពេញ"},
	{CountryCode: "XD", StateCode: "MM", Name: "ရန်ကုန်"},
	{CountryCode: "XD", StateCode: "LK", Name: "කොළඹ"},
	{CountryCode: "XD", StateCode: "XX", Name: "x\u20ddville"},
}

// scriptKeywords are Keywords values whose words hold combining marks
// (spacing, enclosing) or are a mark alone: each is one word, which a
// store must not split.
var scriptKeywords = []string{
	"नेपाल", "नेपा", "काठमाडौं", "தமிழ்", "தமி", "த", "சென்னை", "சென", "ঢাকা", "ঢা", "ភ្នំពេញ", "ភ្នំ",
	"ရန်ကုန်", "ရန်", "කොළඹ", "කො", "x\u20dd", "x\u20ddv", "x", "\u0dd9", "\u20dd", "नेपाल xd", "tn தமிழ்",
}

// shortNames are the names of XC cities a Name of one or two runes finds:
// folded (accents, case, ß → ss, æ → ae, ł → l), whatever the script.
var shortNames = []struct {
	name string
	want []string // in insertion order
}{
	{"ü", []string{"ZÜRICH", "Zug", "São Paulo"}},
	{"zü", []string{"ZÜRICH", "Zug"}},
	{"Zu", []string{"ZÜRICH", "Zug"}},
	{"東", []string{"東京", "東大阪"}},
	{"京", []string{"東京", "京都"}},
	{"東京", []string{"東京"}},
	{"ß", []string{"Straße"}},
	{"SS", []string{"Straße"}},
	{"Æ", []string{"Ærøskøbing"}},
	{"ł", []string{"Łódź", "São Paulo"}},
	{"dz", []string{"Łódź"}},
	{"Θ", []string{"Αθήνα", "Θεσσαλονίκη"}},
	{"ΣΣ", []string{"Θεσσαλονίκη"}},
	{"ή", []string{"Αθήνα", "Θεσσαλονίκη"}},
	{"мо", []string{"Москва"}},
	{"'", []string{"N'Djamena"}},
	{"n'", []string{"N'Djamena"}},
	{"-", []string{"Saint-Étienne"}},
	{"t-", []string{"Saint-Étienne"}},
	{"ÃO", []string{"São Paulo"}},
	{"ã", []string{"Straße", "Ærøskøbing", "N'Djamena", "Saint-Étienne", "São Paulo"}}, // not Greek α
	{"q", []string{}},
	{"ж", []string{}},
}

// shortNameQueries returns the queries testCityShortNames asks with Name
// name: with a country, alone, with a state, with Keywords, with every
// sort, and paged.
func shortNameQueries(name *string) []refdata.CityQuery {
	return []refdata.CityQuery{
		{Name: name, CountryCode: refPtr("XC")},
		{Name: name},
		{Name: name, StateCode: refPtr("13")},
		{Name: name, Keywords: refPtr("xc")},
		{Name: name, Keywords: refPtr("capital")},
		{Name: name, SortDataField: refPtr("name"), SortOrder: refPtr("desc"), Page: refdata.Paging{Number: 1, Size: 7}},
		{Name: name, SortDataField: refPtr("tags")},
		{Name: name, SortDataField: refPtr("stateCode"), Page: refdata.Paging{Number: 2, Size: 50}},
		{Name: name, SortOrder: refPtr("desc"), Page: refdata.Paging{Number: 3, Size: 20}},
	}
}

// testCityShortNames checks Name filters of one or two runes, in any
// script, against the reference implementation, alone and with every other
// filter, sort and page.
func testCityShortNames(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	ctx := t.Context()
	_, err := s.UpsertCities(ctx, shortNameCities)
	require.NoError(t, err)
	// Again, and renamed with the same folded name: nothing is added,
	// so no total moves.
	_, err = s.UpsertCities(ctx, shortNameCities)
	require.NoError(t, err)
	renamed := refdata.City{CountryCode: "XC", StateCode: "13", Name: "東京", Tags: "capital, metropolis"}
	added, err := s.UpsertCities(ctx, []refdata.City{renamed, {CountryCode: "XC", StateCode: "ZH", Name: "ZÜRICH"}})
	require.NoError(t, err)
	require.Zero(t, added)
	all := newReference(t, nil, nil, slices.Concat(shortNameCities,
		[]refdata.City{renamed, {CountryCode: "XC", StateCode: "ZH", Name: "ZÜRICH"}})).cities

	for _, sc := range shortNames {
		for _, q := range shortNameQueries(&sc.name) {
			f := cityFilter(t, q)
			assertAsReference(t, lists(s).ListCities, all, f, "%+v", f)
		}
		got, _, err := lists(s).ListCities(ctx, cityFilter(t, refdata.CityQuery{Name: &sc.name, CountryCode: refPtr("XC")}))
		require.NoError(t, err)
		assert.Equal(t, sc.want, codesOf(got, cityName), "Name=%s", sc.name)
	}
}

// testKeywordsAnyScript checks Keywords in scripts with combining marks:
// every default country by its own names, every script city by its own
// name, and scriptKeywords against the reference implementation.
func testKeywordsAnyScript(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	ctx := t.Context()
	_, err := s.UpsertCities(ctx, scriptCities)
	require.NoError(t, err)
	require.NoError(t, s.UpsertCurrencies(ctx, testCurrencies))
	assertCountriesByOwnNames(t, s)
	for _, c := range scriptCities {
		kw := c.Name + " " + c.Tags
		f := cityFilter(t, refdata.CityQuery{Keywords: &kw})
		got, _, err := lists(s).ListCities(ctx, f)
		require.NoError(t, err, "Keywords=%s", kw)
		assert.Equal(t, []refdata.City{c}, got, "a city is found by its own name: Keywords=%s", kw)
	}
	ref := newReference(t, testCurrencies, nil, scriptCities)
	for _, kw := range scriptKeywords {
		assertScriptKeyword(t, s, ref, kw)
	}
}

// assertCountriesByOwnNames checks that every default country is found by
// the words of its native name and of its name, in whatever script, as the
// reference finds it.
func assertCountriesByOwnNames(t *testing.T, s storage.Storage) {
	t.Helper()
	defaults := defaultsOf(t, refdata.DefaultCountries)
	countries := newReference(t, nil, nil, nil).countries
	for _, c := range defaults {
		for _, kw := range []string{c.Native, c.Name} {
			f := countryFilter(t, refdata.CountryQuery{Keywords: &kw})
			got := assertAsReference(t, lists(s).ListCountries, countries, f, "Keywords=%s", kw)
			assert.Contains(t, codesOf(got, func(c refdata.Country) string { return c.CodeAlpha2 }), c.CodeAlpha2, "Keywords=%s", kw)
		}
	}
}

// assertScriptKeyword checks that s answers Keywords kw (one of
// scriptKeywords) over cities (alone and with other filters), countries
// and currencies as ref does.
func assertScriptKeyword(t *testing.T, s storage.Storage, ref reference, kw string) {
	t.Helper()
	for _, q := range []refdata.CityQuery{
		{Keywords: &kw},
		{Keywords: &kw, CountryCode: refPtr("XD")},
		{Keywords: &kw, Name: refPtr("x")},
		{Keywords: &kw, SortDataField: refPtr("name")},
	} {
		f := cityFilter(t, q)
		assertAsReference(t, lists(s).ListCities, ref.cities, f, "%+v", f)
	}
	assertAsReference(t, lists(s).ListCountries, ref.countries, countryFilter(t, refdata.CountryQuery{Keywords: &kw}), "Keywords=%s", kw)
	assertAsReference(t, lists(s).ListCurrencies, ref.currencies, currencyFilter(t, refdata.CurrencyQuery{Keywords: &kw}), "Keywords=%s", kw)
}

// cityName returns c's name.
func cityName(c refdata.City) string { return c.Name }
