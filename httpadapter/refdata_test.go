package httpadapter_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/httpadapter"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/internal/testkit/pgtest"
	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/storage"
	"github.com/brandbase/brandbase/storage/memory"
	"github.com/brandbase/brandbase/storage/postgres"
	"github.com/brandbase/brandbase/storage/sqlite"
)

var shopBrand = map[string]string{"Brand-URL": "shop.example.com"}

// testCities are cities in ISO's user-assigned country codes, so that no
// default city is among the answers that name them.
var testCities = []refdata.City{
	{CountryCode: "XA", StateCode: "SP", Name: "São Zétaville", Tags: "capital,port"},
	{CountryCode: "XA", StateCode: "RJ", Name: "Zeta Port", Tags: ""},
	{CountryCode: "XB", StateCode: "ZH", Name: "Zürich-Zeta", Tags: "capital"},
}

// pageOf decodes the paged list of a successful answer.
func pageOf[T any](t *testing.T, e env) refdata.Page[T] {
	t.Helper()
	var p refdata.Page[T]
	require.NoError(t, json.Unmarshal(e.Data, &p))
	return p
}

// asJSON returns v as the decoded JSON a client sees, for comparisons.
func asJSON(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	var out any
	require.NoError(t, json.Unmarshal(b, &out))
	return out
}

func refPtr[T any](v T) *T { return &v }

