package telemetry

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// The caches of the auth service (the values of AttrCache).
const (
	CacheKey    = "key"    // checked Auth-Keys
	CacheDevice = "device" // device checks
	CacheBrand  = "brand"  // brands by URL
)

// The outcomes of a wait for a password hashing slot (the values of
// AttrHashOutcome).
const (
	HashAcquired  = "acquired"
	HashShed      = "shed"
	HashCancelled = "cancelled"
)

// The operations of the password hashing span (the values of AttrHashOp).
const (
	HashVerify = "verify"
	HashNew    = "hash"
)

// Auth records what the auth service does: logins by outcome, password
// hashing (its slot wait and a span), cache lookups, and the changes heard
// from other instances. Build it with [NewAuth]; a nil *Auth records
// nothing, as does each nil part.
type Auth struct {
	logins *Counter
	// changes counts the changes heard, by kind.
	changes *Counter
	tracer  trace.Tracer
	delay   metric.Float64Histogram
	wait    metric.Float64Histogram
	// waitOpts are the attribute sets of the slot wait, by outcome.
	waitOpts map[string][]metric.RecordOption
	lookups  metric.Int64Counter
	// spanOpts are the start options of the hashing span, by operation.
	spanOpts map[string][]trace.SpanStartOption
}

// NewAuth returns the recorder of an auth service, or nil when both
// providers are nil.
func NewAuth(mp metric.MeterProvider, tp trace.TracerProvider) *Auth {
	if mp == nil && tp == nil {
		return nil
	}
	a := &Auth{tracer: Tracer(tp)}
	if a.tracer != nil {
		a.spanOpts = map[string][]trace.SpanStartOption{}
		for _, op := range []string{HashVerify, HashNew} {
			a.spanOpts[op] = []trace.SpanStartOption{trace.WithAttributes(AttrHashOp.String(op))}
		}
	}
	m := meter(mp)
	if m == nil {
		return a
	}
	a.logins = Logins(mp)
	a.changes = newCounter(counter(m, MetricChanges, "{change}",
		"Changes heard from the store's change feed (other instances' revocations among them), by kind."),
		AttrChangeKind, "brand", "user", "all")
	a.delay = seconds(m, MetricChangeDelay, "Time from a change's commit to this instance hearing of it, when the feed tells it.")
	a.wait = seconds(m, MetricHashWait, "Time a password check or hash waited for a hashing slot, by outcome.")
	a.waitOpts = map[string][]metric.RecordOption{}
	for _, o := range []string{HashAcquired, HashShed, HashCancelled} {
		a.waitOpts[o] = recordOpts(attribute.NewSet(AttrHashOutcome.String(o)))
	}
	a.lookups = counter(m, MetricCacheLookups, "{lookup}", "Lookups in the auth service's caches, by cache and result (hit or miss).")
	return a
}

// Login counts one login of outcome (LoginSuccess, ...).
func (a *Auth) Login(ctx context.Context, outcome string) {
	if a != nil {
		a.logins.Add(ctx, outcome)
	}
}

// HashWaited records a wait for a hashing slot that began at start and
// ended with outcome.
func (a *Auth) HashWaited(ctx context.Context, start time.Time, outcome string) {
	if a == nil || a.wait == nil {
		return
	}
	a.wait.Record(ctx, Since(start), a.waitOpts[outcome]...)
}

// StartHash starts the span of one password operation (HashVerify or
// HashNew), or returns ctx and a nil span when traces are off; end it with
// [EndSpan].
func (a *Auth) StartHash(ctx context.Context, op string) (context.Context, trace.Span) {
	if a == nil || a.tracer == nil {
		return ctx, nil
	}
	return a.tracer.Start(ctx, SpanPasswordHash, a.spanOpts[op]...)
}

// ChangeHeard records a change of kind heard from the store's feed,
// committed at at (zero when the feed does not tell) and heard at now.
func (a *Auth) ChangeHeard(ctx context.Context, kind string, at, now time.Time) {
	if a == nil {
		return
	}
	a.changes.Add(ctx, kind)
	if a.delay != nil && !at.IsZero() {
		a.delay.Record(ctx, max(0, now.Sub(at).Seconds()))
	}
}

// CacheLookups returns the hit and miss recorders of the cache named
// name (CacheKey, CacheDevice, CacheBrand); a nil *Auth, or one without
// metrics, gives a recorder that records nothing.
func (a *Auth) CacheLookups(name string) *Lookups {
	if a == nil || a.lookups == nil {
		return nil
	}
	return &Lookups{
		c:    a.lookups,
		hit:  addOpts(attribute.NewSet(AttrCache.String(name), AttrCacheResult.String("hit"))),
		miss: addOpts(attribute.NewSet(AttrCache.String(name), AttrCacheResult.String("miss"))),
	}
}

// Lookups counts the hits and misses of one cache. A nil *Lookups does
// nothing.
type Lookups struct {
	c         metric.Int64Counter
	hit, miss []metric.AddOption
}

// Record counts one lookup, a hit or a miss.
func (l *Lookups) Record(hit bool) {
	if l == nil {
		return
	}
	if hit {
		l.c.Add(context.Background(), 1, l.hit...)
		return
	}
	l.c.Add(context.Background(), 1, l.miss...)
}
