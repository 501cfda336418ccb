package brandbase_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/httpadapter"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/internal/testkit/pgtest"
	"github.com/brandbase/brandbase/storage/postgres"
)

// The fault tests run an App on a PostgreSQL server of their own
// (pgtest.NewCluster), under steady traffic from a few clients, and take
// the server away: stopped (a crash, then a restart) or frozen (SIGSTOP,
// then SIGCONT). Whatever happens, no request answers 500, every 503 says
// "unavailable" with a Retry-After, no request waits past the store's
// bound plus a small slack, the same App serves again once the server is
// back, and no write acknowledged with 200 is lost.

const (
	// faultBound is the store's query and connect timeout in these tests.
	faultBound = time.Second
	// faultSlack is what a request may take beyond faultBound: the HTTP
	// round trip and the work around the store call on a busy machine.
	faultSlack = time.Second
	// faultWorkers is the number of clients sending requests.
	faultWorkers = 4
)

// faultRig is an App on its own cluster, served over HTTP, with a brand,
// a user, an analytics app integration and one analytics configuration
// per worker.
type faultRig struct {
	cluster *pgtest.Cluster
	store   *postgres.Store
	app     *brandbase.App
	base    string
	brand   string // its URL
	brandID string
	appID   string
	configs [faultWorkers + 1]string // one per worker, the last for the recovery probes
	authKey string
	client  *http.Client
}

func newFaultRig(t *testing.T) *faultRig {
	t.Helper()
	c := pgtest.NewCluster(t)
	ctx := t.Context()
	store, err := postgres.Open(ctx, c.URL(), postgres.WithQueryTimeout(faultBound), postgres.WithConnectTimeout(faultBound))
	require.NoError(t, err)
	t.Cleanup(func() { store.Close() })
	keys, err := integrations.NewKeyRing("k1", map[string][]byte{"k1": []byte("0123456789abcdef0123456789abcdef")})
	require.NoError(t, err)
	app, err := brandbase.New(store, brandbase.Config{SecretKeys: keys, AuthOptions: []auth.Option{auth.WithArgon2Params(fastArgon2)}})
	require.NoError(t, err)
	limits := httpadapter.DefaultRateLimits()
	limits.LoginPerIdentifier.Limit, limits.LoginPerIP.Limit, limits.Refresh.Limit = 1_000_000, 1_000_000, 1_000_000
	limits.Lists.Limit, limits.Lists.Burst, limits.Updates.Limit = 1_000_000, 1_000_000, 1_000_000
	h, err := app.Handler(quiet(), httpadapter.WithRateLimits(limits))
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	r := &faultRig{cluster: c, store: store, app: app, base: srv.URL, brand: "faults.example.com",
		client: &http.Client{Timeout: 30 * time.Second}}

	b, err := app.Auth.CreateBrand(ctx, auth.NewBrand{URL: r.brand, Name: "Faults"})
	require.NoError(t, err)
	r.brandID = b.ID
	_, err = app.Auth.CreateUser(ctx, b.ID, auth.NewUser{Username: "admin", Password: "admin password",
		Permissions: []auth.Permission{auth.PermAll}})
	require.NoError(t, err)
	host := auth.Principal{UserID: "host", BrandID: b.ID, Permissions: []auth.Permission{auth.PermAll}}
	ai, err := app.Integrations.CreateAppIntegration(ctx, host, integrations.AppIntegrationInput{
		Type: integrations.TypeAnalytics, Name: "Analytics", Domain: "https://analytics.example.com"})
	require.NoError(t, err)
	r.appID = ai.ID
	for w := range r.configs {
		a, err := app.Integrations.CreateAnalytics(ctx, host, integrations.AnalyticsInput{
			AppIntegrationID: &ai.ID, TrackingID: new(fmt.Sprintf("G-%d-0", w)), APIKey: new("ak_0123456789")})
		require.NoError(t, err)
		r.configs[w] = a.ID
	}
	res := r.send(t.Context(), "login", 0, 0)
	require.Equal(t, http.StatusOK, res.status, "login")
	r.authKey = res.authKey
	return r
}

