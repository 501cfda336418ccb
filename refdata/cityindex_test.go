package refdata_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/internal/refrows"
	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/refdata/refdatatest"

	"github.com/brandbase/brandbase/internal/textfold"
)

// TestCodesAndShortName checks code filters with more than a few cities,
// with a short Name or alone (answered by the code's posting list itself),
// against the reference, in several orders and pages.
func TestCodesAndShortName(t *testing.T) {
	t.Parallel()
	cities := refdatatest.Cities(20_000, 5)
	idx := refdata.Of(cities)
	for _, q := range []refdata.CityQuery{
		{CountryCode: ptr("BR"), Name: ptr("a")},
		{CountryCode: ptr("FR"), Name: ptr("zü"), SortDataField: ptr("name")},
		{CountryCode: ptr("US"), StateCode: ptr("AA"), Name: ptr("an")},
		{StateCode: ptr("BH"), Name: ptr("sé"), SortDataField: ptr("tags"), SortOrder: ptr("desc")},
		{CountryCode: ptr("DE"), Name: ptr("ber"), Page: refdata.Paging{Number: 1, Size: 5}},
		{CountryCode: ptr("DE"), Name: ptr("ra"), Keywords: ptr("b")},
		{CountryCode: ptr("JP"), SortDataField: ptr("stateCode"), Page: refdata.Paging{Number: 7, Size: 50}},
		{CountryCode: ptr("JP"), SortOrder: ptr("desc"), Page: refdata.Paging{Number: 2, Size: 50}},
		// A country's cities in another order (cityOrder.byCountry).
		{CountryCode: ptr("BR"), SortDataField: ptr("name"), SortOrder: ptr("desc"), Page: refdata.Paging{Number: 3, Size: 50}},
		{CountryCode: ptr("FR"), SortDataField: ptr("countryCode"), SortOrder: ptr("desc"), Page: refdata.Paging{Number: 2, Size: 50}},
		{CountryCode: ptr("US"), SortDataField: ptr("tags"), Page: refdata.Paging{Number: 1, Size: 50}},
		// Name postings intersected with a code's (merged or galloped).
		{CountryCode: ptr("DE"), Name: ptr("an"), SortDataField: ptr("name"), Page: refdata.Paging{Number: 1, Size: 50}},
		{CountryCode: ptr("US"), StateCode: ptr("AA"), Name: ptr("ros")},
		{CountryCode: ptr("BR"), Name: ptr("münl"), SortDataField: ptr("stateCode")},
	} {
		total := assertListsAsReference(t, idx, cities, q)
		assert.Positive(t, total, "%+v matches some", q)
	}
}

// TestLongKeywords checks Keywords terms longer than a prefix key
// (answered by the table of whole words, with no check of the cities),
// alone, with short terms and codes, and after cities' tags changed,
// against the reference.
func TestLongKeywords(t *testing.T) {
	t.Parallel()
	cities := refdatatest.Cities(20_000, 5)
	queries := []refdata.CityQuery{
		{Keywords: ptr("münl")},
		{Keywords: ptr("munlake")},
		{Keywords: ptr("krörhenham münlake")},
		{Keywords: ptr("ie sysjönhus"), SortDataField: ptr("name")},
		{Keywords: ptr("jurt br"), Page: refdata.Paging{Number: 1, Size: 20}},
		{Keywords: ptr("grãrnur"), CountryCode: ptr("BR")},
		{Keywords: ptr("starsinplöx")},
		{Keywords: ptr("harbour")},
	}
	idx := refdata.Of(cities)
	check := func(t *testing.T, cities []refdata.City) {
		for _, q := range queries {
			assertListsAsReference(t, idx, cities, q)
		}
	}
	check(t, cities)
	// New tags on some cities (their words indexed for them); new cities
	// with long words.
	changed := slices.Clone(cities)
	for i := 0; i < len(changed); i += 50 {
		c := changed[i]
		c.Tags = "harbour,münlakeside"
		idx.Upsert(c)
		changed[i].Tags = refrows.MergeTags(changed[i].Tags, c.Tags)
	}
	added := refdata.City{CountryCode: "BR", StateCode: "XF", Name: "Grãrnur Harbourview"}
	idx.Upsert(added)
	idx.FinishBatch()
	check(t, append(changed, added))
}

// TestNameInCountryAfterUpsert checks a Name within a country (answered
// through the country's set of cities, built with the first such query)
// before and after cities are added to the country and to another, against
// the reference.
func TestNameInCountryAfterUpsert(t *testing.T) {
	t.Parallel()
	cities := refdatatest.Cities(20_000, 9)
	idx := refdata.Of(cities)
	queries := []refdata.CityQuery{
		{CountryCode: ptr("DE"), Name: ptr("berg"), SortDataField: ptr("name")},
		{CountryCode: ptr("DE"), Name: ptr("ber")},
		{CountryCode: ptr("FR"), Name: ptr("an"), Page: refdata.Paging{Number: 2, Size: 20}},
	}
	check := func() {
		t.Helper()
		for _, q := range queries {
			assertListsAsReference(t, idx, cities, q)
		}
	}
	check()
	added := []refdata.City{
		{CountryCode: "DE", StateCode: "BE", Name: "Zuberg"},
		{CountryCode: "FR", StateCode: "75", Name: "Anberg"},
		{CountryCode: "ZZ", StateCode: "AA", Name: "Berganland"}, // a country new to the index
	}
	for _, c := range added {
		assert.True(t, idx.Upsert(c))
	}
	idx.FinishBatch()
	cities = append(cities, added...)
	queries = append(queries, refdata.CityQuery{CountryCode: ptr("ZZ"), Name: ptr("erg")})
	check()
}

