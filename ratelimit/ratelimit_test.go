package ratelimit_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"net/netip"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/ratelimit"
)

var (
	t0         = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	perMinute  = ratelimit.Policy{Name: "login", Limit: 10, Per: time.Minute}
	listPolicy = ratelimit.Policy{Name: "lists", Limit: 50, Per: time.Second, Burst: 100}
)

func allow(t testing.TB, l *ratelimit.Limiter, key string, p ratelimit.Policy, now time.Time) ratelimit.Decision {
	t.Helper()
	d, err := l.Allow(context.Background(), key, p, now)
	require.NoError(t, err)
	return d
}

func TestBurstRefusalAndRecovery(t *testing.T) {
	t.Parallel()
	l := ratelimit.New(ratelimit.Config{})
	for i := range 10 {
		d := allow(t, l, "k", perMinute, t0)
		require.True(t, d.Allowed, "request %d of the burst", i+1)
		assert.Equal(t, 10, d.Limit)
		assert.Equal(t, 9-i, d.Remaining)
		assert.Equal(t, time.Duration(i+1)*6*time.Second, d.Reset, "one token per 6 s until full")
		assert.Zero(t, d.RetryAfter)
	}
	d := allow(t, l, "k", perMinute, t0)
	assert.Equal(t, ratelimit.Decision{Allowed: false, Limit: 10, Remaining: 0, Reset: time.Minute, RetryAfter: 6 * time.Second}, d)

	// Refused requests take no token: hammering does not push recovery out.
	for range 5 {
		d = allow(t, l, "k", perMinute, t0.Add(time.Second))
		assert.False(t, d.Allowed)
		assert.Equal(t, 5*time.Second, d.RetryAfter)
		assert.Equal(t, 59*time.Second, d.Reset)
	}
	d = allow(t, l, "k", perMinute, t0.Add(6*time.Second-time.Nanosecond))
	assert.False(t, d.Allowed, "one nanosecond early")
	assert.Equal(t, time.Nanosecond, d.RetryAfter)

	d = allow(t, l, "k", perMinute, t0.Add(6*time.Second))
	assert.True(t, d.Allowed, "one token after 6 s")
	assert.Equal(t, 0, d.Remaining)
	assert.False(t, allow(t, l, "k", perMinute, t0.Add(6*time.Second)).Allowed)

	d = allow(t, l, "k", perMinute, t0.Add(10*time.Minute))
	assert.True(t, d.Allowed)
	assert.Equal(t, 9, d.Remaining, "a long idle bucket is full again, never more")
}

func TestKeysAndPoliciesAreIsolated(t *testing.T) {
	t.Parallel()
	l := ratelimit.New(ratelimit.Config{})
	other := perMinute
	other.Name = "login-ip"
	for range 10 {
		require.True(t, allow(t, l, "a", perMinute, t0).Allowed)
	}
	assert.False(t, allow(t, l, "a", perMinute, t0).Allowed)
	assert.True(t, allow(t, l, "b", perMinute, t0).Allowed, "another key has its own bucket")
	assert.True(t, allow(t, l, "a", other, t0).Allowed, "another policy has its own bucket")
	assert.Equal(t, 3, l.Len())
}

func TestPolicyChangeKeepsTokens(t *testing.T) {
	t.Parallel()
	l := ratelimit.New(ratelimit.Config{})
	for range 4 {
		require.True(t, allow(t, l, "k", perMinute, t0).Allowed)
	}
	tighter := perMinute
	tighter.Limit = 5
	d := allow(t, l, "k", tighter, t0)
	require.True(t, d.Allowed)
	assert.Equal(t, 5, d.Limit)
	assert.Equal(t, 4, d.Remaining, "6 tokens left, capped at the new burst of 5, minus this one")
	assert.Equal(t, 12*time.Second, d.Reset, "one token per 12 s under the new rate")
}

func TestInvalidPolicy(t *testing.T) {
	t.Parallel()
	l := ratelimit.New(ratelimit.Config{})
	for _, p := range []ratelimit.Policy{
		{},
		{Name: "no period", Limit: 1},
		{Name: "no limit", Per: time.Second},
		{Name: "negative burst", Limit: 1, Per: time.Second, Burst: -1},
	} {
		_, err := l.Allow(context.Background(), "k", p, t0)
		assert.Equal(t, envelope.KindInvalid, envelope.KindOf(err), p.Name)
		assert.Equal(t, envelope.KindInvalid, envelope.KindOf(p.Validate()), p.Name)
	}
	assert.NoError(t, listPolicy.Validate())
	assert.True(t, ratelimit.Policy{}.IsZero())
	assert.False(t, listPolicy.IsZero())
	assert.Equal(t, 0, l.Len(), "no bucket for an invalid policy")
}

func TestWindow(t *testing.T) {
	t.Parallel()
	assert.Equal(t, time.Minute, perMinute.Window())
	assert.Equal(t, 2*time.Second, listPolicy.Window())
	assert.Equal(t, time.Second, ratelimit.Policy{Limit: 5, Per: time.Second}.Window())
}

