// Package ratelimit limits request rates with token buckets
// (golang.org/x/time/rate), one bucket per key, in memory that stays bounded
// however many distinct keys arrive.
//
// # Policies and decisions
//
// A [Policy] says how many requests a key may make per period and how many
// at once (the burst). [Limiter.Allow] takes one token from the key's bucket
// and answers with a [Decision]: allowed or not, the remaining tokens, when
// the bucket is full again and, when refused, how long to wait. The caller
// passes the time, so tests need no sleeps.
//
// # Bounded memory
//
// Buckets live in shards, each with its own lock and its own LRU list. A
// bucket that has been idle long enough to be full again is worth nothing (a
// fresh bucket is the same) and is dropped as soon as its shard is touched.
// Only such a full bucket is ever dropped: a bucket that still limits its
// key (a login bucket half spent by guesses, say) is kept however many other
// keys arrive, so a flood of fresh keys cannot reset it. When a new key
// arrives at a shard that holds its share of the hard cap
// ([Config.MaxBuckets]) and none of its least recently used buckets is full,
// the key gets no bucket of its own: it shares the shard's overflow bucket
// of that policy, which limits every such key together at the policy's
// rate. So a flood of distinct keys (spoofed addresses, random user names)
// costs at most MaxBuckets buckets plus one overflow bucket per shard and
// policy, and is itself limited to about one policy's worth of requests per
// shard once the cap is reached.
package ratelimit

import (
	"context"
	"hash/maphash"
	"math"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/brandbase/brandbase/envelope"
)

// Policy is one token-bucket limit: Limit requests per Per on average, and
// at most Burst at once. The zero Policy is "no limit" to callers that hold
// policies in configuration (see [Policy.IsZero]); [Limiter.Allow] rejects it.
type Policy struct {
	// Name tells policies apart: a key under two policies has two buckets.
	Name string
	// Limit is the number of requests allowed per Per.
	Limit int
	// Per is the period of Limit.
	Per time.Duration
	// Burst is the number of requests allowed at once, on a full bucket;
	// Limit when zero.
	Burst int
}

// IsZero reports whether p is the zero Policy.
func (p Policy) IsZero() bool { return p == Policy{} }

// Validate returns nil when p is usable: Limit and Per positive, Burst not
// negative. Otherwise it returns a KindInvalid *envelope.Error (code
// invalid_rate_policy) that names the policy.
func (p Policy) Validate() error {
	if p.Limit <= 0 || p.Per <= 0 || p.Burst < 0 {
		return envelope.New(envelope.KindInvalid, "invalid_rate_policy",
			"Rate-limit policy "+strconv.Quote(p.Name)+" needs a positive Limit and Per and a Burst of at least 0.")
	}
	return nil
}

// Capacity returns the bucket size: Burst, or Limit when Burst is zero.
// Limiters that keep buckets elsewhere (a shared store) use it, with
// [Policy.PerSecond] and [Policy.RefillTime], to decide as this package does.
func (p Policy) Capacity() int {
	if p.Burst > 0 {
		return p.Burst
	}
	return p.Limit
}

// PerSecond returns the refill rate in tokens per second.
func (p Policy) PerSecond() float64 {
	return float64(p.Limit) / p.Per.Seconds()
}

// RefillTime returns how long a bucket of p takes to gain tokens tokens,
// to the microsecond; 0 for tokens ≤ 0.
func (p Policy) RefillTime(tokens float64) time.Duration {
	return durationFor(tokens, p.rate())
}

// rate returns the refill rate as the rate package counts it.
func (p Policy) rate() rate.Limit { return rate.Limit(p.PerSecond()) }

// Window returns the time an empty bucket of p takes to fill up: the window
// in which a client may make Burst requests (the "w" of an IETF RateLimit-Policy).
func (p Policy) Window() time.Duration {
	return p.RefillTime(float64(p.Capacity()))
}

// Decision is the answer of a limiter to one request.
type Decision struct {
	// Allowed reports whether the request may proceed. A refused request
	// takes no token.
	Allowed bool
	// Limit is the size of the bucket: the number of requests a client may
	// make at once after being idle.
	Limit int
	// Remaining is the number of whole tokens left after this request.
	Remaining int
	// Reset is the time until the bucket is full again.
	Reset time.Duration
	// RetryAfter is the time until a request would be allowed; zero when
	// Allowed.
	RetryAfter time.Duration
}

