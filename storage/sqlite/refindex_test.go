package sqlite_test

import (
	"context"
	"log/slog"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/refdata/refdatatest"
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

// BenchmarkIndexStartup opens a SQLite file holding the default dataset
// and refdatatest.Large (150,000 more cities) and builds the index of its
// reference data (refindex.Store.Ready): what an instance costs before
// its lists are fast. It reports the time ("s-ready") and the heap the
// index holds ("MiB").
func BenchmarkIndexStartup(b *testing.B) {
	path := filepath.Join(b.TempDir(), "large.db")
	s, err := sqlite.Open(b.Context(), path)
	require.NoError(b, err)
	cities := refdatatest.Large()
	for i := 0; i < len(cities); i += 5000 {
		_, err := s.UpsertCities(b.Context(), cities[i:min(i+5000, len(cities))])
		require.NoError(b, err)
	}
	require.NoError(b, s.Close())
	var ready time.Duration
	var heap uint64
	for b.Loop() {
		before := heapInUse()
		start := time.Now()
		s, err := sqlite.Open(b.Context(), path)
		require.NoError(b, err)
		ix := refindex.New(s, refindex.Options{Logger: slog.New(slog.NewTextHandler(failOnWrite{b}, nil))})
		require.NoError(b, ix.Ready(b.Context()))
		ready = time.Since(start)
		heap = heapInUse() - before
		runtime.KeepAlive(ix)
		require.NoError(b, s.Close())
	}
	b.ReportMetric(ready.Seconds(), "s-ready")
	b.ReportMetric(float64(heap)/(1<<20), "MiB")
}

// failOnWrite fails the benchmark with what is written to it: a build
// failure logged.
type failOnWrite struct{ b *testing.B }

func (w failOnWrite) Write(p []byte) (int, error) {
	w.b.Errorf("logged: %s", p)
	return len(p), nil
}

func heapInUse() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
