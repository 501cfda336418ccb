package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/brandbase/brandbase/internal/testkit/rawhttp"
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
		for _, headers := range [][]string{nil, {"Brand-URL: shop.example.com"}} {
			resp, body := rawhttp.Get(t, addr, "demo.test", path, headers...)
			assert.False(t, resp.StatusCode >= 200 && resp.StatusCode < 300, "%s: %d", path, resp.StatusCode)
			var env struct{ Success bool }
			if json.Unmarshal(body, &env) == nil {
				assert.False(t, env.Success, "%s: success on a %d", path, resp.StatusCode)
			}
			rawhttp.AssertStaysOn(t, "demo.test", resp.Header.Get("Location"), path)
		}
	}
}