// TestRefDataListsHTTP runs each list scenario through the handler on both
// stores and checks the answer is exactly what the in-process service
// gives for the same query: the adapter only decodes and encodes.
func TestRefDataListsHTTP(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", refdata.MaxTextLength+1)
	scenarios := []struct {
		name    string
		path    string
		inProc  func(f *fixture) (any, error) // the same query in-process
		check   func(t *testing.T, e env)
		status  int
		errs    []string // field:code of each error, in order
		headers map[string]string
	}{
		{name: "countries, defaults", path: "/api/v1/countries",
			inProc: func(f *fixture) (any, error) { return f.app.RefData.ListCountries(t.Context(), refdata.CountryQuery{}) },
			check: func(t *testing.T, e env) {
				p := pageOf[map[string]any](t, e)
				assert.Equal(t, 200, p.PageSize)
				assert.Equal(t, 0, p.PageNumber)
				all, err := refdata.DefaultCountries()
				require.NoError(t, err)
				assert.Equal(t, len(all), p.TotalItems)
				for _, it := range p.Items {
					for _, k := range []string{"id", "region", "subregion", "codeAlpha2", "codeAlpha3", "codeNumeric",
						"codePhone", "name", "capital", "currency", "tld", "native", "tags"} {
						assert.Contains(t, it, k)
					}
					assert.NotContains(t, it, "keywords")
				}
			}},
		{name: "countries by code, names case-insensitive", path: "/api/v1/countries?codealpha2=fr",
			inProc: func(f *fixture) (any, error) {
				return f.app.RefData.ListCountries(t.Context(), refdata.CountryQuery{CodeAlpha2: refPtr("FR")})
			},
			check: func(t *testing.T, e env) {
				p := pageOf[refdata.Country](t, e)
				require.Len(t, p.Items, 1)
				assert.Equal(t, "FRA", p.Items[0].CodeAlpha3)
			}},
		{name: "countries by tld without dot and phone without +", path: "/api/v1/countries?Tld=FR&CodePhone=33",
			inProc: func(f *fixture) (any, error) {
				return f.app.RefData.ListCountries(t.Context(), refdata.CountryQuery{Tld: refPtr(".fr"), CodePhone: refPtr("+33")})
			},
			check: func(t *testing.T, e env) { assert.Equal(t, 1, pageOf[refdata.Country](t, e).TotalItems) }},
		{name: "countries, every filter", path: "/api/v1/countries?Region=eur&Subregion=west&CodeAlpha3=fra&CodeNumeric=250" +
			"&Name=FRAN&Capital=par&Currency=eur&Native=fr&Tags=eu,none&Keywords=fra%20pari",
			inProc: func(f *fixture) (any, error) {
				return f.app.RefData.ListCountries(t.Context(), refdata.CountryQuery{CodeAlpha2: refPtr("FR")})
			},
			check: func(t *testing.T, e env) { assert.Equal(t, 1, pageOf[refdata.Country](t, e).TotalItems) }},
		{name: "countries sorted by name descending", path: "/api/v1/countries?SortDataField=NAME&SortOrder=descending&PageSize=20&PageNumber=2",
			inProc: func(f *fixture) (any, error) {
				return f.app.RefData.ListCountries(t.Context(), refdata.CountryQuery{SortDataField: refPtr("name"),
					SortOrder: refPtr("DESC"), Page: refdata.Paging{Number: 2, Size: 20}})
			}},
		{name: "page size clamped", path: "/api/v1/countries?PageSize=5000",
			check: func(t *testing.T, e env) { assert.Equal(t, 1000, pageOf[refdata.Country](t, e).PageSize) }},
		{name: "page size 0 is the default", path: "/api/v1/countries?PageSize=0",
			check: func(t *testing.T, e env) { assert.Equal(t, 200, pageOf[refdata.Country](t, e).PageSize) }},
		{name: "page past the end", path: "/api/v1/countries?PageNumber=100",
			check: func(t *testing.T, e env) {
				p := pageOf[refdata.Country](t, e)
				assert.Empty(t, p.Items)
				assert.NotNil(t, p.Items)
				assert.Positive(t, p.TotalItems)
				assert.Contains(t, string(e.Data), `"items":[]`)
			}},
		{name: "unknown sort field", path: "/api/v1/countries?SortDataField=population", status: 400,
			errs: []string{"SortDataField:invalid_enum"}},
		{name: "bad sort order", path: "/api/v1/cities?sortorder=up", status: 400, errs: []string{"SortOrder:invalid_enum"}},
		{name: "bad number", path: "/api/v1/countries?CodeNumeric=abc", status: 400, errs: []string{"CodeNumeric:invalid_type"}},
		{name: "negative page size", path: "/api/v1/cities?PageSize=-1", status: 400, errs: []string{"PageSize:out_of_range"}},
		{name: "too long", path: "/api/v1/cities?Name=" + long, status: 400, errs: []string{"Name:too_long"}},
		{name: "not UTF-8 matches nothing", path: "/api/v1/countries?Native=%FF",
			check: func(t *testing.T, e env) { assert.Zero(t, pageOf[refdata.Country](t, e).TotalItems) }},
		{name: "every bad parameter reported", path: "/api/v1/currencies?PageSize=-1&SortOrder=x&Rounding=y&SortDataField=keywords",
			status: 400, errs: []string{"Rounding:invalid_type", "SortDataField:invalid_enum", "SortOrder:invalid_enum", "PageSize:out_of_range"}},
		{name: "cities, defaults", path: "/api/v1/cities",
			inProc: func(f *fixture) (any, error) { return f.app.RefData.ListCities(t.Context(), refdata.CityQuery{}) },
			check: func(t *testing.T, e env) {
				p := pageOf[map[string]any](t, e)
				require.NotEmpty(t, p.Items)
				assert.ElementsMatch(t, []string{"countryCode", "stateCode", "name", "tags"}, keysOf(p.Items[0]), "a city has no id")
			}},
		{name: "cities by country and state", path: "/api/v1/cities?CountryCode=xa&StateCode=SP",
			check: func(t *testing.T, e env) {
				assert.Equal(t, []refdata.City{testCities[0]}, pageOf[refdata.City](t, e).Items)
			}},
		{name: "cities by keywords: sao finds São", path: "/api/v1/cities?Keywords=" + url.QueryEscape("sao zet"),
			check: func(t *testing.T, e env) {
				assert.Equal(t, []refdata.City{testCities[0]}, pageOf[refdata.City](t, e).Items)
			}},
		{name: "cities by name substring", path: "/api/v1/cities?Name=RICH-ZE",
			check: func(t *testing.T, e env) {
				assert.Equal(t, []refdata.City{testCities[2]}, pageOf[refdata.City](t, e).Items)
			}},
		{name: "cities sorted by name", path: "/api/v1/cities?Keywords=zeta&SortDataField=name&SortOrder=DESC",
			check: func(t *testing.T, e env) {
				// by folded name: zurich-zeta, zeta port, sao zetaville
				assert.Equal(t, []refdata.City{testCities[2], testCities[1], testCities[0]}, pageOf[refdata.City](t, e).Items)
			}},
		{name: "keywords without a word match nothing", path: "/api/v1/cities?Keywords=%25%20_",
			check: func(t *testing.T, e env) {
				p := pageOf[refdata.City](t, e)
				assert.Zero(t, p.TotalItems)
				assert.Empty(t, p.Items)
			}},
		{name: "cities, every filter", path: "/api/v1/cities?Keywords=Port&CountryCode=XA&StateCode=rj&Name=zeta&PageSize=1",
			inProc: func(f *fixture) (any, error) {
				return f.app.RefData.ListCities(t.Context(), refdata.CityQuery{Keywords: refPtr("port"), CountryCode: refPtr("XA"),
					StateCode: refPtr("RJ"), Name: refPtr("Zeta"), Page: refdata.Paging{Size: 1}})
			},
			check: func(t *testing.T, e env) {
				assert.Equal(t, []refdata.City{testCities[1]}, pageOf[refdata.City](t, e).Items)
			}},
		{name: "countries by a native name with combining marks", path: "/api/v1/countries?Keywords=" + url.QueryEscape("नेपाल"),
			inProc: func(f *fixture) (any, error) {
				return f.app.RefData.ListCountries(t.Context(), refdata.CountryQuery{Keywords: refPtr("नेपाल")})
			},
			check: func(t *testing.T, e env) {
				p := pageOf[refdata.Country](t, e)
				require.Len(t, p.Items, 1)
				assert.Equal(t, "NP", p.Items[0].CodeAlpha2)
			}},
		{name: "cities by a Tamil word", path: "/api/v1/cities?Keywords=" + url.QueryEscape("தமிழ்"),
			inProc: func(f *fixture) (any, error) {
				return f.app.RefData.ListCities(t.Context(), refdata.CityQuery{Keywords: refPtr("தமிழ்")})
			}},
		{name: "a word with an enclosing mark is one word", path: "/api/v1/cities?Keywords=" + url.QueryEscape("x\u20dd"),
			check: func(t *testing.T, e env) { assert.Zero(t, pageOf[refdata.City](t, e).TotalItems) }},
		{name: "currencies: isDefault is the brand's", path: "/api/v1/currencies?SortDataField=isDefault&SortOrder=DESC&PageSize=2",
			check: func(t *testing.T, e env) {
				p := pageOf[refdata.Currency](t, e)
				require.Len(t, p.Items, 2)
				assert.Equal(t, "EUR", p.Items[0].Code)
				assert.True(t, p.Items[0].IsDefault)
				assert.False(t, p.Items[1].IsDefault)
			}},
		{name: "currencies by keywords", path: "/api/v1/currencies?Keywords=euro&Code=EUR",
			inProc: func(f *fixture) (any, error) {
				return f.app.RefData.ListCurrencies(t.Context(), refdata.CurrencyQuery{Keywords: refPtr("euro"), Code: refPtr("eur"), DefaultCurrency: "EUR"})
			},
			check: func(t *testing.T, e env) { assert.Equal(t, 1, pageOf[refdata.Currency](t, e).TotalItems) }},
		{name: "no Brand-URL", path: "/api/v1/cities", headers: map[string]string{}, status: 400,
			errs: []string{"Brand-URL:brand_url_required"}},
	}
	for storeName, newStore := range stores {
		t.Run(storeName, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, newStore)
			_, err := f.app.Store.UpsertCities(t.Context(), testCities)
			require.NoError(t, err)
			for _, sc := range scenarios {
				t.Run(sc.name, func(t *testing.T) {
					headers := sc.headers
					if headers == nil {
						headers = shopBrand
					}
					rec, e := f.do(t, "GET", sc.path, headers, "")
					status := sc.status
					if status == 0 {
						status = http.StatusOK
					}
					require.Equal(t, status, rec.Code, rec.Body.String())
					var got []string
					for _, it := range e.Errors {
						got = append(got, it.Field+":"+it.Code)
						assert.NotEmpty(t, it.Details)
					}
					assert.Equal(t, sc.errs, got)
					if sc.inProc != nil {
						want, err := sc.inProc(f)
						require.NoError(t, err)
						var data any
						require.NoError(t, json.Unmarshal(e.Data, &data))
						assert.Equal(t, asJSON(t, want), data, "the answer is the service's")
					}
					if sc.check != nil {
						sc.check(t, e)
					}
				})
			}
		})
	}
}

