package brandbase_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/storage/memory"
)

func TestNewNeedsAStore(t *testing.T) {
	t.Parallel()
	_, err := brandbase.New(nil, brandbase.Config{})
	assert.Error(t, err)
}

// TestConfigClockReachesTheAdapter: the rate limiter reads Config.Clock, so
// a host (or a test) that moves its clock moves the buckets' refill too.
func TestConfigClockReachesTheAdapter(t *testing.T) {
	t.Parallel()
	store, err := memory.New(t.Context())
	require.NoError(t, err)
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	app, err := brandbase.New(store, brandbase.Config{Clock: func() time.Time { return now }})
	require.NoError(t, err)
	_, err = app.Auth.CreateBrand(t.Context(), auth.NewBrand{URL: "clock.example.com", Name: "Clock"})
	require.NoError(t, err)
	h, err := app.Handler()
	require.NoError(t, err)

	get := func() int {
		req := httptest.NewRequest("GET", "/api/v1/currencies?PageSize=1", nil)
		req.Header.Set("Brand-URL", "clock.example.com")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code
	}
	status := http.StatusOK
	for range 1000 {
		if status = get(); status != http.StatusOK {
			break
		}
	}
	require.Equal(t, http.StatusTooManyRequests, status, "the list limit is reached while the clock stands still")
	now = now.Add(time.Minute)
	assert.Equal(t, http.StatusOK, get(), "the bucket refills when Config.Clock moves on")
}

func TestOpenStore(t *testing.T) {
	t.Parallel()
	for _, path := range []string{brandbase.MemoryPath, t.TempDir() + "/open.db"} {
		s, err := brandbase.OpenStore(t.Context(), path)
		require.NoError(t, err, path)
		n, err := s.DatasetVersion(t.Context())
		require.NoError(t, err)
		assert.NotEmpty(t, n, "%s: the default dataset is loaded", path)
		require.NoError(t, s.Close())
	}
	_, err := brandbase.OpenStore(t.Context(), "bad?path")
	assert.Error(t, err)
}
