package refdata_test

// The patch benchmarks run on an index of 1,000,000 generated cities,
// which takes a minute or more to generate and index (more on a loaded
// machine) and about 0.5 GiB: they run only under -bench, e.g.
//
//	go test ./refdata -run '^$' -bench 'Patch|FirstSortedList|CityIndexMemory' -benchmem -benchtime 1x -timeout 30m

import (
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/refdata/refdatatest"
)

// cpuMeter reports the CPU time an op takes (cpu-ns/op: the process's,
// the collector's included) beside ns/op, which on a loaded machine also
// counts the time spent waiting for a core.
type cpuMeter struct{ start time.Duration }

func startCPU() cpuMeter {
	runtime.GC() // the setup's garbage is not the ops'
	return cpuMeter{start: cpuTime()}
}

func (m cpuMeter) report(b *testing.B) {
	if used := cpuTime() - m.start; used > 0 && b.N > 0 {
		b.ReportMetric(float64(used.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

// millionSize is the number of cities of the patch benchmarks' index.
const millionSize = 1_000_000

// millionCities returns generated cities, once per process: the index's
// millionSize, then 250,000 new ones for patches.
var millionCities = sync.OnceValue(func() []refdata.City { return refdatatest.Cities(millionSize+250_000, 1) })

// millionIndex returns the index of the first millionSize cities, frozen,
// with its sort orders and countries' sets built (as the first lists
// build them), once per process.
var millionIndex = sync.OnceValue(func() *refdata.CityIndex {
	idx := refdata.BuildCityIndex(millionCities()[:millionSize])
	idx.Freeze()
	primeLists(idx)
	return idx
})

// primeLists answers a list sorted by each field and a Name within a
// country, which builds idx's sort orders and countries' sets.
func primeLists(idx *refdata.CityIndex) {
	for _, sort := range []refdata.Field{refdata.FieldName, refdata.FieldTags, refdata.FieldCountryCode, refdata.FieldStateCode} {
		idx.List(refdata.CityFilter{Sort: sort, Page: refdata.Paging{Size: 10}})
	}
	idx.List(refdata.CityFilter{CountryCode: "DE", Name: "ber", Sort: refdata.FieldID, Page: refdata.Paging{Size: 10}})
}

// patchCity returns the city that the i-th patch of a kind writes: a new
// city (insert), or a stored one given a tag it lacks (retag: the city
// moves in the order by tags).
func patchCity(kind string, i int) refdata.City {
	cs := millionCities()
	if kind == "insert" {
		return cs[millionSize+i%(len(cs)-millionSize)]
	}
	c := cs[(i*7919)%millionSize]
	c.Tags = "patched"
	return c
}

// BenchmarkPatchOneCity writes one city into the index of 1,000,000 cities
// as a Service's patch does (clone, upsert, finish), each patch on the
// last: the goal is at most 5 ms and 5 MB a patch.
func BenchmarkPatchOneCity(b *testing.B) {
	for _, kind := range []string{"insert", "retag"} {
		b.Run(kind, func(b *testing.B) {
			base := millionIndex()
			base.Unclaim() // the clones of the last run are dropped
			cur, i := base, 0
			b.ReportAllocs()
			cpu := startCPU()
			for b.Loop() {
				next := cur.Clone()
				next.UpsertAll([]refdata.City{patchCity(kind, i)})
				next.Freeze()
				cur = next
				i++
			}
			cpu.report(b)
		})
	}
}

// BenchmarkPatch1000Cities writes 1,000 cities at once into the index of
// 1,000,000 cities, each patch on the last.
func BenchmarkPatch1000Cities(b *testing.B) {
	for _, kind := range []string{"insert", "retag"} {
		b.Run(kind, func(b *testing.B) {
			base := millionIndex()
			base.Unclaim()
			cur, i := base, 0
			batch := make([]refdata.City, 1000)
			b.ReportAllocs()
			cpu := startCPU()
			for b.Loop() {
				for k := range batch {
					batch[k] = patchCity(kind, i)
					i++
				}
				next := cur.Clone()
				next.UpsertAll(batch)
				next.Freeze()
				cur = next
			}
			cpu.report(b)
		})
	}
}

// BenchmarkFirstSortedListAfterPatch answers the first sorted list after
// a patch of one new city (the patch itself not timed): the orders are
// kept across the patch, not sorted again.
func BenchmarkFirstSortedListAfterPatch(b *testing.B) {
	for _, q := range []struct {
		name string
		f    refdata.CityFilter
	}{
		{"all-by-name", refdata.CityFilter{Sort: refdata.FieldName, Page: refdata.Paging{Number: 2000, Size: 50}}},
		{"country-by-tags-desc", refdata.CityFilter{CountryCode: "FR", Sort: refdata.FieldTags, Desc: true, Page: refdata.Paging{Number: 30, Size: 50}}},
		{"name-by-state", refdata.CityFilter{Name: "berg", Sort: refdata.FieldStateCode, Page: refdata.Paging{Number: 3, Size: 50}}},
	} {
		b.Run(q.name, func(b *testing.B) {
			base := millionIndex()
			base.Unclaim()
			cur := base
			b.ReportAllocs()
			for i := range b.N {
				b.StopTimer()
				next := cur.Clone()
				next.UpsertAll([]refdata.City{patchCity("insert", i)})
				next.Freeze()
				cur = next
				b.StartTimer()
				page, _ := cur.List(q.f)
				sinkCities = page
			}
		})
	}
}

// BenchmarkCityIndexMemory reports the heap an index of 1,000,000 cities
// holds, a city: indexed, then with its four sort orders and the
// countries' sets (runtime.MemStats after a collection; the cities given
// to the index are held throughout and not counted). Run it with
// -benchtime 1x.
func BenchmarkCityIndexMemory(b *testing.B) {
	cs := millionCities()[:millionSize]
	heap := func() float64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return float64(m.HeapAlloc)
	}
	for range b.N {
		h0 := heap()
		idx := refdata.BuildCityIndex(cs)
		idx.Freeze()
		h1 := heap()
		primeLists(idx)
		h2 := heap()
		b.ReportMetric((h1-h0)/millionSize, "B/city-indexed")
		b.ReportMetric((h2-h0)/millionSize, "B/city-with-orders")
		b.ReportMetric((h2-h0)/(1<<20), "MiB-with-orders")
		runtime.KeepAlive(idx)
	}
}
