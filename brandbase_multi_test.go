package brandbase_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/httpadapter"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/internal/testkit/pgtest"
	"github.com/brandbase/brandbase/ratelimit"
	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/storage/storeurl"
)

// staleness is how soon a change made through one instance must be seen by
// the others (docs/several-instances.md: within about a second).
const staleness = time.Second

// instance is one brandbase App on a store of its own, served over real
// HTTP.
type instance struct {
	name    string
	app     *brandbase.App
	base    string // the server's URL
	updated atomic.Int32
}

// cluster opens n instances on one fresh PostgreSQL schema: every store
// opened on the URL, every App with the same key ring (and what with sets
// in its Config), every handler with the default rate limits but a high
// update limit (the test sends bursts of updates).
func cluster(t *testing.T, n int, with ...func(*brandbase.Config)) []*instance {
	t.Helper()
	url := pgtest.Schema(t)
	keys, err := integrations.NewKeyRing("k1", map[string][]byte{"k1": []byte("0123456789abcdef0123456789abcdef")})
	require.NoError(t, err)
	limits := httpadapter.DefaultRateLimits()
	limits.Updates = ratelimit.Policy{Limit: 1000, Per: time.Second}
	var out []*instance
	for i := range n {
		store, err := storeurl.Open(t.Context(), url, storeurl.Options{})
		require.NoError(t, err)
		t.Cleanup(func() { store.Close() })
		in := &instance{name: string(rune('A' + i))}
		cfg := brandbase.Config{
			SecretKeys:  keys,
			AuthOptions: []auth.Option{auth.WithArgon2Params(fastArgon2)},
			OnIntegrationUpdated: func(context.Context, integrations.IntegrationUpdated) {
				in.updated.Add(1)
			},
		}
		for _, w := range with {
			w(&cfg)
		}
		in.app, err = brandbase.New(store, cfg)
		require.NoError(t, err)
		h, err := in.app.Handler(quiet(), httpadapter.WithRateLimits(limits))
		require.NoError(t, err)
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		in.base = srv.URL
		out = append(out, in)
	}
	return out
}

// answer is a decoded response.
type answer struct {
	status int
	header http.Header
	data   map[string]any
}

