package storagetest

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/storage/internal/sqlstore"
)

// testDefaultDatasetLoaded checks that a fresh store holds the default
// dataset: its version and every currency, country and city.
func testDefaultDatasetLoaded(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	ctx := t.Context()
	v, err := s.DatasetVersion(ctx)
	require.NoError(t, err)
	assert.Equal(t, refdata.DatasetVersion, v)

	currencies, err := refdata.DefaultCurrencies()
	require.NoError(t, err)
	got, total, err := lists(s).ListCurrencies(ctx, currencyFilter(t, refdata.CurrencyQuery{Page: refdata.Paging{Size: refdata.MaxPageSize}}))
	require.NoError(t, err)
	assert.Equal(t, len(currencies), total)
	assert.Equal(t, byID(currencies, func(c refdata.Currency) string { return c.ID }), got, "every currency, ordered by ID")

	countries, err := refdata.DefaultCountries()
	require.NoError(t, err)
	gotCountries, total, err := lists(s).ListCountries(ctx, countryFilter(t, refdata.CountryQuery{Page: refdata.Paging{Size: refdata.MaxPageSize}}))
	require.NoError(t, err)
	assert.Equal(t, len(countries), total)
	assert.Equal(t, byID(countries, func(c refdata.Country) string { return c.ID }), gotCountries, "every country, ordered by ID")

	cities, err := refdata.DefaultCities()
	require.NoError(t, err)
	assert.Equal(t, sqlstore.DedupCities(cities), allCities(t, s), "every city, in file order")
}

// testCurrencyFilters checks every currency filter against the reference
// implementation and the test records it must and must not find.
func testCurrencyFilters(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	require.NoError(t, s.UpsertCurrencies(t.Context(), testCurrencies))
	cases := []filterCase[refdata.CurrencyQuery]{
		{"code exact, case-insensitive", refdata.CurrencyQuery{Code: refPtr(" xta ")}, []string{"XTA"}, []string{"XTB"}},
		{"code is not a substring", refdata.CurrencyQuery{Code: refPtr("XT")}, nil, []string{"XTA", "XTB"}},
		{"name substring, accents and case", refdata.CurrencyQuery{Name: refPtr("TEST ALP")}, []string{"XTA"}, []string{"XTB"}},
		{"name with accents finds plain", refdata.CurrencyQuery{Name: refPtr("Tést bÉta")}, []string{"XTB"}, []string{"XTA"}},
		{"name plural", refdata.CurrencyQuery{NamePlural: refPtr("betas")}, []string{"XTB"}, []string{"XTA"}},
		{"symbol", refdata.CurrencyQuery{Symbol: refPtr("ŧ$")}, []string{"XTA"}, []string{"XTB"}},
		{"symbol native", refdata.CurrencyQuery{SymbolNative: refPtr("tb")}, []string{"XTB"}, []string{"XTA"}},
		{"decimal digits", refdata.CurrencyQuery{DecimalDigits: refPtr(int32(3)), Tags: refPtr("test")}, []string{"XTA"}, []string{"XTB"}},
		{"rounding", refdata.CurrencyQuery{Rounding: refPtr(0.5), Tags: refPtr("test")}, []string{"XTA"}, []string{"XTB"}},
		{"is coin", refdata.CurrencyQuery{IsCoin: refPtr(false), Tags: refPtr("test")}, []string{"XTB"}, []string{"XTA"}},
		{"tags any of", refdata.CurrencyQuery{Tags: refPtr("nothing, ALPHA")}, []string{"XTA"}, []string{"XTB"}},
		{"tags are whole tags", refdata.CurrencyQuery{Tags: refPtr("alp")}, nil, []string{"XTA", "XTB"}},
		{"keywords from keywords and code", refdata.CurrencyQuery{Keywords: refPtr("zet xt")}, []string{"XTA"}, []string{"XTB"}},
		{"keywords from name", refdata.CurrencyQuery{Keywords: refPtr("TËST be")}, []string{"XTB"}, []string{"XTA"}},
		{"keywords all words", refdata.CurrencyQuery{Keywords: refPtr("zeta beta")}, nil, []string{"XTA", "XTB"}},
		{"keywords prefix only", refdata.CurrencyQuery{Keywords: refPtr("eta")}, nil, []string{"XTA", "XTB"}},
		{"filters combine", refdata.CurrencyQuery{Tags: refPtr("test"), IsCoin: refPtr(true), Keywords: refPtr("alpha")}, []string{"XTA"}, []string{"XTB"}},
	}
	oracle := newReference(t, testCurrencies, nil, nil)
	assertFilterCases(t, cases, currencyFilter, lists(s).ListCurrencies, oracle.currencies, func(c refdata.Currency) string { return c.Code })
}

