package httpadapter_test

import (
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/httpadapter"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/internal/testkit/telemetrytest"
	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/refdata/refdatatest"
	"github.com/brandbase/brandbase/storage"
)

// coldSample is how many queries of each kind are answered first to give
// the baseline its bodies; the handler is then timed on the others.
const coldSample = 256

// coldRuns numbers the timed runs of BenchmarkColdListsHTTP.
var coldRuns atomic.Int64

// coldKind is one kind of list query: distinct query strings, none asked
// twice.
type coldKind struct {
	name    string
	path    string
	queries []string
}

// BenchmarkColdListsHTTP serves list queries that are never repeated (so
// the adapter's list cache never answers: each is computed, from the
// reference-data service's snapshot, and encoded) over the default dataset
// plus refdatatest.Large, 50 a page, beside a baseline handler that writes
// answers of the same kind already encoded (the bodies of coldSample
// other queries, with their headers); "-metrics" is the handler with
// metrics on. The handler's sub-benchmark reports
// "share": its throughput as a share of the baseline's (the issue's
// target: 0.5). Run it with a fixed count, for example
// -benchtime 3000x: beyond the distinct queries of a kind (tens of
// thousands), a page number keeps them distinct.
func BenchmarkColdListsHTTP(b *testing.B) {
	cities := refdatatest.Large()
	kinds := coldKinds(b, cities)
	for _, bs := range benchStores {
		b.Run(bs.name, func(b *testing.B) {
			ctx := b.Context()
			store := bs.open(b)
			b.Cleanup(func() { store.Close() })
			start := time.Now()
			for i := 0; i < len(cities); i += 5000 {
				_, err := store.UpsertCities(ctx, cities[i:min(i+5000, len(cities))])
				require.NoError(b, err)
			}
			b.Logf("loaded %d cities in %v", len(cities), time.Since(start).Round(time.Millisecond))
			_, err := auth.NewService(store).CreateBrand(ctx, auth.NewBrand{URL: "shop.example.com", Name: "Shop"})
			require.NoError(b, err)
			// The handler, then the same with metrics on (an SDK meter
			// provider that records every metric, exporting nothing): the
			// share must stay at or above 0.5 too.
			mp, _ := telemetrytest.Quiet(b)
			for _, c := range []struct {
				name string
				cfg  brandbase.Config
			}{{"", brandbase.Config{}}, {"-metrics", brandbase.Config{MeterProvider: mp}}} {
				h := coldHandler(b, store, c.cfg)
				for _, k := range kinds {
					b.Run(k.name+c.name, func(b *testing.B) { benchCold(b, h, k) })
				}
			}
		})
	}
}

// coldHandler returns the handler of an App on store, its snapshot read,
// without rate limits. Request logs are discarded: the
// baseline writes none.
func coldHandler(b *testing.B, store storage.Storage, cfg brandbase.Config) http.Handler {
	cfg.SecretKeys = integrations.EphemeralKeyRing()
	app, err := brandbase.New(store, cfg)
	require.NoError(b, err)
	start := time.Now()
	require.NoError(b, app.WarmUp(b.Context()))
	b.Logf("index ready in %v", time.Since(start).Round(time.Millisecond))
	h, err := app.Handler(httpadapter.WithoutRateLimits(), httpadapter.WithLogger(slog.New(slog.DiscardHandler)))
	require.NoError(b, err)
	return h
}

