package storagetest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/storage/internal/sqlstore"
)

// testReadRefData checks ReadRefData: every currency and country in the
// order of storage, every city in insertion order (tags merged), and the
// revision of the same data, as RefDataRevision reports it after the
// last write.
func testReadRefData(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	ctx := t.Context()
	require.NoError(t, s.UpsertCurrencies(ctx, testCurrencies))
	require.NoError(t, s.UpsertCountries(ctx, testCountries))
	_, err := s.UpsertCities(ctx, testCities)
	require.NoError(t, err)
	_, err = s.UpsertCities(ctx, []refdata.City{{CountryCode: "XA", StateCode: "SP", Name: "SAO ZETAVILLE", Tags: "river"}})
	require.NoError(t, err)
	data, err := s.ReadRefData(ctx)
	require.NoError(t, err)
	assert.Equal(t, revisionOf(t, s), data.Revision, "the revision of the data read")
	assert.Equal(t, append(defaultsOf(t, refdata.DefaultCurrencies), testCurrencies...), data.Currencies, "order of storage")
	assert.Equal(t, append(defaultsOf(t, refdata.DefaultCountries), testCountries...), data.Countries, "order of storage")
	want := sqlstore.DedupCities(append(defaultsOf(t, refdata.DefaultCities), testCities...))
	want[len(want)-len(testCities)] = refdata.City{CountryCode: "XA", StateCode: "SP", Name: "SAO ZETAVILLE", Tags: "capital, port,river"}
	assert.Equal(t, want, data.Cities, "insertion order, the name replaced and the tags merged in place")
}

// testChangesSince checks RefDataChangesSince: the cities a write after a
// revision inserted or changed, as stored (tags merged), in the order of
// storage; none for a write that changed nothing or changed only
// currencies; every currency and country; and the current revision.
// (It was testCitiesChangedSince of the index's CityChanges capability,
// which paged: the assertions are those, without pages.)
func testChangesSince(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	ctx := t.Context()
	rev0 := revisionOf(t, s)
	_, err := s.UpsertCities(ctx, []refdata.City{
		{CountryCode: "XA", StateCode: "AA", Name: "Changeville", Tags: "port"},
		{CountryCode: "XA", StateCode: "AB", Name: "Otherton"},
	})
	require.NoError(t, err)
	rev1 := revisionOf(t, s)
	_, err = s.UpsertCities(ctx, []refdata.City{
		{CountryCode: "XA", StateCode: "AB", Name: "Otherton"}, // unchanged
		{CountryCode: "XA", StateCode: "AA", Name: "CHANGEVILLE", Tags: "coastal"},
		{CountryCode: "XB", StateCode: "AA", Name: "Lateburg"},
	})
	require.NoError(t, err)
	rev2 := revisionOf(t, s)
	require.NoError(t, s.UpsertCurrencies(ctx, []refdata.Currency{{ID: refdata.CurrencyID("XPT"), Code: "XPT",
		Name: "Patch dollar", NamePlural: "Patch dollars", Symbol: "P$", SymbolNative: "P$", DecimalDigits: 2}}))
	rev3 := revisionOf(t, s)
	require.Less(t, rev2, rev3)

	changed := func(rev uint64) []refdata.City {
		t.Helper()
		data, err := s.RefDataChangesSince(ctx, rev, 0)
		require.NoError(t, err)
		assert.Equal(t, rev3, data.Revision, "the current revision")
		all, err := s.ReadRefData(ctx)
		require.NoError(t, err)
		assert.Equal(t, all.Currencies, data.Currencies, "every currency")
		assert.Equal(t, all.Countries, data.Countries, "every country")
		return data.Cities
	}
	assert.Equal(t, []refdata.City{
		{CountryCode: "XA", StateCode: "AA", Name: "CHANGEVILLE", Tags: "port,coastal"},
		{CountryCode: "XA", StateCode: "AB", Name: "Otherton"},
		{CountryCode: "XB", StateCode: "AA", Name: "Lateburg"},
	}, changed(rev0), "every city written since rev0, as stored, in the order of storage")
	assert.Equal(t, []refdata.City{
		{CountryCode: "XA", StateCode: "AA", Name: "CHANGEVILLE", Tags: "port,coastal"},
		{CountryCode: "XB", StateCode: "AA", Name: "Lateburg"},
	}, changed(rev1), "Otherton was written again unchanged: not a change")
	assert.Empty(t, changed(rev2), "a currency is not a city")
	assert.Empty(t, changed(rev3), "nothing since the current revision")
}

// testReadIsOneTransaction checks that ReadRefData is a consistent
// snapshot while writes run: the cities it returns are exactly those of
// the revision it reports (each write here adds one city and bumps the
// revision by one, so that revision r holds base + r - r0 cities).
func testReadIsOneTransaction(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	ctx := t.Context()
	first, err := s.ReadRefData(ctx)
	require.NoError(t, err)
	base, rev0 := len(first.Cities), first.Revision
	done := make(chan error, 1)
	go func() {
		for i := range 40 {
			if _, err := s.UpsertCities(context.WithoutCancel(ctx), []refdata.City{{CountryCode: "XA", StateCode: "TX",
				Name: "Txville " + string(rune('a'+i%26)) + string(rune('a'+i/26))}}); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	for range 20 {
		data, err := s.ReadRefData(ctx)
		require.NoError(t, err)
		assert.Equal(t, base+int(data.Revision-rev0), len(data.Cities), "the cities of revision %d", data.Revision)
	}
	require.NoError(t, <-done)
}

// testWritesElsewherePatchTheSnapshot writes cities to the store
// directly, as another instance would, after a Service read its snapshot:
// the Service then reads only the changes since its revision to answer
// (a patch), and is not read whole again.
func testWritesElsewherePatchTheSnapshot(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	ctx := t.Context()
	svc := refdata.NewService(s)
	t.Cleanup(svc.Close)
	require.NoError(t, svc.Ready(ctx))
	require.Equal(t, uint64(1), svc.Builds())
	_, err := s.UpsertCities(ctx, []refdata.City{{CountryCode: "XA", StateCode: "AA", Name: "Patchton", Tags: "x"}})
	require.NoError(t, err)
	require.NoError(t, s.UpsertCurrencies(ctx, []refdata.Currency{{ID: refdata.CurrencyID("XPT"), Code: "XPT",
		Name: "Patch dollar", NamePlural: "Patch dollars", Symbol: "P$", SymbolNative: "P$", DecimalDigits: 2}}))
	cities, err := svc.ListCities(ctx, refdata.CityQuery{Name: refPtr("patchton")})
	require.NoError(t, err)
	assert.Equal(t, []refdata.City{{CountryCode: "XA", StateCode: "AA", Name: "Patchton", Tags: "x"}}, cities.Items)
	currencies, err := svc.ListCurrencies(ctx, refdata.CurrencyQuery{Code: refPtr("XPT")})
	require.NoError(t, err)
	assert.Equal(t, 1, currencies.TotalItems, "currencies are read again with the changes")
	assert.Equal(t, uint64(1), svc.Builds(), "not read whole again")
	assert.Equal(t, uint64(1), svc.Patches())
}
