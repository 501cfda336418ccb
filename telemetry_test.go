package brandbase_test

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/codes"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/httpadapter"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/internal/testkit/telemetrytest"
	"github.com/brandbase/brandbase/ratelimit"
	"github.com/brandbase/brandbase/storage"
	"github.com/brandbase/brandbase/storage/sqlite"
	"github.com/brandbase/brandbase/storage/storeurl"
)

// observed is an App on a SQLite file with SDK providers, served over real
// HTTP: one user (alice, every permission) and an analytics configuration
// in brand shop.example.com.
type observed struct {
	*instance
	store     storage.Storage
	metrics   http.Handler
	spans     *tracetest.InMemoryExporter
	analytics integrations.Analytics
}

const (
	obsBrand    = "shop.example.com"
	obsPassword = "correct horse battery"
)

// newObserved builds an observed App; cfg's providers, store and secret
// keys are set here, its other fields kept.
func newObserved(t *testing.T, cfg brandbase.Config, opts ...httpadapter.Option) *observed {
	t.Helper()
	return newObservedOn(t, filepath.Join(t.TempDir(), "observed.db"), cfg, opts...)
}

// newObservedOn is newObserved on the store path names (see
// storeurl.Open), opened with cfg's providers.
func newObservedOn(t *testing.T, path string, cfg brandbase.Config, opts ...httpadapter.Option) *observed {
	t.Helper()
	ctx := t.Context()
	mp, metrics := telemetrytest.MeterProvider(t)
	tp, spans := telemetrytest.TracerProvider(t)
	cfg.SecretKeys = integrations.EphemeralKeyRing()
	cfg.MeterProvider, cfg.TracerProvider = mp, tp
	store, err := storeurl.Open(ctx, path, storeurl.Options{MeterProvider: cfg.MeterProvider})
	require.NoError(t, err)
	t.Cleanup(func() { store.Close() })
	app, err := brandbase.New(store, cfg)
	require.NoError(t, err)
	t.Cleanup(func() { app.Close() })
	brand, err := app.Auth.CreateBrand(ctx, auth.NewBrand{URL: obsBrand, Name: "Shop"})
	require.NoError(t, err)
	user, err := app.Auth.CreateUser(ctx, brand.ID, auth.NewUser{Username: "alice", Password: obsPassword})
	require.NoError(t, err)
	_, err = app.Auth.Grant(ctx, user.ID, auth.PermAll)
	require.NoError(t, err)
	system := auth.SystemPrincipal(brand.ID)
	ai, err := app.Integrations.CreateAppIntegration(ctx, system, integrations.AppIntegrationInput{
		Type: integrations.TypeAnalytics, Name: "Analytics", Domain: "https://analytics.example.com"})
	require.NoError(t, err)
	a, err := app.Integrations.CreateAnalytics(ctx, system, integrations.AnalyticsInput{
		AppIntegrationID: &ai.ID, TrackingID: new("G-1"), APIKey: new("ak_secret_1234")})
	require.NoError(t, err)
	h, err := app.Handler(append([]httpadapter.Option{quiet()}, opts...)...)
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	spans.Reset() // the set-up's password hash
	return &observed{instance: &instance{name: "observed", app: app, base: srv.URL}, store: store,
		metrics: metrics, spans: spans, analytics: a}
}

// login logs in as username with password and returns the answer.
func (o *observed) login(t *testing.T, username, password string, headers ...string) answer {
	t.Helper()
	return o.do(t, http.MethodPost, "/api/v1/users/auth", obsBrand, "",
		`{"username":"`+username+`","password":"`+password+`"}`, headers...)
}