// TestLongNames checks Names of four runes and more (candidates hold two
// of their trigrams, then are checked for the whole), among names that
// hold every trigram of the needle but not the needle, against the
// reference.
func TestLongNames(t *testing.T) {
	t.Parallel()
	cities := append(refdatatest.Cities(5_000, 11),
		refdata.City{CountryCode: "XA", StateCode: "AA", Name: "Abcd"},
		refdata.City{CountryCode: "XA", StateCode: "AA", Name: "Abcxbcd"},
		refdata.City{CountryCode: "XA", StateCode: "AB", Name: "Bcdeabc"},
		refdata.City{CountryCode: "XA", StateCode: "AB", Name: "Abcdxcdef Bcde"},
		refdata.City{CountryCode: "XB", StateCode: "AA", Name: "Abcdef"},
	)
	idx := refdata.Of(cities)
	names := []string{"abcd", "bcde", "abcdef", "bcdef", "cdxcd"}
	for i, c := range cities[:5_000] {
		if rs := []rune(textfold.Fold(c.Name)); i%199 == 0 && len(rs) >= 4 {
			n := 4 + i%4
			names = append(names, string(rs[max(0, len(rs)-n):]))
		}
	}
	for _, name := range names {
		for _, q := range []refdata.CityQuery{
			{Name: ptr(name)},
			{Name: ptr(name), CountryCode: ptr("XA"), SortDataField: ptr("name")},
			{Name: ptr(name), StateCode: ptr("AA"), SortOrder: ptr("desc")},
		} {
			assertListsAsReference(t, idx, cities, q)
		}
	}
}

// assertListsAsReference checks that idx answers q as the reference
// (refdata.SelectCities over cities) does, and returns the total.
func assertListsAsReference(t *testing.T, idx *refdata.CityIndex, cities []refdata.City, q refdata.CityQuery) int {
	t.Helper()
	f := cityFilter(t, q)
	want, wantTotal := refdata.SelectCities(cities, f)
	got, total := idx.List(f)
	assert.Equal(t, wantTotal, total, "%+v", f)
	assert.Equal(t, want, got, "%+v", f)
	return total
}

// TestKeywordsTermsBuiltByHand checks Keywords terms that textfold.Words
// never gives (a filter built by hand; moved here from SQLite's tests,
// where it checked the FTS5 queries): the index answers as the reference
// does: a term with a space, punctuation, a quote, NUL or upper case
// matches nothing, "" every record, Nothing no record.
func TestKeywordsTermsBuiltByHand(t *testing.T) {
	t.Parallel()
	cities, err := refdata.DefaultCities()
	require.NoError(t, err)
	cities = refdata.DedupCities(cities)
	countries, err := refdata.DefaultCountries()
	require.NoError(t, err)
	currencies, err := refdata.DefaultCurrencies()
	require.NoError(t, err)
	countryTable, currencyTable := refdata.NewCountryTable(countries), refdata.NewCurrencyTable(currencies)
	idx := refdata.Of(cities)

	for _, sc := range []struct {
		terms   []string
		nothing bool
	}{
		{terms: []string{"sao paulo"}}, {terms: []string{"new", "yo rk"}}, {terms: []string{"a-b"}},
		{terms: []string{"Sao"}}, {terms: []string{"SAN"}}, {terms: []string{"x\x00"}}, {terms: []string{`"*`}},
		{terms: []string{"x\u20dd v"}}, {terms: []string{"நே பாளம்"}}, {terms: []string{""}},
		{terms: []string{"", "sao"}}, {terms: []string{"sao", ""}}, {nothing: true}, {terms: []string{"sao"}, nothing: true},
	} {
		name := fmt.Sprintf("%q nothing=%v", sc.terms, sc.nothing)
		for _, sort := range []refdata.Field{refdata.FieldID, refdata.FieldName} {
			cf := refdata.CityFilter{Keywords: sc.terms, Nothing: sc.nothing, Sort: sort, Page: refdata.Paging{Size: 50}}
			got, total := idx.List(cf)
			want, wantTotal := refdata.SelectCities(cities, cf)
			assert.Equal(t, wantTotal, total, name)
			assert.Equal(t, want, got, name)
			cf.CountryCode = "BR"
			got, total = idx.List(cf)
			want, wantTotal = refdata.SelectCities(cities, cf)
			assert.Equal(t, wantTotal, total, name)
			assert.Equal(t, want, got, name)

			kf := refdata.CountryFilter{Keywords: sc.terms, Nothing: sc.nothing, Sort: sort, Page: refdata.Paging{Size: 50}}
			gotCountries, total := countryTable.List(kf)
			for _, c := range gotCountries {
				assert.True(t, kf.Match(c), name)
			}
			assert.Equal(t, countMatches(countries, kf.Match), total, name)
			uf := refdata.CurrencyFilter{Keywords: sc.terms, Nothing: sc.nothing, Sort: sort, Page: refdata.Paging{Size: 50}}
			gotCurrencies, total := currencyTable.List(uf)
			for _, c := range gotCurrencies {
				assert.True(t, uf.Match(c), name)
			}
			assert.Equal(t, countMatches(currencies, uf.Match), total, name)
		}
	}
}

// countMatches returns how many of recs match.
func countMatches[T any](recs []T, match func(T) bool) int {
	n := 0
	for _, r := range recs {
		if match(r) {
			n++
		}
	}
	return n
}
