package storagetest

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/refdata/refindex"
	"github.com/brandbase/brandbase/storage"
)

// RunIndexed runs the reference-data part of the suite on stores from
// newStore behind refindex (Indexed, with Wait: every list after a write
// is answered from a snapshot, patched by the write or rebuilt first), so
// that the index's answers are proven the store's; and checks that writes
// through the index patch its snapshot rather than rebuild it.
func RunIndexed(t *testing.T, newStore NewStore) {
	t.Run("RefData", func(t *testing.T) {
		runRefData(t, func(t *testing.T) storage.Storage { return Indexed(newStore(t), refindex.Options{Wait: true}) })
	})
	t.Run("WritesPatchTheIndex", func(t *testing.T) {
		t.Parallel()
		testWritesPatchTheIndex(t, newStore)
	})
	t.Run("CitiesChangedSince", func(t *testing.T) {
		t.Parallel()
		testCitiesChangedSince(t, newStore)
	})
	t.Run("WritesElsewherePatchTheIndex", func(t *testing.T) {
		t.Parallel()
		testWritesElsewherePatchTheIndex(t, newStore)
	})
	t.Run("NoOpWriteAfterAWriteElsewhere", func(t *testing.T) {
		t.Parallel()
		testNoOpWriteAfterAWriteElsewhere(t, newStore)
	})
}

// changesOf returns s as a refindex.CityChanges, or skips t when s cannot
// tell its changes.
func changesOf(t *testing.T, s storage.Storage) refindex.CityChanges {
	t.Helper()
	c, ok := s.(refindex.CityChanges)
	if !ok {
		t.Skip("the store does not implement refindex.CityChanges")
	}
	return c
}

// testCitiesChangedSince checks CityChanges: the cities a write after a
// revision inserted or changed, as stored (tags merged), in the order of
// storage, paged; none for a write that changed nothing or changed only
// currencies.
func testCitiesChangedSince(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	changes := changesOf(t, s)
	ctx := t.Context()
	rev0, err := s.RefDataRevision(ctx)
	require.NoError(t, err)
	_, err = s.UpsertCities(ctx, []refdata.City{
		{CountryCode: "XA", StateCode: "AA", Name: "Changeville", Tags: "port"},
		{CountryCode: "XA", StateCode: "AB", Name: "Otherton"},
	})
	require.NoError(t, err)
	rev1, err := s.RefDataRevision(ctx)
	require.NoError(t, err)
	_, err = s.UpsertCities(ctx, []refdata.City{
		{CountryCode: "XA", StateCode: "AB", Name: "Otherton"}, // unchanged
		{CountryCode: "XA", StateCode: "AA", Name: "CHANGEVILLE", Tags: "coastal"},
		{CountryCode: "XB", StateCode: "AA", Name: "Lateburg"},
	})
	require.NoError(t, err)
	rev2, err := s.RefDataRevision(ctx)
	require.NoError(t, err)
	require.NoError(t, s.UpsertCurrencies(ctx, []refdata.Currency{{ID: refdata.CurrencyID("XPT"), Code: "XPT",
		Name: "Patch dollar", NamePlural: "Patch dollars", Symbol: "P$", SymbolNative: "P$", DecimalDigits: 2}}))
	rev3, err := s.RefDataRevision(ctx)
	require.NoError(t, err)
	require.Less(t, rev2, rev3)

	changed := func(rev uint64, p refdata.Paging) ([]refdata.City, int) {
		t.Helper()
		cs, total, err := changes.CitiesChangedSince(ctx, rev, p)
		require.NoError(t, err)
		return cs, total
	}
	all := refdata.Paging{Size: 100}
	cs, total := changed(rev0, all)
	assert.Equal(t, []refdata.City{
		{CountryCode: "XA", StateCode: "AA", Name: "CHANGEVILLE", Tags: "port,coastal"},
		{CountryCode: "XA", StateCode: "AB", Name: "Otherton"},
		{CountryCode: "XB", StateCode: "AA", Name: "Lateburg"},
	}, cs, "every city written since rev0, as stored, in the order of storage")
	assert.Equal(t, 3, total)
	cs, total = changed(rev1, all)
	assert.Equal(t, []refdata.City{
		{CountryCode: "XA", StateCode: "AA", Name: "CHANGEVILLE", Tags: "port,coastal"},
		{CountryCode: "XB", StateCode: "AA", Name: "Lateburg"},
	}, cs, "Otherton was written again unchanged: not a change")
	assert.Equal(t, 2, total)
	cs, total = changed(rev1, refdata.Paging{Number: 1, Size: 1})
	assert.Equal(t, []refdata.City{{CountryCode: "XB", StateCode: "AA", Name: "Lateburg"}}, cs, "paged")
	assert.Equal(t, 2, total)
	cs, total = changed(rev2, all)
	assert.Empty(t, cs, "a currency is not a city")
	assert.Zero(t, total)
}