func TestIdleBucketsAreDropped(t *testing.T) {
	t.Parallel()
	l := ratelimit.New(ratelimit.Config{Shards: 1})
	for i := range 10 {
		allow(t, l, strconv.Itoa(i), listPolicy, t0)
	}
	require.Equal(t, 10, l.Len())
	// A bucket with one token taken is full again 20 ms later; each request
	// drops up to two full buckets from the idle end.
	later := t0.Add(20 * time.Millisecond)
	for range 5 {
		allow(t, l, "busy", listPolicy, later)
	}
	assert.Equal(t, 1, l.Len(), "only the busy bucket is left")

	for range 100 {
		allow(t, l, "busy", listPolicy, later)
	}
	allow(t, l, "x", listPolicy, later.Add(time.Second))
	allow(t, l, "y", listPolicy, later.Add(time.Second))
	assert.Equal(t, 3, l.Len(), "an empty bucket idle for less than its refill time stays")
	d := allow(t, l, "busy", listPolicy, later.Add(time.Second))
	assert.Equal(t, 49, d.Remaining, "it kept its state: 50 tokens back after 1 s, one taken")
}

// TestFullShardKeepsBucketsThatLimit fills a shard with buckets that still
// limit their keys and checks that new keys then share an overflow bucket
// instead of evicting them, within the cap.
func TestFullShardKeepsBucketsThatLimit(t *testing.T) {
	t.Parallel()
	l := ratelimit.New(ratelimit.Config{MaxBuckets: 8, Shards: 1})
	require.Equal(t, 8, l.MaxBuckets())
	for range 10 {
		allow(t, l, "hot", perMinute, t0)
	}
	require.False(t, allow(t, l, "hot", perMinute, t0).Allowed)
	allowed := 0
	for i := range 100 {
		if allow(t, l, strconv.Itoa(i), perMinute, t0).Allowed {
			allowed++
		}
		assert.False(t, allow(t, l, "hot", perMinute, t0).Allowed, "a spent bucket survives the flood")
		assert.LessOrEqual(t, l.Len(), 8)
	}
	assert.Equal(t, 8, l.Len())
	assert.Equal(t, 7+10, allowed, "7 keys got a bucket of their own, the other 93 shared one burst of 10")
	assert.Equal(t, 8, allow(t, l, "0", perMinute, t0).Remaining, "a key that got a bucket keeps it: 2 tokens spent")
	d := allow(t, l, "99", perMinute, t0)
	assert.False(t, d.Allowed, "a key without a bucket is limited by the spent overflow bucket")
	assert.Equal(t, 6*time.Second, d.RetryAfter)

	// A minute later every bucket is full again: a new key takes the place
	// of one and starts with a full bucket of its own.
	later := t0.Add(time.Minute)
	assert.Equal(t, 9, allow(t, l, "new", perMinute, later).Remaining)
	assert.Equal(t, 9, allow(t, l, "99", perMinute, later).Remaining, "no longer on the overflow bucket")
	assert.LessOrEqual(t, l.Len(), 8)
}

// TestFullShardDropsAFullBucketBehindASpentOne checks that a new key in a
// full shard takes the place of a full bucket even when the least recently
// used bucket still limits its key.
func TestFullShardDropsAFullBucketBehindASpentOne(t *testing.T) {
	t.Parallel()
	l := ratelimit.New(ratelimit.Config{MaxBuckets: 2, Shards: 1})
	allow(t, l, "login", perMinute, t0) // full again after 6 s
	allow(t, l, "list", listPolicy, t0) // full again after 20 ms
	later := t0.Add(time.Second)
	d := allow(t, l, "new", perMinute, later)
	assert.Equal(t, 9, d.Remaining, "a bucket of its own, made in place of the full list bucket")
	assert.Equal(t, 2, l.Len())
	d = allow(t, l, "login", perMinute, later)
	assert.Equal(t, 8, d.Remaining, "the spent login bucket was kept")
}

func TestConfigRounding(t *testing.T) {
	t.Parallel()
	assert.Equal(t, ratelimit.DefaultMaxBuckets, ratelimit.New(ratelimit.Config{}).MaxBuckets())
	assert.Equal(t, 4, ratelimit.New(ratelimit.Config{MaxBuckets: 3}).MaxBuckets(), "2 shards of 2")
	assert.Equal(t, 104, ratelimit.New(ratelimit.Config{MaxBuckets: 100, Shards: 5}).MaxBuckets(), "8 shards of 13")
}

