package httpadapter_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/httpadapter"
	"github.com/brandbase/brandbase/integrations"
)

// lockedBuffer is a log sink that server goroutines and the test may use at
// once.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestCancelledRequest sends every kind of route a request whose context is
// already cancelled (a client that went away): the first store call stops
// with the context's error, the answer is a 503 request_cancelled
// envelope, and the log says "request cancelled" at INFO, not an error.
func TestCancelledRequest(t *testing.T) {
	t.Parallel()
	for storeName, newStore := range stores {
		t.Run(storeName, func(t *testing.T) {
			t.Parallel()
			f := newIntegFixture(t, newStore)
			requests := []struct {
				method, path, body string
				key                bool
			}{
				{"GET", "/api/v1/currencies", "", false},
				{"POST", "/api/v1/users/auth", adminLogin(), false},
				{"POST", "/api/v1/users/auth/refresh-auth-key", `{"refreshAuthKey":"unknown"}`, false},
				{"GET", analyticsPath(f.analytics.ID), "", true},
				{"PUT", analyticsPath(f.analytics.ID), analyticsBody(f.analytics.AppIntegration.ID, nil), true},
				{"GET", gatewayPath(f.gateway.ID), "", true},
				{"PUT", gatewayPath(f.gateway.ID), gatewayBody(f.gateway.AppIntegration.ID, nil), true},
			}
			// Brands and keys may come from the services' caches; each
			// route still reaches a store call, which stops.
			for _, rq := range requests {
				t.Run(rq.method+" "+rq.path, func(t *testing.T) {
					f.logs.Reset()
					ctx, cancel := context.WithCancel(t.Context())
					cancel()
					req := httptest.NewRequestWithContext(ctx, rq.method, rq.path, strings.NewReader(rq.body))
					req.Header.Set("Brand-URL", "shop.example.com")
					req.Header.Set("Content-Type", "application/json")
					if rq.key {
						req.Header.Set("Auth-Key", f.keys["admin"])
					}
					rec, e := f.send(t, req)
					require.Equal(t, http.StatusServiceUnavailable, rec.Code, rec.Body.String())
					assert.Equal(t, "request_cancelled", e.Errors[0].Code)
					logs := f.logs.String()
					assert.Contains(t, logs, "request cancelled")
					assert.NotContains(t, logs, "level=ERROR", "a client that went away is not a fault")
				})
			}
			revs, err := f.app.Integrations.Revisions(t.Context(), f.brand.ID, integrations.KindAnalytics, f.analytics.ID)
			require.NoError(t, err)
			a, err := f.app.Integrations.Analytics(t.Context(), f.brand.ID, f.analytics.ID)
			require.NoError(t, err)
			assert.Equal(t, f.analytics.Version, a.Version, "a cancelled update wrote nothing")
			assert.Empty(t, revs, "no revision written")
		})
	}
}

// TestClientGoneWhileWaiting holds SQLite's one writer connection in a
// transaction, sends a PUT over real HTTP and lets the client give up: the
// server notices, the update's wait for the writer stops with the
// context, and the handler answers (logged 503, "request cancelled") long
// before the writer is free, with no error in the log and nothing written.
func TestClientGoneWhileWaiting(t *testing.T) {
	t.Parallel()
	f := newIntegFixture(t, stores["sqlite"])
	logs := &lockedBuffer{}
	h, err := f.app.Handler(withTestLogger(logs), httpadapter.WithoutRateLimits(), httpadapter.WithRequestLogLevel(slog.LevelInfo))
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	defer srv.Close()

	held, release := make(chan struct{}), make(chan struct{})
	txDone := make(chan error, 1)
	go func() {
		txDone <- f.app.Store.IntegrationsTx(context.Background(), func(integrations.Tx) error {
			close(held)
			<-release
			return nil
		})
	}()
	<-held
	defer func() {
		close(release)
		require.NoError(t, <-txDone)
	}()

	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "PUT", srv.URL+analyticsPath(f.analytics.ID),
		strings.NewReader(analyticsBody(f.analytics.AppIntegration.ID, nil)))
	require.NoError(t, err)
	req.Header.Set("Brand-URL", "shop.example.com")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Auth-Key", f.keys["admin"])
	start := time.Now()
	resp, err := srv.Client().Do(req)
	if err == nil {
		resp.Body.Close()
	}
	require.ErrorIs(t, err, context.DeadlineExceeded, "the client gave up: the writer is held")

	require.Eventually(t, func() bool { return strings.Contains(logs.String(), "status=503") },
		5*time.Second, 10*time.Millisecond, "the handler answered while the writer was still held: %s", logs.String())
	t.Logf("handler done %v after the request was sent (client gave up at 300ms)", time.Since(start).Round(time.Millisecond))
	assert.Contains(t, logs.String(), "request cancelled")
	assert.NotContains(t, logs.String(), "level=ERROR")
	a, err := f.app.Integrations.Analytics(t.Context(), f.brand.ID, f.analytics.ID)
	require.NoError(t, err)
	assert.Equal(t, f.analytics.Version, a.Version, "nothing written")
}