// TestRefDataCachingHTTP checks the ETag, 304 and Cache-Control of every
// list, and that an import is seen at once (the encoded answers are cached
// until the data change).
func TestRefDataCachingHTTP(t *testing.T) {
	t.Parallel()
	for storeName, newStore := range stores {
		t.Run(storeName, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, newStore)
			for _, path := range []string{"/api/v1/currencies", "/api/v1/countries?PageSize=3", "/api/v1/cities?CountryCode=XA"} {
				rec, _ := f.do(t, "GET", path, shopBrand, "")
				require.Equal(t, http.StatusOK, rec.Code)
				etag := rec.Header().Get("ETag")
				require.NotEmpty(t, etag, path)
				assert.False(t, strings.HasPrefix(etag, "W/"), "strong ETag")
				assert.Equal(t, "private, max-age=300", rec.Header().Get("Cache-Control"))

				again, _ := f.do(t, "GET", path, shopBrand, "")
				assert.Equal(t, rec.Body.String(), again.Body.String(), "a cached answer is the same")
				assert.Equal(t, etag, again.Header().Get("ETag"))

				notModified, _ := f.do(t, "GET", path, map[string]string{"Brand-URL": "shop.example.com", "If-None-Match": `"x", ` + etag}, "")
				assert.Equal(t, http.StatusNotModified, notModified.Code, path)
				assert.Empty(t, notModified.Body.Bytes())
				assert.Equal(t, etag, notModified.Header().Get("ETag"))
			}

			path := "/api/v1/cities?CountryCode=XA"
			before, e := f.do(t, "GET", path, shopBrand, "")
			assert.Empty(t, pageOf[refdata.City](t, e).Items)
			report, err := f.app.RefData.ImportCities(t.Context(), strings.NewReader("countryCode,stateCode,name,tags\nFR,IDF,Zétaville-sur-Seine,\n"), refdata.ImportOptions{})
			require.NoError(t, err)
			require.Equal(t, 1, report.Added)
			_, err = f.app.Store.UpsertCities(t.Context(), testCities)
			require.NoError(t, err)
			after, e := f.do(t, "GET", path, shopBrand, "")
			assert.Len(t, pageOf[refdata.City](t, e).Items, 2, "the import is seen at once")
			assert.NotEqual(t, before.Header().Get("ETag"), after.Header().Get("ETag"))
			stale, _ := f.do(t, "GET", path, map[string]string{"Brand-URL": "shop.example.com", "If-None-Match": before.Header().Get("ETag")}, "")
			assert.Equal(t, http.StatusOK, stale.Code, "an old ETag does not match")
		})
	}
}

