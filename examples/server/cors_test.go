package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// -cors-origins turns CORS on for the origins it lists; without it a
// preflight is refused and no answer carries a CORS header.
func TestCORSOriginsFlag(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		args   []string
		origin string
		allow  string // Access-Control-Allow-Origin of the preflight; "" when refused
	}{
		{"listed origin", []string{"-cors-origins", "https://a.example.com, https://app.example.com"}, "https://app.example.com", "https://app.example.com"},
		{"origin not listed", []string{"-cors-origins", "https://a.example.com"}, "https://app.example.com", ""},
		{"any origin", []string{"-cors-origins", "*"}, "https://app.example.com", "*"},
		{"off by default", nil, "https://app.example.com", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			base, _, stop := startServer(t, append([]string{"-db", ":memory:"}, tt.args...)...)
			defer stop()
			req, err := http.NewRequestWithContext(t.Context(), "OPTIONS", base+"/api/v1/currencies", nil)
			require.NoError(t, err)
			req.Header.Set("Origin", tt.origin)
			req.Header.Set("Access-Control-Request-Method", "GET")
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			resp.Body.Close()
			assert.Equal(t, tt.allow, resp.Header.Get("Access-Control-Allow-Origin"))
			if tt.allow != "" {
				assert.Equal(t, http.StatusNoContent, resp.StatusCode)
			} else {
				assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
			}
		})
	}
}

// The demo server with -cors-origins lets the origin's browser client,
// jfw-js with its default options, through: its preflights ask for exactly
// these headers (Chromium lower-cases and sorts them), and every one must
// be in Access-Control-Allow-Headers, else the browser blocks the call.
func TestCORSAllowsTheOriginsClient(t *testing.T) {
	t.Parallel()
	base, _, stop := startServer(t, "-db", ":memory:", "-cors-origins", "http://localhost:5173")
	defer stop()
	for _, pf := range []struct{ method, path, headers string }{
		{"POST", "/api/v1/users/auth", "brand-url,content-type,x-current-url"},
		{"GET", "/api/v1/countries", "auth-key,brand-url,x-current-url"},
		{"PUT", "/api/v1/app-integrations/analytics/x", "auth-key,brand-url,content-type,x-current-url"},
		{"PUT", "/api/v1/app-integrations/payment-gateway/x", "auth-key,brand-url,content-type,x-current-url"},
	} {
		req, err := http.NewRequestWithContext(t.Context(), "OPTIONS", base+pf.path, nil)
		require.NoError(t, err)
		req.Header.Set("Origin", "http://localhost:5173")
		req.Header.Set("Access-Control-Request-Method", pf.method)
		req.Header.Set("Access-Control-Request-Headers", pf.headers)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, http.StatusNoContent, resp.StatusCode, pf.path)
		assert.Equal(t, "http://localhost:5173", resp.Header.Get("Access-Control-Allow-Origin"))
		allowed := strings.Split(strings.ToLower(resp.Header.Get("Access-Control-Allow-Headers")), ", ")
		assert.Subset(t, allowed, strings.Split(pf.headers, ","), "%s %s", pf.method, pf.path)
	}
}
