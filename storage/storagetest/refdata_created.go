package storagetest

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/internal/refrows"
	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/storage/internal/sqlstore"
)

// The scenarios of the order of storage (SortDataField=createdDate) and of
// imports that must not degrade stored data.

// createdOrders are the SortOrder values the createdDate scenarios run with.
var createdOrders = []string{"asc", "DESC"}

// createdCase is the createdDate scenario of one list: the store's list
// and the reference's, the query of the whole list sorted by
// createdDate in an order, on a page (the test records alone when
// filtered), and the codes of the test records in their order of storage.
type createdCase[F, T any] struct {
	list  func(context.Context, F) ([]T, int, error)
	ref   func(F) ([]T, int)
	query func(t *testing.T, order string, filtered bool, page refdata.Paging) F
	code  func(T) string
	want  []T      // every record in the order of storage
	test  []string // the codes of the test records in that order
}

// assertCreatedOrder checks c's list sorted by createdDate, both ways,
// whole, filtered and paged, against the reference and c.want.
func assertCreatedOrder[F, T any](t *testing.T, c createdCase[F, T]) {
	t.Helper()
	for _, order := range createdOrders {
		got := assertAsReference(t, c.list, c.ref, c.query(t, order, false, refdata.Paging{Size: refdata.MaxPageSize}), order)
		want := slices.Clone(c.want)
		if order == "DESC" {
			slices.Reverse(want)
		}
		assert.Equal(t, want, got, "every record in the order of storage, %s", order)
		got = assertAsReference(t, c.list, c.ref, c.query(t, order, true, refdata.Paging{}), "filtered "+order)
		assert.Equal(t, c.test, sortedIf(order, codesOf(got, c.code)), "filtered %s", order)
		for _, page := range []int{0, 1, 3} {
			assertAsReference(t, c.list, c.ref, c.query(t, order, false, refdata.Paging{Number: page, Size: 70}), "page %d %s", page, order)
		}
	}
}

// testCreatedDateCurrencies checks that currencies sort by createdDate in
// the order they were stored: the default dataset's in its order, then
// new ones in the order of their upserts, a replaced one keeping its
// place; DESC reverses it all; filters and pages apply as to any sort.
func testCreatedDateCurrencies(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	ctx := t.Context()
	// Stored in the reverse of their ID order, then the first replaced.
	stored := []refdata.Currency{testCurrencies[1], testCurrencies[0]}
	require.NoError(t, s.UpsertCurrencies(ctx, stored))
	renamed := testCurrencies[1]
	renamed.Name = "Test Beta Renamed"
	require.NoError(t, s.UpsertCurrencies(ctx, []refdata.Currency{renamed}))
	assertCreatedOrder(t, createdCase[refdata.CurrencyQuery, refdata.Currency]{
		list: lists(s).ListCurrencies, ref: newReference(t, append(stored, renamed), nil, nil).currencies,
		query: func(t *testing.T, order string, filtered bool, page refdata.Paging) refdata.CurrencyQuery {
			q := refdata.CurrencyQuery{SortDataField: refPtr("createdDate"), SortOrder: &order, Page: page}
			if filtered {
				q.Tags, q.SortDataField = refPtr("test"), refPtr("CREATEDDATE")
			}
			return currencyFilter(t, q)
		},
		code: func(c refdata.Currency) string { return c.Code },
		want: append(defaultsOf(t, refdata.DefaultCurrencies), renamed, testCurrencies[0]),
		test: []string{"XTB", "XTA"},
	})
}

// testCreatedDateCountries checks the createdDate order of countries as
// testCreatedDateCurrencies does for currencies.
func testCreatedDateCountries(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	ctx := t.Context()
	stored := []refdata.Country{testCountries[1], testCountries[0]}
	require.NoError(t, s.UpsertCountries(ctx, stored))
	renamed := testCountries[1]
	renamed.Capital = "Betaville"
	require.NoError(t, s.UpsertCountries(ctx, []refdata.Country{renamed}))
	assertCreatedOrder(t, createdCase[refdata.CountryQuery, refdata.Country]{
		list: lists(s).ListCountries, ref: newReference(t, nil, append(stored, renamed), nil).countries,
		query: func(t *testing.T, order string, filtered bool, page refdata.Paging) refdata.CountryQuery {
			q := refdata.CountryQuery{SortDataField: refPtr("createdDate"), SortOrder: &order, Page: page}
			if filtered {
				q.Region, q.SortDataField = refPtr("testamerica"), refPtr("createddate")
			}
			return countryFilter(t, q)
		},
		code: func(c refdata.Country) string { return c.CodeAlpha2 },
		want: append(defaultsOf(t, refdata.DefaultCountries), renamed, testCountries[0]),
		test: []string{"XB", "XA"},
	})
}

