package httpadapter_test

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
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
)

// EnvLoginFlood turns TestLoginFlood on: it is heavy (three phases of 200
// connections, 20 s each by default; EnvLoginFloodSeconds sets the
// length), so neither CI nor a plain go test runs it.
const (
	EnvLoginFlood        = "BRANDBASE_LOAD_LOGIN_FLOOD"
	EnvLoginFloodSeconds = "BRANDBASE_LOAD_SECONDS"
)

// floodClients is the number of concurrent connections of TestLoginFlood.
const floodClients = 200

// TestLoginFlood measures, side by side in one run, one instance over
// PostgreSQL (the default argon2id parameters, no rate limits) under
// floodClients connections:
//   - "gets": every request an integration GET (the baseline);
//   - "logins": the same with 10% logins (real hashes), at the default
//     hashing slots (half the cores) and wait bound;
//   - "logins-2x-cores": the same at the former default of twice the
//     cores, for comparison.
//
// It asserts the goals of docs/performance.md (Login flood) for the
// default: the GET p50 with logins at most twice the baseline's; login p99
// (answered or refused) at most the wait bound plus 0.5 s; every refused
// login a 503 with Retry-After. Run it with:
//
//	BRANDBASE_LOAD_LOGIN_FLOOD=1 BRANDBASE_TEST_POSTGRES=... go test ./httpadapter -run TestLoginFlood -v -cpuprofile cpu.out
func TestLoginFlood(t *testing.T) {
	if os.Getenv(EnvLoginFlood) == "" {
		t.Skip("heavy load test: set " + EnvLoginFlood + "=1 to run it")
	}
	phase := 20 * time.Second
	if s, err := strconv.Atoi(os.Getenv(EnvLoginFloodSeconds)); err == nil && s > 0 {
		phase = time.Duration(s) * time.Second
	}
	store := stores["postgres"](t)
	t.Cleanup(func() { store.Close() })
	ctx := t.Context()
	keys := integrations.EphemeralKeyRing()
	newApp := func(slots int) (*brandbase.App, http.Handler) {
		app, err := brandbase.New(store, brandbase.Config{SecretKeys: keys, MaxConcurrentHashes: slots})
		require.NoError(t, err)
		t.Cleanup(func() { app.Close() })
		h, err := app.Handler(httpadapter.WithoutRateLimits(), withTestLogger(io.Discard))
		require.NoError(t, err)
		return app, h
	}
	app, h := newApp(0) // the default
	_, oldH := newApp(2 * runtime.GOMAXPROCS(0))

	b, err := app.Auth.CreateBrand(ctx, auth.NewBrand{URL: "shop.example.com", Name: "Shop"})
	require.NoError(t, err)
	const users = 20
	for i := range users {
		_, err := app.Auth.CreateUser(ctx, b.ID, auth.NewUser{Username: fmt.Sprintf("user%02d", i),
			Password: fmt.Sprintf("password of user %02d", i), Permissions: []auth.Permission{auth.PermAll}})
		require.NoError(t, err)
	}
	sess, err := app.Auth.Login(ctx, b, auth.LoginRequest{Username: "user00", Password: "password of user 00"})
	require.NoError(t, err)
	a, _ := seedIntegrations(t, app.Integrations, b.ID)

	// The phases run interleaved, in rounds of a quarter of their length
	// each, so that a change of the machine's load (it is shared) falls on
	// all of them alike. Server-side CPU is labelled with the phase
	// (pprof label "phase"): go tool pprof -tagfocus phase=logins ...
	var current atomic.Value
	labelled := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			pprof.Do(r.Context(), pprof.Labels("phase", current.Load().(string)), func(ctx context.Context) {
				h.ServeHTTP(w, r.WithContext(ctx))
			})
		})
	}
	type phaseSpec struct {
		name       string
		srv        *httptest.Server
		loginShare float64
		stats      *floodStats
	}
	phases := []*phaseSpec{
		{name: "gets", srv: httptest.NewServer(labelled(h))},
		{name: "logins", srv: httptest.NewServer(labelled(h)), loginShare: 0.1},
		{name: "logins-2x-cores", srv: httptest.NewServer(labelled(oldH)), loginShare: 0.1},
	}
	const rounds = 4
	for _, ph := range phases {
		defer ph.srv.Close()
		ph.stats = &floodStats{name: ph.name, lat: map[string][]time.Duration{}, status: map[string]map[int]int{}}
	}
	for range rounds {
		for _, ph := range phases {
			current.Store(ph.name)
			runFlood(ctx, t, ph.srv, ph.stats, phase/rounds, ph.loginShare, users, analyticsPath(a.ID), sess.AuthKey)
		}
	}
	for _, ph := range phases {
		t.Log(ph.stats.summary())
	}
	base, flood := phases[0].stats, phases[1].stats

	getBase, getFlood := base.pct("get", 50), flood.pct("get", 50)
	assert.LessOrEqual(t, getFlood, 2*getBase, "GET p50 with 10%% logins (%v) at most twice that without (%v)", getFlood, getBase)
	loginP99 := flood.pct("login", 99)
	assert.LessOrEqual(t, loginP99, auth.DefaultMaxHashWait+500*time.Millisecond, "login p99 %v", loginP99)
	assert.Empty(t, flood.problems, "every refused login a 503 with Retry-After, every other answer a 200")
}

