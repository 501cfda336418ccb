package brandbase_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
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
	"github.com/brandbase/brandbase/ratelimit"
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
	clock := &testClock{now: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)} // read beside the requests too (the reference-data checks)
	app, err := brandbase.New(store, brandbase.Config{SecretKeys: integrations.EphemeralKeyRing(), Clock: clock.Now})
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
	clock.Add(time.Minute)
	assert.Equal(t, http.StatusOK, get(), "the bucket refills when Config.Clock moves on")
}

// sharedStore is a memory store that pretends to be shared by several
// instances: it reports the changes a test publishes (a ChangeFeed) and
// keeps rate-limit buckets for every App on it (a SharedLimiter), recording
// which policies it was asked about.
type sharedStore struct {
	storage.Storage
	limiter *ratelimit.Limiter

	mu       sync.Mutex
	subs     map[int]func(auth.Change)
	next     int
	policies map[string]int
}

func newSharedStore(t *testing.T) *sharedStore {
	t.Helper()
	m, err := memory.New(t.Context())
	require.NoError(t, err)
	t.Cleanup(func() { m.Close() })
	return &sharedStore{Storage: m, limiter: ratelimit.New(ratelimit.Config{}),
		subs: map[int]func(auth.Change){}, policies: map[string]int{}}
}

func (s *sharedStore) OnAuthChange(fn func(auth.Change)) func() {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := s.next
	s.next++
	s.subs[id] = fn
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		delete(s.subs, id)
	}
}

// publish delivers c to every subscriber, as the store's listener would.
func (s *sharedStore) publish(c auth.Change) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, fn := range s.subs {
		fn(c)
	}
}

func (s *sharedStore) subscribers() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.subs)
}

func (s *sharedStore) Allow(ctx context.Context, key string, p ratelimit.Policy, now time.Time) (ratelimit.Decision, error) {
	s.mu.Lock()
	s.policies[p.Name]++
	s.mu.Unlock()
	return s.limiter.Allow(ctx, key, p, now)
}

var (
	_ brandbase.ChangeFeed    = (*sharedStore)(nil)
	_ brandbase.SharedLimiter = (*sharedStore)(nil)
)

// quiet keeps a handler's request log out of the test output.
func quiet() httpadapter.Option { return httpadapter.WithLogger(slog.New(slog.DiscardHandler)) }

// fastArgon2 keeps password hashing cheap in these tests.
var fastArgon2 = auth.Argon2Params{Memory: 64, Iterations: 1, Parallelism: 1, SaltLen: 16, KeyLen: 32}

// TestNewForgetsWhatTheStoreReports: two Apps on one shared store, as two
// instances; a logout through one is seen by the other once the store
// reports it, and not before (the other answers from its cache).
func TestNewForgetsWhatTheStoreReports(t *testing.T) {
	t.Parallel()
	store := newSharedStore(t)
	cfg := brandbase.Config{SecretKeys: integrations.EphemeralKeyRing(), AuthOptions: []auth.Option{auth.WithArgon2Params(fastArgon2)}}
	a, err := brandbase.New(store, cfg)
	require.NoError(t, err)
	b, err := brandbase.New(store, cfg)
	require.NoError(t, err)
	assert.Equal(t, 2, store.subscribers(), "each App subscribes")
	ctx := t.Context()
	brand, err := a.Auth.CreateBrand(ctx, auth.NewBrand{URL: "feed.example.com", Name: "Feed"})
	require.NoError(t, err)
	user, err := a.Auth.CreateUser(ctx, brand.ID, auth.NewUser{Username: "u", Password: "a long password"})
	require.NoError(t, err)
	sess, err := a.Auth.Login(ctx, brand, auth.LoginRequest{Username: "u", Password: "a long password"})
	require.NoError(t, err)
	p, err := b.Auth.Authenticate(ctx, brand, sess.AuthKey)
	require.NoError(t, err, "b caches the key")

	require.NoError(t, a.Auth.Logout(ctx, p))
	_, err = b.Auth.Authenticate(ctx, brand, sess.AuthKey)
	require.NoError(t, err, "b still answers from its cache")
	store.publish(auth.Change{Kind: auth.ChangeUser, ID: user.ID})
	_, err = b.Auth.Authenticate(ctx, brand, sess.AuthKey)
	assert.Equal(t, envelope.KindUnauthenticated, envelope.KindOf(err), "b forgot the key when told")

	require.NoError(t, b.Close())
	require.NoError(t, b.Close())
	assert.Equal(t, 1, store.subscribers(), "Close unsubscribes")
	require.NoError(t, a.Close())

	plain, err := brandbase.New(store.Storage, cfg)
	require.NoError(t, err)
	require.NoError(t, plain.Close(), "an App on a store that reports nothing closes too")
}

