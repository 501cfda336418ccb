package postgres_test

import (
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/internal/testkit/pgtest"
	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/refdata/refdatatest"
	"github.com/brandbase/brandbase/storage"
	"github.com/brandbase/brandbase/storage/postgres"
	"github.com/brandbase/brandbase/storage/storagetest"
)

// BenchmarkRefData runs storagetest's reference-data benchmarks over the
// default dataset and 150,000 generated cities, right after their import.
func BenchmarkRefData(b *testing.B) {
	storagetest.BenchRefData(b, func(b *testing.B) storage.Storage {
		s, err := postgres.Open(b.Context(), pgtest.Schema(b))
		if err != nil {
			b.Fatal(err)
		}
		return s
	})
}

// BenchmarkRefDataVacuumed runs the same benchmarks on a table that
// autovacuum has caught up with (VACUUM ANALYZE after the import: the
// visibility map lets counts read indexes only), the steady state of a
// server. The import BenchRefData then times changes nothing.
func BenchmarkRefDataVacuumed(b *testing.B) {
	storagetest.BenchRefData(b, func(b *testing.B) storage.Storage {
		s, err := postgres.Open(b.Context(), pgtest.Schema(b))
		if err != nil {
			b.Fatal(err)
		}
		cities := refdatatest.Large()
		for i := 0; i < len(cities); i += 25_000 {
			if _, err := s.UpsertCities(b.Context(), cities[i:min(i+25_000, len(cities))]); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := s.Pool().Exec(b.Context(), `VACUUM ANALYZE cities`); err != nil {
			b.Fatal(err)
		}
		return s
	})
}

// BenchmarkOpen times opening a store on a new schema: migrations and the
// default dataset.
func BenchmarkOpen(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		url := pgtest.Schema(b)
		b.StartTimer()
		s, err := postgres.Open(b.Context(), url)
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}

// BenchmarkIndexStartup times an instance's start on a PostgreSQL schema
// holding 150,000 cities: storagetest.BenchIndexStartup.
func BenchmarkIndexStartup(b *testing.B) {
	url := pgtest.Schema(b)
	storagetest.BenchIndexStartup(b, func(b *testing.B) storage.Storage {
		s, err := postgres.Open(b.Context(), url)
		if err != nil {
			b.Fatal(err)
		}
		return s
	})
}

// BenchmarkImportOneState times importing n cities of one country and
// state in batches of 5,000, on a fresh schema each time: 60,000 must cost
// about three times 20,000 (each batch's look-up of stored tags goes
// through the unique index or a hash, not through every city of the
// state once per key).
func BenchmarkImportOneState(b *testing.B) {
	for _, n := range []int{20_000, 60_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			cs := make([]refdata.City, n)
			for i := range cs {
				cs[i] = refdata.City{CountryCode: "US", StateCode: "TX", Name: fmt.Sprintf("Town %d", i), Tags: "t"}
			}
			for b.Loop() {
				b.StopTimer()
				s, err := postgres.Open(b.Context(), pgtest.Schema(b))
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				for i := 0; i < n; i += 5000 {
					if _, err := s.UpsertCities(b.Context(), cs[i:i+5000]); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				s.Close()
				b.StartTimer()
			}
		})
	}
}

// BenchmarkIntegrationsManyBrands runs integration writes (an analytics
// update through integrations.Service: read, lock, write, revision) and a
// mix of reads and writes (nine reads to a write) from 16 goroutines at
// once, spread over 1 brand or over 16 brands. Writes of one brand's
// integration wait for each other; writes in different brands take
// different locks and proceed in parallel, so the 16-brand case runs
// several writes at a time (bounded by the pool and the server).
func BenchmarkIntegrationsManyBrands(b *testing.B) {
	ctx := b.Context()
	s, err := postgres.Open(ctx, pgtest.Schema(b), postgres.WithPoolConfig(func(c *pgxpool.Config) { c.MaxConns = 16 }))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	keys, err := integrations.NewKeyRing("k1", map[string][]byte{"k1": []byte("0123456789abcdef0123456789abcdef")})
	if err != nil {
		b.Fatal(err)
	}
	svc := integrations.NewService(s, integrations.WithKeyRing(keys))
	fixtures := make([]integFixture, 16)
	for i := range fixtures {
		fixtures[i] = newIntegFixture(b, s, svc, fmt.Sprintf("bench%d.example.com", i))
	}
	for _, mode := range []struct {
		name       string
		writeEvery int64 // one op in writeEvery is a write
	}{{"writes", 1}, {"mixed-10pct-writes", 10}} {
		for _, brands := range []int{1, 16} {
			b.Run(fmt.Sprintf("%s/brands=%d", mode.name, brands), func(b *testing.B) {
				var n atomic.Int64
				b.SetParallelism(8) // 16 goroutines on 2 cores: they mostly wait on the database
				b.ResetTimer()
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						i := n.Add(1)
						f := fixtures[int(i)%brands]
						if i%mode.writeEvery == 0 {
							if _, err := svc.UpdateAnalytics(ctx, f.admin, f.analytics, f.analyticsIn(fmt.Sprintf("G-%d", i))); err != nil {
								b.Error(err)
								return
							}
							continue
						}
						if _, err := svc.Analytics(ctx, f.brand, f.analytics); err != nil {
							b.Error(err)
							return
						}
					}
				})
			})
		}
	}
}

