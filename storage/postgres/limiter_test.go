package postgres

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/ratelimit"
)

// loginPolicy is the adapter's default per-identifier login limit.
var loginPolicy = ratelimit.Policy{Name: "login-identifier", Limit: 10, Per: time.Minute}

// limiters returns the limiters of n stores on one fresh schema: n
// instances sharing a database.
func limiters(t *testing.T, n int) []*Limiter {
	t.Helper()
	var ls []*Limiter
	for _, s := range openStores(t, n) {
		ls = append(ls, s.multi.limiter)
	}
	return ls
}

// countRows returns the number of buckets stored.
func countRows(t *testing.T, l *Limiter) int {
	t.Helper()
	var n int
	require.NoError(t, l.pool.QueryRow(t.Context(), "SELECT count(*) FROM rate_buckets").Scan(&n))
	return n
}

var t0 = time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)

// TestLimiterShared spreads 12 login attempts for one user over three
// instances: exactly the first 10 are allowed, as on one instance.
func TestLimiterShared(t *testing.T) {
	t.Parallel()
	ls := openStores(t, 3) // through Store.Allow
	var allowed []bool
	for i := range 12 {
		d, err := ls[i%3].Allow(t.Context(), "brand user", loginPolicy, t0.Add(time.Duration(i)*time.Millisecond))
		require.NoError(t, err)
		allowed = append(allowed, d.Allowed)
		if i == 11 {
			assert.Equal(t, 0, d.Remaining)
			assert.InDelta(t, 6*time.Second-11*time.Millisecond, d.RetryAfter, float64(time.Millisecond), "a token comes every 6 s")
		}
	}
	assert.Equal(t, []bool{true, true, true, true, true, true, true, true, true, true, false, false}, allowed)

	d, err := ls[0].Allow(t.Context(), "brand other user", loginPolicy, t0)
	require.NoError(t, err)
	assert.True(t, d.Allowed, "another key has its own bucket")
	d, err = ls[1].Allow(t.Context(), "brand user", ratelimit.Policy{Name: "login-ip", Limit: 30, Per: time.Minute}, t0)
	require.NoError(t, err)
	assert.True(t, d.Allowed, "the same key under another policy has its own bucket")
}

// TestLimiterConcurrent sends 30 requests of one key at the same instant
// through three instances: exactly the burst is allowed.
func TestLimiterConcurrent(t *testing.T) {
	t.Parallel()
	ls := limiters(t, 3)
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		allowed int
	)
	for i := range 30 {
		wg.Go(func() {
			d, err := ls[i%3].Allow(t.Context(), "key", loginPolicy, t0)
			assert.NoError(t, err)
			mu.Lock()
			defer mu.Unlock()
			if d.Allowed {
				allowed++
			}
		})
	}
	wg.Wait()
	assert.Equal(t, 10, allowed)
}

// TestLimiterMatchesInProcess plays one script of requests on the
// in-process limiter and on the shared one: every decision is the same,
// Retry-After, Remaining and Reset included.
func TestLimiterMatchesInProcess(t *testing.T) {
	t.Parallel()
	ls := limiters(t, 2)
	mem := ratelimit.New(ratelimit.Config{})
	burst := ratelimit.Policy{Name: "lists", Limit: 50, Per: time.Second, Burst: 100}
	updates := ratelimit.Policy{Name: "updates", Limit: 5, Per: time.Second}
	type step struct {
		at  time.Duration
		key string
		p   ratelimit.Policy
		n   int
	}
	script := []step{
		{0, "a", loginPolicy, 12},
		{3 * time.Second, "a", loginPolicy, 2},
		{6 * time.Second, "a", loginPolicy, 2},
		{6*time.Second + 1*time.Millisecond, "b", loginPolicy, 1},
		{61 * time.Second, "a", loginPolicy, 11},
		{61 * time.Second, "c", burst, 105},
		{61*time.Second + 37*time.Millisecond, "c", burst, 3},
		{62 * time.Second, "c", burst, 60},
		{62 * time.Second, "u", updates, 7},
		{62*time.Second + 333*time.Millisecond, "u", updates, 3},
		{60 * time.Second, "u", updates, 1}, // a clock behind: no refill
	}
	i := 0
	for _, s := range script {
		for range s.n {
			now := t0.Add(s.at)
			want, err := mem.Allow(t.Context(), s.key, s.p, now)
			require.NoError(t, err)
			got, err := ls[i%2].Allow(t.Context(), s.key, s.p, now)
			require.NoError(t, err)
			assert.Equal(t, want, got, "request %d: %s at %v", i, s.key, s.at)
			i++
		}
	}
}

func TestLimiterSweepsIdleBuckets(t *testing.T) {
	t.Parallel()
	ls := limiters(t, 1)
	l := ls[0]
	ctx := t.Context()
	short := ratelimit.Policy{Name: "short", Limit: 1, Per: time.Second}
	for _, k := range []string{"a", "b", "c"} {
		_, err := l.Allow(ctx, k, loginPolicy, t0)
		require.NoError(t, err)
	}
	_, err := l.Allow(ctx, "s", short, t0)
	require.NoError(t, err)
	require.Equal(t, 4, countRows(t, l))

	// Before the window and the sweep interval have passed, nothing goes.
	_, err = l.Allow(ctx, "a", loginPolicy, t0.Add(59*time.Second))
	require.NoError(t, err)
	assert.Equal(t, 4, countRows(t, l))

	// After both: the idle rows of the policy go; "a", used at 59 s, is
	// not full yet and stays, and the other policy's row waits for its
	// own sweep.
	_, err = l.Allow(ctx, "d", loginPolicy, t0.Add(61*time.Second))
	require.NoError(t, err)
	assert.Equal(t, 3, countRows(t, l), "a, d and s are left")
	_, err = l.Allow(ctx, "t", short, t0.Add(61*time.Second))
	require.NoError(t, err)
	assert.Equal(t, 3, countRows(t, l), "s went, t came")

	d, err := l.Allow(ctx, "b", loginPolicy, t0.Add(62*time.Second))
	require.NoError(t, err)
	assert.Equal(t, 9, d.Remaining, "a swept bucket starts full again")
}

func TestLimiterKeysAndErrors(t *testing.T) {
	t.Parallel()
	ls := limiters(t, 1)
	ctx := t.Context()
	for _, key := range []string{"", "\xff\xfe", "a\x00b", "a\x1fb", "ünïcode 🙂"} {
		d, err := ls[0].Allow(ctx, key, loginPolicy, t0)
		require.NoError(t, err, "key %q", key)
		assert.True(t, d.Allowed)
		assert.Equal(t, 9, d.Remaining, "key %q has a bucket of its own", key)
	}
	_, err := ls[0].Allow(ctx, "k", ratelimit.Policy{Name: "bad"}, t0)
	assert.Equal(t, envelope.KindInvalid, envelope.KindOf(err))

	ctxDone, cancel := context.WithCancel(t.Context())
	cancel()
	_, err = ls[0].Allow(ctxDone, "k", loginPolicy, t0)
	assert.Error(t, err, "a failing statement is an error")
}