// testWritesElsewherePatchTheIndex writes cities to the store directly,
// as another instance would: the index then reads only the cities changed
// since its revision (CityChanges) to answer them, and is not rebuilt.
func testWritesElsewherePatchTheIndex(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	changesOf(t, s)
	ctx := t.Context()
	ix := refindex.New(s, refindex.Options{Wait: true})
	t.Cleanup(func() { ix.Close() })
	require.NoError(t, ix.Ready(ctx))
	_, err := s.UpsertCities(ctx, []refdata.City{
		{CountryCode: "XA", StateCode: "AA", Name: "Elsewhereville", Tags: "port"},
		{CountryCode: "DE", StateCode: "BE", Name: "Berlin", Tags: "elsewhere"}, // a stored city, tagged
	})
	require.NoError(t, err)
	require.NoError(t, s.UpsertCurrencies(ctx, []refdata.Currency{{ID: refdata.CurrencyID("XPT"), Code: "XPT",
		Name: "Patch dollar", NamePlural: "Patch dollars", Symbol: "P$", SymbolNative: "P$", DecimalDigits: 2}}))
	for _, q := range []refdata.CityQuery{{Name: new("elsewhere")}, {Keywords: new("elsewhere")}, {CountryCode: new("DE"),
		SortDataField: new("tags"), SortOrder: new("desc")}, {}} {
		f, err := q.Filter()
		require.NoError(t, err)
		want, wantTotal, err := s.ListCities(ctx, f)
		require.NoError(t, err)
		got, total, err := ix.ListCities(ctx, f)
		require.NoError(t, err)
		assert.Equal(t, want, got, "%+v", q)
		assert.Equal(t, wantTotal, total, "%+v", q)
	}
	uf, err := refdata.CurrencyQuery{Code: new("XPT"), DefaultCurrency: "USD"}.Filter()
	require.NoError(t, err)
	_, total, err := ix.ListCurrencies(ctx, uf)
	require.NoError(t, err)
	assert.Equal(t, 1, total)
	assert.Equal(t, uint64(1), ix.Builds(), "not rebuilt")
	assert.Equal(t, uint64(1), ix.Patches(), "patched with the changed cities")
}

// Indexed returns s with its reference-data lists and writes going through
// a refindex.Store, as brandbase.New wires them. Closing it closes the
// index, then s.
func Indexed(s storage.Storage, opts refindex.Options) storage.Storage {
	return indexed{Storage: s, ix: refindex.New(s, opts)}
}

