package httpadapter_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/httpadapter"
	"github.com/brandbase/brandbase/ratelimit"
)

const (
	appOrigin   = "https://app.example.com"
	otherOrigin = "https://evil.example.net"
)

// corsFixture is a fixture whose handler allows appOrigin, adds the host
// header X-Tenant-Id, and lets two list requests through per hour.
func corsFixture(t *testing.T, name string, origins ...string) *fixture {
	t.Helper()
	return newFixture(t, stores[name],
		httpadapter.WithCORS(origins...), httpadapter.WithCORSHeaders("x-tenant-id"),
		httpadapter.WithRateLimits(httpadapter.RateLimits{Lists: ratelimit.Policy{Limit: 2, Per: time.Hour}}))
}

// serveRaw serves req without decoding an envelope (a 204 has none).
func serveRaw(h http.Handler, method, path string, headers map[string]string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, nil)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// accessControl returns the Access-Control-* headers of an answer.
func accessControl(h http.Header) http.Header {
	out := http.Header{}
	for k, v := range h {
		if strings.HasPrefix(k, "Access-Control-") {
			out[k] = v
		}
	}
	return out
}

func TestCORSPreflight(t *testing.T) {
	t.Parallel()
	preflight := func(origin, method string, extra ...string) map[string]string {
		h := map[string]string{"Origin": origin, "Access-Control-Request-Method": method}
		for i := 0; i+1 < len(extra); i += 2 {
			h[extra[i]] = extra[i+1]
		}
		return h
	}
	scenarios := []struct {
		name    string
		origins []string
		path    string
		headers map[string]string
		status  int
		allow   string // Access-Control-Allow-Origin; "" for no CORS header at all
	}{
		{name: "PUT with the API's headers", origins: []string{appOrigin}, path: "/api/v1/app-integrations/analytics/x",
			headers: preflight(appOrigin, "PUT", "Access-Control-Request-Headers", "brand-url,auth-key,content-type,if-match"),
			status:  204, allow: appOrigin},
		{name: "login with the device headers", origins: []string{appOrigin}, path: "/api/v1/users/auth",
			headers: preflight(appOrigin, "POST", "Access-Control-Request-Headers", "x-device-code,x-os-device"), status: 204, allow: appOrigin},
		{name: "origin in another case, listed with a slash", origins: []string{"HTTPS://App.Example.com/"}, path: "/api/v1/currencies",
			headers: preflight(appOrigin, "GET"), status: 204, allow: appOrigin},
		{name: "any origin", origins: []string{"*"}, path: "/api/v1/cities",
			headers: preflight(otherOrigin, "GET"), status: 204, allow: "*"},
		{name: "an unknown route still", origins: []string{appOrigin}, path: "/api/v1/nothing",
			headers: preflight(appOrigin, "GET"), status: 204, allow: appOrigin},
		{name: "origin not allowed", origins: []string{appOrigin}, path: "/api/v1/currencies",
			headers: preflight(otherOrigin, "GET"), status: 405},
		{name: "CORS off", path: "/api/v1/currencies", headers: preflight(appOrigin, "GET"), status: 405},
		{name: "OPTIONS without Access-Control-Request-Method is no preflight", origins: []string{appOrigin},
			path: "/api/v1/currencies", headers: map[string]string{"Origin": appOrigin}, status: 405, allow: appOrigin},
	}
	for storeName := range stores {
		for _, sc := range scenarios {
			t.Run(storeName+"/"+sc.name, func(t *testing.T) {
				t.Parallel()
				f := corsFixture(t, storeName, sc.origins...)
				rec := serveRaw(f.handler, "OPTIONS", sc.path, sc.headers)
				require.Equal(t, sc.status, rec.Code, rec.Body.String())
				hd := rec.Header()
				if sc.allow == "" {
					assert.Empty(t, accessControl(hd), "no CORS header for an origin not allowed")
					return
				}
				assert.Equal(t, sc.allow, hd.Get("Access-Control-Allow-Origin"))
				assert.Contains(t, hd.Values("Vary"), "Origin")
				if sc.status != 204 {
					return
				}
				assert.Empty(t, rec.Body.Bytes())
				for _, m := range []string{"GET", "HEAD", "POST", "PUT", "DELETE"} {
					assert.Contains(t, hd.Get("Access-Control-Allow-Methods"), m)
				}
				allowed := strings.Split(hd.Get("Access-Control-Allow-Headers"), ", ")
				for _, name := range []string{"Brand-URL", "Auth-Key", "Content-Type", "If-Match", "If-None-Match", "Device-Code",
					"X-Device-Code", "X-Device-Token", "X-Device-Name", "X-App-Version-Number", "X-Os-Device", "X-Tenant-Id"} {
					assert.Contains(t, allowed, name)
				}
				assert.NotEmpty(t, hd.Get("Access-Control-Max-Age"))
			})
		}
	}
}