// benchCold times the baseline, then h over k's queries not in the sample:
// in process (a recorder); over loopback HTTP, one request at a time on
// one kept-alive connection; and over loopback HTTP from 32 connections at
// once ("parallel", as the load generator: 16 goroutines a CPU).
// The query strings carry the transport's name and the run's number, so
// that none was answered before.
func benchCold(b *testing.B, h http.Handler, k coldKind) {
	type answer struct {
		body   []byte
		header http.Header
	}
	sample := make([]answer, coldSample)
	size := 0
	for i := range sample {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, coldRequest(k.path, k.queries[i]))
		require.Equal(b, http.StatusOK, rec.Code, k.queries[i])
		sample[i] = answer{rec.Body.Bytes(), rec.Header()}
		size += rec.Body.Len()
	}
	size /= len(sample)
	next := 0
	baseline := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a := sample[next%len(sample)]
		next++
		for k, v := range a.header {
			w.Header()[k] = v
		}
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(a.body)
	})
	queries := k.queries[coldSample:]
	for _, via := range []string{"inprocess", "loopback", "parallel"} {
		var baselineNs float64
		serve := func(b *testing.B, h http.Handler) float64 {
			do := coldTransport(b, via, h)
			// run keeps a rerun (-count, or the framework's own calibration
			// rounds) from asking what an earlier run asked, which the
			// handler's list cache would answer.
			run := "&run=" + strconv.FormatInt(coldRuns.Add(1), 10)
			query := func(i int) *http.Request {
				q := queries[i%len(queries)] + "&via=" + via + run
				if round := i / len(queries); round > 0 {
					q += "&PageNumber=" + strconv.Itoa(round)
				}
				return coldRequest(k.path, q)
			}
			b.SetBytes(int64(size))
			if via == "parallel" {
				var next atomic.Int64
				b.SetParallelism(16)
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						do(query(int(next.Add(1) - 1)))
					}
				})
				return float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			}
			for i := 0; b.Loop(); i++ {
				benchSink += do(query(i))
			}
			return float64(b.Elapsed().Nanoseconds()) / float64(b.N)
		}
		b.Run(via+"/baseline", func(b *testing.B) { baselineNs = serve(b, baseline) })
		b.Run(via+"/handler", func(b *testing.B) {
			ns := serve(b, h)
			if baselineNs > 0 {
				b.ReportMetric(baselineNs/ns, "share")
			}
		})
	}
}

// coldRequest returns a GET of path?query for the benchmark's brand.
func coldRequest(path, query string) *http.Request {
	r := httptest.NewRequest("GET", path+"?"+query, nil)
	r.Header.Set("Brand-URL", "shop.example.com")
	return r
}

// coldTransport returns a function that has h serve a request and returns
// the length of the body: through a recorder ("inprocess"), or through an
// HTTP server on loopback and a client ("loopback", "parallel": one that
// keeps a connection for each of 64 callers), closed when b ends.
func coldTransport(b *testing.B, via string, h http.Handler) func(*http.Request) int {
	if via == "inprocess" {
		return func(r *http.Request) int {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			return rec.Body.Len()
		}
	}
	srv := httptest.NewServer(h)
	b.Cleanup(srv.Close)
	client := srv.Client()
	client.Transport.(*http.Transport).MaxIdleConnsPerHost = 64
	return func(r *http.Request) int {
		req, err := http.NewRequestWithContext(b.Context(), "GET", srv.URL+r.URL.RequestURI(), nil)
		if err != nil {
			b.Error(err) // not require: it may run in RunParallel's goroutines
			return 0
		}
		req.Header = r.Header
		resp, err := client.Do(req)
		if err != nil {
			b.Error(err)
			return 0
		}
		n, err := io.Copy(io.Discard, resp.Body)
		if cerr := resp.Body.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			b.Error(err)
		}
		return int(n)
	}
}

