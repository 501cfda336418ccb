package auth

import (
	"sync"
	"time"

	"github.com/brandbase/brandbase/internal/telemetry"
)

// cache is a bounded map whose entries expire, used to answer a repeated
// key or device check without a store lookup. It is safe for concurrent
// use.
//
// A lookup that misses reads the store and then puts what it found; if a
// revocation ran in between, the value read may already be stale. The
// generation closes that window: a caller takes generation() before reading
// the store, and put refuses the value when an invalidation has happened
// since.
type cache[K comparable, V any] struct {
	ttl time.Duration // 0: caching off
	max int
	// lookups counts hits and misses; nil without metrics.
	lookups *telemetry.Lookups

	mu      sync.RWMutex
	entries map[K]cacheEntry[V]
	gen     uint64
}

type cacheEntry[V any] struct {
	val   V
	until time.Time
}

func newCache[K comparable, V any](ttl time.Duration, max int) *cache[K, V] {
	return &cache[K, V]{ttl: ttl, max: max, entries: make(map[K]cacheEntry[V])}
}

// get returns the value cached for k if it has not expired at now.
func (c *cache[K, V]) get(k K, now time.Time) (V, bool) {
	c.mu.RLock()
	e, ok := c.entries[k]
	c.mu.RUnlock()
	hit := ok && now.Before(e.until)
	c.lookups.Record(hit)
	if !hit {
		var zero V
		return zero, false
	}
	return e.val, true
}

// generation returns the current generation, to pass to put.
func (c *cache[K, V]) generation() uint64 {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.gen
}

// put caches v for k until the earlier of until and now+ttl, unless the
// cache was invalidated since gen was taken. When the cache is full an
// arbitrary entry (Go's map iteration order is random) makes room.
func (c *cache[K, V]) put(k K, v V, now, until time.Time, gen uint64) {
	if c.ttl <= 0 {
		return
	}
	until = minTime(until, now.Add(c.ttl))
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	if _, ok := c.entries[k]; !ok && len(c.entries) >= c.max {
		for old := range c.entries {
			delete(c.entries, old)
			break
		}
	}
	c.entries[k] = cacheEntry[V]{val: v, until: until}
}

// invalidate drops every entry for which drop returns true (every entry
// when drop is nil) and starts a new generation.
func (c *cache[K, V]) invalidate(drop func(K, V) bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	if drop == nil {
		clear(c.entries)
		return
	}
	for k, e := range c.entries {
		if drop(k, e.val) {
			delete(c.entries, k)
		}
	}
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// lastKnown keeps the last record read of each brand, by normalised URL,
// for [Service.ResolveBrandOrLastKnown]. It has no expiry: an entry goes
// when its brand changes (forgetID), is found gone (forgetURL), or makes
// room for another when max are held. It is safe for concurrent use.
//
// As in cache, a read that raced with a change must not put what it read:
// a caller takes generation() before reading the store and put refuses the
// value when a forget happened since.
type lastKnown struct {
	max int

	mu      sync.Mutex
	entries map[string]Brand
	gen     uint64
}

func newLastKnown(max int) *lastKnown {
	return &lastKnown{max: max, entries: make(map[string]Brand)}
}

func (l *lastKnown) generation() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.gen
}

func (l *lastKnown) get(url string) (Brand, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.entries[url]
	return b, ok
}

// put keeps b for url unless a forget happened since gen was taken.
func (l *lastKnown) put(url string, b Brand, gen uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if gen != l.gen || l.max < 1 {
		return
	}
	if _, ok := l.entries[url]; !ok && len(l.entries) >= l.max {
		for old := range l.entries {
			delete(l.entries, old)
			break
		}
	}
	l.entries[url] = b
}

// forgetID drops the record of the brand with that ID.
func (l *lastKnown) forgetID(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.gen++
	for url, b := range l.entries {
		if b.ID == id {
			delete(l.entries, url)
		}
	}
}

// forgetURL drops the record kept for url.
func (l *lastKnown) forgetURL(url string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.gen++
	delete(l.entries, url)
}
