package storagetest

import (
	"log/slog"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/refdata/refdatatest"
	"github.com/brandbase/brandbase/storage"
)

// BenchIndexStartup fills a database with the default dataset and
// refdatatest.Large (150,000 more cities), then times what an instance
// costs before its lists are fast: opening a store on that database and
// reading the snapshot of its reference data (refdata.Service.Ready). It
// reports the time ("s-ready") and the heap the snapshot holds ("MiB").
// open must open a store on the same database at every call.
func BenchIndexStartup(b *testing.B, open func(b *testing.B) storage.Storage) {
	s := open(b)
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
		s := open(b)
		svc := refdata.NewService(s, refdata.WithLogger(slog.New(slog.NewTextHandler(failOnWrite{b}, nil))))
		require.NoError(b, svc.Ready(b.Context()))
		ready = time.Since(start)
		heap = heapInUse() - before
		runtime.KeepAlive(svc)
		svc.Close()
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

// heapInUse returns the live heap after a collection.
func heapInUse() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
