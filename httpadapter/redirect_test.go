package httpadapter_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/internal/testkit/rawhttp"
)

// hostilePaths are request targets that clean (or that a browser reads) to
// another host, with the answer the adapter gives: 404 route_not_found, or
// (only for paths that clean to one under /api/v1/ without a backslash) a
// 307 to the escaped clean path.
var hostilePaths = []struct {
	path     string
	status   int
	location string
}{
	{"/./%5Cevil.example/", 404, ""},
	{"/.%2F%5Cevil.example", 404, ""},
	{"/x/..%2F%5C%5Cevil.example/", 404, ""},
	{"//evil.example", 404, ""},
	{"//evil.example/", 404, ""},
	{"///evil.example/x", 404, ""},
	{`/\evil`, 404, ""},
	{`/\\evil.example`, 404, ""},
	{`/.\evil.example`, 404, ""},
	{"/%5Cevil", 404, ""},
	{"/%5C%5Cevil.example/", 404, ""},
	{"/%2F%2Fevil", 404, ""},
	{"/%2F%2Fevil.example/", 404, ""},
	{"/%2e/%2e%2e//evil.example", 404, ""},
	{"/.%2e/%5Cevil.example", 404, ""},
	{"/%2E%2E%2F%2F%5Cevil.example", 404, ""},
	{"/api/v1/..//evil.example", 404, ""},
	{"/api/v1/../%5Cevil.example", 404, ""},
	{"/api/v1/..%2F..%2F%5Cevil", 404, ""},
	{"/api/v1/%2e%2e/%2e%2e//evil.example", 404, ""},
	{"/api/v1/x/..%2F%5C%5Cevil.example/", 404, ""},
	{"/api/v1/./%5C%5Cevil.example", 404, ""},
	{"/api/v1/x/../../../etc/", 404, ""},
	{"/api/v1/%5C/../currencies", 307, "/api/v1/currencies"},
	{"/api/v1//currencies", 307, "/api/v1/currencies"},
	{"/api/v1/%2e/currencies?PageSize=1", 307, "/api/v1/currencies?PageSize=1"},
	{"/api/v1/x/%2E%2E/countries", 307, "/api/v1/countries"},
	{"/api/v1/.//%20x/../currencies/", 307, "/api/v1/currencies/"},
	{"/api/v1//%3F/", 307, "/api/v1/%3F/"},
}

// A request target that is not canonical never gets a Location that leaves
// the server: the adapter redirects only to a clean path under /api/v1/
// without backslashes, else answers 404; and a redirect's envelope is not
// a success. Through a real server, so that the target reaches the adapter
// as a client sends it.
func TestUncleanPathsNeverRedirectAway(t *testing.T) {
	t.Parallel()
	f := newFixture(t, stores["memory"])
	srv := httptest.NewServer(f.handler)
	defer srv.Close()
	for _, tc := range hostilePaths {
		for _, headers := range [][]string{nil, {"Brand-URL: shop.example.com"}} {
			resp, body := rawhttp.Get(t, srv.Listener.Addr().String(), "api.test", tc.path, headers...)
			e, err := decodeEnvelope(resp.StatusCode, resp.Header, body)
			require.NoError(t, err, "%s: %s", tc.path, body)
			assert.Equal(t, tc.status, resp.StatusCode, tc.path)
			assert.Equal(t, tc.location, resp.Header.Get("Location"), tc.path)
			rawhttp.AssertStaysOn(t, "api.test", resp.Header.Get("Location"), tc.path)
			assert.False(t, e.Success, tc.path)
			require.NotEmpty(t, e.Errors, tc.path)
			if tc.status == http.StatusNotFound {
				assert.Equal(t, "route_not_found", e.Errors[0].Code, tc.path)
			} else {
				assert.Equal(t, "path_not_canonical", e.Errors[0].Code, tc.path)
				assert.Contains(t, e.Message, tc.location, tc.path)
			}
		}
	}
}
