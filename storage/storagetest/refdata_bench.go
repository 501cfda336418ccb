package storagetest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/refdata/refdatatest"
	"github.com/brandbase/brandbase/storage"
	"github.com/brandbase/brandbase/storage/memory"
)

// sink keeps benchmark results alive.
var sink any

// CityBenchmarks are the city queries BenchRefData times, over the default
// dataset plus refdatatest.Large.
var CityBenchmarks = []struct {
	Name  string
	Query refdata.CityQuery
}{
	{"Page0", refdata.CityQuery{}},
	{"CountryState", refdata.CityQuery{CountryCode: refPtr("US"), StateCode: refPtr("AA")}},
	{"CountryByName", refdata.CityQuery{CountryCode: refPtr("BR"), SortDataField: refPtr("name")}},
	{"NameSubstring", refdata.CityQuery{Name: refPtr("burg")}},
	{"NameShort", refdata.CityQuery{Name: refPtr("zü")}},
	{"NameOneLetter", refdata.CityQuery{Name: refPtr("ü")}},
	{"NameShortByName", refdata.CityQuery{Name: refPtr("zü"), SortDataField: refPtr("name")}},
	{"NameShortCountry", refdata.CityQuery{Name: refPtr("zü"), CountryCode: refPtr("BR")}},
	{"NameShortKeywords", refdata.CityQuery{Name: refPtr("ü"), Keywords: refPtr("port")}},
	{"Keywords", refdata.CityQuery{Keywords: refPtr("san jo")}},
	{"KeywordsCountry", refdata.CityQuery{Keywords: refPtr("port"), CountryCode: refPtr("FR")}},
	{"KeywordsOneLetter", refdata.CityQuery{Keywords: refPtr("s")}},
	{"DeepPage", refdata.CityQuery{Page: refdata.Paging{Number: 500, Size: 200}}},
	{"DeepPageByName", refdata.CityQuery{SortDataField: refPtr("name"), Page: refdata.Paging{Number: 500, Size: 200}}},
}

// BenchRefData loads refdatatest.Large into a store from newStore (in
// batches of 5,000, reporting the time taken) and runs one sub-benchmark
// per CityBenchmarks query, reporting the number of matches as "matches".
// Run it from a Benchmark function: go test -bench RefData -benchmem.
func BenchRefData(b *testing.B, newStore func(b *testing.B) storage.Storage) {
	s := newStore(b)
	b.Cleanup(func() { s.Close() })
	ctx := b.Context()
	start := time.Now()
	cities := refdatatest.Large()
	for i := 0; i < len(cities); i += 5000 {
		if _, err := s.UpsertCities(ctx, cities[i:min(i+5000, len(cities))]); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("loaded %d cities in %v", len(cities), time.Since(start).Round(time.Millisecond))
	for _, bq := range CityBenchmarks {
		f := bq.Query
		b.Run(bq.Name, func(b *testing.B) {
			var total int
			for b.Loop() {
				items, n, err := lists(s).ListCities(ctx, f)
				if err != nil {
					b.Fatal(err)
				}
				sink, total = items, n
			}
			b.ReportMetric(float64(total), "matches")
		})
	}
}

// FuzzCityQuery fuzzes the city lists of s, a store holding the default
// dataset and nothing else: for any query, the answer (or the validation
// error) must be that of a Service over a memory store holding the same
// (whose engine package refdata checks against its reference
// implementation, selectCities, in FuzzCityIndex), and no valid query may
// fail. Call it from a Fuzz function of the store's package.
func FuzzCityQuery(f *testing.F, s storage.Storage) {
	f.Add("são", "BR", "SP", "paulo", "name", "desc", 0, 5)
	f.Add("\x00\xff", "b\x00", "ÿ", "%_", "tags", "", 1, 0)
	f.Add("", "", "", "  \"*  ", "", "asc", 0, 1000)
	f.Add("c", "US", "", "new y", "stateCode", "DESC", 2, 3)
	f.Add("o'", "", "", "", "countryCode", "", 0, 200)
	m, err := memory.New(f.Context())
	if err != nil {
		f.Fatal(err)
	}
	ref := lists(m)
	f.Fuzz(func(t *testing.T, name, country, state, keywords, sortBy, order string, page, size int) {
		q := refdata.CityQuery{Name: &name, CountryCode: &country, StateCode: &state, Keywords: &keywords,
			SortDataField: &sortBy, SortOrder: &order, Page: refdata.Paging{Number: page % 50, Size: size % 1200}}
		want, wantTotal, wantErr := ref.ListCities(t.Context(), q)
		got, total, err := lists(s).ListCities(t.Context(), q)
		if wantErr != nil {
			require.Equal(t, wantErr.Error(), err.Error(), "%+v", q)
			return
		}
		require.NoError(t, err, "%+v", q)
		assert.Equal(t, wantTotal, total, "%+v", q)
		assert.Equal(t, want, got, "%+v", q)
	})
}