// runFlood runs floodClients clients against srv for d, each sending
// integration GETs (of path, as key) and, with probability loginShare,
// logins of one of users users, recording into st.
func runFlood(ctx context.Context, t *testing.T, srv *httptest.Server, st *floodStats, d time.Duration, loginShare float64,
	users int, path, key string) {
	tr := srv.Client().Transport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost, tr.MaxConnsPerHost = floodClients, floodClients
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: time.Minute}
	end := time.Now().Add(d)
	var wg sync.WaitGroup
	for c := range floodClients {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(c), uint64(time.Now().UnixNano())))
			for time.Now().Before(end) {
				if rng.Float64() < loginShare {
					u := rng.IntN(users)
					body := fmt.Sprintf(`{"username":"user%02d","password":"password of user %02d"}`, u, u)
					st.do(ctx, t, client, "login", http.MethodPost, srv.URL+"/api/v1/users/auth", body, "")
				} else {
					st.do(ctx, t, client, "get", http.MethodGet, srv.URL+path, "", key)
				}
			}
		})
	}
	wg.Wait()
}

// floodStats are the latencies and statuses of one phase of TestLoginFlood,
// by operation.
type floodStats struct {
	name     string
	mu       sync.Mutex
	lat      map[string][]time.Duration
	status   map[string]map[int]int
	problems []string
}

func (s *floodStats) do(ctx context.Context, t *testing.T, client *http.Client, op, method, url, body, key string) {
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	if err != nil {
		t.Error(err)
		return
	}
	req.Header.Set("Brand-URL", "shop.example.com")
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Auth-Key", key)
	}
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() == nil {
			s.problem(fmt.Sprintf("%s: %v", op, err))
		}
		return
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	took := time.Since(start)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lat[op] = append(s.lat[op], took)
	if s.status[op] == nil {
		s.status[op] = map[int]int{}
	}
	s.status[op][resp.StatusCode]++
	s.lat[op+" "+strconv.Itoa(resp.StatusCode)] = append(s.lat[op+" "+strconv.Itoa(resp.StatusCode)], took)
	switch {
	case resp.StatusCode == http.StatusServiceUnavailable && op == "login" && resp.Header.Get("Retry-After") == "":
		s.problems = append(s.problems, "a refused login without Retry-After")
	case resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusServiceUnavailable:
		if len(s.problems) < 10 {
			s.problems = append(s.problems, fmt.Sprintf("%s: status %d", op, resp.StatusCode))
		}
	case resp.StatusCode == http.StatusServiceUnavailable && op != "login":
		if len(s.problems) < 10 {
			s.problems = append(s.problems, op+": 503")
		}
	}
}

func (s *floodStats) problem(p string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.problems) < 10 {
		s.problems = append(s.problems, p)
	}
}

// pct returns the p-th percentile of the latencies of op.
func (s *floodStats) pct(op string, p int) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := slices.Clone(s.lat[op])
	if len(l) == 0 {
		return 0
	}
	slices.Sort(l)
	return l[min(len(l)-1, len(l)*p/100)]
}

func (s *floodStats) summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s:", s.name)
	for _, op := range []string{"get", "login", "login 200", "login 503"} {
		s.mu.Lock()
		n := len(s.lat[op])
		s.mu.Unlock()
		if n == 0 {
			continue
		}
		fmt.Fprintf(&b, " %s n=%d p50=%v p99=%v max=%v;", op, n, s.pct(op, 50).Round(time.Millisecond),
			s.pct(op, 99).Round(time.Millisecond), s.pct(op, 100).Round(time.Millisecond))
	}
	return b.String()
}