// TestMetricsScrape drives real traffic through an App with an SDK meter
// provider and the OTel Prometheus exporter, scrapes the exporter, and
// finds every phase-1 family with the counts of the traffic sent.
func TestMetricsScrape(t *testing.T) {
	t.Parallel()
	limits := httpadapter.DefaultRateLimits()
	limits.LoginPerIdentifier = ratelimit.Policy{Limit: 3, Per: time.Minute}
	// A login's store calls before its hash share the wait bound (auth's
	// whole-login budget), so the bound leaves room for them; a burst of
	// twelve default-cost hashes on one slot still sheds some.
	o := newObserved(t, brandbase.Config{MaxConcurrentHashes: 1, MaxHashWait: 100 * time.Millisecond},
		httpadapter.WithRateLimits(limits))

	// Lists: 5 answers, then a path no route has.
	for range 5 {
		require.Equal(t, http.StatusOK, o.do(t, http.MethodGet, "/api/v1/countries", obsBrand, "", "").status)
	}
	require.Equal(t, http.StatusNotFound, o.do(t, http.MethodGet, "/api/v1/nowhere/42", obsBrand, "", "").status)

	// Logins of alice: one success, two wrong passwords, then refused by
	// the per-identifier limit (3 a minute).
	ok := o.login(t, "alice", obsPassword)
	require.Equal(t, http.StatusOK, ok.status)
	key := ok.data["authKey"].(string)
	for range 2 {
		require.Equal(t, http.StatusUnauthorized, o.login(t, "alice", "wrong password").status)
	}
	require.Equal(t, http.StatusTooManyRequests, o.login(t, "alice", obsPassword).status)

	// A burst of logins of unknown users on one hashing slot that nobody
	// may wait for long: those that find it busy past the bound are shed
	// (503), the others fail their check.
	const burst = 12
	statuses := make([]int, burst)
	var wg sync.WaitGroup
	for i := range burst {
		wg.Go(func() { statuses[i] = o.login(t, "nobody"+strconv.Itoa(i), "some password").status })
	}
	wg.Wait()
	var shed, invalid int
	for _, s := range statuses {
		switch s {
		case http.StatusServiceUnavailable:
			shed++
		case http.StatusUnauthorized:
			invalid++
		default:
			t.Fatalf("burst login answered %d", s)
		}
	}
	require.Positive(t, shed, "a burst on one slot sheds some logins")

	// The key cache: the first check of the key reads the store, the next
	// answers from the cache.
	path := "/api/v1/app-integrations/analytics/" + o.analytics.ID
	got := o.do(t, http.MethodGet, path, obsBrand, key, "")
	require.Equal(t, http.StatusOK, got.status)
	etag := got.header.Get("ETag")
	body := `{"appIntegrationId":"` + o.analytics.AppIntegration.ID + `","trackingId":"G-2","apiKey":"ak_secret_5678"}`
	require.Equal(t, http.StatusOK, o.do(t, http.MethodPut, path, obsBrand, key, body, "If-Match", etag).status)
	require.Equal(t, http.StatusPreconditionFailed, o.do(t, http.MethodPut, path, obsBrand, key, body, "If-Match", etag).status)

	// A change heard from another instance, 2 s after its commit.
	now := time.Now()
	o.app.Auth.Forget(auth.Change{Kind: auth.ChangeUser, ID: "someone", At: now.Add(-2 * time.Second)})
	o.app.Auth.Forget(auth.Change{Kind: auth.ChangeAll})

	// A closed store: the read of the configuration fails, 5xx.
	require.NoError(t, o.store.Close())
	failed := o.do(t, http.MethodGet, path, obsBrand, key, "")
	require.GreaterOrEqual(t, failed.status, 500)

	f := telemetrytest.ScrapeHandler(t, o.metrics)
	const dur = "http_server_request_duration_seconds"
	route := func(r string) []string { return []string{"http_route", r} }
	assert.Equal(t, 5.0, f.Value(dur, append(route("/api/v1/countries"), "http_request_method", "GET", "http_response_status_code", "200")...))
	assert.Equal(t, 1.0, f.Value(dur, append(route("unmatched"), "http_response_status_code", "404")...))
	assert.Equal(t, 4.0+burst, f.Value(dur, route("/api/v1/users/auth")...), "every login answer, 429 and 503 included")
	assert.Equal(t, 1.0, f.Value(dur, append(route("/api/v1/app-integrations/analytics/{id}"), "http_request_method", "PUT", "http_response_status_code", "412")...))
	assert.Equal(t, 1.0, f.Value(dur, append(route("/api/v1/app-integrations/analytics/{id}"), "error_type", strconv.Itoa(failed.status))...),
		"a 5xx carries error.type")
	assert.Positive(t, f.Sum(dur, route("/api/v1/users/auth")...), "durations are recorded")
	assert.Len(t, f.Series(dur, "error_type", "404"), 0, "error.type only on 5xx")
	for _, m := range f.Series(dur) {
		assert.NotContains(t, telemetrytest.Label(m, "http_route"), "42", "never a raw path")
	}
	assert.Equal(t, 0.0, f.Value("http_server_active_requests"), "no request under way")
	assert.NotEmpty(t, f.Series("http_server_active_requests", "http_request_method", "GET"))

	assert.Equal(t, 1.0, f.Value("brandbase_ratelimit_refusals_total", "brandbase_rate_limit_policy", "login-identifier"))
	logins := "brandbase_auth_logins_total"
	outcome := func(o string) []string { return []string{"brandbase_login_outcome", o} }
	assert.Equal(t, 1.0, f.Value(logins, outcome("success")...))
	// Every outcome and the burst's statuses, said when a count is off.
	seen := map[string]float64{}
	for _, o := range []string{"success", "invalid_credentials", "limited", "shed", "refused", "invalid", "error"} {
		seen[o] = f.Value(logins, outcome(o)...)
	}
	assert.Equal(t, float64(2+invalid), f.Value(logins, outcome("invalid_credentials")...), "outcomes %v, burst %v", seen, statuses)
	assert.Equal(t, 1.0, f.Value(logins, outcome("limited")...))
	assert.Equal(t, float64(shed), f.Value(logins, outcome("shed")...), "outcomes %v, burst %v", seen, statuses)
	assert.Equal(t, float64(4+burst), f.Value(logins), "one login counted a request")

	wait := "brandbase_auth_password_hash_wait_duration_seconds"
	// Each shed login either found the slot busy past the bound (a hash
	// wait shed) or, on a loaded machine, spent its whole budget on the
	// store calls before the hash (a login shed with no hash wait).
	hashShed := f.Value(wait, "brandbase_password_hash_outcome", "shed")
	assert.LessOrEqual(t, hashShed, float64(shed), "outcomes %v, burst %v", seen, statuses)
	// The set-up's user and each login that got a slot (the first also
	// made the dummy hash).
	assert.GreaterOrEqual(t, f.Value(wait, "brandbase_password_hash_outcome", "acquired"), float64(1+3+invalid))

	lookups := "brandbase_auth_cache_lookups_total"
	assert.Equal(t, 1.0, f.Value(lookups, "brandbase_cache", "key", "brandbase_cache_result", "miss"),
		"the key's first check (the last request fails earlier, on the brand the ChangeAll dropped)")
	assert.Equal(t, 2.0, f.Value(lookups, "brandbase_cache", "key", "brandbase_cache_result", "hit"), "the two updates")
	assert.Positive(t, f.Value(lookups, "brandbase_cache", "brand", "brandbase_cache_result", "hit"))
	assert.Positive(t, f.Value(lookups, "brandbase_cache", "brand", "brandbase_cache_result", "miss"))

	assert.Equal(t, 1.0, f.Value("brandbase_auth_changes_total", "brandbase_change_kind", "user"))
	assert.Equal(t, 1.0, f.Value("brandbase_auth_changes_total", "brandbase_change_kind", "all"))
	assert.Equal(t, 1.0, f.Value("brandbase_auth_change_delay_seconds"), "only the change that tells its commit time")
	assert.InDelta(t, 2.0, f.Sum("brandbase_auth_change_delay_seconds"), 1.0)

	assert.Equal(t, 1.0, f.Value("brandbase_integrations_updates_total", "brandbase_integration_kind", "Analytics"))
	assert.Equal(t, 1.0, f.Value("brandbase_integrations_precondition_failures_total", "brandbase_integration_kind", "Analytics"))
}

