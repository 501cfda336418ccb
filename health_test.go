package brandbase_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/httpadapter"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/internal/testkit/pgtest"
	"github.com/brandbase/brandbase/storage"
	"github.com/brandbase/brandbase/storage/memory"
	"github.com/brandbase/brandbase/storage/postgres"
	"github.com/brandbase/brandbase/storage/sqlite"
)

// healthServer serves app's probes at /healthz, /readyz and, strict
// (httpadapter.ReadinessConfig.Strict), /readyz-strict (no cache, so that
// each probe runs the checks) and its API beside them, over real HTTP.
func healthServer(t *testing.T, app *brandbase.App) *httptest.Server {
	t.Helper()
	api, err := app.Handler(httpadapter.WithLogger(slog.New(slog.DiscardHandler)))
	require.NoError(t, err)
	mux := http.NewServeMux()
	mux.Handle("GET /healthz", app.Liveness())
	mux.Handle("GET /readyz", app.Readiness(httpadapter.ReadinessConfig{CacheFor: -1, Logger: slog.New(slog.DiscardHandler)}))
	mux.Handle("GET /readyz-strict", app.Readiness(httpadapter.ReadinessConfig{CacheFor: -1, Logger: slog.New(slog.DiscardHandler), Strict: true}))
	mux.Handle("/api/v1/", api)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// readyz probes srv's /readyz and returns the status, the Retry-After and
// the body.
func readyz(t *testing.T, srv *httptest.Server) (int, string, httpadapter.HealthStatus) {
	t.Helper()
	return probe(t, srv, "/readyz")
}

// readyzStrict probes srv's /readyz-strict, as readyz does.
func readyzStrict(t *testing.T, srv *httptest.Server) (int, string, httpadapter.HealthStatus) {
	t.Helper()
	return probe(t, srv, "/readyz-strict")
}

// probe gets path from srv and returns the status, the Retry-After and
// the body.
func probe(t *testing.T, srv *httptest.Server, path string) (int, string, httpadapter.HealthStatus) {
	t.Helper()
	resp, err := srv.Client().Get(srv.URL + path)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var st httpadapter.HealthStatus
	require.NoError(t, json.Unmarshal(body, &st), "%s", body)
	return resp.StatusCode, resp.Header.Get("Retry-After"), st
}

// checkNames returns the names of st's checks.
func checkNames(st httpadapter.HealthStatus) []string {
	var names []string
	for _, c := range st.Checks {
		names = append(names, c.Name)
	}
	return names
}

func TestReadinessMemory(t *testing.T) {
	t.Parallel()
	store, err := memory.New(t.Context())
	require.NoError(t, err)
	app, err := brandbase.New(store, brandbase.Config{SecretKeys: integrations.EphemeralKeyRing()})
	require.NoError(t, err)
	srv := healthServer(t, app)

	resp, err := srv.Client().Get(srv.URL + "/healthz")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)

	status, _, st := readyz(t, srv)
	assert.Equal(t, http.StatusOK, status, "%+v", st)
	assert.Equal(t, []string{brandbase.CheckStore, brandbase.CheckRefDataIndex}, checkNames(st),
		"the memory store has no migrations and no listener")
}

// TestReadinessSQLite: a cold App is not ready until its reference-data
// index is built (the first probe starts the build); then ready; a closed
// store is not ready, and the body names the checks that failed.
func TestReadinessSQLite(t *testing.T) {
	t.Parallel()
	store, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "ready.db"))
	require.NoError(t, err)
	app, err := brandbase.New(store, brandbase.Config{SecretKeys: integrations.EphemeralKeyRing()})
	require.NoError(t, err)
	srv := healthServer(t, app)

	status, retry, st := readyz(t, srv)
	assert.Equal(t, http.StatusServiceUnavailable, status)
	assert.NotEmpty(t, retry)
	assert.Equal(t, []string{brandbase.CheckRefDataIndex}, st.Failed, "only the index, being built")
	assert.Contains(t, checkNames(st), brandbase.CheckMigrations)

	require.NoError(t, app.WarmUp(t.Context()))
	status, _, st = readyz(t, srv)
	assert.Equal(t, http.StatusOK, status, "%+v", st)

	closeStore(t, app, store)
	status, retry, st = readyz(t, srv)
	assert.Equal(t, http.StatusServiceUnavailable, status)
	assert.NotEmpty(t, retry)
	assert.Contains(t, st.Failed, brandbase.CheckStore, "a closed store: %+v", st)
	assert.Contains(t, st.Failed, brandbase.CheckMigrations, "a closed store cannot say: %+v", st)
}