// A preflight needs no Brand-URL and takes nothing from a rate limit: after
// many, the two list requests of the hour still get through.
func TestCORSPreflightNotRateLimited(t *testing.T) {
	t.Parallel()
	for storeName := range stores {
		t.Run(storeName, func(t *testing.T) {
			t.Parallel()
			f := corsFixture(t, storeName, appOrigin)
			for range 5 {
				rec := serveRaw(f.handler, "OPTIONS", "/api/v1/currencies",
					map[string]string{"Origin": appOrigin, "Access-Control-Request-Method": "GET"})
				require.Equal(t, http.StatusNoContent, rec.Code)
				assert.Empty(t, rec.Header().Get("RateLimit-Remaining"))
			}
			for range 2 {
				rec, _ := f.do(t, "GET", "/api/v1/currencies", map[string]string{"Brand-URL": "shop.example.com", "Origin": appOrigin}, "")
				assert.Equal(t, http.StatusOK, rec.Code)
			}
		})
	}
}

// Every answer to an allowed origin carries the CORS headers: successes,
// 304, errors, 404, 405, 429 and panics.
func TestCORSHeadersOnEveryAnswer(t *testing.T) {
	t.Parallel()
	brand := func(extra ...string) map[string]string {
		h := map[string]string{"Brand-URL": "shop.example.com", "Origin": appOrigin}
		for i := 0; i+1 < len(extra); i += 2 {
			h[extra[i]] = extra[i+1]
		}
		return h
	}
	for storeName := range stores {
		t.Run(storeName, func(t *testing.T) {
			t.Parallel()
			f := corsFixture(t, storeName, appOrigin)
			check := func(what string, rec *httptest.ResponseRecorder, status int) {
				t.Helper()
				require.Equal(t, status, rec.Code, "%s: %s", what, rec.Body.String())
				hd := rec.Header()
				assert.Equal(t, appOrigin, hd.Get("Access-Control-Allow-Origin"), what)
				assert.Contains(t, hd.Values("Vary"), "Origin", what)
				exposed := strings.Split(hd.Get("Access-Control-Expose-Headers"), ", ")
				assert.Subset(t, exposed, []string{"ETag", "Retry-After", "RateLimit-Limit", "RateLimit-Remaining",
					"RateLimit-Reset", "RateLimit-Policy"}, what)
			}
			rec, _ := f.do(t, "GET", "/api/v1/currencies", brand(), "")
			check("list", rec, 200)
			assert.Contains(t, rec.Header().Values("Vary"), "Brand-URL", "the list still varies by brand")
			etag := rec.Header().Get("ETag")
			rec, _ = f.do(t, "GET", "/api/v1/currencies", brand("If-None-Match", etag), "")
			check("304", rec, 304)
			rec, _ = f.do(t, "GET", "/api/v1/currencies", brand(), "")
			check("429", rec, 429)
			rec, _ = f.do(t, "GET", "/api/v1/countries", map[string]string{"Origin": appOrigin}, "")
			check("no Brand-URL", rec, 400)
			rec, _ = f.do(t, "GET", "/api/v1/nothing", brand(), "")
			check("unknown route", rec, 404)
			rec, _ = f.do(t, "DELETE", "/api/v1/countries", brand(), "")
			check("wrong method", rec, 405)
			rec, _ = f.do(t, "POST", "/api/v1/users/auth", brand("Content-Type", "application/json"), `{"username":"x","password":"y"}`)
			check("login refused", rec, 401)
			rec = serveRaw(f.handler, "GET", httpadapter.OpenAPIPath, map[string]string{"Origin": appOrigin})
			check("OpenAPI document", rec, 200)

			rec, _ = f.do(t, "GET", "/api/v1/cities", map[string]string{"Brand-URL": "closed.example.com", "Origin": appOrigin}, "")
			check("brand inactive", rec, 403)

			// The writer panics on the 200; the recovered 500 keeps the headers.
			panicking := newFixture(t, stores[storeName], httpadapter.WithCORS(appOrigin))
			req := httptest.NewRequest("GET", "/api/v1/currencies", nil)
			req.Header.Set("Brand-URL", "shop.example.com")
			req.Header.Set("Origin", appOrigin)
			rec = httptest.NewRecorder()
			panicking.handler.ServeHTTP(panicWriter{rec}, req)
			check("panic", rec, 500)
		})
	}
}

