package brandbase_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/httpadapter"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/internal/testkit/pgtest"
	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/storage/postgres"
)

// logCounter is a slog.Handler that keeps every record at or above INFO
// (for the failure message) and counts those at ERROR.
type logCounter struct {
	mu      sync.Mutex
	errors  int
	records []string
}

func (l *logCounter) Enabled(context.Context, slog.Level) bool { return true }

func (l *logCounter) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if r.Level >= slog.LevelError {
		l.errors++
	}
	if r.Level >= slog.LevelInfo && r.Message != "request" {
		var b strings.Builder
		fmt.Fprintf(&b, "%s %s", r.Level, r.Message)
		r.Attrs(func(a slog.Attr) bool { fmt.Fprintf(&b, " %s=%v", a.Key, a.Value); return true })
		l.records = append(l.records, b.String())
	}
	return nil
}

func (l *logCounter) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *logCounter) WithGroup(string) slog.Handler      { return l }

// reset forgets what was counted.
func (l *logCounter) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.errors, l.records = 0, nil
}

func (l *logCounter) counted() (int, string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.errors, strings.Join(l.records, "\n")
}

// reply is one HTTP answer: status, Retry-After, body.
type reply struct {
	status int
	retry  string
	body   string
	etag   string
}

// send sends one request to srv; headers are name and value pairs.
func send(t *testing.T, srv *httptest.Server, method, path, body string, headers ...string) reply {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, srv.URL+path, strings.NewReader(body))
	require.NoError(t, err)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := srv.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return reply{status: resp.StatusCode, retry: resp.Header.Get("Retry-After"), body: string(b), etag: resp.Header.Get("ETag")}
}