// testCreatedDateCities checks that cities sort by createdDate in
// insertion order, as by id: the dataset's, then the upserted ones, a
// replaced one keeping its place.
func testCreatedDateCities(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	ctx := t.Context()
	_, err := s.UpsertCities(ctx, testCities)
	require.NoError(t, err)
	_, err = s.UpsertCities(ctx, []refdata.City{{CountryCode: "XA", StateCode: "SP", Name: "SANTO ZETA", Tags: "new"}})
	require.NoError(t, err)
	ref := newReference(t, nil, nil, append(slices.Clone(testCities), refdata.City{CountryCode: "XA", StateCode: "SP", Name: "SANTO ZETA", Tags: "new"}))
	for _, order := range createdOrders {
		for _, q := range []refdata.CityQuery{
			{Page: refdata.Paging{Number: 2, Size: 1000}},
			{CountryCode: refPtr("xa")},
			{Keywords: refPtr("zeta")},
		} {
			q.SortDataField, q.SortOrder = refPtr("createdDate"), refPtr(order)
			got := assertAsReference(t, lists(s).ListCities, ref.cities, cityFilter(t, q), "cities by createdDate %s %+v", order, q)
			q.SortDataField = refPtr("id")
			byID, _, err := lists(s).ListCities(ctx, cityFilter(t, q))
			require.NoError(t, err)
			assert.Equal(t, byID, got, "createdDate is insertion order, as id")
		}
		got, _, err := lists(s).ListCities(ctx, cityFilter(t, refdata.CityQuery{CountryCode: refPtr("XA"),
			SortDataField: refPtr("createdDate"), SortOrder: refPtr(order)}))
		require.NoError(t, err)
		assert.Equal(t, []string{"São Zétaville", "Zeta Port", "SANTO ZETA"},
			sortedIf(order, codesOf(got, func(c refdata.City) string { return c.Name })), "a replaced city keeps its place")
	}
}

// sortedIf returns s in ascending order of storage: reversed when order
// is DESC.
func sortedIf(order string, s []string) []string {
	if strings.EqualFold(order, "desc") {
		s = slices.Clone(s)
		slices.Reverse(s)
	}
	return s
}

// dr5hnDir returns the directory of the dr5hn fixtures (refdata/testdata/dr5hn).
func dr5hnDir(t *testing.T) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	require.True(t, ok)
	return filepath.Join(filepath.Dir(file), "..", "..", "refdata", "testdata", "dr5hn")
}

// testImportKeepsTags checks that importing dr5hn's files (no tags
// column) over the default dataset, through the importer, keeps every
// built-in city's tags (Andorra la Vella stays a capital), and that
// imported tags are added after the stored ones.
func testImportKeepsTags(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	ctx := t.Context()
	svc := refdata.NewService(s)
	for _, name := range []string{"cities.csv", "cities-17.csv", "cities.json"} {
		f, err := os.Open(filepath.Join(dr5hnDir(t), name))
		require.NoError(t, err)
		report, err := svc.ImportCities(ctx, f, refdata.ImportOptions{BatchSize: 2})
		require.NoError(t, f.Close())
		require.NoError(t, err, name)
		require.Positive(t, report.Updated, "%s updates built-in cities", name)
	}
	stored := map[string]refdata.City{}
	for _, c := range allCities(t, s) {
		stored[refrows.CityKey(c.CountryCode, c.StateCode, c.Name)] = c
	}
	for _, c := range sqlstore.DedupCities(defaultsOf(t, refdata.DefaultCities)) {
		if !assert.Equal(t, c.Tags, stored[refrows.CityKey(c.CountryCode, c.StateCode, c.Name)].Tags, "%s keeps its tags", c.Name) {
			break
		}
	}
	andorra := refdata.City{CountryCode: "AD", StateCode: "07", Name: "Andorra la Vella", Tags: "capital"}
	assert.Equal(t, andorra, stored[refrows.CityKey(andorra.CountryCode, andorra.StateCode, andorra.Name)])

	file := "countryCode,stateCode,name,tags\nAD,07,ANDORRA LA VELLA,\"hub, Capital\"\nAD,07,Andorra la Vella,\n"
	_, err := svc.ImportCities(ctx, strings.NewReader(file), refdata.ImportOptions{})
	require.NoError(t, err)
	got, _, err := lists(s).ListCities(ctx, cityFilter(t, refdata.CityQuery{CountryCode: refPtr("AD"), StateCode: refPtr("07")}))
	require.NoError(t, err)
	assert.Equal(t, []refdata.City{{CountryCode: "AD", StateCode: "07", Name: "Andorra la Vella", Tags: "capital,hub"}}, got,
		"new tags after the stored ones, a tag already held (any case) not repeated, a row without tags removing none")
	hub, _, err := lists(s).ListCities(ctx, cityFilter(t, refdata.CityQuery{CountryCode: refPtr("AD"), Keywords: refPtr("hub")}))
	require.NoError(t, err)
	assert.Equal(t, got, hub, "added tags are searched")
}
