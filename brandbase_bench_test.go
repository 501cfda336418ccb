package brandbase_test

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/httpadapter"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/internal/testkit/pgtest"
	"github.com/brandbase/brandbase/storage"
	"github.com/brandbase/brandbase/storage/storeurl"
)

var benchListBytes int

// benchQueries numbers the uncached queries of benchCities across runs
// (-count, calibration rounds, every benchmark), so that none is asked twice.
var benchQueries atomic.Int64

// benchCities runs GET /api/v1/cities (a page of 10) through h as two
// sub-benchmarks: "cached", the same query again (the answer comes from
// the handler's cache after one revision read), and "uncached", a query
// never asked before, computed anew.
func benchCities(b *testing.B, h http.Handler) {
	for _, q := range []struct {
		name  string
		query func() string
	}{
		{"cached", func() string { return "/api/v1/cities?CountryCode=FR&PageSize=10" }},
		{"uncached", func() string {
			return "/api/v1/cities?CountryCode=FR&PageSize=10&n=" + strconv.FormatInt(benchQueries.Add(1), 10)
		}},
	} {
		b.Run(q.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				req := httptest.NewRequest("GET", q.query(), nil)
				req.Header.Set("Brand-URL", "bench.example.com")
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("status %d: %s", rec.Code, rec.Body)
				}
				benchListBytes += rec.Body.Len()
			}
		})
	}
}

// BenchmarkListHandler is the throughput of the list handler on each
// store, as storeurl.Open opens them: GET /api/v1/cities (one page of 10),
// "cached" (the same query again: the answer comes from the handler's cache
// after one revision read) and "uncached" (a query that changes every
// time, computed by the store). PostgreSQL runs only with
// BRANDBASE_TEST_POSTGRES set.
func BenchmarkListHandler(b *testing.B) {
	for _, bs := range []struct {
		name string
		path func(b *testing.B) string
	}{
		{"memory", func(*testing.B) string { return storeurl.MemoryPath }},
		{"sqlite", func(b *testing.B) string { return b.TempDir() + "/bench.db" }},
		{"postgres", func(b *testing.B) string { return pgtest.Schema(b) }},
	} {
		b.Run(bs.name, func(b *testing.B) {
			store, err := storeurl.Open(b.Context(), bs.path(b), storeurl.Options{})
			require.NoError(b, err)
			b.Cleanup(func() { store.Close() })
			h := benchHandler(b, store)
			benchCities(b, h)
		})
	}
}

// benchHandler returns the handler of an App on store with one brand and
// no rate limit.
func benchHandler(b *testing.B, store storage.Storage) http.Handler {
	b.Helper()
	app, err := brandbase.New(store, brandbase.Config{SecretKeys: integrations.EphemeralKeyRing()})
	require.NoError(b, err)
	_, err = app.Auth.CreateBrand(b.Context(), auth.NewBrand{URL: "bench.example.com", Name: "Bench"})
	require.NoError(b, err)
	h, err := app.Handler(httpadapter.WithoutRateLimits(), quiet())
	require.NoError(b, err)
	return h
}