// DefaultMaxBuckets is the default hard cap on the number of buckets a
// Limiter holds (a few hundred bytes each: see the package tests).
const DefaultMaxBuckets = 1 << 16

// defaultShards is the number of lock shards; a power of two.
const defaultShards = 64

// Config configures a [Limiter]. The zero value is usable.
type Config struct {
	// MaxBuckets is the hard cap on the number of keys' buckets held at
	// once (the shards' overflow buckets, one per shard and policy, come on
	// top); DefaultMaxBuckets when zero or negative. It is rounded up to a
	// multiple of the number of shards.
	MaxBuckets int
	// Shards is the number of independently locked shards: 64 when zero or
	// negative, rounded up to a power of two, halved while over MaxBuckets.
	Shards int
}

// Limiter holds token buckets per (policy name, key). It is safe for
// concurrent use; its memory is bounded by Config.MaxBuckets (plus one
// overflow bucket per shard and policy). Build it with [New].
type Limiter struct {
	seed     maphash.Seed
	shards   []shard
	mask     uint64
	perShard int
}

// New returns an empty Limiter configured by cfg.
func New(cfg Config) *Limiter {
	maxBuckets := cfg.MaxBuckets
	if maxBuckets <= 0 {
		maxBuckets = DefaultMaxBuckets
	}
	n := cfg.Shards
	if n <= 0 {
		n = defaultShards
	}
	shards := 1
	for shards < n {
		shards <<= 1
	}
	for shards > maxBuckets {
		shards >>= 1
	}
	l := &Limiter{
		seed:     maphash.MakeSeed(),
		shards:   make([]shard, shards),
		mask:     uint64(shards - 1),
		perShard: (maxBuckets + shards - 1) / shards,
	}
	for i := range l.shards {
		l.shards[i].buckets = make(map[bucketKey]*bucket)
	}
	return l
}

// MaxBuckets returns the most keys' buckets l ever holds at once.
func (l *Limiter) MaxBuckets() int { return l.perShard * len(l.shards) }

// Len returns the number of keys' buckets l holds now (overflow buckets
// not counted).
func (l *Limiter) Len() int {
	n := 0
	for i := range l.shards {
		s := &l.shards[i]
		s.mu.Lock()
		n += len(s.buckets)
		s.mu.Unlock()
	}
	return n
}

// Allow takes one token from the bucket of (p.Name, key) at time now and
// reports the decision. A refused request takes no token, and its
// RetryAfter is the delay of the reservation the bucket would have granted.
// A key seen for the first time starts with a full bucket, unless its shard
// is full of buckets that still limit their keys: then it shares the shard's
// overflow bucket of p (see the package comment). ctx is not used:
// the bucket is in memory and Allow never blocks. Allow fails only for an
// invalid policy, with the error of [Policy.Validate].
func (l *Limiter) Allow(_ context.Context, key string, p Policy, now time.Time) (Decision, error) {
	if err := p.Validate(); err != nil {
		return Decision{}, err
	}
	k := bucketKey{policy: p.Name, key: key}
	s := &l.shards[maphash.String(l.seed, key)&l.mask]
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.get(k, p, now, l.perShard)
	return b.take(now), nil
}

// bucketKey identifies a bucket.
type bucketKey struct {
	policy, key string
}

// bucket is one token bucket and its place in its shard's LRU list.
type bucket struct {
	key   bucketKey
	lim   *rate.Limiter
	limit rate.Limit
	burst int
	// full is when the bucket is full again if nothing takes from it: from
	// then on it is the same as a new bucket and may be dropped.
	full       time.Time
	prev, next *bucket // LRU list: prev is more recently used
}

// take takes one token at now, or none when the bucket is empty, and
// returns the decision.
func (b *bucket) take(now time.Time) Decision {
	r := b.lim.ReserveN(now, 1) // OK: burst >= 1
	wait := r.DelayFrom(now)
	if wait > 0 {
		r.CancelAt(now) // a refused request takes no token
	}
	tokens := b.lim.TokensAt(now)
	reset := durationFor(float64(b.burst)-tokens, b.limit)
	b.full = now.Add(reset)
	return Decision{
		Allowed:    wait == 0,
		Limit:      b.burst,
		Remaining:  max(0, int(math.Floor(tokens))),
		Reset:      reset,
		RetryAfter: wait,
	}
}

