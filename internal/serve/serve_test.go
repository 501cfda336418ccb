package serve_test

import (
	"context"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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

// TestRunDrains: on shutdown a request in flight finishes within the
// bound and Run returns nil; one that outlasts it is cut off and Run
// fails saying so.
func TestRunDrains(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		release bool // the handler finishes once shutdown starts
		wantErr string
	}{
		{"within the bound", true, ""},
		{"past the bound", false, "requests still in flight after 200ms"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			entered, release := make(chan struct{}), make(chan struct{})
			handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				close(entered)
				<-release
				w.WriteHeader(http.StatusNoContent)
			})
			ctx, cancel := context.WithCancel(t.Context())
			ready := make(chan string, 1)
			done := make(chan error, 1)
			go func() {
				done <- serve.Run(ctx, serve.Options{Addr: "127.0.0.1:0", Handler: handler, Logger: slog.New(slog.DiscardHandler),
					ShutdownTimeout: 200 * time.Millisecond, Ready: ready})
			}()
			addr := <-ready
			got := make(chan int, 1)
			go func() {
				resp, err := http.Get("http://" + addr + "/")
				if err != nil {
					got <- 0
					return
				}
				resp.Body.Close()
				got <- resp.StatusCode
			}()
			<-entered
			cancel()
			if tc.release {
				close(release)
			}
			err := <-done
			if tc.wantErr == "" {
				require.NoError(t, err)
				assert.Equal(t, http.StatusNoContent, <-got, "the request in flight was answered")
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.wantErr)
			close(release)
			assert.Equal(t, 0, <-got, "the connection was closed")
		})
	}
}