// testWritesPatchTheIndex writes cities, currencies and countries through
// a warm index that lists read between the writes: none of the writes
// makes it read the store again, and the lists answer them at once, as the
// store does.
func testWritesPatchTheIndex(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	ctx := t.Context()
	ix := refindex.New(s, refindex.Options{})
	t.Cleanup(func() { ix.Close() })
	require.NoError(t, ix.Ready(ctx))
	require.Equal(t, uint64(1), ix.Builds())
	all, err := refdata.CityQuery{}.Filter()
	require.NoError(t, err)
	writes := []func() error{
		func() error {
			_, err := ix.UpsertCities(ctx, []refdata.City{{CountryCode: "XA", StateCode: "AA", Name: "Patchburg"}})
			return err
		},
		func() error {
			_, err := ix.UpsertCities(ctx, []refdata.City{{CountryCode: "XA", StateCode: "AA", Name: "PATCHBURG", Tags: "port"}})
			return err
		},
		func() error {
			return ix.UpsertCurrencies(ctx, []refdata.Currency{{ID: refdata.CurrencyID("XPT"), Code: "XPT", Name: "Patch dollar",
				NamePlural: "Patch dollars", Symbol: "P$", SymbolNative: "P$", DecimalDigits: 2}})
		},
		func() error {
			return ix.UpsertCountries(ctx, []refdata.Country{{ID: refdata.CountryID("XA"), CodeAlpha2: "XA", CodeAlpha3: "XAA",
				CodeNumeric: 901, Name: "Patchland", Capital: "Patchburg", Region: "Europe", Currency: "XPT", CodePhone: "+999", Tld: ".xa"}})
		},
	}
	for _, write := range writes {
		_, _, err := ix.ListCities(ctx, all) // the snapshot is read: worth patching
		require.NoError(t, err)
		require.NoError(t, write())
	}
	assert.Equal(t, uint64(1), ix.Builds(), "the writes patched the snapshot")

	name, code := "patchburg", "XPT"
	cf, err := refdata.CityQuery{Name: &name}.Filter()
	require.NoError(t, err)
	cities, total, err := ix.ListCities(ctx, cf)
	require.NoError(t, err)
	want, wantTotal, err := s.ListCities(ctx, cf)
	require.NoError(t, err)
	assert.Equal(t, want, cities)
	assert.Equal(t, wantTotal, total)
	assert.Equal(t, 1, total)
	uf, err := refdata.CurrencyQuery{Code: &code, DefaultCurrency: "USD"}.Filter()
	require.NoError(t, err)
	currencies, total, err := ix.ListCurrencies(ctx, uf)
	require.NoError(t, err)
	require.Equal(t, 1, total)
	assert.Equal(t, "Patch dollar", currencies[0].Name)
	kf, err := refdata.CountryQuery{Name: new("patchland")}.Filter()
	require.NoError(t, err)
	countries, total, err := ix.ListCountries(ctx, kf)
	require.NoError(t, err)
	require.Equal(t, 1, total)
	assert.Equal(t, "Patchburg", countries[0].Capital)
	assert.Equal(t, uint64(1), ix.Builds(), "answered from the patched snapshot")
}

// indexed is what Indexed returns.
type indexed struct {
	storage.Storage
	ix *refindex.Store
}

func (s indexed) ListCurrencies(ctx context.Context, f refdata.CurrencyFilter) ([]refdata.Currency, int, error) {
	return s.ix.ListCurrencies(ctx, f)
}

func (s indexed) ListCountries(ctx context.Context, f refdata.CountryFilter) ([]refdata.Country, int, error) {
	return s.ix.ListCountries(ctx, f)
}

func (s indexed) ListCities(ctx context.Context, f refdata.CityFilter) ([]refdata.City, int, error) {
	return s.ix.ListCities(ctx, f)
}

func (s indexed) UpsertCurrencies(ctx context.Context, cs []refdata.Currency) error {
	return s.ix.UpsertCurrencies(ctx, cs)
}

func (s indexed) UpsertCountries(ctx context.Context, cs []refdata.Country) error {
	return s.ix.UpsertCountries(ctx, cs)
}

func (s indexed) UpsertCities(ctx context.Context, cs []refdata.City) (int, error) {
	return s.ix.UpsertCities(ctx, cs)
}

func (s indexed) Close() error {
	return errors.Join(s.ix.Close(), s.Storage.Close())
}