// TestDatabaseAway stops a PostgreSQL cluster under an App and starts it
// again: meanwhile the reference lists the instance holds answer 200 with
// the same bodies (in-process and over HTTP); an unknown brand, a login,
// a refresh and an Auth-Key route answer 503 unavailable with
// Retry-After; the readiness probe says the store and the listener are
// away, "degraded" with 200 (strict: 503); a couple of
// ERROR lines at most are logged, not one a request. Once the database is
// back, everything answers again on the same App.
func TestDatabaseAway(t *testing.T) {
	t.Parallel()
	cluster := pgtest.NewCluster(t)
	ctx := t.Context()
	logs := &logCounter{}
	logger := slog.New(logs)
	store, err := postgres.Open(ctx, cluster.URL(), postgres.WithLogger(logger))
	require.NoError(t, err)
	t.Cleanup(func() { store.Close() })
	app, err := brandbase.New(store, brandbase.Config{SecretKeys: integrations.EphemeralKeyRing(), AuthOptions: []auth.Option{
		auth.WithLogger(logger), auth.WithArgon2Params(fastArgon2),
	}})
	require.NoError(t, err)
	t.Cleanup(func() { app.Close() })
	api, err := app.Handler(httpadapter.WithLogger(logger)) // the shared limiter (PostgreSQL) too
	require.NoError(t, err)
	mux := http.NewServeMux()
	mux.Handle("GET /readyz", app.Readiness(httpadapter.ReadinessConfig{CacheFor: -1, Logger: logger}))
	mux.Handle("GET /readyz-strict", app.Readiness(httpadapter.ReadinessConfig{CacheFor: -1, Logger: logger, Strict: true}))
	mux.Handle("/api/v1/", api)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	const shop = "shop.example.com"
	brand, err := app.Auth.CreateBrand(ctx, auth.NewBrand{URL: shop, Name: "Shop", DefaultCurrency: "EUR"})
	require.NoError(t, err)
	_, err = app.Auth.CreateUser(ctx, brand.ID, auth.NewUser{Username: "admin", Password: "admin password",
		Permissions: []auth.Permission{auth.PermAll}})
	require.NoError(t, err)
	require.NoError(t, app.WarmUp(ctx))

	login := func() reply {
		return send(t, srv, "POST", "/api/v1/users/auth", `{"username":"admin","password":"admin password"}`, "Brand-URL", shop)
	}
	sess := login()
	require.Equal(t, http.StatusOK, sess.status, sess.body)
	authKey := field(t, sess.body, "authKey")
	refreshKey := field(t, sess.body, "refreshAuthKey")
	missing := "/api/v1/app-integrations/analytics/0190a0a0-0000-7000-8000-000000000000"
	authKeyRoute := func() reply { return send(t, srv, "GET", missing, "", "Brand-URL", shop, "Auth-Key", authKey) }
	require.Equal(t, http.StatusNotFound, authKeyRoute().status, "the key works; the integration does not exist")

	// The held lists: each listed before the outage.
	lists := []string{
		"/api/v1/currencies?PageSize=5",
		"/api/v1/countries?SortDataField=name&PageSize=10",
		"/api/v1/cities?Keywords=san&PageSize=7",
	}
	held := map[string]reply{}
	for _, path := range lists {
		r := send(t, srv, "GET", path, "", "Brand-URL", shop)
		require.Equal(t, http.StatusOK, r.status, r.body)
		held[path] = r
	}
	// Two more brands, resolved before the outage: one whose change is
	// heard just before it (its last known record is forgotten), one
	// inactive (its last known record says so).
	heard := make(chan string, 16)
	unsubscribe := store.OnAuthChange(func(c auth.Change) { heard <- c.ID })
	_, err = app.Auth.CreateBrand(ctx, auth.NewBrand{URL: "closed.example.com", Name: "Closed", Status: auth.StatusInactive})
	require.NoError(t, err)
	changed, err := app.Auth.CreateBrand(ctx, auth.NewBrand{URL: "changed.example.com", Name: "Changed"})
	require.NoError(t, err)
	// The creations are notified: once the last is heard here, the App has
	// heard every earlier one (one goroutine delivers them in order), so
	// none forgets what is resolved next.
	for id := ""; id != changed.ID; {
		select {
		case id = <-heard:
		case <-time.After(10 * time.Second):
			t.Fatal("the creation of a brand is not notified")
		}
	}
	unsubscribe()
	require.Equal(t, http.StatusOK, send(t, srv, "GET", lists[1], "", "Brand-URL", "changed.example.com").status)
	require.Equal(t, http.StatusForbidden, send(t, srv, "GET", lists[1], "", "Brand-URL", "closed.example.com").status)
	app.Auth.Forget(auth.Change{Kind: auth.ChangeBrand, ID: changed.ID})
	app.Auth.Forget(auth.Change{Kind: auth.ChangeAll}) // what the listener says when it drops: the records stay

	countries := refdata.CountryQuery{Page: refdata.Paging{Size: 10}}
	heldCountries, err := app.RefData.ListCountries(ctx, countries)
	require.NoError(t, err)
	status, _, _ := readyz(t, srv)
	require.Equal(t, http.StatusOK, status)

	cluster.Stop(t)
	require.Eventually(t, func() bool { return !store.Listening() }, 10*time.Second, 10*time.Millisecond,
		"the store notices the database is gone")
	logs.reset()

	const rounds = 15
	for i := range rounds {
		for _, path := range lists {
			r := send(t, srv, "GET", path, "", "Brand-URL", shop)
			require.Equal(t, http.StatusOK, r.status, "round %d: %s is held: %s", i, path, r.body)
			assert.Equal(t, held[path].body, r.body, "the same answer as before the outage")
			assert.Equal(t, held[path].etag, r.etag)
		}
		for name, r := range map[string]reply{
			"unknown brand": send(t, srv, "GET", lists[1], "", "Brand-URL", "unknown.example.com"),
			"changed brand": send(t, srv, "GET", lists[1], "", "Brand-URL", "changed.example.com"),
			"login":         login(),
			"refresh": send(t, srv, "POST", "/api/v1/users/auth/refresh-auth-key",
				fmt.Sprintf(`{"refreshAuthKey":%q}`, refreshKey), "Brand-URL", shop),
			"Auth-Key route": authKeyRoute(),
			"logout":         send(t, srv, "DELETE", "/api/v1/users/auth", "", "Brand-URL", shop, "Auth-Key", authKey),
			"update":         send(t, srv, "PUT", missing, `{"trackingId":"G-1"}`, "Brand-URL", shop, "Auth-Key", authKey),
		} {
			require.Equal(t, http.StatusServiceUnavailable, r.status, "round %d: %s: %s", i, name, r.body)
			assert.Contains(t, r.body, `"code":"unavailable"`, name)
			assert.NotEmpty(t, r.retry, "%s: Retry-After", name)
		}
	}
	r := send(t, srv, "GET", lists[1], "", "Brand-URL", "closed.example.com")
	assert.Equal(t, http.StatusForbidden, r.status, "an inactive brand stays inactive: %s", r.body)
	// In-process, the same.
	got, err := app.RefData.ListCountries(ctx, countries)
	require.NoError(t, err, "a held list, in-process")
	assert.Equal(t, heldCountries, got)
	_, err = app.Auth.ResolveBrandOrLastKnown(ctx, shop)
	assert.NoError(t, err, "the brand's last known record")
	_, err = app.Auth.ResolveBrand(ctx, shop)
	assert.True(t, envelope.IsUnavailable(err), "the strict look-up does not trust it: %v", err)
	_, err = app.Auth.Login(ctx, brand, auth.LoginRequest{Username: "admin", Password: "admin password"})
	assert.True(t, envelope.IsUnavailable(err), "login: %v", err)
	_, err = app.Auth.Authenticate(ctx, brand, authKey)
	assert.True(t, envelope.IsUnavailable(err), "authenticate: %v", err)

	status, _, st := readyz(t, srv)
	assert.Equal(t, http.StatusOK, status, "the held lists answer: %+v", st)
	assert.Equal(t, httpadapter.StatusDegraded, st.Status)
	assert.Equal(t, []string{brandbase.CheckStore, brandbase.CheckMigrations, brandbase.CheckListener}, st.Degraded, "%+v", st)
	status, retry, st := readyzStrict(t, srv)
	assert.Equal(t, http.StatusServiceUnavailable, status)
	assert.NotEmpty(t, retry)
	assert.Contains(t, st.Failed, brandbase.CheckStore, "%+v", st)
	assert.Contains(t, st.Failed, brandbase.CheckListener, "%+v", st)

	errorLines, records := logs.counted()
	t.Logf("%d ERROR lines for %d requests during the outage", errorLines, rounds*(len(lists)+7))
	assert.LessOrEqual(t, errorLines, 2, "%d requests during the outage; the log:\n%s", rounds*(len(lists)+7), records)

	cluster.Start(t)
	require.Eventually(t, func() bool { return authKeyRoute().status == http.StatusNotFound }, 30*time.Second, 50*time.Millisecond,
		"the key works again, on the same App")
	r = login()
	assert.Equal(t, http.StatusOK, r.status, "login again: %s", r.body)
	assert.Equal(t, http.StatusNotFound, send(t, srv, "GET", lists[1], "", "Brand-URL", "unknown.example.com").status,
		"an unknown brand is 404 again")
	for _, path := range lists {
		r := send(t, srv, "GET", path, "", "Brand-URL", shop)
		assert.Equal(t, http.StatusOK, r.status)
		assert.Equal(t, held[path].body, r.body)
	}
	require.Eventually(t, func() bool { status, _, _ := readyz(t, srv); return status == http.StatusOK },
		30*time.Second, 50*time.Millisecond, "ready again once the listener is back")
}

// field returns the string at data.name of an envelope body.
func field(t *testing.T, body, name string) string {
	t.Helper()
	var env struct {
		Data map[string]any `json:"data"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &env), body)
	s, _ := env.Data[name].(string)
	require.NotEmpty(t, s, "%s in %s", name, body)
	return s
}
