package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

// server is a demo server running in the test's process.
type server struct {
	cancel         context.CancelFunc
	stdout, stderr *syncBuffer
	ready          chan string
	done           chan error
}

// waitBound is how long a test waits for a server to start, stop or become
// ready: until shortly before the test binary's own deadline (go test
// -timeout), 10 minutes without one. How fast a server starts is not what
// these tests check, and on a loaded machine (the race detector, several
// servers seeding their demo data at once) a fixed bound of seconds failed
// while the server was still working; the margin leaves time to report
// which wait ran out.
func waitBound(t *testing.T) time.Duration {
	t.Helper()
	if dl, ok := t.Deadline(); ok {
		return max(time.Until(dl)-15*time.Second, time.Second)
	}
	return 10 * time.Minute
}

// launch starts the server with args, without waiting for it.
func launch(args ...string) *server {
	ctx, cancel := context.WithCancel(context.Background())
	s := &server{cancel: cancel, stdout: &syncBuffer{}, stderr: &syncBuffer{}, ready: make(chan string, 1), done: make(chan error, 1)}
	go func() {
		s.done <- run(ctx, append([]string{"-addr", "127.0.0.1:0"}, args...), s.stdout, s.stderr, s.ready)
	}()
	return s
}

// wait waits until s serves and returns its base URL and the function that
// stops it (checking a clean shutdown).
func (s *server) wait(t *testing.T) (string, func()) {
	t.Helper()
	var addr string
	select {
	case addr = <-s.ready:
	case err := <-s.done:
		s.cancel()
		t.Fatalf("server stopped: %v\n%s", err, s.stderr.String())
	case <-time.After(waitBound(t)):
		s.cancel()
		t.Fatalf("server did not start\n%s", s.stderr.String())
	}
	stop := func() {
		s.cancel()
		select {
		case err := <-s.done:
			require.NoError(t, err, "clean shutdown")
		case <-time.After(waitBound(t)):
			t.Fatal("server did not stop")
		}
	}
	return "http://" + addr, stop
}

// startServer runs the server with args until the test ends, and returns
// its base URL and its stdout.
func startServer(t *testing.T, args ...string) (string, *syncBuffer, func()) {
	t.Helper()
	s := launch(args...)
	base, stop := s.wait(t)
	return base, s.stdout, stop
}

func demoLine(t *testing.T, out string) demoInfo {
	t.Helper()
	line, ok := strings.CutPrefix(strings.TrimSpace(out), "demo ")
	require.True(t, ok, "stdout is one demo line: %q", out)
	var d demoInfo
	require.NoError(t, json.Unmarshal([]byte(line), &d))
	return d
}

func TestServerSeedsServesAndRestarts(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "brandbase.db")
	base, stdout, stop := startServer(t, "-db", db)
	first := demoLine(t, stdout.String())
	assert.Equal(t, demoBrandURL, first.BrandURL)
	assert.Equal(t, otherBrandURL, first.OtherBrandURL)

	req, err := http.NewRequest("GET", base+"/api/v1/currencies", nil)
	require.NoError(t, err)
	req.Header.Set("Brand-URL", first.BrandURL)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	var env struct {
		Success bool
		Data    struct{ TotalItems int }
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&env))
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.True(t, env.Success)
	assert.Positive(t, env.Data.TotalItems)
	stop()

	info, err := os.Stat(filepath.Join(filepath.Dir(db), "brandbase.demo.json"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())

	_, stdout, stop = startServer(t, "-db", db)
	assert.Equal(t, first, demoLine(t, stdout.String()), "a restart prints the same demo line")
	stop()
}

func TestServerInMemory(t *testing.T) {
	t.Parallel()
	base, stdout, stop := startServer(t, "-db", ":memory:")
	defer stop()
	d := demoLine(t, stdout.String())
	resp, err := http.Get(base + "/api/v1/currencies")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "no Brand-URL")
	assert.NotEmpty(t, d.BrandURL)
}

func TestServerRejectsBadFlags(t *testing.T) {
	t.Parallel()
	err := run(t.Context(), []string{"-nope"}, &bytes.Buffer{}, &bytes.Buffer{}, nil)
	assert.Error(t, err)
}

// call sends one JSON request to the server and returns the status and the
// decoded envelope's data.
func call(t *testing.T, method, url, brand string, headers map[string]string, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Brand-URL", brand)
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var env struct {
		Data map[string]any
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&env))
	return resp.StatusCode, env.Data
}

func loginBody(field, id, password string) string {
	b, _ := json.Marshal(map[string]string{field: id, "password": password})
	return string(b)
}

