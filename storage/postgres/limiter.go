package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/brandbase/brandbase/ratelimit"
)

// sweepEvery is how often a Limiter deletes, per policy, the buckets that
// have been idle long enough to be full again.
const sweepEvery = time.Minute

// Limiter is a token-bucket rate limiter whose buckets are rows of the
// rate_buckets table, so that every instance sharing the database shares
// them: a key limited to 10 requests a minute gets 10 in all, however the
// requests are spread over the instances. It satisfies the Limiter
// interface of package httpadapter and decides as ratelimit.Limiter does
// (same Decision for the same requests at the same times).
//
// Each Allow is one atomic statement (an upsert of the key's row). A bucket
// idle long enough to be full again is worth nothing; such rows are
// deleted by the next Allow of their policy at least sweepEvery after the
// previous deletion, so the table holds only the keys recently active.
// Times come from the callers; instances whose clocks disagree never give
// a key more than its burst, as a bucket's time never moves backwards.
type Limiter struct {
	pool *pgxpool.Pool

	mu    sync.Mutex
	swept map[string]time.Time // by policy name: when its idle rows were last deleted
}

// NewLimiter returns a Limiter that keeps its buckets in the rate_buckets
// table that pool's connections see (the table the store's migrations
// create).
func NewLimiter(pool *pgxpool.Pool) *Limiter {
	return &Limiter{pool: pool, swept: map[string]time.Time{}}
}

// allowSQL takes one token from the bucket of $1 at time $3, for a burst of
// $2 and a refill rate of $4 tokens per second. A new key starts with a
// full bucket. The stored tokens carry the decision: a row of zero or more
// tokens was allowed (and holds what is left), a refused one is stored as
// the tokens it holds minus one (so negative: it holds less than one
// token), which the next request reads back.
const allowSQL = `
INSERT INTO rate_buckets AS b (key, tokens, updated_at) VALUES ($1, $2::float8 - 1, $3::timestamptz)
ON CONFLICT (key) DO UPDATE SET
	tokens = least($2::float8, CASE WHEN b.tokens < 0 THEN b.tokens + 1 ELSE b.tokens END
		+ greatest(0, extract(epoch FROM excluded.updated_at - b.updated_at)::float8) * $4::float8) - 1,
	updated_at = greatest(b.updated_at, excluded.updated_at)
RETURNING tokens`

// Allow takes one request of key under p at time now and returns the
// decision (see ratelimit.Limiter.Allow). It fails with the error of
// p.Validate for an invalid policy, and with the database's error
// (wrapped) when the statement fails: the HTTP adapter then lets the
// request through and logs it.
func (l *Limiter) Allow(ctx context.Context, key string, p ratelimit.Policy, now time.Time) (ratelimit.Decision, error) {
	if err := p.Validate(); err != nil {
		return ratelimit.Decision{}, err
	}
	burst, rate := p.Capacity(), p.PerSecond()
	var stored float64
	if err := l.pool.QueryRow(ctx, allowSQL, bucketKey(p.Name, key), float64(burst), now, rate).Scan(&stored); err != nil {
		return ratelimit.Decision{}, fmt.Errorf("postgres: rate limit %s: %w", p.Name, err)
	}
	l.sweep(ctx, p, now)
	allowed, tokens := stored >= 0, stored
	if !allowed {
		tokens = stored + 1
	}
	d := ratelimit.Decision{
		Allowed:   allowed,
		Limit:     burst,
		Remaining: max(0, int(math.Floor(tokens))),
		Reset:     p.RefillTime(float64(burst) - tokens),
	}
	if !allowed {
		// As golang.org/x/time/rate computes a reservation's delay.
		d.RetryAfter = time.Duration((1 - tokens) / rate * float64(time.Second))
	}
	return d, nil
}

// sweep deletes the rows of p's buckets that have been idle for p's window
// (a bucket refills whole in that time, and a missing row is a full
// bucket), unless it did so less than sweepEvery before now. A failure is
// left for the next sweep: the rows only take room.
func (l *Limiter) sweep(ctx context.Context, p ratelimit.Policy, now time.Time) {
	l.mu.Lock()
	last, ok := l.swept[p.Name]
	due := !ok || now.Sub(last) >= sweepEvery || now.Before(last)
	if due {
		l.swept[p.Name] = now
	}
	l.mu.Unlock()
	if !due {
		return
	}
	_, _ = l.pool.Exec(ctx, `DELETE FROM rate_buckets WHERE starts_with(key, $1) AND updated_at < $2`,
		bucketKey(p.Name, ""), now.Add(-p.Window()))
}

// bucketKey returns the row key of key under policy name: the name, a unit
// separator, the key. A name or key that PostgreSQL text cannot hold
// (invalid UTF-8, NUL) is replaced by its SHA-256.
func bucketKey(name, key string) string {
	return textSafe(name) + "\x1f" + textSafe(key)
}

// textSafe returns s, or its SHA-256 when PostgreSQL text cannot hold it
// (invalid UTF-8, NUL) or it holds the key separator.
func textSafe(s string) string {
	if utf8.ValidString(s) && !strings.ContainsRune(s, 0) && !strings.ContainsRune(s, 0x1f) {
		return s
	}
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Allow is [Limiter.Allow] on the store's rate_buckets table, shared by
// every instance, as one bounded call of the store (an unreachable
// database fails it with envelope.Unavailable). It makes the store an
// httpadapter.Limiter: brandbase keeps the login limits in it.
func (s *Store) Allow(ctx context.Context, key string, p ratelimit.Policy, now time.Time) (d ratelimit.Decision, err error) {
	err = s.db.run(ctx, func(ctx context.Context) (err error) { d, err = s.multi.limiter.Allow(ctx, key, p, now); return err })
	if err != nil && (unreachable(err) || serverEnded(err)) && ctx.Err() == nil {
		return d, unavailable(err)
	}
	return d, err
}
