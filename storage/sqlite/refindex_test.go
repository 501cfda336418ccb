package sqlite_test

import (
	"context"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/refdata/refindex"
	"github.com/brandbase/brandbase/storage"
	"github.com/brandbase/brandbase/storage/sqlite"
	"github.com/brandbase/brandbase/storage/storagetest"
)

// indexed is a SQLite store whose reference-data lists and writes go
// through a refindex.Store, as brandbase.New wires them.
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

// TestConformanceIndexed runs the conformance suite on a SQLite file behind
// refindex (Wait: every list after a write is answered from a snapshot
// rebuilt first), so that the index's answers are proven the store's.
func TestConformanceIndexed(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T) storage.Storage {
		s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "test.db"))
		require.NoError(t, err)
		// A build left running by a cancelled call fails once the store is
		// closed: not worth a log line here.
		quiet := slog.New(slog.DiscardHandler)
		return indexed{Storage: s, ix: refindex.New(s, refindex.Options{Wait: true, Logger: quiet})}
	})
}

// BenchmarkIndexStartup times an instance's start on a SQLite file
// holding 150,000 cities: storagetest.BenchIndexStartup.
func BenchmarkIndexStartup(b *testing.B) {
	path := filepath.Join(b.TempDir(), "large.db")
	storagetest.BenchIndexStartup(b, func(b *testing.B) storage.Storage {
		s, err := sqlite.Open(b.Context(), path)
		require.NoError(b, err)
		return s
	})
}
