package brandbase_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/storage"
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

// countingStore counts the city lists that reach the store; embedding the
// interface hides the memory store's refindex.InMemory, as a persistent
// store has none.
type countingStore struct {
	storage.Storage
	cityLists atomic.Int64
}

func (s *countingStore) ListCities(ctx context.Context, f refdata.CityFilter) ([]refdata.City, int, error) {
	s.cityLists.Add(1)
	return s.Storage.ListCities(ctx, f)
}

// TestRefDataIndex checks that New answers the lists of a store not in
// memory from the index once warm, and leaves them to the store with
// Config.NoRefDataIndex.
func TestRefDataIndex(t *testing.T) {
	t.Parallel()
	for _, off := range []bool{false, true} {
		m, err := memory.New(t.Context())
		require.NoError(t, err)
		store := &countingStore{Storage: m}
		app, err := brandbase.New(store, brandbase.Config{NoRefDataIndex: off})
		require.NoError(t, err)
		require.NoError(t, app.WarmUp(t.Context()))
		before := store.cityLists.Load()
		page, err := app.RefData.ListCities(t.Context(), refdata.CityQuery{Name: new("paris")})
		require.NoError(t, err)
		assert.NotEmpty(t, page.Items)
		want := int64(0)
		if off {
			want = 1
		}
		assert.Equal(t, want, store.cityLists.Load()-before, "NoRefDataIndex=%v: lists reaching the store", off)
	}
}