// testCountryFilters checks every country filter against the reference
// implementation and the test records it must and must not find.
func testCountryFilters(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	require.NoError(t, s.UpsertCountries(t.Context(), testCountries))
	cases := []filterCase[refdata.CountryQuery]{
		{"alpha-2", refdata.CountryQuery{CodeAlpha2: refPtr("xa")}, []string{"XA"}, []string{"XB"}},
		{"alpha-3", refdata.CountryQuery{CodeAlpha3: refPtr("Xbb")}, []string{"XB"}, []string{"XA"}},
		{"numeric", refdata.CountryQuery{CodeNumeric: refPtr(int32(902))}, []string{"XB"}, []string{"XA"}},
		{"phone with +", refdata.CountryQuery{CodePhone: refPtr("+999")}, []string{"XA"}, []string{"XB"}},
		{"phone without +", refdata.CountryQuery{CodePhone: refPtr("999")}, []string{"XA"}, []string{"XB"}},
		{"phone is exact", refdata.CountryQuery{CodePhone: refPtr("99")}, nil, []string{"XA", "XB"}},
		{"currency", refdata.CountryQuery{Currency: refPtr("xtb")}, []string{"XB"}, []string{"XA"}},
		{"tld with dot", refdata.CountryQuery{Tld: refPtr(".XA")}, []string{"XA"}, []string{"XB"}},
		{"tld without dot", refdata.CountryQuery{Tld: refPtr("xb")}, []string{"XB"}, []string{"XA"}},
		{"region substring", refdata.CountryQuery{Region: refPtr("TESTAMER")}, []string{"XA", "XB"}, nil},
		{"subregion substring", refdata.CountryQuery{Subregion: refPtr("south testà")}, []string{"XB"}, []string{"XA"}},
		{"name substring", refdata.CountryQuery{Name: refPtr("ZETAL")}, []string{"XA"}, []string{"XB"}},
		{"capital substring", refdata.CountryQuery{Capital: refPtr("sao zé")}, []string{"XA"}, []string{"XB"}},
		{"native substring", refdata.CountryQuery{Native: refPtr("talandia")}, []string{"XA", "XB"}, nil},
		{"tags any of", refdata.CountryQuery{Tags: refPtr("zone-a,none")}, []string{"XA"}, []string{"XB"}},
		{"keywords capital accent-insensitive", refdata.CountryQuery{Keywords: refPtr("sao")}, []string{"XA"}, []string{"XB"}},
		{"keywords capital word after hyphen", refdata.CountryQuery{Keywords: refPtr("zeta zur")}, []string{"XB"}, []string{"XA"}},
		{"keywords code and keywords", refdata.CountryQuery{Keywords: refPtr("xaa fict")}, []string{"XA"}, []string{"XB"}},
		{"keywords native", refdata.CountryQuery{Keywords: refPtr("betalandia")}, []string{"XB"}, []string{"XA"}},
		{"filters combine", refdata.CountryQuery{Region: refPtr("testamerica"), Tags: refPtr("test"), Keywords: refPtr("beta")}, []string{"XB"}, []string{"XA"}},
	}
	oracle := newReference(t, nil, testCountries, nil)
	assertFilterCases(t, cases, countryFilter, lists(s).ListCountries, oracle.countries, func(c refdata.Country) string { return c.CodeAlpha2 })
}

// testSortEveryField checks every sort field of currencies, countries and
// cities, both ways, against the reference implementation.
func testSortEveryField(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	ctx := t.Context()
	require.NoError(t, s.UpsertCurrencies(ctx, testCurrencies))
	require.NoError(t, s.UpsertCountries(ctx, testCountries))
	_, err := s.UpsertCities(ctx, testCities)
	require.NoError(t, err)
	ref := newReference(t, testCurrencies, testCountries, testCities)
	for _, order := range []string{"ASC", "descending"} {
		for _, field := range []string{"id", "CODE", "name", "namePlural", "symbol", "symbolNative",
			"decimalDigits", "rounding", "isCoin", "isDefault", "tags"} {
			f := currencyFilter(t, refdata.CurrencyQuery{SortDataField: &field, SortOrder: &order, Page: refdata.Paging{Number: 1, Size: 50}})
			assertAsReference(t, lists(s).ListCurrencies, ref.currencies, f, "currencies by %s %s", field, order)
		}
		// A default code that no currency has, nor any store can hold,
		// sorts by isDefault as one that no currency has: every currency,
		// none the default.
		f := currencyFilter(t, refdata.CurrencyQuery{SortDataField: refPtr("isDefault"), SortOrder: &order, Page: refdata.Paging{Size: 50}})
		f.DefaultCurrency = "X\x00\xff"
		assertAsReference(t, lists(s).ListCurrencies, ref.currencies, f, "currencies by isDefault %s, an unstorable default", order)
		for _, field := range []string{"id", "region", "subregion", "codeAlpha2", "codeAlpha3", "codeNumeric",
			"codePhone", "name", "capital", "currency", "tld", "native", "tags"} {
			f := countryFilter(t, refdata.CountryQuery{SortDataField: &field, SortOrder: &order, Page: refdata.Paging{Number: 1, Size: 50}})
			assertAsReference(t, lists(s).ListCountries, ref.countries, f, "countries by %s %s", field, order)
		}
		for _, field := range []string{"id", "countryCode", "statecode", "name", "tags"} {
			for _, page := range []int{0, 3} {
				f := cityFilter(t, refdata.CityQuery{SortDataField: &field, SortOrder: &order, Page: refdata.Paging{Number: page, Size: 100}})
				assertAsReference(t, lists(s).ListCities, ref.cities, f, "cities by %s %s page %d", field, order, page)
			}
		}
	}
}

