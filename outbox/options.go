package outbox

import (
	"log/slog"
	"time"

	"go.opentelemetry.io/otel/metric"
)

// The dispatcher's defaults.
const (
	// DefaultConcurrency is how many deliveries a dispatcher runs at once.
	DefaultConcurrency = 64
	// DefaultPerBrandConcurrency is how many of them may be one brand's: a
	// brand whose server hangs holds at most these slots, and the others
	// keep theirs.
	DefaultPerBrandConcurrency = 8
	// DefaultAttemptTimeout bounds one delivery attempt (a handler may
	// bound its own wait tighter); it is cut to 90% of the claim's TTL.
	DefaultAttemptTimeout = 30 * time.Second
	// DefaultPollInterval is how often an idle dispatcher looks for due
	// items (Notify wakes it at once after an in-process enqueue).
	DefaultPollInterval = time.Second
	// DefaultRetention is how long delivered and failed items are kept (for
	// the deliveries list and replays) before they are pruned.
	DefaultRetention = 7 * 24 * time.Hour
	// DefaultBackoffBase and DefaultBackoffCap make the retry schedule:
	// attempt n failed, the item waits a random time, uniform in
	// [0, min(DefaultBackoffCap, DefaultBackoffBase × 2^(n−1))) ("full
	// jitter"): under 5 s, 10 s, 20 s, ... then under an hour each time,
	// until DefaultRetryBound from its creation.
	DefaultBackoffBase = 5 * time.Second
	DefaultBackoffCap  = time.Hour
	// PruneBatch is the most items one transaction of pruning deletes.
	PruneBatch = 1000
)

// Option configures a [Dispatcher].
type Option func(*config)

// config is a dispatcher's settings.
type config struct {
	clock       func() time.Time
	logger      *slog.Logger
	mp          metric.MeterProvider
	retryBound  time.Duration
	claimTTL    time.Duration
	concurrency int
	perBrand    int
	timeouts    map[Channel]time.Duration
	poll        time.Duration
	retention   time.Duration
	pruneEvery  time.Duration
	owner       string
	jitter      func() float64
}

// WithClock sets where the dispatcher reads the time (due items, retry
// times, the retry bound); time.Now when nil. Waits (the poll interval,
// attempt timeouts) are measured on the wall clock.
func WithClock(now func() time.Time) Option {
	return func(c *config) {
		if now != nil {
			c.clock = now
		}
	}
}

// WithLogger sets where the dispatcher logs: a target (a brand's channel
// and endpoint) when its deliveries start failing and when they recover,
// a store that fails and recovers; slog.Default() when nil.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) {
		if l != nil {
			c.logger = l
		}
	}
}

// WithMeterProvider makes the dispatcher record its metrics with mp:
// brandbase.outbox.deliveries (attempts by channel and outcome), and the
// gauges brandbase.outbox.depth and brandbase.outbox.oldest.age by
// channel. Nil records nothing.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(c *config) { c.mp = mp }
}

// WithRetryBound sets how long, from its creation, an item is retried
// before it is marked failed; DefaultRetryBound (24 h) when not above 0.
func WithRetryBound(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.retryBound = d
		}
	}
}

// WithClaimTTL sets how long a claim lasts (an instance killed mid-send
// leaves its items to another after it); DefaultClaimTTL (1 min) when not
// above 0.
func WithClaimTTL(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.claimTTL = d
		}
	}
}

// WithConcurrency sets how many deliveries run at once;
// DefaultConcurrency (64) when not above 0.
func WithConcurrency(n int) Option {
	return func(c *config) {
		if n > 0 {
			c.concurrency = n
		}
	}
}

// WithPerBrandConcurrency sets how many deliveries of one brand run at
// once; DefaultPerBrandConcurrency (8) when not above 0, and never more
// than the concurrency.
func WithPerBrandConcurrency(n int) Option {
	return func(c *config) {
		if n > 0 {
			c.perBrand = n
		}
	}
}

// WithAttemptTimeout bounds one delivery attempt on ch;
// DefaultAttemptTimeout (30 s) when not set or not above 0. An attempt
// never outlasts 90% of the claim's TTL.
func WithAttemptTimeout(ch Channel, d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.timeouts[ch] = d
		}
	}
}

// WithPollInterval sets how often an idle dispatcher looks for due items;
// DefaultPollInterval (1 s) when not above 0.
func WithPollInterval(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.poll = d
		}
	}
}

// WithRetention sets how long delivered and failed items are kept before
// they are pruned (hourly by the dispatcher's clock, the first time an
// hour after it starts, in transactions of at most PruneBatch items); DefaultRetention (7 days) when 0, and no
// pruning when below 0.
func WithRetention(d time.Duration) Option {
	return func(c *config) {
		if d != 0 {
			c.retention = d
		}
	}
}

// WithOwner names the dispatcher in its claims (unique among the
// processes sharing the store); the host name, process ID and a random
// suffix when empty.
func WithOwner(name string) Option {
	return func(c *config) {
		if name != "" {
			c.owner = name
		}
	}
}

// WithJitter sets the source of the retry delays' randomness: a function
// returning a number in [0, 1); math/rand/v2's Float64 when nil. For
// tests.
func WithJitter(f func() float64) Option {
	return func(c *config) {
		if f != nil {
			c.jitter = f
		}
	}
}
