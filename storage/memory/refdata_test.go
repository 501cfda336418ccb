package memory_test

import (
	"runtime"
	"testing"

	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/refdata/refdatatest"
	"github.com/brandbase/brandbase/storage"
	"github.com/brandbase/brandbase/storage/memory"
	"github.com/brandbase/brandbase/storage/storagetest"
)

func BenchmarkRefData(b *testing.B) {
	storagetest.BenchRefData(b, func(b *testing.B) storage.Storage {
		s, err := memory.New(b.Context())
		if err != nil {
			b.Fatal(err)
		}
		return s
	})
}

// BenchmarkCitiesHeap reports the heap that 150,000 cities take: their
// rows in a memory store ("MiB-rows": near zero, as the store keeps them
// in SQLite's memory, outside Go's heap), and the snapshot a refdata.Service
// reads of them, with its indexes ("MiB"), with the sort orders of every
// field built too ("MiB-sorted"), and with the countries' sets that a Name
// within a country builds ("MiB-all").
func BenchmarkCitiesHeap(b *testing.B) {
	cities := refdatatest.Large()
	heap := func() uint64 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	var rows, loaded, sorted, all uint64
	for b.Loop() {
		before := heap()
		s, err := memory.New(b.Context())
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.UpsertCities(b.Context(), cities); err != nil {
			b.Fatal(err)
		}
		rows = heap() - before
		svc := refdata.NewService(s)
		if err := svc.Ready(b.Context()); err != nil {
			b.Fatal(err)
		}
		loaded = heap() - before - rows
		for _, field := range []string{"countryCode", "stateCode", "name", "tags"} {
			if _, err := svc.ListCities(b.Context(), refdata.CityQuery{SortDataField: &field}); err != nil {
				b.Fatal(err)
			}
		}
		sorted = heap() - before - rows
		name, country := "an", "US"
		if _, err := svc.ListCities(b.Context(), refdata.CityQuery{Name: &name, CountryCode: &country}); err != nil {
			b.Fatal(err)
		}
		all = heap() - before - rows
		runtime.KeepAlive(s)
		runtime.KeepAlive(svc)
	}
	b.ReportMetric(float64(rows)/(1<<20), "MiB-rows")
	b.ReportMetric(float64(loaded)/(1<<20), "MiB")
	b.ReportMetric(float64(sorted)/(1<<20), "MiB-sorted")
	b.ReportMetric(float64(all)/(1<<20), "MiB-all")
}

// FuzzCityQuery checks odd filter values against the reference answer.
func FuzzCityQuery(f *testing.F) {
	s, err := memory.New(f.Context())
	if err != nil {
		f.Fatal(err)
	}
	storagetest.FuzzCityQuery(f, s)
}
