package main

import (
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestServerClosesSlowHeaders is a slowloris attack on the demo server: a
// client that sends its request headers one line every 250 ms is cut off
// once the read-header timeout (5 s) has passed since its first byte, and
// other clients are served meanwhile.
func TestServerClosesSlowHeaders(t *testing.T) {
	t.Parallel()
	base, stdout, stop := startServer(t, "-db", ":memory:")
	defer stop()
	brandURL := demoLine(t, stdout.String()).BrandURL

	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	require.NoError(t, err)
	defer conn.Close()
	start := time.Now()
	_, err = io.WriteString(conn, "GET /api/v1/currencies HTTP/1.1\r\nHost: demo\r\n")
	require.NoError(t, err)

	closed := make(chan time.Duration, 1)
	go func() {
		_, _ = io.Copy(io.Discard, conn) // returns when the server closes
		closed <- time.Since(start)
	}()
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	served := false
	for i := 0; ; i++ {
		select {
		case took := <-closed:
			t.Logf("slow client cut off after %v", took.Round(time.Millisecond))
			assert.GreaterOrEqual(t, took, 4500*time.Millisecond, "not before the read-header timeout")
			assert.Less(t, took, 8*time.Second, "soon after the read-header timeout")
			assert.True(t, served, "another client was served during the attack")
			return
		case <-tick.C:
			if time.Since(start) > 15*time.Second {
				t.Fatal("the slow client was never cut off")
			}
			_, _ = io.WriteString(conn, "X-Slow: "+strings.Repeat("s", i%10)+"\r\n")
			if !served && i == 4 {
				req, err := http.NewRequest("GET", base+"/api/v1/currencies?PageSize=1", nil)
				require.NoError(t, err)
				req.Header.Set("Brand-URL", brandURL)
				resp, err := http.DefaultClient.Do(req)
				require.NoError(t, err)
				resp.Body.Close()
				served = resp.StatusCode == http.StatusOK
			}
		}
	}
}
