package serve_test

import (
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/brandbase/brandbase/internal/serve"
)

// TestServerTimeouts checks the timeouts of the http.Server of the demo server and the brandbase command:
// all four set, the header deadline shortest, and bounded headers.
func TestServerTimeouts(t *testing.T) {
	t.Parallel()
	srv := serve.NewHTTPServer(http.NotFoundHandler(), slog.New(slog.DiscardHandler))
	assert.Equal(t, 5*time.Second, srv.ReadHeaderTimeout)
	assert.Equal(t, 15*time.Second, srv.ReadTimeout)
	assert.Equal(t, 30*time.Second, srv.WriteTimeout)
	assert.Equal(t, 120*time.Second, srv.IdleTimeout)
	assert.Equal(t, 64<<10, srv.MaxHeaderBytes)
	assert.NotNil(t, srv.ErrorLog, "the server's own errors are logged")
}