func TestConcurrentRequestsShareOneBucket(t *testing.T) {
	t.Parallel()
	l := ratelimit.New(ratelimit.Config{})
	var allowed atomic.Int64
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				if d, err := l.Allow(context.Background(), "k", listPolicy, t0); err == nil && d.Allowed {
					allowed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	assert.Equal(t, int64(100), allowed.Load(), "exactly the burst, however the requests interleave")
}

// floodKeys is the number of distinct client addresses of TestFloodOfKeys.
// The race detector makes each call about ten times slower, so under -race
// the flood is 200,000 keys (still three times the cap); plain `go test`
// runs the full million.
func floodKeys() int {
	if raceEnabled {
		return 200_000
	}
	return 1_000_000
}

// maxBytesPerBucket is the bound TestFloodOfKeys holds the limiter to: the
// bucket and its rate.Limiter (176 bytes), its map slot and its key (a short
// IP string). Measured: 383 bytes per bucket after a flood of 1 or 5 million
// keys (Go 1.26, amd64), so the bound leaves room for the map's layout.
const maxBytesPerBucket = 512

// TestFloodOfKeys sends one request from each of a million distinct client
// IPs within one second, so that no bucket is idle long enough to be full
// again, after a target spent half its bucket. It checks that the limiter
// then holds exactly DefaultMaxBuckets (65,536) buckets and at most
// DefaultMaxBuckets × maxBytesPerBucket (32 MiB) of heap, that the target's
// bucket survived (the flood did not reset it), and that the flood itself
// was limited: beyond the keys that got a bucket, the 64 shards' overflow
// buckets let through at most one burst each.
func TestFloodOfKeys(t *testing.T) {
	// Not parallel: it measures the heap.
	n := floodKeys()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	l := ratelimit.New(ratelimit.Config{})
	for range 5 {
		require.True(t, allow(t, l, "target", perMinute, t0).Allowed)
	}
	now := t0
	var ip [4]byte
	allowed := 0
	for i := range n {
		binary.BigEndian.PutUint32(ip[:], 0x0b000000+uint32(i)) // 11.0.0.0 onwards
		now = now.Add(time.Microsecond)                         // a 1 s flood: no bucket is full again (6 s) yet
		d, err := l.Allow(t.Context(), netip.AddrFrom4(ip).String(), perMinute, now)
		if err != nil {
			require.FailNow(t, "allow", "key %d: %v", i, err)
		}
		if d.Allowed {
			allowed++
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	buckets := l.Len()
	heap := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("%d keys: %d allowed, %d buckets, %d bytes of heap, %d bytes per bucket", n, allowed, buckets, heap, heap/int64(buckets))
	assert.Equal(t, ratelimit.DefaultMaxBuckets, buckets, "full, never over the cap")
	assert.LessOrEqual(t, heap, int64(ratelimit.DefaultMaxBuckets*maxBytesPerBucket))
	assert.GreaterOrEqual(t, allowed, ratelimit.DefaultMaxBuckets-1, "every key that got a bucket was allowed")
	assert.LessOrEqual(t, allowed, ratelimit.DefaultMaxBuckets-1+64*perMinute.Limit, "the rest shared one burst per shard")
	d := allow(t, l, "target", perMinute, now)
	assert.Equal(t, 4, d.Remaining, "the target's half-spent bucket survived the flood (5 tokens, one taken)")
	runtime.KeepAlive(l)
}

var sinkDecision ratelimit.Decision

// BenchmarkAllow measures one Allow per request from many goroutines over
// 10,000 clients that each keep their bucket.
func BenchmarkAllow(b *testing.B) {
	l := ratelimit.New(ratelimit.Config{})
	keys := make([]string, 10_000)
	for i := range keys {
		keys[i] = fmt.Sprintf("brand\x0010.0.%d.%d", i/256, i%256)
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		var d ratelimit.Decision
		i := 0
		for pb.Next() {
			d, _ = l.Allow(context.Background(), keys[i%len(keys)], listPolicy, t0)
			i += 7
		}
		sinkDecision = d
	})
}

// BenchmarkAllowFlood measures Allow when every request comes from a new
// client and no bucket is ever full again: once the cap is reached, each
// request falls to its shard's overflow bucket.
func BenchmarkAllowFlood(b *testing.B) { benchNewClients(b, 0) }

// BenchmarkAllowChurn measures Allow when every request comes from a new
// client and the oldest buckets are full again (1 ms between requests, a
// list bucket refills a token in 20 ms), so that each new bucket takes the
// place of a dropped one.
func BenchmarkAllowChurn(b *testing.B) { benchNewClients(b, time.Millisecond) }

// benchNewClients sends one request from each of 65,536 clients in turn to
// a limiter capped at 1,024 buckets, step apart.
func benchNewClients(b *testing.B, step time.Duration) {
	l := ratelimit.New(ratelimit.Config{MaxBuckets: 1024})
	keys := make([]string, 1<<16)
	for i := range keys {
		keys[i] = fmt.Sprintf("10.1.%d.%d", i/256, i%256)
	}
	b.ReportAllocs()
	i := 0
	now := t0
	for b.Loop() {
		now = now.Add(step)
		sinkDecision, _ = l.Allow(context.Background(), keys[i%len(keys)], listPolicy, now)
		i++
	}
}