func TestCORSOriginNotAllowed(t *testing.T) {
	t.Parallel()
	for storeName := range stores {
		t.Run(storeName, func(t *testing.T) {
			t.Parallel()
			f := corsFixture(t, storeName, appOrigin)
			for _, h := range []map[string]string{
				{"Brand-URL": "shop.example.com", "Origin": otherOrigin},
				{"Brand-URL": "shop.example.com", "Origin": appOrigin + ".evil.net"},
				{"Brand-URL": "shop.example.com"},
				{"Origin": otherOrigin},
			} {
				rec, _ := f.do(t, "GET", "/api/v1/countries", h, "")
				assert.Empty(t, accessControl(rec.Header()), "%v", h)
				assert.Contains(t, rec.Header().Values("Vary"), "Origin", "the answer depends on the origin")
			}
		})
	}
}

// CORS is off by default: no answer carries a CORS header.
func TestCORSOffByDefault(t *testing.T) {
	t.Parallel()
	for storeName, newStore := range stores {
		t.Run(storeName, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, newStore)
			rec, _ := f.do(t, "GET", "/api/v1/countries", map[string]string{"Brand-URL": "shop.example.com", "Origin": appOrigin}, "")
			require.Equal(t, 200, rec.Code)
			assert.Empty(t, accessControl(rec.Header()))
			assert.NotContains(t, rec.Header().Values("Vary"), "Origin")
		})
	}
}

// jfwJSRequestHeaders are the Access-Control-Request-Headers a browser sends
// in the preflights of the origin's client, jfw-js (version 6.9.3, commit
// a50a5e5), with its default options (allowTracking true): lower-cased and
// sorted, as Chromium sends them. Brand-URL and X-Current-URL go on every
// request, Content-Type on those with a body, Auth-Key once logged in.
var jfwJSRequestHeaders = map[string]struct{ method, path, headers string }{
	"login":                  {"POST", "/api/v1/users/auth", "brand-url,content-type,x-current-url"},
	"list":                   {"GET", "/api/v1/currencies", "brand-url,x-current-url"},
	"list, logged in":        {"GET", "/api/v1/cities", "auth-key,brand-url,x-current-url"},
	"update analytics":       {"PUT", "/api/v1/app-integrations/analytics/x", "auth-key,brand-url,content-type,x-current-url"},
	"update payment gateway": {"PUT", "/api/v1/app-integrations/payment-gateway/x", "auth-key,brand-url,content-type,x-current-url"},
	"login with the device headers": {"POST", "/api/v1/users/auth",
		"brand-url,content-type,x-app-version-number,x-current-url,x-device-code,x-device-name,x-device-token,x-os-device"},
}

// A browser lets a call through only when every header of its
// Access-Control-Request-Headers is in Access-Control-Allow-Headers
// (compared case-insensitively): with CORS on and no header added, every
// preflight of the origin's client is allowed.
func TestCORSPreflightAllowsTheOriginsClient(t *testing.T) {
	t.Parallel()
	h := newFixture(t, stores["memory"], httpadapter.WithCORS(appOrigin)).handler
	for name, call := range jfwJSRequestHeaders {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rec := serveRaw(h, "OPTIONS", call.path, map[string]string{
				"Origin": appOrigin, "Access-Control-Request-Method": call.method,
				"Access-Control-Request-Headers": call.headers,
			})
			require.Equal(t, http.StatusNoContent, rec.Code)
			assert.Equal(t, appOrigin, rec.Header().Get("Access-Control-Allow-Origin"))
			assert.Contains(t, rec.Header().Get("Access-Control-Allow-Methods"), call.method)
			allowed := map[string]bool{}
			for name := range strings.SplitSeq(rec.Header().Get("Access-Control-Allow-Headers"), ",") {
				allowed[strings.ToLower(strings.TrimSpace(name))] = true
			}
			for name := range strings.SplitSeq(call.headers, ",") {
				assert.True(t, allowed[name], "the preflight does not allow %s (allowed: %s)", name, rec.Header().Get("Access-Control-Allow-Headers"))
			}
		})
	}
}
