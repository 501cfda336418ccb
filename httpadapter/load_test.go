package httpadapter_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/httpadapter"
	"github.com/brandbase/brandbase/integrations"
)

const (
	// loadClients is the number of concurrent clients of TestLoad.
	loadClients = 100
	// loadDuration is how long they send requests at least.
	loadDuration = 3 * time.Second
	// loadCap bounds the run when the outcomes the test asserts (a 429, a
	// 200 PUT and a 412 PUT) have not all been seen after loadDuration: on a
	// slow or loaded machine (the race detector, a shared CI runner) the
	// clients send few requests in loadDuration, and a stale If-Match needs
	// a client to have read an ETag before another wrote. The run then goes
	// on until they have; the duration is not what the test checks.
	loadCap = 90 * time.Second
	// loadWriters is the number of users the clients update as (the
	// update limit is per user).
	loadWriters = 20
)

// loadStats is what the clients of TestLoad saw.
type loadStats struct {
	mu       sync.Mutex
	byStatus map[int]int
	byOp     map[string]map[int]int
	problems []string
	// puts are the successful updates, per configuration path.
	puts map[string][]loadPut
}

// loadPut is one update answered 200: the version its ETag names, what it
// wrote, and as whom.
type loadPut struct {
	version int64
	marker  string
	userID  string
}

func (s *loadStats) record(op string, status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.byStatus[status]++
	if s.byOp[op] == nil {
		s.byOp[op] = map[int]int{}
	}
	s.byOp[op][status]++
}

// covered reports whether every outcome TestLoad asserts has been seen.
func (s *loadStats) covered() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.byStatus[http.StatusTooManyRequests] > 0 && s.byOp["put"][http.StatusOK] > 0 &&
		s.byOp["put"][http.StatusPreconditionFailed] > 0
}

func (s *loadStats) problem(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.problems) < 20 {
		s.problems = append(s.problems, fmt.Sprintf(format, args...))
	}
}

func (s *loadStats) put(path string, p loadPut) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.puts[path] = append(s.puts[path], p)
}

// loadWriter is a user the clients update as.
type loadWriter struct {
	id, key string
}