// TestTraces: a request gets a server span named after its route
// template, a child of the incoming traceparent, with the hashing span as
// its child; a 5xx marks the span an error; a path no route has is
// "unmatched".
func TestTraces(t *testing.T) {
	t.Parallel()
	o := newObserved(t, brandbase.Config{})
	const (
		traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
		spanID  = "00f067aa0ba902b7"
	)
	require.Equal(t, http.StatusOK, o.login(t, "alice", obsPassword, "traceparent", "00-"+traceID+"-"+spanID+"-01").status)
	spans := o.spans.GetSpans()
	server := findSpan(t, spans, "POST /api/v1/users/auth")
	assert.Equal(t, trace.SpanKindServer, server.SpanKind)
	assert.Equal(t, traceID, server.SpanContext.TraceID().String(), "the incoming trace")
	assert.Equal(t, spanID, server.Parent.SpanID().String(), "a child of the caller's span")
	assert.True(t, server.Parent.IsRemote())
	attrs := map[string]string{}
	for _, kv := range server.Attributes {
		attrs[string(kv.Key)] = kv.Value.Emit()
	}
	assert.Equal(t, map[string]string{"http.request.method": "POST", "http.route": "/api/v1/users/auth",
		"http.response.status_code": "200"}, attrs)
	assert.Equal(t, codes.Unset, server.Status.Code)
	// The first login makes the dummy hash too ("hash"), then checks the
	// password ("verify").
	var ops []string
	for _, s := range spans {
		if s.Name != "auth.password_hash" {
			continue
		}
		assert.Equal(t, server.SpanContext.SpanID(), s.Parent.SpanID(), "hashing is a child of the request")
		assert.Equal(t, server.SpanContext.TraceID(), s.SpanContext.TraceID())
		for _, kv := range s.Attributes {
			if kv.Key == "brandbase.password_hash.operation" {
				ops = append(ops, kv.Value.AsString())
			}
		}
	}
	assert.Equal(t, []string{"hash", "verify"}, ops)

	o.spans.Reset()
	require.Equal(t, http.StatusNotFound, o.do(t, http.MethodGet, "/api/v1/nowhere/7", obsBrand, "", "").status) // GET users/{id} is a route now
	unmatched := findSpan(t, o.spans.GetSpans(), "GET unmatched")
	assert.False(t, unmatched.Parent.IsValid(), "a root span without traceparent")

	o.spans.Reset()
	require.NoError(t, o.store.Close())
	failed := o.login(t, "alice", obsPassword)
	require.GreaterOrEqual(t, failed.status, 500)
	span := findSpan(t, o.spans.GetSpans(), "POST /api/v1/users/auth")
	assert.Equal(t, codes.Error, span.Status.Code)
	attrs = map[string]string{}
	for _, kv := range span.Attributes {
		attrs[string(kv.Key)] = kv.Value.Emit()
	}
	assert.Equal(t, map[string]string{"http.request.method": "POST", "http.route": "/api/v1/users/auth",
		"http.response.status_code": strconv.Itoa(failed.status), "error.type": strconv.Itoa(failed.status)}, attrs)
}

