// Package rawhttp holds the test helpers that send a request target byte
// for byte, as a hostile client does (no client cleans or escapes it), and
// check that an answer's Location never leaves the server. The adapter's
// tests and the example programs' tests share them.
package rawhttp

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Get sends "GET path" to the server listening at addr, with Host: host
// and the given header lines ("Name: value"), and returns the response and
// its whole body. It fails t when the exchange fails.
func Get(t testing.TB, addr, host, path string, headers ...string) (*http.Response, []byte) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer conn.Close()
	req := "GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n"
	for _, h := range headers {
		req += h + "\r\n"
	}
	_, err = io.WriteString(conn, req+"\r\n")
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err, path)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, body
}

// AssertStaysOn fails t unless loc, the Location answered to path, is
// empty or leads a browser to host again: resolved against http://host/
// (a backslash read as a slash, as browsers read it) it names host, and it
// does not start with two slashes or backslashes (scheme-relative).
func AssertStaysOn(t testing.TB, host, loc, path string) {
	t.Helper()
	if loc == "" {
		return
	}
	base, err := url.Parse("http://" + host + "/")
	require.NoError(t, err)
	u, err := base.Parse(strings.ReplaceAll(loc, `\`, "/"))
	require.NoError(t, err, path)
	assert.Equal(t, host, u.Host, "%s: Location %q leaves the server", path, loc)
	assert.NotRegexp(t, `^[/\\][/\\]`, loc, "%s: Location %q is scheme-relative", path, loc)
}
