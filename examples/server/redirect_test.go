package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The demo server never answers with a Location that leaves it, whatever
// slashes, backslashes or escaped dots a request target holds, with or
// without Brand-URL; and no answer that is not a 2xx says success: true.
// The targets are sent byte for byte, as a hostile client sends them.
func TestUncleanPathsNeverRedirectAway(t *testing.T) {
	t.Parallel()
	base, _, stop := startServer(t, "-db", ":memory:")
	defer stop()
	addr := strings.TrimPrefix(base, "http://")
	for _, path := range []string{
		"/./%5Cevil.example/", "/.%2F%5Cevil.example", "/x/..%2F%5C%5Cevil.example/",
		"//evil.example", "//evil.example/", "///evil.example/x", `/\evil`, `/\\evil.example`, `/.\evil.example`,
		"/%5Cevil", "/%5C%5Cevil.example/", "/%2F%2Fevil", "/%2e/%2e%2e//evil.example", "/.%2e/%5Cevil.example",
		"/api/v1/..//evil.example", "/api/v1/../%5Cevil.example", "/api/v1/x/..%2F%5C%5Cevil.example/",
		"/api/v1/./%5C%5Cevil.example", "/api/v1//currencies", "/healthz/../%5Cevil.example",
	} {
		for _, brand := range []string{"", "Brand-URL: shop.example.com\r\n"} {
			conn, err := net.Dial("tcp", addr)
			require.NoError(t, err)
			_, err = io.WriteString(conn, "GET "+path+" HTTP/1.1\r\nHost: demo.test\r\nConnection: close\r\n"+brand+"\r\n")
			require.NoError(t, err)
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			require.NoError(t, err, path)
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			conn.Close()
			assert.False(t, resp.StatusCode >= 200 && resp.StatusCode < 300, "%s: %d", path, resp.StatusCode)
			var env struct{ Success bool }
			if json.Unmarshal(body, &env) == nil {
				assert.False(t, env.Success, "%s: success on a %d", path, resp.StatusCode)
			}
			loc := resp.Header.Get("Location")
			if loc == "" {
				continue
			}
			// A browser reads a backslash in an http URL as a slash.
			u, err := url.Parse("http://demo.test/")
			require.NoError(t, err)
			u, err = u.Parse(strings.ReplaceAll(loc, `\`, "/"))
			require.NoError(t, err, path)
			assert.Equal(t, "demo.test", u.Host, "%s: Location %q leaves the server", path, loc)
			assert.NotRegexp(t, `^[/\\][/\\]`, loc, "%s: Location %q", path, loc)
		}
	}
}