// durationFor returns how long rate r takes to produce tokens tokens, to
// the microsecond (which hides the float noise of the token count: 59 s, not
// 59.000000001 s).
func durationFor(tokens float64, r rate.Limit) time.Duration {
	if tokens <= 0 {
		return 0
	}
	return time.Duration(math.Round(tokens/float64(r)*1e6)) * time.Microsecond
}

// shard is a part of the buckets with its own lock. Its LRU list runs from
// head (most recently used) to tail.
type shard struct {
	mu         sync.Mutex
	buckets    map[bucketKey]*bucket
	head, tail *bucket
	// overflow holds, per policy name, the bucket that new keys share while
	// the shard is full of buckets that still limit their keys.
	overflow map[string]*bucket
	_        [64]byte // keeps neighbouring shards' locks off one cache line
}

// evictScan is how many buckets from the idle end of a full shard get looks
// at for one that is full again and so may make room for a new key.
const evictScan = 8

// get returns the bucket of k, made most recently used, creating it (full)
// when absent. It first drops up to two idle buckets from the tail that are
// full again. When the shard holds capacity buckets, a new key takes the
// place of a full bucket among the evictScan least recently used ones; when
// there is none, it gets the shard's overflow bucket of p instead, and no
// bucket that still limits a key is dropped.
func (s *shard) get(k bucketKey, p Policy, now time.Time, capacity int) *bucket {
	for range 2 {
		if t := s.tail; t != nil && !now.Before(t.full) && t.key != k {
			s.remove(t)
		}
	}
	if b, ok := s.buckets[k]; ok {
		s.unlink(b)
		s.pushFront(b)
		b.apply(p, now)
		return b
	}
	if len(s.buckets) >= capacity && !s.dropFull(now) {
		return s.overflowBucket(p, now)
	}
	b := newBucket(k, p)
	s.buckets[k] = b
	s.pushFront(b)
	return b
}

// newBucket returns a full bucket of k under p.
func newBucket(k bucketKey, p Policy) *bucket {
	limit, burst := p.rate(), p.Capacity()
	return &bucket{key: k, lim: rate.NewLimiter(limit, burst), limit: limit, burst: burst}
}

// apply makes b follow p from now on. A bucket whose policy changed keeps
// its tokens (at most the new burst) and refills at the new rate.
func (b *bucket) apply(p Policy, now time.Time) {
	limit, burst := p.rate(), p.Capacity()
	if b.limit != limit || b.burst != burst {
		b.lim.SetLimitAt(now, limit)
		b.lim.SetBurstAt(now, burst)
		b.limit, b.burst = limit, burst
	}
}

// dropFull drops the least recently used bucket that is full again at now
// among the evictScan least recently used ones, and reports whether there
// was one.
func (s *shard) dropFull(now time.Time) bool {
	b := s.tail
	for range evictScan {
		if b == nil {
			return false
		}
		if !now.Before(b.full) {
			s.remove(b)
			return true
		}
		b = b.prev
	}
	return false
}

// overflowBucket returns the shard's overflow bucket of p, creating it
// (full) when absent.
func (s *shard) overflowBucket(p Policy, now time.Time) *bucket {
	if b, ok := s.overflow[p.Name]; ok {
		b.apply(p, now)
		return b
	}
	if s.overflow == nil {
		s.overflow = make(map[string]*bucket)
	}
	b := newBucket(bucketKey{policy: p.Name}, p)
	s.overflow[p.Name] = b
	return b
}

// remove drops b from the shard.
func (s *shard) remove(b *bucket) {
	s.unlink(b)
	delete(s.buckets, b.key)
}

func (s *shard) unlink(b *bucket) {
	if b.prev != nil {
		b.prev.next = b.next
	} else {
		s.head = b.next
	}
	if b.next != nil {
		b.next.prev = b.prev
	} else {
		s.tail = b.prev
	}
	b.prev, b.next = nil, nil
}

func (s *shard) pushFront(b *bucket) {
	b.next = s.head
	if s.head != nil {
		s.head.prev = b
	}
	s.head = b
	if s.tail == nil {
		s.tail = b
	}
}
