package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/internal/testkit/rawhttp"

	"github.com/brandbase/brandbase/integrations"
)

// syncBuffer is a bytes.Buffer safe for one writer and one reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// env returns a getenv with the given variables.
func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// waitBound is how long start waits for the program to start or stop:
// until shortly before the test binary's own deadline (go test -timeout),
// 10 minutes without one. How fast it starts is not what these tests check
// (opening a new SQLite file installs the dataset, slow under the race
// detector on a loaded machine, where a fixed 30 s failed).
func waitBound(t *testing.T) time.Duration {
	t.Helper()
	if dl, ok := t.Deadline(); ok {
		return max(time.Until(dl)-15*time.Second, time.Second)
	}
	return 10 * time.Minute
}

// start runs the program with args until stop is called, and returns its
// base URL and its log.
func start(t *testing.T, getenv func(string) string, args ...string) (base string, logs *syncBuffer, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	logs = &syncBuffer{}
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- run(ctx, append([]string{"-addr", "127.0.0.1:0"}, args...), getenv, logs, ready) }()
	select {
	case addr := <-ready:
		base = "http://" + addr
	case err := <-done:
		cancel()
		t.Fatalf("stopped: %v\n%s", err, logs.String())
	case <-time.After(waitBound(t)):
		cancel()
		t.Fatalf("did not start\n%s", logs.String())
	}
	return base, logs, func() {
		cancel()
		select {
		case err := <-done:
			require.NoError(t, err, "clean shutdown")
		case <-time.After(waitBound(t)):
			t.Fatal("did not stop")
		}
	}
}

// get sends a GET with headers ("name", "value" pairs) and returns the
// status, content type and body.
func get(t *testing.T, url string, headers ...string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	require.NoError(t, err)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(body)
}

func TestHostRoutesBesideTheAPI(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "embed.db")
	keys := env(map[string]string{"BRANDBASE_SECRET_KEYS": integrations.FormatKey("k1", integrations.GenerateKey())})
	base, logs, stop := start(t, keys, "-db", db, "-brand", "shop.example.com")

	status, ctype, body := get(t, base+"/healthz")
	assert.Equal(t, 200, status)
	assert.Equal(t, "ok\n", body, "the host's own route")
	assert.Equal(t, "text/plain; charset=utf-8", ctype)
	status, _, body = get(t, base+"/")
	assert.Equal(t, 200, status)
	assert.Contains(t, body, "host's own page")
	status, _, _ = get(t, base+"/elsewhere")
	assert.Equal(t, 404, status, "the host's mux answers outside /api/v1/")

	status, ctype, body = get(t, base+"/api/v1/currencies?PageSize=2", "Brand-URL", "https://Shop.Example.com/")
	require.Equal(t, 200, status, body)
	assert.Equal(t, "application/json; charset=utf-8", ctype)
	var page struct {
		Success bool
		Data    struct {
			Items      []map[string]any
			TotalItems int
		}
	}
	require.NoError(t, json.Unmarshal([]byte(body), &page))
	assert.True(t, page.Success)
	assert.Len(t, page.Data.Items, 2)
	assert.Positive(t, page.Data.TotalItems)

	status, _, body = get(t, base+"/api/v1/nothing")
	assert.Equal(t, 404, status)
	assert.Contains(t, body, `"route_not_found"`, "brandbase answers under /api/v1/ in its envelope")
	status, _, body = get(t, base+"/api/v1/openapi.json")
	assert.Equal(t, 200, status)
	assert.Contains(t, body, `"openapi": "3.1.0"`)

	// brandbase's request log goes to the host's logger.
	var sawRequest bool
	for line := range strings.Lines(logs.String()) {
		var rec map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &rec), "the host's JSON logger: %q", line)
		assert.Equal(t, "embed", rec["app"])
		if rec["msg"] == "request" && rec["path"] == "/api/v1/currencies" {
			sawRequest = true
		}
	}
	assert.True(t, sawRequest, "brandbase logged the request through the host's logger:\n%s", logs.String())
	assert.NotContains(t, logs.String(), "BRANDBASE_SECRET_KEYS is not set")
	stop()

	// A restart on the same database finds its brand.
	base, _, stop = start(t, keys, "-db", db, "-brand", "shop.example.com")
	defer stop()
	status, _, _ = get(t, base+"/api/v1/currencies", "Brand-URL", "shop.example.com")
	assert.Equal(t, 200, status)
}

