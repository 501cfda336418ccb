package httpadapter_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/httpadapter"
)

// probe sends method to url and returns the status, the headers and the
// decoded body (zero for HEAD).
func probe(t *testing.T, method, url string) (int, http.Header, httpadapter.HealthStatus) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var st httpadapter.HealthStatus
	if method != http.MethodHead {
		require.NoError(t, json.Unmarshal(body, &st), "%s", body)
	} else {
		assert.Empty(t, body, "HEAD has no body")
	}
	return resp.StatusCode, resp.Header, st
}

func TestLiveness(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(httpadapter.Liveness())
	t.Cleanup(srv.Close)

	status, h, st := probe(t, http.MethodGet, srv.URL+"/healthz")
	assert.Equal(t, http.StatusOK, status)
	assert.Equal(t, "application/json", h.Get("Content-Type"))
	assert.Equal(t, "no-store", h.Get("Cache-Control"))
	assert.Equal(t, httpadapter.HealthStatus{Status: httpadapter.StatusOK}, st)

	status, _, _ = probe(t, http.MethodHead, srv.URL+"/healthz")
	assert.Equal(t, http.StatusOK, status)

	status, h, _ = probe(t, http.MethodPost, srv.URL+"/healthz")
	assert.Equal(t, http.StatusMethodNotAllowed, status)
	assert.Equal(t, "GET, HEAD", h.Get("Allow"))
}

// switchable is a check whose answer the test sets, counting its runs.
type switchable struct {
	err  atomic.Pointer[error]
	runs atomic.Int32
}

func (s *switchable) set(err error) { s.err.Store(&err) }

func (s *switchable) run(context.Context) error {
	s.runs.Add(1)
	if p := s.err.Load(); p != nil {
		return *p
	}
	return nil
}

func TestReadiness(t *testing.T) {
	t.Parallel()
	var store, index switchable
	var logs strings.Builder
	var logMu sync.Mutex
	logger := slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) {
		logMu.Lock()
		defer logMu.Unlock()
		return logs.Write(p)
	}), nil))
	h := httpadapter.Readiness([]httpadapter.Check{
		{Name: "store", Run: store.run},
		{Name: "index", Run: index.run},
	}, httpadapter.ReadinessConfig{CacheFor: -1, RetryAfter: 3, Logger: logger})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)

	status, h1, st := probe(t, http.MethodGet, srv.URL)
	assert.Equal(t, http.StatusOK, status)
	assert.Empty(t, h1.Get("Retry-After"))
	assert.Equal(t, httpadapter.HealthStatus{Status: "ok", Checks: []httpadapter.CheckResult{
		{Name: "store", Status: "ok"}, {Name: "index", Status: "ok"},
	}}, st)

	store.set(errors.New("connection refused to db.internal:5432"))
	for range 3 {
		status, h1, st = probe(t, http.MethodGet, srv.URL)
		assert.Equal(t, http.StatusServiceUnavailable, status)
		assert.Equal(t, "3", h1.Get("Retry-After"))
		assert.Equal(t, httpadapter.HealthStatus{Status: "unavailable", Checks: []httpadapter.CheckResult{
			{Name: "store", Status: "fail"}, {Name: "index", Status: "ok"},
		}, Failed: []string{"store"}}, st)
	}
	status, _, _ = probe(t, http.MethodHead, srv.URL)
	assert.Equal(t, http.StatusServiceUnavailable, status)

	store.set(nil)
	status, _, _ = probe(t, http.MethodGet, srv.URL)
	assert.Equal(t, http.StatusOK, status)

	logMu.Lock()
	out := logs.String()
	logMu.Unlock()
	assert.Equal(t, 1, strings.Count(out, "readiness check failing"), "one line when the check starts failing, not one a probe:\n%s", out)
	assert.Equal(t, 1, strings.Count(out, "readiness check passing again"), out)
	assert.Contains(t, out, "db.internal:5432", "the reason goes to the log")

	status, h1, _ = probe(t, http.MethodPost, srv.URL)
	assert.Equal(t, http.StatusMethodNotAllowed, status)
	assert.Equal(t, "GET, HEAD", h1.Get("Allow"))
}

