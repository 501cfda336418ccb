package main

import (
	"net/http"
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