// findSpan returns the one span named name.
func findSpan(t *testing.T, spans tracetest.SpanStubs, name string) tracetest.SpanStub {
	t.Helper()
	var found []tracetest.SpanStub
	var names []string
	for _, s := range spans {
		names = append(names, s.Name)
		if s.Name == name {
			found = append(found, s)
		}
	}
	require.Len(t, found, 1, "spans named %q among %v", name, names)
	return found[0]
}

// TestGlobalProvidersNotRead: an App without providers records nothing,
// even when the process has global otel providers set.
func TestGlobalProvidersNotRead(t *testing.T) {
	mp, metrics := telemetrytest.MeterProvider(t)
	tp, spans := telemetrytest.TracerProvider(t)
	otel.SetMeterProvider(mp)
	otel.SetTracerProvider(tp)
	t.Cleanup(func() {
		otel.SetMeterProvider(metricnoop.NewMeterProvider())
		otel.SetTracerProvider(tracenoop.NewTracerProvider())
	})
	store, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "global.db"))
	require.NoError(t, err)
	t.Cleanup(func() { store.Close() })
	app, err := brandbase.New(store, brandbase.Config{SecretKeys: integrations.EphemeralKeyRing()})
	require.NoError(t, err)
	t.Cleanup(func() { app.Close() })
	_, err = app.Auth.CreateBrand(t.Context(), auth.NewBrand{URL: obsBrand, Name: "Shop"})
	require.NoError(t, err)
	h, err := app.Handler(quiet())
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	in := &instance{name: "global", app: app, base: srv.URL}
	require.Equal(t, http.StatusOK, in.do(t, http.MethodGet, "/api/v1/countries", obsBrand, "", "").status)
	require.Equal(t, http.StatusUnauthorized, in.do(t, http.MethodPost, "/api/v1/users/auth", obsBrand, "",
		`{"username":"nobody","password":"some password"}`).status)

	f := telemetrytest.ScrapeHandler(t, metrics)
	for name := range f {
		assert.NotRegexp(t, `^(http_server|brandbase)_`, name)
	}
	assert.Empty(t, spans.GetSpans())
}