// TestReadinessDegraded: a check whose shared dependency is down
// (DependencyDown) makes the probe 200 "degraded" naming it, so that an
// outage of the database takes no instance out of the load balancer;
// with a check of this instance failing too, 503; with Strict, 503 as
// any failure.
func TestReadinessDegraded(t *testing.T) {
	t.Parallel()
	var store, index switchable
	checks := []httpadapter.Check{{Name: "store", Run: store.run}, {Name: "index", Run: index.run}}
	lenient := httptest.NewServer(httpadapter.Readiness(checks, httpadapter.ReadinessConfig{CacheFor: -1, Logger: slog.New(slog.DiscardHandler)}))
	t.Cleanup(lenient.Close)
	strict := httptest.NewServer(httpadapter.Readiness(checks, httpadapter.ReadinessConfig{CacheFor: -1, Logger: slog.New(slog.DiscardHandler), Strict: true}))
	t.Cleanup(strict.Close)

	store.set(httpadapter.DependencyDown(errors.New("connection refused")))
	status, h, st := probe(t, http.MethodGet, lenient.URL)
	assert.Equal(t, http.StatusOK, status)
	assert.Empty(t, h.Get("Retry-After"))
	assert.Equal(t, httpadapter.HealthStatus{Status: "degraded", Checks: []httpadapter.CheckResult{
		{Name: "store", Status: "degraded"}, {Name: "index", Status: "ok"},
	}, Failed: []string{"store"}, Degraded: []string{"store"}}, st)
	status, _, _ = probe(t, http.MethodHead, lenient.URL)
	assert.Equal(t, http.StatusOK, status)

	status, h, st = probe(t, http.MethodGet, strict.URL)
	assert.Equal(t, http.StatusServiceUnavailable, status)
	assert.NotEmpty(t, h.Get("Retry-After"))
	assert.Equal(t, httpadapter.HealthStatus{Status: "unavailable", Checks: []httpadapter.CheckResult{
		{Name: "store", Status: "fail"}, {Name: "index", Status: "ok"},
	}, Failed: []string{"store"}}, st)

	index.set(errors.New("no snapshot"))
	status, _, st = probe(t, http.MethodGet, lenient.URL)
	assert.Equal(t, http.StatusServiceUnavailable, status, "this instance cannot answer: %+v", st)
	assert.Equal(t, "unavailable", st.Status)
	assert.Equal(t, []string{"store", "index"}, st.Failed)
	assert.Equal(t, []string{"store"}, st.Degraded)

	assert.True(t, httpadapter.IsDependencyDown(fmt.Errorf("wrapped: %w", httpadapter.DependencyDown(errors.New("x")))))
	assert.False(t, httpadapter.IsDependencyDown(errors.New("x")))
	assert.NoError(t, httpadapter.DependencyDown(nil))
}

// TestReadinessBodyHidesErrors: why a check failed is not in the body,
// which anyone who reaches the probe reads.
func TestReadinessBodyHidesErrors(t *testing.T) {
	t.Parallel()
	h := httpadapter.Readiness([]httpadapter.Check{{Name: "store", Run: func(context.Context) error {
		return errors.New("password authentication failed for user secret_user")
	}}}, httpadapter.ReadinessConfig{Logger: slog.New(slog.DiscardHandler)})
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
	assert.Equal(t, http.StatusServiceUnavailable, rec.Code)
	assert.NotContains(t, rec.Body.String(), "secret_user")
}