// TestHandlerSharesLoginLimits: on a SharedLimiter store the login limits
// of every App's handler are counted in the store, and the list limit in
// each App.
func TestHandlerSharesLoginLimits(t *testing.T) {
	t.Parallel()
	store := newSharedStore(t)
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	cfg := brandbase.Config{SecretKeys: integrations.EphemeralKeyRing(), Clock: func() time.Time { return now }, AuthOptions: []auth.Option{auth.WithArgon2Params(fastArgon2)}}
	var handlers []http.Handler
	for range 3 {
		app, err := brandbase.New(store, cfg)
		require.NoError(t, err)
		h, err := app.Handler(quiet())
		require.NoError(t, err)
		handlers = append(handlers, h)
	}
	app, err := brandbase.New(store, cfg)
	require.NoError(t, err)
	_, err = app.Auth.CreateBrand(t.Context(), auth.NewBrand{URL: "limits.example.com", Name: "Limits"})
	require.NoError(t, err)

	serve := func(h http.Handler, method, path, body string) int {
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		req.Header.Set("Brand-URL", "limits.example.com")
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code
	}
	var codes []int
	for i := range 12 {
		codes = append(codes, serve(handlers[i%3], "POST", "/api/v1/users/auth", `{"username":"nobody","password":"wrong password"}`))
	}
	want := append(slices.Repeat([]int{http.StatusUnauthorized}, 10), http.StatusTooManyRequests, http.StatusTooManyRequests)
	assert.Equal(t, want, codes, "12 attempts spread over 3 handlers: 429 after the tenth")

	for range 100 { // the list burst of one instance
		require.Equal(t, http.StatusOK, serve(handlers[0], "GET", "/api/v1/currencies?PageSize=1", ""))
	}
	assert.Equal(t, http.StatusTooManyRequests, serve(handlers[0], "GET", "/api/v1/currencies?PageSize=1", ""))
	assert.Equal(t, http.StatusOK, serve(handlers[1], "GET", "/api/v1/currencies?PageSize=1", ""), "each instance has its own list bucket")

	assert.Equal(t, http.StatusUnauthorized, serve(handlers[2], "POST", "/api/v1/users/auth/refresh-auth-key", `{"refreshAuthKey":"unknown"}`))

	store.mu.Lock()
	defer store.mu.Unlock()
	assert.Equal(t, map[string]int{"login-identifier": 12, "login-ip": 12, "refresh-ip": 1}, store.policies,
		"only the login and refresh limits go to the store")
}

// TestHandlerLimiterOption: a host's own limiter replaces the shared one.
func TestHandlerLimiterOption(t *testing.T) {
	t.Parallel()
	store := newSharedStore(t)
	app, err := brandbase.New(store, brandbase.Config{SecretKeys: integrations.EphemeralKeyRing(), AuthOptions: []auth.Option{auth.WithArgon2Params(fastArgon2)}})
	require.NoError(t, err)
	_, err = app.Auth.CreateBrand(t.Context(), auth.NewBrand{URL: "own.example.com", Name: "Own"})
	require.NoError(t, err)
	h, err := app.Handler(httpadapter.WithLimiter(ratelimit.New(ratelimit.Config{})), quiet())
	require.NoError(t, err)
	req := httptest.NewRequest("POST", "/api/v1/users/auth", strings.NewReader(`{"username":"x","password":"y"}`))
	req.Header.Set("Brand-URL", "own.example.com")
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	require.Equal(t, http.StatusUnauthorized, rec.Code)
	store.mu.Lock()
	defer store.mu.Unlock()
	assert.Empty(t, store.policies)
}

// countingStore counts the reads of reference data that reach the store.
type countingStore struct {
	storage.Storage
	reads atomic.Int64
}

func (s *countingStore) ReadRefData(ctx context.Context) (refdata.RefData, error) {
	s.reads.Add(1)
	return s.Storage.ReadRefData(ctx)
}

func (s *countingStore) RefDataChangesSince(ctx context.Context, rev uint64, limit int) (refdata.RefData, error) {
	s.reads.Add(1)
	return s.Storage.RefDataChangesSince(ctx, rev, limit)
}

// TestRefDataIndex checks that New answers lists from the snapshot once
// warm: a list reads nothing of the store but its revision. (The half of
// this test that checked Config.NoRefDataIndex went with the option: no
// list is answered by a store any more.)
func TestRefDataIndex(t *testing.T) {
	t.Parallel()
	m, err := memory.New(t.Context())
	require.NoError(t, err)
	store := &countingStore{Storage: m}
	app, err := brandbase.New(store, brandbase.Config{SecretKeys: integrations.EphemeralKeyRing()})
	require.NoError(t, err)
	require.NoError(t, app.WarmUp(t.Context()))
	assert.Equal(t, int64(1), store.reads.Load(), "the snapshot is read once (by New, on a memory store, or WarmUp)")
	page, err := app.RefData.ListCities(t.Context(), refdata.CityQuery{Name: new("paris")})
	require.NoError(t, err)
	assert.NotEmpty(t, page.Items)
	assert.Equal(t, int64(1), store.reads.Load(), "a list reads no rows of the store")
}

// TestCloseStopsTheIndex checks that App.Close stops the reference-data
// service: lists then fail as unavailable (there is no other path), and
// WarmUp too.
func TestCloseStopsTheIndex(t *testing.T) {
	t.Parallel()
	m, err := memory.New(t.Context())
	require.NoError(t, err)
	store := &countingStore{Storage: m}
	app, err := brandbase.New(store, brandbase.Config{SecretKeys: integrations.EphemeralKeyRing()})
	require.NoError(t, err)
	require.NoError(t, app.WarmUp(t.Context()))
	require.NoError(t, app.Close())
	before := store.reads.Load()
	_, err = app.RefData.ListCities(t.Context(), refdata.CityQuery{Name: new("paris")})
	assert.True(t, envelope.IsUnavailable(err), "after Close, lists are unavailable: %v", err)
	assert.Equal(t, before, store.reads.Load(), "after Close, nothing is read")
	assert.True(t, envelope.IsUnavailable(app.WarmUp(t.Context())))
	assert.NoError(t, app.Close(), "a second Close")
}
