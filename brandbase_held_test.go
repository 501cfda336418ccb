package brandbase_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/httpadapter"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/internal/testkit/pgtest"
	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/storage"
	"github.com/brandbase/brandbase/storage/memory"
	"github.com/brandbase/brandbase/storage/postgres"
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

// TestHeldListsAnswerAtOnceOnAFrozenDatabase: while the App's PostgreSQL
// server is frozen (SIGSTOP: connections stay open, nothing answers),
// lists the App holds answer at once with the data held, in process and
// over HTTP (cached by the adapter or new), at every moment of the
// freeze: just after it, once the listener has noticed it (under a
// second) and the caches are dropped, past the store's bound (when a
// read of the revision, generation or brand ends), and later. Neither a
// freshness check of the store nor the brand's look-up waits in a list's
// path. Once thawed, another instance's write is listed again.
func TestHeldListsAnswerAtOnceOnAFrozenDatabase(t *testing.T) {
	t.Parallel()
	cluster := pgtest.NewCluster(t)
	ctx := t.Context()
	// bound is the store's query bound; listBound is what a held list may
	// take on a loaded machine: well under bound, which a list that
	// waited on the database would wait out.
	const bound, listBound = 2 * time.Second, 500 * time.Millisecond
	discard := slog.New(slog.DiscardHandler)
	store, err := postgres.Open(ctx, cluster.URL(), postgres.WithQueryTimeout(bound), postgres.WithLogger(discard))
	require.NoError(t, err)
	t.Cleanup(func() { store.Close() })
	app, err := brandbase.New(store, brandbase.Config{SecretKeys: integrations.EphemeralKeyRing(), Logger: discard})
	require.NoError(t, err)
	t.Cleanup(func() { app.Close() })
	_, err = app.Auth.CreateBrand(ctx, auth.NewBrand{URL: "frozen.example.com", Name: "Frozen"})
	require.NoError(t, err)
	_, err = store.UpsertCities(ctx, []refdata.City{{CountryCode: "XA", StateCode: "AA", Name: "Frostville"}})
	require.NoError(t, err)
	require.NoError(t, app.WarmUp(ctx))
	limits := httpadapter.DefaultRateLimits()
	limits.Lists.Limit, limits.Lists.Burst = 1_000_000, 1_000_000 // a list every moment of the freeze
	h, err := app.Handler(quiet(), httpadapter.WithRateLimits(limits))
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	client := &http.Client{Timeout: time.Minute}
	// get answers path over HTTP: its status and data.
	get := func(path string) (int, string) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+path, nil)
		if !assert.NoError(t, err) {
			return 0, ""
		}
		req.Header.Set("Brand-URL", "frozen.example.com")
		resp, err := client.Do(req)
		if !assert.NoError(t, err) {
			return 0, ""
		}
		defer resp.Body.Close()
		var env struct {
			Data json.RawMessage `json:"data"`
		}
		assert.NoError(t, json.NewDecoder(resp.Body).Decode(&env))
		return resp.StatusCode, string(env.Data)
	}
	page := func(size int) string { return fmt.Sprintf("/api/v1/cities?CountryCode=XA&PageSize=%d", size) }
	cached := []string{page(10), "/api/v1/currencies?Code=EUR", "/api/v1/countries?CodeAlpha2=FR"}
	heldHTTP := map[string]string{}
	for _, path := range cached {
		status, data := get(path)
		require.Equal(t, http.StatusOK, status, path)
		heldHTTP[path] = data
	}

	cities := func(size int) refdata.CityQuery {
		return refdata.CityQuery{CountryCode: new("XA"), Page: refdata.Paging{Size: size}}
	}
	held, err := app.RefData.ListCities(ctx, cities(10))
	require.NoError(t, err)
	require.Len(t, held.Items, 1)
	heldVersion, err := app.RefData.ListVersion(ctx)
	require.NoError(t, err)

	cluster.Freeze(t)
	frozenAt := time.Now()
	var slowest time.Duration
	var slowestAt string
	// timed runs a list at, failing t when it took listBound or more.
	timed := func(what, at string, list func()) {
		t.Helper()
		start := time.Now()
		list()
		took := time.Since(start)
		assert.Less(t, took, listBound, "%s %s into the freeze waited on the database", what, at)
		if took > slowest {
			slowest, slowestAt = took, what+" "+at
		}
	}
	for size := 11; time.Since(frozenAt) < 3*bound; size++ {
		at := time.Since(frozenAt).Round(10 * time.Millisecond).String()
		timed("a list", at, func() {
			got, err := app.RefData.ListCities(ctx, cities(size))
			if assert.NoError(t, err, "a list %s into the freeze", at) {
				assert.Equal(t, held.Items, got.Items, "a list %s into the freeze: the data held", at)
			}
		})
		timed("the list version", at, func() {
			v, err := app.RefData.ListVersion(ctx)
			assert.NoError(t, err)
			assert.Equal(t, heldVersion, v, "the version of the snapshot held")
		})
		// Over HTTP (the brand resolved too): a new query, not in the
		// adapter's cache, and those it holds.
		timed("a new list over HTTP", at, func() {
			status, data := get(page(size))
			assert.Equal(t, http.StatusOK, status, "a new list over HTTP %s into the freeze", at)
			assert.JSONEq(t, strings.Replace(heldHTTP[page(10)], `"pageSize":10`, fmt.Sprintf(`"pageSize":%d`, size), 1), data,
				"a new list over HTTP %s into the freeze: the data held", at)
		})
		for _, path := range cached {
			timed(path, at, func() {
				status, data := get(path)
				assert.Equal(t, http.StatusOK, status, "%s %s into the freeze", path, at)
				assert.Equal(t, heldHTTP[path], data, "%s %s into the freeze: the data held", path, at)
			})
		}
		time.Sleep(50 * time.Millisecond) // a list every moment of the freeze, not a busy loop
	}
	t.Logf("the slowest list of the freeze: %v, %s", slowest, slowestAt)
	cluster.Thaw(t)

	// Thawed: the checks find the store again, and another instance's
	// write is listed.
	other, err := postgres.Open(ctx, cluster.URL(), postgres.WithLogger(discard))
	require.NoError(t, err)
	t.Cleanup(func() { other.Close() })
	_, err = other.UpsertCities(ctx, []refdata.City{{CountryCode: "XA", StateCode: "AA", Name: "Thawville"}})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		got, err := app.RefData.ListCities(ctx, cities(10))
		return err == nil && len(got.Items) == 2
	}, 30*time.Second, 50*time.Millisecond, "another instance's write is listed once thawed")
}
