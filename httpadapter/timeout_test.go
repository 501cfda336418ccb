package httpadapter_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/httpadapter"
)

// readTimeout is the test servers' http.Server.ReadTimeout: the whole
// request, body included, must have been read within it.
const readTimeout = 250 * time.Millisecond

// startRaw sends the request line and headers of method path (with the
// brand, a JSON content type, Content-Length n and extra header lines) and
// the first part of its body over a fresh connection to srv, and returns
// the connection.
func startRaw(t *testing.T, srv *httptest.Server, method, path string, n int, first string, extra ...string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	head := method + " " + path + " HTTP/1.1\r\nHost: api.test\r\nBrand-URL: shop.example.com\r\n" +
		"Content-Type: application/json\r\nContent-Length: " + strconv.Itoa(n) + "\r\n"
	for _, h := range extra {
		head += h + "\r\n"
	}
	_, err = io.WriteString(conn, head+"\r\n"+first)
	require.NoError(t, err)
	return conn
}

// readAnswer reads the response on conn (giving up after 10 s: a hang) and
// checks its envelope.
func readAnswer(t *testing.T, conn net.Conn) (*http.Response, env) {
	t.Helper()
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(10*time.Second)))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	e, err := decodeEnvelope(resp.StatusCode, resp.Header, body)
	require.NoError(t, err, string(body))
	return resp, e
}

// A body that stops arriving is answered 408 request_timeout once the
// server's read timeout has run out, not 400 malformed_json, on every route
// that reads a body; through a real listening server whose client sends
// the headers and part of the body, then stalls.
func TestStalledBodyIs408(t *testing.T) {
	t.Parallel()
	f := newIntegFixture(t, stores["memory"])
	logs := &lockedBuffer{} // the server's goroutines log while the subtests read
	h, err := f.app.Handler(withTestLogger(logs), httpadapter.WithoutRateLimits())
	require.NoError(t, err)
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ReadTimeout = readTimeout
	srv.Start()
	t.Cleanup(srv.Close)
	for _, tc := range []struct{ method, path, body string }{
		{"POST", "/api/v1/users/auth", adminLogin()},
		{"POST", "/api/v1/users/auth/refresh-auth-key", `{"refreshAuthKey":"nope"}`},
		{"PUT", analyticsPath(f.analytics.ID), analyticsBody(f.analytics.AppIntegration.ID, nil)},
		{"PUT", gatewayPath(f.gateway.ID), gatewayBody(f.gateway.AppIntegration.ID, nil)},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			conn := startRaw(t, srv, tc.method, tc.path, len(tc.body), tc.body[:len(tc.body)/2], "Auth-Key: "+f.keys["admin"])
			resp, e := readAnswer(t, conn)
			assert.Equal(t, http.StatusRequestTimeout, resp.StatusCode)
			require.NotEmpty(t, e.Errors)
			assert.Equal(t, "request_timeout", e.Errors[0].Code)
			assert.Less(t, time.Since(start), readTimeout+5*time.Second, "answered once the read timeout ran out")
			assert.NotContains(t, logs.String(), "level=ERROR")
		})
	}
}

// A PUT whose body comes in a later packet than its headers, and whose
// handler first waits (as on a frozen database in the auth step) past the
// server's read timeout, finds the read deadline passed when it reads the
// body, though the body is there: 408 request_timeout, not 400
// malformed_json. The wait is the one thing this test spends real time on:
// the server's read deadline is wall-clock time.
func TestBodyAfterAWaitPastTheReadTimeoutIs408(t *testing.T) {
	t.Parallel()
	f := newIntegFixture(t, stores["memory"])
	logs := &lockedBuffer{} // the handler may still log while the test reads
	h, err := f.app.Handler(withTestLogger(logs), httpadapter.WithoutRateLimits())
	require.NoError(t, err)
	started, sent := make(chan struct{}), make(chan struct{})
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-sent
		time.Sleep(readTimeout) // the request began before this handler: its deadline is behind us now
		h.ServeHTTP(w, r)
	}))
	srv.Config.ReadTimeout = readTimeout
	srv.Start()
	defer srv.Close()

	body := analyticsBody(f.analytics.AppIntegration.ID, nil)
	conn := startRaw(t, srv, "PUT", analyticsPath(f.analytics.ID), len(body), "", "Auth-Key: "+f.keys["admin"])
	<-started
	_, err = io.WriteString(conn, body) // the whole body, in a later packet
	require.NoError(t, err)
	close(sent)
	resp, e := readAnswer(t, conn)
	assert.Equal(t, http.StatusRequestTimeout, resp.StatusCode)
	require.NotEmpty(t, e.Errors)
	assert.Equal(t, "request_timeout", e.Errors[0].Code, e.Message)
	a, err := f.app.Integrations.Analytics(t.Context(), f.brand.ID, f.analytics.ID)
	require.NoError(t, err)
	assert.Equal(t, f.analytics.Version, a.Version, "nothing written")
	assert.False(t, strings.Contains(logs.String(), "level=ERROR"), logs.String())
}