// TestCurrenciesCachedPerDefault checks that two brands with different
// default currencies get their own isDefault from the same URL.
func TestCurrenciesCachedPerDefault(t *testing.T) {
	t.Parallel()
	for storeName, newStore := range stores {
		t.Run(storeName, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, newStore)
			_, err := f.app.Auth.CreateBrand(t.Context(), auth.NewBrand{URL: "usd.example.com", Name: "USD shop", DefaultCurrency: "USD"})
			require.NoError(t, err)
			defaults := func(brand string) []string {
				_, e := f.do(t, "GET", "/api/v1/currencies?PageSize=1000", map[string]string{"Brand-URL": brand}, "")
				var codes []string
				for _, c := range pageOf[refdata.Currency](t, e).Items {
					if c.IsDefault {
						codes = append(codes, c.Code)
					}
				}
				return codes
			}
			for range 2 {
				assert.Equal(t, []string{"EUR"}, defaults("shop.example.com"))
				assert.Equal(t, []string{"USD"}, defaults("usd.example.com"))
			}
		})
	}
}

func TestRefDataRoutes(t *testing.T) {
	t.Parallel()
	f := newFixture(t, stores["memory"])
	for _, path := range []string{"/api/v1/countries", "/api/v1/cities"} {
		rec, e := f.do(t, "POST", path, shopBrand, "")
		assert.Equal(t, http.StatusMethodNotAllowed, rec.Code)
		assert.Equal(t, "method_not_allowed", e.Errors[0].Code)
		rec, e = f.do(t, "GET", path, map[string]string{"Brand-URL": "closed.example.com"}, "")
		assert.Equal(t, http.StatusForbidden, rec.Code)
		assert.Equal(t, "brand_inactive", e.Errors[0].Code)
	}
}