// BenchmarkListsDuringImport: two instances (a store and a reference-data
// service each) share a schema; one imports refdatatest.Large (150,000
// cities) in batches of 1,000, as ImportCities writes them, while the
// other answers city lists (a mix of keyword, name, country and sorted
// queries, one after another, as one busy client) until the import ends.
// It reports the lists' latency (p50, p99, max, in ms), how many were
// answered, the patches the listing instance made, and how long after
// the import it listed the last city. Run it with -benchtime=1x: each
// iteration imports the 150,000 cities into a fresh schema.
func BenchmarkListsDuringImport(b *testing.B) {
	cities := refdatatest.Large()
	queries := []refdata.CityQuery{
		{Keywords: new("san")},
		{Name: new("ville"), SortDataField: new("name")},
		{CountryCode: new("US"), Page: refdata.Paging{Number: 3, Size: 50}},
		{SortDataField: new("stateCode"), SortOrder: new("desc"), Page: refdata.Paging{Size: 20}},
		{Keywords: new("port")},
	}
	var lat []time.Duration
	var patches uint64
	var importTime, catchUp time.Duration
	for b.Loop() {
		b.StopTimer()
		url := pgtest.Schema(b)
		open := func() storage.Storage {
			s, err := postgres.Open(b.Context(), url)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { s.Close() })
			return s
		}
		lister, importer := open(), open()
		svc := refdata.NewService(lister)
		if err := svc.Ready(b.Context()); err != nil {
			b.Fatal(err)
		}
		before := svc.Patches()
		done := make(chan struct{})
		start := time.Now()
		go func() {
			defer close(done)
			for i := 0; i < len(cities); i += 1000 {
				if _, err := importer.UpsertCities(b.Context(), cities[i:min(i+1000, len(cities))]); err != nil {
					b.Error(err)
					return
				}
			}
		}()
		b.StartTimer()
		lat = lat[:0]
	list:
		for i := 0; ; i++ {
			select {
			case <-done:
				break list
			default:
			}
			t0 := time.Now()
			if _, err := svc.ListCities(b.Context(), queries[i%len(queries)]); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(t0))
		}
		b.StopTimer()
		importTime = time.Since(start)
		last := cities[len(cities)-1]
		for {
			p, err := svc.ListCities(b.Context(), refdata.CityQuery{CountryCode: &last.CountryCode, StateCode: &last.StateCode, Name: &last.Name})
			if err != nil {
				b.Fatal(err)
			}
			if p.TotalItems > 0 {
				break
			}
			time.Sleep(10 * time.Millisecond) // a benchmark's wait for the background patch, not a test's
		}
		catchUp = time.Since(start) - importTime
		patches = svc.Patches() - before
		svc.Close()
		b.StartTimer()
	}
	slices.Sort(lat)
	at := func(q float64) float64 {
		if len(lat) == 0 {
			return 0
		}
		return float64(lat[min(len(lat)-1, int(q*float64(len(lat))))].Microseconds()) / 1000
	}
	b.ReportMetric(at(0.5), "p50-ms")
	b.ReportMetric(at(0.99), "p99-ms")
	b.ReportMetric(at(1), "max-ms")
	b.ReportMetric(float64(len(lat)), "lists")
	b.ReportMetric(float64(patches), "patches")
	b.ReportMetric(importTime.Seconds(), "import-s")
	b.ReportMetric(catchUp.Seconds(), "catchup-s")
}
