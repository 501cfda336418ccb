package brandbase_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/storage"
	"github.com/brandbase/brandbase/storage/memory"
)

// changesFailOnce is a store whose next read of the reference-data changes
// fails as an unreachable database does, once.
type changesFailOnce struct {
	storage.Storage
	failNext atomic.Bool
	failed   atomic.Int64
}

func (s *changesFailOnce) RefDataChangesSince(ctx context.Context, rev uint64, limit int) (refdata.RefData, error) {
	if s.failNext.CompareAndSwap(true, false) {
		s.failed.Add(1)
		return refdata.RefData{}, envelope.Unavailable(errors.New("test: the changes cannot be read"), 1)
	}
	return s.Storage.RefDataChangesSince(ctx, rev, limit)
}

// testClock is a clock that moves only when told.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *testClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// TestHeldListIsNotCachedAsCurrent: a list answered from the held
// snapshot, because reading the changes since it failed once, is not
// filed as the answer of the store's new revision: once the store answers
// again, HTTP lists what the in-process list does, with a new ETag, and
// the old ETag no longer gets 304.
func TestHeldListIsNotCachedAsCurrent(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	m, err := memory.New(ctx)
	require.NoError(t, err)
	t.Cleanup(func() { m.Close() })
	store := &changesFailOnce{Storage: m}
	clock := &testClock{now: time.Now()}
	app, err := brandbase.New(store, brandbase.Config{SecretKeys: integrations.EphemeralKeyRing(), Clock: clock.Now})
	require.NoError(t, err)
	t.Cleanup(func() { app.Close() })
	_, err = app.Auth.CreateBrand(ctx, auth.NewBrand{URL: "shop.example.com", Name: "Shop"})
	require.NoError(t, err)
	h, err := app.Handler(quiet())
	require.NoError(t, err)

	const path = "/api/v1/cities?CountryCode=XA"
	get := func(etag string) (int, string, json.RawMessage) {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.Header.Set("Brand-URL", "shop.example.com")
		if etag != "" {
			req.Header.Set("If-None-Match", etag)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		var env struct {
			Data json.RawMessage `json:"data"`
		}
		if rec.Code == http.StatusOK {
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &env), rec.Body.String())
		}
		return rec.Code, rec.Header().Get("ETag"), env.Data
	}
	status, before, _ := get("")
	require.Equal(t, http.StatusOK, status)

	_, err = m.UpsertCities(ctx, []refdata.City{{CountryCode: "XA", StateCode: "AA", Name: "Heldville"}}) // a write elsewhere
	require.NoError(t, err)
	store.failNext.Store(true)
	status, heldETag, _ := get("")
	require.Equal(t, http.StatusOK, status, "the held snapshot answers")
	require.Equal(t, int64(1), store.failed.Load(), "the read of the changes failed once")
	assert.Equal(t, before, heldETag, "the held answer is the snapshot's")

	clock.Add(time.Minute) // past any backoff of the failed read
	want, err := app.RefData.ListCities(ctx, refdata.CityQuery{CountryCode: new("XA")})
	require.NoError(t, err)
	require.Len(t, want.Items, 1, "in-process, the store's data")
	wantJSON, err := json.Marshal(want)
	require.NoError(t, err)

	status, after, data := get("")
	require.Equal(t, http.StatusOK, status)
	assert.JSONEq(t, string(wantJSON), string(data), "HTTP answers what the in-process list does")
	assert.NotEqual(t, before, after, "a new ETag")
	status, _, _ = get(before)
	assert.Equal(t, http.StatusOK, status, "the held answer's ETag no longer matches")
}