// benchStores open the stores the HTTP benchmarks run on; postgres skips
// unless BRANDBASE_TEST_POSTGRES names a server (internal/testkit/pgtest).
var benchStores = []struct {
	name string
	open func(b *testing.B) storage.Storage
}{
	{"memory", func(b *testing.B) storage.Storage {
		s, err := memory.New(b.Context())
		require.NoError(b, err)
		return s
	}},
	{"sqlite", func(b *testing.B) storage.Storage {
		s, err := sqlite.Open(b.Context(), b.TempDir()+"/bench.db")
		require.NoError(b, err)
		return s
	}},
	{"postgres", func(b *testing.B) storage.Storage {
		s, err := postgres.Open(b.Context(), pgtest.Schema(b))
		require.NoError(b, err)
		return s
	}},
}

var benchSink int

// BenchmarkCountriesHTTP serves GET /api/v1/countries (the default page:
// 200 countries) through the handler, beside a baseline handler that
// writes the same bytes, already encoded, with the same headers; and
// through the handler with a query that changes every time, so that each
// answer is computed (uncached).
func BenchmarkCountriesHTTP(b *testing.B) {
	for _, bs := range benchStores {
		b.Run(bs.name, func(b *testing.B) {
			store := bs.open(b)
			b.Cleanup(func() { store.Close() })
			app, err := brandbase.New(store, brandbase.Config{SecretKeys: integrations.EphemeralKeyRing()})
			require.NoError(b, err)
			_, err = app.Auth.CreateBrand(b.Context(), auth.NewBrand{URL: "shop.example.com", Name: "Shop"})
			require.NoError(b, err)
			h, err := app.Handler(httpadapter.WithoutRateLimits())
			require.NoError(b, err)
			req := httptest.NewRequest("GET", "/api/v1/countries", nil)
			req.Header.Set("Brand-URL", "shop.example.com")
			first := httptest.NewRecorder()
			h.ServeHTTP(first, req)
			require.Equal(b, http.StatusOK, first.Code)
			body, header := first.Body.Bytes(), first.Header()
			baseline := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				for k, v := range header {
					w.Header()[k] = v
				}
				w.WriteHeader(http.StatusOK)
				_, _ = w.Write(body)
			})
			serve := func(b *testing.B, h http.Handler, req func(i int) *http.Request) {
				i := 0
				for b.Loop() {
					rec := httptest.NewRecorder()
					h.ServeHTTP(rec, req(i))
					benchSink += rec.Body.Len()
					i++
				}
				b.SetBytes(int64(len(body)))
			}
			b.Run("handler", func(b *testing.B) { serve(b, h, func(int) *http.Request { return req }) })
			b.Run("baseline", func(b *testing.B) { serve(b, baseline, func(int) *http.Request { return req }) })
			b.Run("handler-uncached", func(b *testing.B) {
				serve(b, h, func(i int) *http.Request {
					r := httptest.NewRequest("GET", "/api/v1/countries?n="+strconv.Itoa(i), nil)
					r.Header.Set("Brand-URL", "shop.example.com")
					return r
				})
			})
		})
	}
}