// result is one request's outcome.
type result struct {
	kind       string
	worker     int
	tracking   string // a PUT's trackingId
	start      time.Time
	took       time.Duration
	status     int
	retryAfter string
	code       string // the first error's code
	authKey    string // a login's
	err        error  // the client's (no answer)
}

// send sends one request of kind ("list", "get", "put", "login") as
// worker w's n-th.
func (r *faultRig) send(ctx context.Context, kind string, w, n int) result {
	res := result{kind: kind, worker: w, start: time.Now()}
	method, path, body := "GET", "/api/v1/currencies", ""
	switch kind {
	case "get":
		path = "/api/v1/app-integrations/analytics/" + r.configs[w]
	case "put":
		res.tracking = fmt.Sprintf("G-%d-%d", w, n)
		method, path = "PUT", "/api/v1/app-integrations/analytics/"+r.configs[w]
		body = fmt.Sprintf(`{"appIntegrationId":%q,"trackingId":%q,"apiKey":"ak_0123456789"}`, r.appID, res.tracking)
	case "login":
		method, path, body = "POST", "/api/v1/users/auth", `{"username":"admin","password":"admin password"}`
	}
	req, err := http.NewRequestWithContext(ctx, method, r.base+path, strings.NewReader(body))
	if err != nil {
		res.err = err
		return res
	}
	req.Header.Set("Brand-URL", r.brand)
	if kind == "get" || kind == "put" {
		req.Header.Set("Auth-Key", r.authKey)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := r.client.Do(req)
	res.took = time.Since(res.start)
	if err != nil {
		res.err = err
		return res
	}
	defer resp.Body.Close()
	res.status, res.retryAfter = resp.StatusCode, resp.Header.Get("Retry-After")
	var env struct {
		Data   json.RawMessage `json:"data"`
		Errors []struct {
			Code string `json:"code"`
		} `json:"errors"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
		res.err = fmt.Errorf("decode: %w", err)
		return res
	}
	res.took = time.Since(res.start)
	if len(env.Errors) > 0 {
		res.code = env.Errors[0].Code
	}
	if kind == "login" && res.status == http.StatusOK {
		var d struct {
			AuthKey string `json:"authKey"`
		}
		_ = json.Unmarshal(env.Data, &d)
		res.authKey = d.AuthKey
	}
	return res
}

// traffic sends requests from faultWorkers clients until stop is closed,
// each cycling through list, get, put, login, and returns every outcome.
func (r *faultRig) traffic(stop <-chan struct{}) func() []result {
	var (
		mu  sync.Mutex
		all []result
		wg  sync.WaitGroup
	)
	kinds := []string{"list", "get", "put", "login"}
	for w := range faultWorkers {
		wg.Go(func() {
			for n := 1; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				res := r.send(context.Background(), kinds[(n+w)%len(kinds)], w, n)
				mu.Lock()
				all = append(all, res)
				mu.Unlock()
			}
		})
	}
	return func() []result {
		wg.Wait()
		mu.Lock()
		defer mu.Unlock()
		return all
	}
}

// outage runs traffic for a moment, then fault (which takes the server
// away and returns the function that brings it back) for hold, then the
// server back, and then until every kind of request has answered 200
// again; it checks the outcomes as the file's comment says.
func (r *faultRig) outage(t *testing.T, hold time.Duration, fault func() (restore func())) {
	t.Helper()
	stop := make(chan struct{})
	wait := r.traffic(stop)
	time.Sleep(300 * time.Millisecond) // traffic before the fault
	restore := fault()
	faultAt := time.Now()
	time.Sleep(hold) // the outage lasts this long under traffic
	restore()
	back := time.Now()

	// The same App serves again, within a bound, without a restart.
	const recovery = 15 * time.Second
	recovered := false
	for time.Since(back) < recovery && !recovered {
		recovered = true
		for _, kind := range []string{"list", "get", "put", "login"} {
			if res := r.send(t.Context(), kind, faultWorkers, 0); res.status != http.StatusOK {
				recovered = false
			}
		}
	}
	close(stop)
	results := wait()
	require.True(t, recovered, "every kind of request answers 200 within %s of the server's return", recovery)
	t.Logf("served again %s after the server's return", time.Since(back).Round(time.Millisecond))

	counts := map[string]map[int]int{}
	during503 := 0
	for _, res := range results {
		if !assert.NoError(t, res.err, "%s: an answer", res.kind) {
			continue
		}
		if counts[res.kind] == nil {
			counts[res.kind] = map[int]int{}
		}
		counts[res.kind][res.status]++
		assert.Less(t, res.took, faultBound+faultSlack, "%s answered %d after %s: past the bound", res.kind, res.status, res.took)
		switch res.status {
		case http.StatusOK:
		case http.StatusServiceUnavailable:
			n, err := strconv.Atoi(res.retryAfter)
			assert.True(t, err == nil && n >= 1, "%s: 503 with Retry-After %q", res.kind, res.retryAfter)
			assert.Equal(t, "unavailable", res.code, "%s: 503 code", res.kind)
			if res.start.After(faultAt) && res.start.Before(back) {
				during503++
			}
		default:
			t.Errorf("%s answered %d (%s): only 200 or 503", res.kind, res.status, res.code)
		}
	}
	t.Logf("outcomes by kind and status: %v", counts)
	assert.Positive(t, during503, "the outage was seen")

	// No acknowledged write is lost: each worker's configuration holds its
	// last acknowledged PUT or a later one, and has a revision per
	// acknowledged PUT at least.
	ctx := t.Context()
	for w, id := range r.configs[:faultWorkers] {
		lastAcked, acked := -1, 0
		for i, res := range results {
			if res.kind == "put" && res.worker == w && res.status == http.StatusOK {
				lastAcked, acked = i, acked+1
			}
		}
		if lastAcked < 0 {
			continue
		}
		later := map[string]bool{results[lastAcked].tracking: true}
		for _, res := range results[lastAcked+1:] {
			if res.kind == "put" && res.worker == w {
				later[res.tracking] = true
			}
		}
		got, err := r.app.Integrations.Analytics(ctx, r.brandID, id)
		require.NoError(t, err)
		assert.True(t, later[got.TrackingID], "worker %d: %s holds %s, not its last acknowledged PUT %s or a later one",
			w, id, got.TrackingID, results[lastAcked].tracking)
		revs, err := r.app.Integrations.Revisions(ctx, r.brandID, integrations.KindAnalytics, id)
		require.NoError(t, err)
		assert.GreaterOrEqual(t, len(revs), acked, "worker %d: a revision per acknowledged PUT", w)
	}
}

// TestPostgresStoppedUnderTraffic crashes the App's PostgreSQL server
// (immediate stop) under traffic, keeps the traffic going for 3 s, and
// starts it again.
func TestPostgresStoppedUnderTraffic(t *testing.T) {
	t.Parallel()
	r := newFaultRig(t)
	r.outage(t, 3*time.Second, func() func() {
		r.cluster.Stop(t)
		return func() { r.cluster.Start(t) }
	})
}

// TestPostgresFrozenUnderTraffic freezes the App's PostgreSQL server
// (SIGSTOP: connections stay open, nothing answers) for longer than the
// store's bound, under traffic, and thaws it.
func TestPostgresFrozenUnderTraffic(t *testing.T) {
	t.Parallel()
	r := newFaultRig(t)
	r.outage(t, 3*faultBound, func() func() {
		r.cluster.Freeze(t)
		return func() { r.cluster.Thaw(t) }
	})
}