// testUpsertCurrenciesAndCountries checks that upserts add new currencies
// and countries and replace known ones, search included.
func testUpsertCurrenciesAndCountries(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	ctx := t.Context()
	_, before, err := lists(s).ListCurrencies(ctx, currencyFilter(t, refdata.CurrencyQuery{}))
	require.NoError(t, err)
	require.NoError(t, s.UpsertCurrencies(ctx, testCurrencies))
	c := testCurrencies[0]
	c.Name, c.Keywords = "Renamed", "other"
	require.NoError(t, s.UpsertCurrencies(ctx, []refdata.Currency{c}), "upsert replaces")
	got, after, err := lists(s).ListCurrencies(ctx, currencyFilter(t, refdata.CurrencyQuery{Code: refPtr("XTA")}))
	require.NoError(t, err)
	assert.Equal(t, []refdata.Currency{c}, got)
	assert.Equal(t, 1, after)
	_, after, err = lists(s).ListCurrencies(ctx, currencyFilter(t, refdata.CurrencyQuery{}))
	require.NoError(t, err)
	assert.Equal(t, before+2, after)
	got, _, err = lists(s).ListCurrencies(ctx, currencyFilter(t, refdata.CurrencyQuery{Keywords: refPtr("zeta")}))
	require.NoError(t, err)
	assert.Empty(t, got, "replaced keywords are not searched")

	_, beforeCountries, err := lists(s).ListCountries(ctx, countryFilter(t, refdata.CountryQuery{}))
	require.NoError(t, err)
	require.NoError(t, s.UpsertCountries(ctx, testCountries))
	k := testCountries[1]
	k.Capital = "Betaville"
	require.NoError(t, s.UpsertCountries(ctx, []refdata.Country{k}))
	gotCountries, n, err := lists(s).ListCountries(ctx, countryFilter(t, refdata.CountryQuery{Keywords: refPtr("betav")}))
	require.NoError(t, err)
	assert.Equal(t, []refdata.Country{k}, gotCountries)
	assert.Equal(t, 1, n)
	_, n, err = lists(s).ListCountries(ctx, countryFilter(t, refdata.CountryQuery{}))
	require.NoError(t, err)
	assert.Equal(t, beforeCountries+2, n)
	gotCountries, _, err = lists(s).ListCountries(ctx, countryFilter(t, refdata.CountryQuery{Keywords: refPtr("zur"), Tags: refPtr("test")}))
	require.NoError(t, err)
	assert.Empty(t, gotCountries, "a replaced capital is not searched")
}

// testRefDataCancelledContext checks that lists and upserts under a
// cancelled context fail KindUnavailable and store nothing.
func testRefDataCancelledContext(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	ctx, cancel := contextCancelled(t)
	defer cancel()
	_, _, err := lists(s).ListCurrencies(ctx, currencyFilter(t, refdata.CurrencyQuery{}))
	assert.Equal(t, envelope.KindUnavailable, envelope.KindOf(err))
	_, _, err = lists(s).ListCountries(ctx, countryFilter(t, refdata.CountryQuery{}))
	assert.Equal(t, envelope.KindUnavailable, envelope.KindOf(err))
	_, _, err = lists(s).ListCities(ctx, cityFilter(t, refdata.CityQuery{}))
	assert.Equal(t, envelope.KindUnavailable, envelope.KindOf(err))
	_, err = s.UpsertCities(ctx, testCities)
	assert.Equal(t, envelope.KindUnavailable, envelope.KindOf(err))
	assert.Equal(t, envelope.KindUnavailable, envelope.KindOf(s.UpsertCurrencies(ctx, testCurrencies)))
	assert.Equal(t, envelope.KindUnavailable, envelope.KindOf(s.UpsertCountries(ctx, testCountries)))
	got, _, err := lists(s).ListCities(t.Context(), cityFilter(t, refdata.CityQuery{CountryCode: refPtr("XA")}))
	require.NoError(t, err)
	assert.Empty(t, got, "a cancelled write stores nothing")
	gotCurrencies, _, err := lists(s).ListCurrencies(t.Context(), currencyFilter(t, refdata.CurrencyQuery{Code: refPtr("XTA")}))
	require.NoError(t, err)
	assert.Empty(t, gotCurrencies, "a cancelled write stores nothing")
	gotCountries, _, err := lists(s).ListCountries(t.Context(), countryFilter(t, refdata.CountryQuery{CodeAlpha2: refPtr("XA")}))
	require.NoError(t, err)
	assert.Empty(t, gotCountries, "a cancelled write stores nothing")
}

// byID returns recs sorted by id.
func byID[T any](recs []T, id func(T) string) []T {
	out := slices.Clone(recs)
	slices.SortStableFunc(out, func(a, b T) int { return strings.Compare(id(a), id(b)) })
	return out
}
