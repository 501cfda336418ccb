package main

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestServerRateLimitFlag checks that the server limits lists by default
// (a burst of 100 per brand and client) and that -rate-limit=false turns
// limiting off.
func TestServerRateLimitFlag(t *testing.T) {
	t.Parallel()
	for _, on := range []bool{true, false} {
		t.Run("rate-limit="+strconv.FormatBool(on), func(t *testing.T) {
			t.Parallel()
			base, stdout, stop := startServer(t, "-db", ":memory:", "-rate-limit="+strconv.FormatBool(on))
			defer stop()
			brandURL := demoLine(t, stdout.String()).BrandURL
			limited := 0
			for range 250 {
				req, err := http.NewRequest("GET", base+"/api/v1/currencies?PageSize=1", nil)
				require.NoError(t, err)
				req.Header.Set("Brand-URL", brandURL)
				resp, err := http.DefaultClient.Do(req)
				require.NoError(t, err)
				resp.Body.Close()
				if resp.StatusCode == http.StatusTooManyRequests {
					limited++
				}
			}
			if on {
				assert.Positive(t, limited, "250 requests faster than 50 a second go over the burst of 100")
			} else {
				assert.Zero(t, limited)
			}
		})
	}
}
