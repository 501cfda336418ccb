package storagetest

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/internal/refrows"
	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/refdata/refdatatest"
	"github.com/brandbase/brandbase/storage/internal/sqlstore"
)

// testCityFilters checks the city filters and sorts against the reference
// implementation and the test cities, in order.
func testCityFilters(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	added, err := s.UpsertCities(t.Context(), testCities)
	require.NoError(t, err)
	require.Equal(t, len(testCities), added)
	scenarios := []struct {
		name string
		q    refdata.CityQuery
		want []string // names of the test cities (XA, XB) in the answer, in order
	}{
		{"country code, case-insensitive", refdata.CityQuery{CountryCode: refPtr("xb")}, []string{"Zürich-Zeta", "N'Zetamena"}},
		{"country and state", refdata.CityQuery{CountryCode: refPtr("XA"), StateCode: refPtr("sp")}, []string{"São Zétaville", "Santo Zeta"}},
		{"state alone", refdata.CityQuery{StateCode: refPtr("ZH")}, []string{"Zürich-Zeta"}},
		{"name substring accent-insensitive", refdata.CityQuery{CountryCode: refPtr("XA"), Name: refPtr("ZETA")}, []string{"São Zétaville", "Zeta Port", "Santo Zeta"}},
		{"name substring across words", refdata.CityQuery{Name: refPtr("o zétav")}, []string{"São Zétaville"}},
		{"name of two letters", refdata.CityQuery{CountryCode: refPtr("XB"), Name: refPtr("ÜR")}, []string{"Zürich-Zeta"}},
		{"keywords: sao finds São", refdata.CityQuery{Keywords: refPtr("sao zet")}, []string{"São Zétaville"}},
		{"keywords: word after punctuation", refdata.CityQuery{Keywords: refPtr("zetam")}, []string{"N'Zetamena"}},
		{"keywords: codes and tags", refdata.CityQuery{Keywords: refPtr("xa capital")}, []string{"São Zétaville"}},
		{"keywords: state code", refdata.CityQuery{Keywords: refPtr("zh zeta")}, []string{"Zürich-Zeta"}},
		{"keywords: every word must match", refdata.CityQuery{Keywords: refPtr("sao port xb")}, []string{}},
		{"keywords: prefixes, not infixes", refdata.CityQuery{Keywords: refPtr("etav")}, []string{}},
		{"sorted by name descending", refdata.CityQuery{CountryCode: refPtr("XA"), SortDataField: refPtr("NAME"), SortOrder: refPtr("desc")},
			[]string{"Zeta Port", "São Zétaville", "Santo Zeta"}},
		{"sorted by state, ties by insertion", refdata.CityQuery{CountryCode: refPtr("XA"), SortDataField: refPtr("stateCode")},
			[]string{"Zeta Port", "São Zétaville", "Santo Zeta"}},
	}
	oracle := newReference(t, nil, nil, testCities).cities
	for _, sc := range scenarios {
		got := assertAsReference(t, lists(s).ListCities, oracle, cityFilter(t, sc.q), sc.name)
		names := []string{}
		for _, c := range got {
			if c.CountryCode == "XA" || c.CountryCode == "XB" {
				names = append(names, c.Name)
			}
		}
		assert.Equal(t, sc.want, names, sc.name)
	}
}

// testPaging checks that pages neither overlap nor skip, that totals are of
// the whole query and that a page past the end is empty.
func testPaging(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	ctx := t.Context()
	own := map[string]refdata.City{} // generated cities moved to the test countries
	for i, c := range refdatatest.Cities(80, 7) {
		c.CountryCode = []string{"XA", "XB"}[i%2]
		own[refrows.CityKey(c.CountryCode, c.StateCode, c.Name)] = c
	}
	var cities []refdata.City
	for _, c := range own {
		cities = append(cities, c)
	}
	_, err := s.UpsertCities(ctx, cities)
	require.NoError(t, err)
	for _, sortBy := range []string{"id", "name", "stateCode"} {
		for _, order := range []string{"asc", "desc"} {
			base := refdata.CityQuery{Keywords: refPtr("x"), SortDataField: &sortBy, SortOrder: &order}
			all, total, err := lists(s).ListCities(ctx, cityFilter(t, withPage(base, 0, refdata.MaxPageSize)))
			require.NoError(t, err)
			require.Equal(t, len(all), total)
			require.Greater(t, total, 7)
			var paged []refdata.City
			for n := 0; ; n++ {
				page, pt, err := lists(s).ListCities(ctx, cityFilter(t, withPage(base, n, 7)))
				require.NoError(t, err)
				assert.Equal(t, total, pt, "total is of the whole query")
				if len(page) == 0 {
					assert.Equal(t, (total+6)/7, n, "the first empty page is the one past the end")
					break
				}
				assert.LessOrEqual(t, len(page), 7)
				paged = append(paged, page...)
			}
			assert.Equal(t, all, paged, "pages neither overlap nor skip (%s %s)", sortBy, order)
		}
	}
	got, total, err := lists(s).ListCurrencies(ctx, currencyFilter(t, refdata.CurrencyQuery{Page: refdata.Paging{Number: 1 << 20, Size: 5}}))
	require.NoError(t, err)
	assert.Empty(t, got, "a page past the end is empty")
	assert.Positive(t, total)
	_, total2, err := lists(s).ListCurrencies(ctx, currencyFilter(t, refdata.CurrencyQuery{Page: refdata.Paging{Size: 1}}))
	require.NoError(t, err)
	assert.Equal(t, total, total2)
}