// coldKinds returns the kinds of query timed, each with its distinct
// query strings, in a fixed order: city names (substrings of 3 to 5
// runes), keywords (word prefixes), a name in a country sorted by name
// (page 1), codes sorted by another field and deep-paged, and currency
// and country names sorted by every field.
func coldKinds(b *testing.B, cities []refdata.City) []coldKind {
	const max = 60_000
	names, words, combined, codes := newDistinct(max), newDistinct(max), newDistinct(max), newDistinct(max)
	sorts := []string{"name", "stateCode", "tags", "countryCode", "id"}
	for i, c := range cities {
		rs := []rune(strings.ToLower(c.Name))
		n := 3 + i%3
		if len(rs) >= n {
			off := (i / 3) % (len(rs) - n + 1)
			sub := string(rs[off : off+n])
			names.add(url.Values{"Name": {sub}, "PageSize": {"50"}}.Encode())
			combined.add(url.Values{"Name": {sub[:len(sub)-utf8.RuneLen(rs[off+n-1])]}, "CountryCode": {c.CountryCode},
				"SortDataField": {"name"}, "PageNumber": {"1"}, "PageSize": {"50"}}.Encode())
		}
		if fs := strings.Fields(c.Name); len(fs) > 0 {
			w := []rune(strings.ToLower(fs[len(fs)-1]))
			kw := string(w[:min(len(w), 3+i%4)])
			if len(fs) > 1 && i%2 == 0 {
				kw = strings.ToLower(fs[0]) + " " + kw
			}
			words.add(url.Values{"Keywords": {kw}, "PageSize": {"50"}}.Encode())
		}
		codes.add(url.Values{"CountryCode": {c.CountryCode}, "SortDataField": {sorts[i%len(sorts)]},
			"SortOrder": {[]string{"ASC", "DESC"}[i/len(sorts)%2]}, "PageNumber": {strconv.Itoa(i / 10 % 90)}, "PageSize": {"50"}}.Encode())
	}
	return []coldKind{
		{"cities-name", "/api/v1/cities", names.list},
		{"cities-keywords", "/api/v1/cities", words.list},
		{"cities-name-country-sorted", "/api/v1/cities", combined.list},
		{"cities-code-sorted-deep", "/api/v1/cities", codes.list},
		{"currencies", "/api/v1/currencies", tableQueries(namesOf(b, refdata.DefaultCurrencies, func(c refdata.Currency) string { return c.Name }), []string{"code", "name", "symbol", "decimalDigits", "isCoin", "id"})},
		{"countries", "/api/v1/countries", tableQueries(namesOf(b, refdata.DefaultCountries, func(c refdata.Country) string { return c.Name }), []string{"name", "capital", "region", "codePhone", "tld", "id"})},
	}
}

// tableQueries returns distinct queries of names' substrings of 1 to 4
// runes, sorted by each of fields in both orders.
func tableQueries(names []string, fields []string) []string {
	d := newDistinct(60_000)
	for _, order := range []string{"ASC", "DESC"} {
		for _, f := range fields {
			for _, n := range names {
				rs := []rune(strings.ToLower(n))
				for l := 1; l <= 4; l++ {
					for off := 0; off+l <= len(rs); off++ {
						d.add(url.Values{"Name": {string(rs[off : off+l])}, "SortDataField": {f}, "SortOrder": {order},
							"PageSize": {"50"}}.Encode())
					}
				}
			}
		}
	}
	return shuffled(d.list)
}

// shuffled returns qs in a fixed pseudo-random order, so that the sample
// and the timed queries are alike.
func shuffled(qs []string) []string {
	r := rand.New(rand.NewPCG(1, 2))
	r.Shuffle(len(qs), func(i, j int) { qs[i], qs[j] = qs[j], qs[i] })
	return qs
}

// namesOf returns the name of each record of the default dataset get
// returns.
func namesOf[T any](b *testing.B, get func() ([]T, error), name func(T) string) []string {
	recs, err := get()
	require.NoError(b, err)
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = name(r)
	}
	return out
}

// distinct collects distinct strings in the order first added, up to max.
type distinct struct {
	seen map[string]bool
	list []string
	max  int
}

func newDistinct(max int) *distinct { return &distinct{seen: map[string]bool{}, max: max} }

func (d *distinct) add(s string) {
	if len(d.list) < d.max && !d.seen[s] {
		d.seen[s] = true
		d.list = append(d.list, s)
	}
}