func TestWithoutKeyRingWarns(t *testing.T) {
	t.Parallel()
	_, logs, stop := start(t, env(nil), "-db", ":memory:")
	stop()
	assert.Contains(t, logs.String(), "BRANDBASE_SECRET_KEYS is not set")
}

// On a database file without BRANDBASE_SECRET_KEYS, the key ring is kept
// beside it (mode 0600), created on the first start and read on the next,
// so that secrets survive a restart.
func TestKeyRingFileBesideTheDatabase(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "shop.db")
	_, logs, stop := start(t, env(nil), "-db", db)
	stop()
	keyFile := filepath.Join(dir, "shop.key")
	assert.Contains(t, logs.String(), keyFile)
	assert.NotContains(t, logs.String(), "BRANDBASE_SECRET_KEYS is not set")
	fi, err := os.Stat(keyFile)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	first, err := os.ReadFile(keyFile)
	require.NoError(t, err)
	_, err = integrations.ParseKeyRing(first)
	require.NoError(t, err)

	_, _, stop = start(t, env(nil), "-db", db)
	stop()
	again, err := os.ReadFile(keyFile)
	require.NoError(t, err)
	assert.Equal(t, first, again, "the restart reads the key ring, it does not make a new one")
}

func TestBadConfigurationIsRefused(t *testing.T) {
	t.Parallel()
	for name, sc := range map[string]struct {
		args []string
		env  map[string]string
	}{
		"unknown flag":   {args: []string{"-nope"}},
		"extra argument": {args: []string{"-db", ":memory:", "x"}},
		"bad key ring":   {args: []string{"-db", ":memory:"}, env: map[string]string{"BRANDBASE_SECRET_KEYS": "k1:not base64!"}},
		"bad brand":      {args: []string{"-db", ":memory:", "-brand", "not a domain"}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			err := run(t.Context(), append([]string{"-addr", "127.0.0.1:0"}, sc.args...), env(sc.env), io.Discard, nil)
			assert.Error(t, err)
		})
	}
}

// The host's mux (net/http.ServeMux) redirects a request target that is not
// clean to its cleaned path (301), and brandbase answers unclean paths under
// /api/v1/ itself; neither ever sends a Location that leaves this server,
// whatever slashes, backslashes or escaped dots the target holds.
func TestUncleanPathsNeverRedirectAway(t *testing.T) {
	t.Parallel()
	base, _, stop := start(t, env(nil), "-db", ":memory:")
	defer stop()
	addr := strings.TrimPrefix(base, "http://")
	for _, path := range []string{
		"/./%5Cevil.example/", "/.%2F%5Cevil.example", "/x/..%2F%5C%5Cevil.example/",
		"//evil.example", "//evil.example/", "///evil.example/x", `/\evil`, `/\\evil.example`, `/.\evil.example`,
		"/%5Cevil", "/%5C%5Cevil.example/", "/%2F%2Fevil", "/%2e/%2e%2e//evil.example", "/.%2e/%5Cevil.example",
		"/api/v1/..//evil.example", "/api/v1/../%5Cevil.example", "/api/v1/x/..%2F%5C%5Cevil.example/",
		"/api/v1/./%5C%5Cevil.example", "/api/v1//currencies",
	} {
		resp, _ := rawhttp.Get(t, addr, "host.test", path)
		assert.NotEqual(t, http.StatusOK, resp.StatusCode, path)
		rawhttp.AssertStaysOn(t, "host.test", resp.Header.Get("Location"), path)
	}
}