// TestLoad runs loadClients concurrent clients for loadDuration (longer, up
// to loadCap, until every outcome it asserts was seen) against a
// real server on the SQLite store with the default rate limits, each from
// its own client IP (X-Forwarded-For behind a trusted proxy), mixing
// logins, the lists, and GETs and PUTs (with and without If-Match) of both
// integrations. Every answer must be an expected status (200, 304, 401 for
// a wrong password, 412 for a stale If-Match, 429) in a valid envelope,
// with nothing logged above INFO; and no update may be lost: the
// successful PUTs of a configuration got distinct versions 2..n+1, its
// final version is n+1 and holds the last one's change, and its n
// revisions name the same versions and users.
func TestLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("load test: skipped with -short")
	}
	warnings := &lockedBuffer{}
	f := newIntegFixture(t, stores["sqlite"],
		httpadapter.WithRateLimits(httpadapter.DefaultRateLimits()),
		httpadapter.WithTrustedProxies(netip.MustParsePrefix("127.0.0.0/8")),
		httpadapter.WithLogger(slog.New(slog.NewTextHandler(warnings, &slog.HandlerOptions{Level: slog.LevelWarn}))))
	ctx := t.Context()
	writers := make([]loadWriter, loadWriters)
	for i := range writers {
		name := fmt.Sprintf("writer%02d", i)
		u, err := f.app.Auth.CreateUser(ctx, f.brand.ID, auth.NewUser{Username: name, Password: "writer password " + name,
			Permissions: []auth.Permission{auth.PermAll}})
		require.NoError(t, err)
		sess, err := f.app.Auth.Login(ctx, f.brand, auth.LoginRequest{Username: name, Password: "writer password " + name})
		require.NoError(t, err)
		writers[i] = loadWriter{id: u.ID, key: sess.AuthKey}
	}
	otherBefore := snapshotOther(t, f)

	srv := httptest.NewServer(f.handler)
	defer srv.Close()
	transport := srv.Client().Transport.(*http.Transport).Clone()
	transport.MaxIdleConnsPerHost = loadClients
	client := &http.Client{Transport: transport, Timeout: 30 * time.Second}
	defer transport.CloseIdleConnections()

	stats := &loadStats{byStatus: map[int]int{}, byOp: map[string]map[int]int{}, puts: map[string][]loadPut{}}
	lists := mountedListPaths(t, f.handler)
	start := time.Now()
	deadline, hardDeadline := start.Add(loadDuration), start.Add(loadCap)
	running := func() bool {
		now := time.Now()
		return now.Before(deadline) || now.Before(hardDeadline) && !stats.covered()
	}
	var wg sync.WaitGroup
	for c := range loadClients {
		wg.Go(func() {
			lc := &loadClient{
				f: f, srv: srv.URL, client: client, stats: stats, lists: lists, writer: writers[c%len(writers)],
				ip: fmt.Sprintf("10.1.%d.%d", c/250, c%250+1), rng: rand.New(rand.NewPCG(uint64(c), 42)),
				etags: map[string]string{}, id: c,
			}
			for running() {
				lc.step(ctx)
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)

	total := 0
	for _, n := range stats.byStatus {
		total += n
	}
	t.Logf("%d clients, %v: %d requests, %.0f requests/s; by status %v", loadClients, elapsed.Round(time.Millisecond),
		total, float64(total)/elapsed.Seconds(), stats.byStatus)
	for _, op := range slices.Sorted(func(yield func(string) bool) {
		for op := range stats.byOp {
			if !yield(op) {
				return
			}
		}
	}) {
		t.Logf("  %-8s %v", op, stats.byOp[op])
	}
	for _, p := range stats.problems {
		t.Error(p)
	}
	assert.Empty(t, warnings.String(), "nothing logged above INFO")
	assert.Positive(t, stats.byStatus[http.StatusTooManyRequests], "the default limits refused some requests")
	assert.Positive(t, stats.byOp["put"][http.StatusOK], "some updates went through")
	assert.Positive(t, stats.byOp["put"][http.StatusPreconditionFailed], "some updates were stale")

	checkNoLostUpdate(t, f, analyticsPath(f.analytics.ID), stats.puts[analyticsPath(f.analytics.ID)],
		func() (int64, string, []integrations.Revision) {
			a, err := f.app.Integrations.Analytics(ctx, f.brand.ID, f.analytics.ID)
			require.NoError(t, err)
			revs, err := f.app.Integrations.Revisions(ctx, f.brand.ID, integrations.KindAnalytics, f.analytics.ID)
			require.NoError(t, err)
			return a.Version, a.TrackingID, revs
		})
	checkNoLostUpdate(t, f, gatewayPath(f.gateway.ID), stats.puts[gatewayPath(f.gateway.ID)],
		func() (int64, string, []integrations.Revision) {
			p, err := f.app.Integrations.PaymentGateway(ctx, f.brand.ID, f.gateway.ID)
			require.NoError(t, err)
			revs, err := f.app.Integrations.Revisions(ctx, f.brand.ID, integrations.KindPaymentGateway, f.gateway.ID)
			require.NoError(t, err)
			return p.Version, *p.Name, revs
		})
	assert.Equal(t, otherBefore, snapshotOther(t, f), "the other brand is untouched")
}

// checkNoLostUpdate compares the successful updates of one configuration
// with what is stored: read returns its version, the field the updates
// mark, and its revisions.
func checkNoLostUpdate(t *testing.T, f *integFixture, path string, puts []loadPut, read func() (int64, string, []integrations.Revision)) {
	t.Helper()
	version, marker, revs := read()
	n := int64(len(puts))
	t.Logf("%s: %d successful updates, final version %d, %d revisions", path, n, version, len(revs))
	assert.Equal(t, 1+n, version, "%s: the final version is 1 + the number of 200 PUTs", path)
	assert.Len(t, revs, len(puts), "%s: one revision per 200 PUT", path)
	slices.SortFunc(puts, func(a, b loadPut) int { return int(a.version - b.version) })
	for i, p := range puts {
		if !assert.Equal(t, int64(i+2), p.version, "%s: each 200 PUT got its own version", path) {
			break
		}
	}
	if len(puts) > 0 {
		assert.Equal(t, puts[len(puts)-1].marker, marker, "%s: the record holds the last update", path)
	}
	byVersion := map[int64]loadPut{}
	for _, p := range puts {
		byVersion[p.version] = p
	}
	for _, r := range revs {
		p, ok := byVersion[r.Version]
		if assert.True(t, ok, "%s: revision of version %d answers a 200 PUT", path, r.Version) {
			assert.Equal(t, p.userID, r.ActorUserID, "%s: revision %d names the user who updated", path, r.Version)
		}
	}
}

// snapshotOther returns the other brand's configurations.
func snapshotOther(t *testing.T, f *integFixture) []any {
	t.Helper()
	a, err := f.app.Integrations.Analytics(t.Context(), f.other.ID, f.otherAnalytics.ID)
	require.NoError(t, err)
	p, err := f.app.Integrations.PaymentGateway(t.Context(), f.other.ID, f.otherGateway.ID)
	require.NoError(t, err)
	return []any{a, p}
}

// loadClient is one client of TestLoad.
type loadClient struct {
	f      *integFixture
	srv    string
	client *http.Client
	stats  *loadStats
	lists  []string
	writer loadWriter
	ip     string
	rng    *rand.Rand
	etags  map[string]string // last ETag seen per path (with query)
	id, n  int
}

// step sends one request, chosen at random: 10% logins, 40% lists, 25%
// GETs and 25% PUTs of an integration.
func (c *loadClient) step(ctx context.Context) {
	c.n++
	paths := []string{analyticsPath(c.f.analytics.ID), gatewayPath(c.f.gateway.ID)}
	switch x := c.rng.IntN(100); {
	case x < 10:
		c.login(ctx)
	case x < 50:
		path := c.lists[c.rng.IntN(len(c.lists))] + "?PageSize=" + strconv.Itoa(1+c.rng.IntN(50)) +
			"&PageNumber=" + strconv.Itoa(c.rng.IntN(4))
		h := map[string]string{}
		if etag := c.etags[path]; etag != "" && c.rng.IntN(3) == 0 {
			h["If-None-Match"] = etag
		}
		c.do(ctx, "list", "GET", path, h, "", 200, 304, 429)
	case x < 75:
		path := paths[c.rng.IntN(2)]
		h := map[string]string{"Auth-Key": c.writer.key}
		if etag := c.etags[path]; etag != "" && c.rng.IntN(4) == 0 {
			h["If-None-Match"] = etag
		}
		c.do(ctx, "get", "GET", path, h, "", 200, 304)
	default:
		c.update(ctx, paths[c.rng.IntN(2)])
	}
}

func (c *loadClient) login(ctx context.Context) {
	var body string
	switch c.rng.IntN(3) {
	case 0:
		body = adminLogin()
	case 1:
		body = `{"username":"writer00","password":"writer password writer00"}`
	default:
		body = `{"username":"admin","password":"wrong password"}`
	}
	status, e := c.do(ctx, "login", "POST", "/api/v1/users/auth", map[string]string{"Content-Type": "application/json"}, body,
		200, 401, 429)
	if status == http.StatusOK {
		var d authData
		if err := json.Unmarshal(e.Data, &d); err != nil || len(d.AuthKey) != 43 {
			c.stats.problem("login 200 without a key pair: %v %s", err, e.Data)
		}
	}
}

// update PUTs a change marked with this client and step to path, with the
// last ETag seen as If-Match half of the time (read-modify-write) and
// without one otherwise (a blind write).
func (c *loadClient) update(ctx context.Context, path string) {
	marker := fmt.Sprintf("m-%d-%d", c.id, c.n)
	var body string
	if strings.Contains(path, "/analytics/") {
		// apiKey is required on every update: the masked value a read answered
		// keeps the stored key.
		body = fmt.Sprintf(`{"appIntegrationId":%q,"trackingId":%q,"apiKey":%q,"isDefault":true,"status":"Active"}`,
			c.f.analytics.AppIntegration.ID, marker, *c.f.analytics.APIKey)
	} else {
		body = fmt.Sprintf(`{"appIntegrationId":%q,"name":%q,"ipnListenerLink":"https://shop.example.com/ipn","isDefault":true,"status":"Active"}`,
			c.f.gateway.AppIntegration.ID, marker)
	}
	h := map[string]string{"Auth-Key": c.writer.key, "Content-Type": "application/json"}
	if etag := c.etags[path]; etag != "" && c.rng.IntN(2) == 0 {
		h["If-Match"] = etag
	}
	status, _, etag := c.send(ctx, "put", "PUT", path, h, body, 200, 412, 429)
	if status != http.StatusOK {
		return
	}
	v, _, ok := strings.Cut(strings.Trim(etag, `"`), ".")
	version, err := strconv.ParseInt(v, 10, 64)
	if !ok || err != nil {
		c.stats.problem("PUT %s: 200 with ETag %q", path, etag)
		return
	}
	c.stats.put(path, loadPut{version: version, marker: marker, userID: c.writer.id})
}

func (c *loadClient) do(ctx context.Context, op, method, path string, h map[string]string, body string, allowed ...int) (int, env) {
	status, e, _ := c.send(ctx, op, method, path, h, body, allowed...)
	return status, e
}

// send makes one request as this client and checks the answer: an allowed
// status, a valid envelope, Retry-After on a 429. It returns the status,
// the envelope and the ETag, and remembers the ETag for path.
func (c *loadClient) send(ctx context.Context, op, method, path string, h map[string]string, body string, allowed ...int) (int, env, string) {
	req, err := http.NewRequestWithContext(ctx, method, c.srv+path, strings.NewReader(body))
	if err != nil {
		c.stats.problem("%s %s: %v", method, path, err)
		return 0, env{}, ""
	}
	req.Header.Set("Brand-URL", "shop.example.com")
	req.Header.Set("X-Forwarded-For", c.ip)
	for k, v := range h {
		req.Header.Set(k, v)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		c.stats.problem("%s %s: %v", method, path, err)
		return 0, env{}, ""
	}
	raw, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	c.stats.record(op, resp.StatusCode)
	if err != nil {
		c.stats.problem("%s %s: reading the body: %v", method, path, err)
	}
	e, err := decodeEnvelope(resp.StatusCode, resp.Header, raw)
	if err != nil {
		c.stats.problem("%s %s: %v: %s", method, path, err, raw)
	}
	if !slices.Contains(allowed, resp.StatusCode) {
		c.stats.problem("%s %s: status %d not among %v: %s", method, path, resp.StatusCode, allowed, raw)
	}
	if resp.StatusCode == http.StatusTooManyRequests && resp.Header.Get("Retry-After") == "" {
		c.stats.problem("%s %s: 429 without Retry-After", method, path)
	}
	etag := resp.Header.Get("ETag")
	if etag != "" {
		c.etags[path] = etag
	}
	return resp.StatusCode, e, etag
}