func TestServerDemoCredentialsLogIn(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "brandbase.db")
	base, stdout, stop := startServer(t, "-db", db, "-viewer-password", "viewer-pass-123")
	d := demoLine(t, stdout.String())
	assert.NotEmpty(t, d.Username)
	assert.NotEmpty(t, d.EmailAddress)
	assert.GreaterOrEqual(t, len(d.Password), 8, "a random password")
	assert.Equal(t, "viewer-pass-123", d.ViewerPassword, "the flag's password")
	assert.NotEqual(t, d.Username, d.OtherUsername, "the other brand's admin has another name")
	auth := base + "/api/v1/users/auth"

	logins := []struct {
		name, brand, body string
		status            int
	}{
		{"admin by username", d.BrandURL, loginBody("username", d.Username, d.Password), 200},
		{"admin by email", d.BrandURL, loginBody("emailAddress", d.EmailAddress, d.Password), 200},
		{"viewer", d.BrandURL, loginBody("username", d.ViewerUsername, d.ViewerPassword), 200},
		{"other admin", d.OtherBrandURL, loginBody("username", d.OtherUsername, d.OtherPassword), 200},
		{"viewer of the other brand", d.OtherBrandURL, loginBody("username", d.ViewerUsername, d.ViewerPassword), 200},
		{"other admin in the demo brand", d.BrandURL, loginBody("username", d.OtherUsername, d.OtherPassword), 401},
		{"admin in the other brand", d.OtherBrandURL, loginBody("username", d.Username, d.Password), 401},
		{"wrong password", d.BrandURL, loginBody("username", d.Username, d.Password+"x"), 401},
	}
	var adminKeys map[string]any
	for _, l := range logins {
		status, data := call(t, "POST", auth, l.brand, nil, l.body)
		assert.Equal(t, l.status, status, l.name)
		if l.name == "admin by username" {
			adminKeys = data
		}
	}
	require.NotNil(t, adminKeys)
	require.IsType(t, "", adminKeys["refreshAuthKey"])

	status, fresh := call(t, "POST", auth+"/refresh-auth-key", d.BrandURL, nil,
		`{"refreshAuthKey":"`+adminKeys["refreshAuthKey"].(string)+`"}`)
	require.Equal(t, http.StatusOK, status)
	status, _ = call(t, "DELETE", auth, d.BrandURL, map[string]string{"Auth-Key": adminKeys["authKey"].(string)}, "")
	assert.Equal(t, http.StatusUnauthorized, status, "the refreshed-away key is revoked")
	status, _ = call(t, "DELETE", auth, d.BrandURL, map[string]string{"Auth-Key": fresh["authKey"].(string)}, "")
	assert.Equal(t, http.StatusOK, status, "logout with the new key")
	stop()

	base, _, stop = startServer(t, "-db", db)
	defer stop()
	status, _ = call(t, "POST", base+"/api/v1/users/auth", d.BrandURL, nil, loginBody("username", d.Username, d.Password))
	assert.Equal(t, http.StatusOK, status, "the printed credentials survive a restart")
}

