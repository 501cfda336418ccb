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
	uf, err := refdata.CurrencyQuery{Code: &code}.Filter("USD")
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