// TestReadinessTimeout: a check that does not answer fails after the
// timeout; the probe does not wait for it.
func TestReadinessTimeout(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	h := httpadapter.Readiness([]httpadapter.Check{
		{Name: "stuck", Run: func(ctx context.Context) error { <-release; return nil }},
		{Name: "fine", Run: func(context.Context) error { return nil }},
	}, httpadapter.ReadinessConfig{Timeout: 50 * time.Millisecond, Logger: slog.New(slog.DiscardHandler)})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)

	start := time.Now()
	status, _, st := probe(t, http.MethodGet, srv.URL)
	assert.Less(t, time.Since(start), 2*time.Second, "the probe is bounded by the check timeout")
	assert.Equal(t, http.StatusServiceUnavailable, status)
	assert.Equal(t, []string{"stuck"}, st.Failed)
}

// TestReadinessCache: within CacheFor the result of the last run answers
// (the checks do not run again), concurrent probes share one run, and
// after CacheFor the checks run again.
func TestReadinessCache(t *testing.T) {
	t.Parallel()
	var c switchable
	var mu sync.Mutex
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	h := httpadapter.Readiness([]httpadapter.Check{{Name: "store", Run: c.run}},
		httpadapter.ReadinessConfig{CacheFor: time.Second, Clock: clock, Logger: slog.New(slog.DiscardHandler)})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)

	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
			resp, err := http.DefaultClient.Do(req)
			if assert.NoError(t, err) {
				resp.Body.Close()
				assert.Equal(t, http.StatusOK, resp.StatusCode)
			}
		})
	}
	wg.Wait()
	assert.Equal(t, int32(1), c.runs.Load(), "eight probes within the period: one run")

	c.set(errors.New("down"))
	status, _, _ := probe(t, http.MethodGet, srv.URL)
	assert.Equal(t, http.StatusOK, status, "the cached result answers within the period")

	mu.Lock()
	now = now.Add(time.Second)
	mu.Unlock()
	status, _, _ = probe(t, http.MethodGet, srv.URL)
	assert.Equal(t, http.StatusServiceUnavailable, status, "after the period the checks run again")
	assert.Equal(t, int32(2), c.runs.Load())
}

// writerFunc is an io.Writer made of a function.
type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// TestReadinessPassesDegraded: a check whose error wraps ErrDegraded
// passes (200, even strict) and is named degraded in the body; the log says
// so once, at WARN, and once at INFO when it passes again.
func TestReadinessPassesDegraded(t *testing.T) {
	t.Parallel()
	var sw switchable
	sw.set(fmt.Errorf("%w: schema newer: 9999_x.sql", httpadapter.ErrDegraded))
	var logs bytes.Buffer
	srv := httptest.NewServer(httpadapter.Readiness([]httpadapter.Check{
		{Name: "store", Run: func(context.Context) error { return nil }},
		{Name: "migrations", Run: sw.run},
	}, httpadapter.ReadinessConfig{CacheFor: -1, Strict: true, Logger: slog.New(slog.NewTextHandler(&logs, nil))}))
	t.Cleanup(srv.Close)

	for range 2 {
		status, _, st := probe(t, http.MethodGet, srv.URL)
		assert.Equal(t, http.StatusOK, status, "a degraded check does not make the instance unready")
		assert.Equal(t, httpadapter.HealthStatus{Status: httpadapter.StatusDegraded, Checks: []httpadapter.CheckResult{
			{Name: "store", Status: httpadapter.StatusOK}, {Name: "migrations", Status: httpadapter.StatusDegraded}},
			Degraded: []string{"migrations"}}, st)
	}
	assert.Equal(t, 1, strings.Count(logs.String(), `msg="readiness check degraded" check=migrations`), logs.String())
	assert.Contains(t, logs.String(), "9999_x.sql", "the log says why")

	sw.set(nil)
	status, _, st := probe(t, http.MethodGet, srv.URL)
	assert.Equal(t, http.StatusOK, status)
	assert.Empty(t, st.Degraded)
	assert.Contains(t, logs.String(), `msg="readiness check passing again" check=migrations`)

	sw.set(errors.New("down"))
	status, _, st = probe(t, http.MethodGet, srv.URL)
	assert.Equal(t, http.StatusServiceUnavailable, status)
	assert.Equal(t, []string{"migrations"}, st.Failed)
}