func TestServerIntegrations(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "brandbase.db")
	base, stdout, stop := startServer(t, "-db", db)
	d := demoLine(t, stdout.String())
	ids := []string{d.AnalyticsAppIntegrationID, d.AnalyticsIntegrationID, d.PaymentGatewayAppIntegrationID,
		d.PaymentGatewayIntegrationID, d.OtherAnalyticsAppIntegrationID, d.OtherAnalyticsIntegrationID,
		d.OtherPaymentGatewayAppIntegrationID, d.OtherPaymentGatewayIntegrationID}
	seen := map[string]bool{}
	for _, id := range ids {
		assert.NotEmpty(t, id)
		seen[id] = true
	}
	assert.Len(t, seen, len(ids), "every seeded id is distinct")
	info, err := os.Stat(filepath.Join(dir, "brandbase.key"))
	require.NoError(t, err, "the key file is created beside the database")
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())

	login := func(base, brand, user, password string) map[string]string {
		t.Helper()
		status, data := call(t, "POST", base+"/api/v1/users/auth", brand, nil, loginBody("username", user, password))
		require.Equal(t, http.StatusOK, status)
		return map[string]string{"Auth-Key": data["authKey"].(string)}
	}
	admin := login(base, d.BrandURL, d.Username, d.Password)
	viewer := login(base, d.BrandURL, d.ViewerUsername, d.ViewerPassword)
	analytics := base + "/api/v1/app-integrations/analytics/"
	gateway := base + "/api/v1/app-integrations/payment-gateway/"

	status, a := call(t, "GET", analytics+d.AnalyticsIntegrationID, d.BrandURL, admin, "")
	require.Equal(t, http.StatusOK, status)
	assert.Regexp(t, `^\*+[A-Za-z0-9]{4}$`, a["apiKey"], "apiKey masked")
	assert.Equal(t, true, a["isDefault"])
	// apiKey is required on every update: the masked value the GET answered
	// keeps the stored key.
	body := `{"appIntegrationId":"` + d.AnalyticsAppIntegrationID + `","trackingId":"G-UPDATED","apiKey":"` +
		a["apiKey"].(string) + `","status":"active"}`
	status, u := call(t, "PUT", analytics+d.AnalyticsIntegrationID, d.BrandURL, admin, body)
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, "G-UPDATED", u["trackingId"])
	assert.Equal(t, a["apiKey"], u["apiKey"], "the masked apiKey sent back keeps the stored one")
	assert.Equal(t, "Active", u["status"])

	status, _ = call(t, "PUT", analytics+d.AnalyticsIntegrationID, d.BrandURL, viewer, body)
	assert.Equal(t, http.StatusForbidden, status, "the viewer has no permission")
	status, _ = call(t, "PUT", analytics+d.OtherAnalyticsIntegrationID, d.BrandURL, admin, body)
	assert.Equal(t, http.StatusNotFound, status, "an id of the other brand")
	status, g := call(t, "GET", gateway+d.PaymentGatewayIntegrationID, d.BrandURL, admin, "")
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, true, g["testMode"])
	assert.Regexp(t, `^\*+[A-Za-z0-9]{4}$`, g["privateKey"])
	other := login(base, d.OtherBrandURL, d.OtherUsername, d.OtherPassword)
	status, _ = call(t, "GET", gateway+d.OtherPaymentGatewayIntegrationID, d.OtherBrandURL, other, "")
	assert.Equal(t, http.StatusOK, status)
	stop()

	base, _, stop = startServer(t, "-db", db)
	admin = login(base, d.BrandURL, d.Username, d.Password)
	status, a2 := call(t, "GET", base+"/api/v1/app-integrations/analytics/"+d.AnalyticsIntegrationID, d.BrandURL, admin, "")
	require.Equal(t, http.StatusOK, status, "the secrets decrypt after a restart")
	assert.Equal(t, "G-UPDATED", a2["trackingId"])
	assert.Equal(t, a["apiKey"], a2["apiKey"])
	stop()

	require.NoError(t, os.Remove(filepath.Join(dir, "brandbase.key")))
	err = run(t.Context(), []string{"-addr", "127.0.0.1:0", "-db", db}, &bytes.Buffer{}, &bytes.Buffer{}, nil)
	assert.ErrorContains(t, err, "key file", "a seeded database without its key is refused")
}

// The password flags given on a later start set the demo users' passwords,
// and the demo line and file say the new ones (the walkthroughs of
// docs/authentication.md and docs/integrations.md name them on every start).
func TestServerPasswordFlagsOnALaterStart(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "brandbase.db")
	_, stdout, stop := startServer(t, "-db", db)
	first := demoLine(t, stdout.String())
	stop()

	base, stdout, stop := startServer(t, "-db", db, "-password", "new-admin-pass", "-viewer-password", "new-viewer-pass")
	defer stop()
	second := demoLine(t, stdout.String())
	assert.Equal(t, "new-admin-pass", second.Password)
	assert.Equal(t, "new-viewer-pass", second.ViewerPassword)
	assert.Equal(t, first.OtherPassword, second.OtherPassword, "a password not named is kept")
	want := first
	want.Password, want.ViewerPassword = second.Password, second.ViewerPassword
	assert.Equal(t, want, second, "only the named passwords change")

	saved, err := os.ReadFile(filepath.Join(filepath.Dir(db), "brandbase.demo.json"))
	require.NoError(t, err)
	var file demoInfo
	require.NoError(t, json.Unmarshal(saved, &file))
	assert.Equal(t, second, file, "the demo file says the new passwords")

	cases := []struct {
		brand, username, password string
		status                    int
	}{
		{second.BrandURL, second.Username, "new-admin-pass", http.StatusOK},
		{second.BrandURL, second.Username, first.Password, http.StatusUnauthorized},
		{second.BrandURL, second.ViewerUsername, "new-viewer-pass", http.StatusOK},
		{second.OtherBrandURL, second.ViewerUsername, "new-viewer-pass", http.StatusOK},
		{second.OtherBrandURL, second.OtherUsername, first.OtherPassword, http.StatusOK},
	}
	for _, tc := range cases {
		body := strings.NewReader(`{"username":"` + tc.username + `","password":"` + tc.password + `"}`)
		req, err := http.NewRequest("POST", base+"/api/v1/users/auth", body)
		require.NoError(t, err)
		req.Header.Set("Brand-URL", tc.brand)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equalf(t, tc.status, resp.StatusCode, "%s of %s with %q", tc.username, tc.brand, tc.password)
	}
}