// closeStore closes app and then its store, as a host shutting down does.
func closeStore(t *testing.T, app *brandbase.App, store storage.Storage) {
	t.Helper()
	require.NoError(t, app.Close())
	require.NoError(t, store.Close())
}

// TestReadinessPostgres: on a PostgreSQL cluster of its own, a cold App
// is not ready until its index is built; a stopped database makes the
// probe 200 "degraded" naming the store (the instance answers its held
// lists: a shared dependency down takes no instance out), and the strict
// probe 503 naming it; a frozen one too, within the check timeout, not
// after the stall; started or thawed, ready again on the same App.
func TestReadinessPostgres(t *testing.T) {
	t.Parallel()
	cluster := pgtest.NewCluster(t)
	store, err := postgres.Open(t.Context(), cluster.URL(), postgres.WithLogger(slog.New(slog.DiscardHandler)))
	require.NoError(t, err)
	t.Cleanup(func() { store.Close() })
	app, err := brandbase.New(store, brandbase.Config{SecretKeys: integrations.EphemeralKeyRing()})
	require.NoError(t, err)
	t.Cleanup(func() { app.Close() })
	srv := healthServer(t, app)

	status, _, st := readyz(t, srv)
	assert.Equal(t, http.StatusServiceUnavailable, status)
	assert.Equal(t, []string{brandbase.CheckRefDataIndex}, st.Failed, "only the index, being built")
	assert.Equal(t, []string{brandbase.CheckStore, brandbase.CheckMigrations, brandbase.CheckRefDataIndex, brandbase.CheckListener},
		checkNames(st))
	require.NoError(t, app.WarmUp(t.Context()))
	status, _, st = readyz(t, srv)
	require.Equal(t, http.StatusOK, status, "%+v", st)

	cluster.Stop(t)
	status, _, st = readyz(t, srv)
	assert.Equal(t, http.StatusOK, status, "a shared dependency down: %+v", st)
	assert.Equal(t, httpadapter.StatusDegraded, st.Status)
	assert.Contains(t, st.Degraded, brandbase.CheckStore, "%+v", st)
	assert.NotContains(t, st.Failed, brandbase.CheckRefDataIndex, "the held snapshot answers: %+v", st)
	status, retry, st := readyzStrict(t, srv)
	assert.Equal(t, http.StatusServiceUnavailable, status)
	assert.NotEmpty(t, retry)
	assert.Contains(t, st.Failed, brandbase.CheckStore, "%+v", st)
	cluster.Start(t)
	require.Eventually(t, func() bool { status, _, _ := readyz(t, srv); return status == http.StatusOK },
		30*time.Second, 50*time.Millisecond, "ready again, on the same App")

	cluster.Freeze(t)
	start := time.Now()
	status, _, st = readyzStrict(t, srv)
	elapsed := time.Since(start)
	t.Logf("a strict probe of a frozen database answered in %v", elapsed)
	assert.Equal(t, http.StatusServiceUnavailable, status)
	assert.Contains(t, st.Failed, brandbase.CheckStore, "%+v", st)
	assert.Less(t, elapsed, httpadapter.DefaultCheckTimeout+time.Second, "the probe is bounded by the check timeout")
	start = time.Now()
	status, _, st = readyz(t, srv)
	elapsed = time.Since(start)
	assert.Equal(t, http.StatusOK, status, "%+v", st)
	assert.Contains(t, st.Degraded, brandbase.CheckStore, "%+v", st)
	assert.Less(t, elapsed, httpadapter.DefaultCheckTimeout+time.Second, "the probe is bounded by the check timeout")
	cluster.Thaw(t)
	require.Eventually(t, func() bool { status, _, _ := readyz(t, srv); return status == http.StatusOK },
		30*time.Second, 50*time.Millisecond, "ready again once thawed")
}