// do sends one request to in and decodes the envelope's data.
// headers are name and value pairs.
func (in *instance) do(t *testing.T, method, path, brand, authKey, body string, headers ...string) answer {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, in.base+path, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Brand-URL", brand)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	if authKey != "" {
		req.Header.Set("Auth-Key", authKey)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var env struct {
		Data map[string]any `json:"data"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&env), "%s %s on %s", method, path, in.name)
	return answer{status: resp.StatusCode, header: resp.Header, data: env.Data}
}

// within polls check (no fixed sleep) until it holds, and fails the test
// when it still does not after staleness since start.
func within(t *testing.T, start time.Time, what string, check func() bool) {
	t.Helper()
	for !check() {
		if time.Since(start) > staleness {
			t.Fatalf("%s: not seen within %v", what, staleness)
		}
		time.Sleep(5 * time.Millisecond) // a poll interval, not a wait for time to pass
	}
}

// TestSeveralInstances runs three instances on one database and checks
// that they behave as one (docs/several-instances.md).
func TestSeveralInstances(t *testing.T) {
	t.Parallel()
	// The instances' clock runs ahead of time.Now by ahead, which only
	// ever grows (a refresh key's reuse must come after the reuse
	// interval of its rotation, and the test does not sleep).
	var ahead atomic.Int64
	nodes := cluster(t, 3, func(cfg *brandbase.Config) {
		cfg.Clock = func() time.Time { return time.Now().Add(time.Duration(ahead.Load())) }
	})
	a, b, c := nodes[0], nodes[1], nodes[2]
	ctx := t.Context()
	const shop, closing = "shop.example.com", "closing.example.com"
	brand, err := a.app.Auth.CreateBrand(ctx, auth.NewBrand{URL: shop, Name: "Shop"})
	require.NoError(t, err)
	closingBrand, err := a.app.Auth.CreateBrand(ctx, auth.NewBrand{URL: closing, Name: "Closing"})
	require.NoError(t, err)
	_, err = a.app.Auth.CreateUser(ctx, brand.ID, auth.NewUser{Username: "admin", Password: "admin password",
		Permissions: []auth.Permission{auth.PermAll}})
	require.NoError(t, err)
	_, err = a.app.Auth.CreateUser(ctx, brand.ID, auth.NewUser{Username: "viewer", Password: "viewer password"})
	require.NoError(t, err)
	host := auth.Principal{UserID: "host", BrandID: brand.ID, Permissions: []auth.Permission{auth.PermAll}}
	appInt, err := a.app.Integrations.CreateAppIntegration(ctx, host, integrations.AppIntegrationInput{
		Type: integrations.TypeAnalytics, Name: "Analytics", Domain: "https://analytics.example.com"})
	require.NoError(t, err)
	analytics, err := a.app.Integrations.CreateAnalytics(ctx, host, integrations.AnalyticsInput{
		AppIntegrationID: &appInt.ID, TrackingID: new("G-0"), APIKey: new("ak_0123456789")})
	require.NoError(t, err)
	analyticsPath := "/api/v1/app-integrations/analytics/" + analytics.ID
	loginAs := func(t *testing.T, in *instance, username, password string, headers ...string) answer {
		t.Helper()
		r := in.do(t, "POST", "/api/v1/users/auth", shop, "",
			fmt.Sprintf(`{"username":%q,"password":%q}`, username, password), headers...)
		require.Equal(t, http.StatusOK, r.status, "login on %s", in.name)
		return r
	}
	login := func(t *testing.T, in *instance) string {
		t.Helper()
		return loginAs(t, in, "admin", "admin password").data["authKey"].(string)
	}
	get := func(t *testing.T, in *instance, key string) int {
		return in.do(t, "GET", analyticsPath, shop, key, "").status
	}
	put := func(t *testing.T, in *instance, key string) int {
		body := fmt.Sprintf(`{"appIntegrationId":%q,"trackingId":"G-probe","apiKey":"ak_probe_0123456789","metadata":"from G-probe"}`, appInt.ID)
		return in.do(t, "PUT", analyticsPath, shop, key, body).status
	}

	// warm makes B and C cache key: probe answers 200 on both.
	warm := func(t *testing.T, probe func(*testing.T, *instance, string) int, key string) string {
		t.Helper()
		for _, in := range []*instance{b, c} {
			require.Equal(t, http.StatusOK, probe(t, in, key), "%s caches the key", in.name)
		}
		return key
	}

	t.Run("a key revoked on A is refused on B and C", func(t *testing.T) {
		key := login(t, a)
		for _, in := range nodes {
			require.Equal(t, http.StatusOK, get(t, in, key), "%s caches the key", in.name)
		}
		start := time.Now()
		require.Equal(t, http.StatusOK, a.do(t, "DELETE", "/api/v1/users/auth", shop, key, "").status, "logout on A")
		assert.Equal(t, http.StatusUnauthorized, get(t, a, key), "at once on A")
		for _, in := range []*instance{b, c} {
			within(t, start, "logout, seen on "+in.name, func() bool { return get(t, in, key) == http.StatusUnauthorized })
		}
	})

	// Every other change of what a cached key proves, made through one
	// instance, is seen by the others: each case logs a user of its own
	// in on A, makes B and C cache the key (probe answers 200), changes
	// something through A or C, and expects probe on B and C to answer
	// want within staleness.
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, user auth.User, sess answer) (key string)
		probe  func(t *testing.T, in *instance, key string) int
		want   int
	}{
		{"refresh key reused on C", func(t *testing.T, _ auth.User, sess answer) string {
			body := fmt.Sprintf(`{"refreshAuthKey":%q}`, sess.data["refreshAuthKey"])
			next := a.do(t, "POST", "/api/v1/users/auth/refresh-auth-key", shop, "", body)
			require.Equal(t, http.StatusOK, next.status)
			key := next.data["authKey"].(string)
			warm(t, get, key)
			ahead.Add(int64(auth.DefaultRefreshReuseInterval)) // past the reuse interval: a stolen key
			assert.Equal(t, http.StatusUnauthorized, c.do(t, "POST", "/api/v1/users/auth/refresh-auth-key", shop, "", body).status,
				"reuse: the family is revoked")
			return key
		}, get, http.StatusUnauthorized},
		{"device revoked on A", func(t *testing.T, user auth.User, sess answer) string {
			key := warm(t, get, sess.data["authKey"].(string))
			devs, err := a.app.Auth.Devices(ctx, user.ID)
			require.NoError(t, err)
			require.Len(t, devs, 1)
			_, err = a.app.Auth.RevokeDevice(ctx, user.ID, devs[0].ID)
			require.NoError(t, err)
			return key
		}, get, http.StatusUnauthorized},
		{"user's keys revoked on A", func(t *testing.T, user auth.User, sess answer) string {
			key := warm(t, get, sess.data["authKey"].(string))
			_, err := a.app.Auth.RevokeUserKeys(ctx, user.ID)
			require.NoError(t, err)
			return key
		}, get, http.StatusUnauthorized},
		{"user deactivated on A", func(t *testing.T, user auth.User, sess answer) string {
			key := warm(t, get, sess.data["authKey"].(string))
			_, err := a.app.Auth.SetUserStatus(ctx, user.ID, auth.StatusInactive)
			require.NoError(t, err)
			return key
		}, get, http.StatusUnauthorized},
		{"permissions revoked on A", func(t *testing.T, user auth.User, sess answer) string {
			key := warm(t, put, sess.data["authKey"].(string))
			_, err := a.app.Auth.Revoke(ctx, user.ID, auth.PermAll)
			require.NoError(t, err)
			return key
		}, put, http.StatusForbidden},
	} {
		t.Run(tc.name, func(t *testing.T) {
			user, err := a.app.Auth.CreateUser(ctx, brand.ID, auth.NewUser{Username: strings.ReplaceAll(tc.name, " ", "-"),
				Password: "a password", Permissions: []auth.Permission{auth.PermAll}})
			require.NoError(t, err)
			sess := loginAs(t, a, user.Username, "a password", "X-Device-Code", "DEV-1")
			start := time.Now()
			key := tc.change(t, user, sess)
			for _, in := range []*instance{b, c} {
				within(t, start, tc.name+", seen on "+in.name, func() bool { return tc.probe(t, in, key) == tc.want })
			}
		})
	}

	t.Run("a brand deactivated on B is refused on A", func(t *testing.T) {
		for _, in := range nodes {
			require.Equal(t, http.StatusOK, in.do(t, "GET", "/api/v1/currencies?PageSize=1", closing, "", "").status,
				"%s caches the brand", in.name)
		}
		start := time.Now()
		_, err := b.app.Auth.SetBrandStatus(ctx, closingBrand.ID, auth.StatusInactive)
		require.NoError(t, err)
		for _, in := range []*instance{a, c} {
			within(t, start, "brand deactivation on "+in.name, func() bool {
				return in.do(t, "GET", "/api/v1/currencies?PageSize=1", closing, "", "").status == http.StatusForbidden
			})
		}
	})

	t.Run("cities imported through C change the ETag and totals of A and B", func(t *testing.T) {
		const path = "/api/v1/cities?Keywords=zetaville"
		list := func(in *instance) (string, float64) {
			r := in.do(t, "GET", path, shop, "", "")
			require.Equal(t, http.StatusOK, r.status)
			return r.header.Get("ETag"), r.data["totalItems"].(float64)
		}
		before := map[*instance]string{}
		for _, in := range nodes {
			etag, total := list(in)
			require.Zero(t, total)
			before[in] = etag
		}
		start := time.Now()
		report, err := c.app.RefData.ImportCities(ctx, strings.NewReader("name,countryCode,stateCode,tags\nZétaville,FR,IDF,\n"),
			refdata.ImportOptions{})
		require.NoError(t, err)
		require.Equal(t, 1, report.Added)
		for _, in := range []*instance{a, b} {
			within(t, start, "import on "+in.name, func() bool {
				etag, total := list(in)
				return etag != before[in] && total == 1
			})
		}
	})

	t.Run("12 wrong passwords over A, B and C get 429 after the tenth", func(t *testing.T) {
		var codes []int
		for i := range 12 {
			codes = append(codes, nodes[i%3].do(t, "POST", "/api/v1/users/auth", shop, "",
				`{"username":"viewer","password":"wrong password"}`).status)
		}
		want := []int{401, 401, 401, 401, 401, 401, 401, 401, 401, 401, 429, 429}
		assert.Equal(t, want, codes)
	})

	t.Run("concurrent updates through A, B and C lose none", func(t *testing.T) {
		const each = 10
		before, err := a.app.Integrations.Analytics(ctx, brand.ID, analytics.ID)
		require.NoError(t, err)
		hooks := map[*instance]int32{}
		for _, in := range nodes {
			hooks[in] = in.updated.Load()
		}
		var wg sync.WaitGroup
		for i, in := range nodes {
			key := login(t, in)
			for j := range each {
				wg.Go(func() {
					body := fmt.Sprintf(`{"appIntegrationId":%q,"trackingId":"G-%d-%d","apiKey":"ak_0123456789","metadata":"from G-%d-%d"}`,
						appInt.ID, i, j, i, j)
					assert.Equal(t, http.StatusOK, in.do(t, "PUT", analyticsPath, shop, key, body).status)
				})
			}
		}
		wg.Wait()

		var etags []string
		for _, in := range nodes {
			got, err := in.app.Integrations.Analytics(ctx, brand.ID, analytics.ID)
			require.NoError(t, err)
			assert.Equal(t, before.Version+3*each, got.Version, "on %s: one version per update", in.name)
			assert.Equal(t, "from "+got.TrackingID, *got.Metadata, "a whole update")
			etags = append(etags, got.ETag())
			assert.EqualValues(t, each, in.updated.Load()-hooks[in], "the hook fired on %s for its own updates only", in.name)
		}
		assert.Equal(t, etags[0], etags[1])
		assert.Equal(t, etags[0], etags[2])
		revs, err := a.app.Store.ListRevisions(ctx, integrations.RevisionFilter{BrandID: brand.ID,
			Kind: integrations.KindAnalytics, RecordID: analytics.ID})
		require.NoError(t, err)
		revs = slices.DeleteFunc(revs, func(r integrations.Revision) bool { return r.Version <= before.Version })
		require.Len(t, revs, 3*each, "one revision per update")
		for k, r := range revs {
			assert.Equal(t, before.Version+int64(k)+1, r.Version, "revisions in version order, none twice")
		}
	})
}