// testCitiesAgainstReference checks random city queries over generated
// cities against the reference implementation.
func testCitiesAgainstReference(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	ctx := t.Context()
	generated := refdatatest.Cities(1500, 42)
	_, err := s.UpsertCities(ctx, generated)
	require.NoError(t, err)
	all := newReference(t, nil, nil, generated).cities
	r := rand.New(rand.NewPCG(1, 2))
	pick := func(options ...string) *string {
		if r.IntN(3) == 0 {
			return nil
		}
		return refPtr(options[r.IntN(len(options))])
	}
	for i := range 150 {
		q := refdata.CityQuery{
			CountryCode:   pick("us", "BR", "fr", "XX"),
			StateCode:     pick("AA", "bh", "07", "12"),
			Name:          pick("san", "o", "SÃO", "ville", "mü", "ber lin", "zz", "ü", "zü", "a", "r", "東"),
			Keywords:      pick("sao", "jo ber", "port", "c", "capital", "new yo", "br", "lodz", "zuri"),
			SortDataField: pick("id", "name", "countryCode", "stateCode", "tags"),
			SortOrder:     pick("asc", "DESC"),
			Page:          refdata.Paging{Number: r.IntN(3), Size: []int{5, 50, 1000}[r.IntN(3)]},
		}
		f := cityFilter(t, q)
		got, total, err := lists(s).ListCities(ctx, f)
		require.NoError(t, err)
		want, wantTotal := all(f)
		require.Equal(t, wantTotal, total, "query %d: %+v", i, f)
		require.Equal(t, want, got, "query %d: %+v", i, f)
	}
}

// testUpsertCities checks that UpsertCities adds new cities at the end,
// updates a known one in place (its name replaced, its tags added to the
// stored ones; search and sort included), moves the
// revision and affects no other store.
func testUpsertCities(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	ctx := t.Context()
	before := allCities(t, s)
	require.Equal(t, sqlstore.DedupCities(defaultsOf(t, refdata.DefaultCities)), before)
	added, err := s.UpsertCities(ctx, testCities)
	require.NoError(t, err)
	assert.Equal(t, len(testCities), added)
	rev, err := s.RefDataRevision(ctx)
	require.NoError(t, err)

	added, err = s.UpsertCities(ctx, testCities)
	require.NoError(t, err)
	assert.Zero(t, added, "the same cities again add nothing")
	assert.Equal(t, append(before, testCities...), allCities(t, s))

	// Same natural key (country, state, folded name): the name replaced in
	// place, the tags added to the stored ones.
	renamed := refdata.City{CountryCode: "XA", StateCode: "RJ", Name: "ZETA PÖRT", Tags: "harbour"}
	added, err = s.UpsertCities(ctx, []refdata.City{renamed, renamed})
	require.NoError(t, err)
	assert.Zero(t, added)
	renamed.Tags = "seaside,harbour"
	want := append(before, testCities...)
	want[len(before)+1] = renamed
	assert.Equal(t, want, allCities(t, s), "replaced, keeping its place")
	rev2, err := s.RefDataRevision(ctx)
	require.NoError(t, err)
	assert.NotEqual(t, rev, rev2, "a change moves the revision")

	byTag := func(kw string) []refdata.City {
		got, _, err := lists(s).ListCities(ctx, cityFilter(t, refdata.CityQuery{CountryCode: refPtr("XA"), Keywords: &kw}))
		require.NoError(t, err)
		return got
	}
	assert.Equal(t, []refdata.City{renamed}, byTag("harb"), "new tags are searched")
	assert.Equal(t, []refdata.City{renamed}, byTag("seas"), "stored tags are kept")
	// Tags added to a city without any move it in the order by tags.
	santo := testCities[2]
	santo.Tags = "aaa"
	_, err = s.UpsertCities(ctx, []refdata.City{santo})
	require.NoError(t, err)
	got, _, err := lists(s).ListCities(ctx, cityFilter(t, refdata.CityQuery{CountryCode: refPtr("XA"), SortDataField: refPtr("tags")}))
	require.NoError(t, err)
	assert.Equal(t, []refdata.City{santo, testCities[0], renamed}, got, "tags order follows the change")

	other := open(t, newStore)
	assert.Equal(t, before, allCities(t, other), "another store is not affected")
}
