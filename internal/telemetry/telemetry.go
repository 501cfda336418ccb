// Package telemetry is where brandbase's packages get their OpenTelemetry
// instruments and tracers: one instrumentation scope, one list of metric
// names, units and attribute keys, so that every package records the same
// way. A nil provider turns recording off: the constructors then return
// nil, and every method of a nil value does nothing, at no cost beyond a
// nil check. The global otel providers are never read.
//
// No attribute carries a brand, user, key or raw path: route templates,
// policy names, outcomes and kinds only, so that the number of series
// stays bounded whatever the traffic. docs/observability.md lists every
// metric and span.
package telemetry

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/trace"
)

// ScopeName is the instrumentation scope of every instrument and span of
// brandbase (the otel_scope_name label in Prometheus).
const ScopeName = "github.com/brandbase/brandbase"

// Attribute keys: OpenTelemetry's semantic conventions where one exists,
// brandbase.* otherwise.
const (
	AttrHTTPMethod   = attribute.Key("http.request.method")
	AttrHTTPRoute    = attribute.Key("http.route")
	AttrHTTPStatus   = attribute.Key("http.response.status_code")
	AttrErrorType    = attribute.Key("error.type")
	AttrPolicy       = attribute.Key("brandbase.rate_limit.policy")
	AttrLoginOutcome = attribute.Key("brandbase.login.outcome")
	AttrHashOutcome  = attribute.Key("brandbase.password_hash.outcome")
	AttrHashOp       = attribute.Key("brandbase.password_hash.operation")
	AttrCache        = attribute.Key("brandbase.cache")
	AttrCacheResult  = attribute.Key("brandbase.cache.result")
	AttrChangeKind   = attribute.Key("brandbase.change.kind")
	AttrRecordKind   = attribute.Key("brandbase.integration.kind")
)

// Metric names. docs/observability.md describes each.
const (
	MetricHTTPDuration         = "http.server.request.duration"
	MetricHTTPActive           = "http.server.active_requests"
	MetricRateLimitRefusals    = "brandbase.ratelimit.refusals"
	MetricLogins               = "brandbase.auth.logins"
	MetricHashWait             = "brandbase.auth.password_hash.wait.duration"
	MetricCacheLookups         = "brandbase.auth.cache.lookups"
	MetricChanges              = "brandbase.auth.changes"
	MetricChangeDelay          = "brandbase.auth.change.delay"
	MetricIntegrationUpdates   = "brandbase.integrations.updates"
	MetricPreconditionFailures = "brandbase.integrations.precondition_failures"
	SpanPasswordHash           = "auth.password_hash"
	RouteUnmatched             = "unmatched"
	methodOther                = "_OTHER"
)

// Login outcomes (the values of AttrLoginOutcome).
const (
	LoginSuccess            = "success"
	LoginInvalidCredentials = "invalid_credentials"
	LoginLimited            = "limited" // refused by a rate limit (429)
	LoginShed               = "shed"    // refused while password hashing is busy (503)
	LoginRefused            = "refused" // an inactive user, a revoked device (403)
	LoginInvalid            = "invalid" // a malformed request (400)
	LoginError              = "error"   // anything else: the store unavailable, a fault
)

// durationBuckets are the bucket bounds, in seconds, of the duration
// histograms: those the semantic conventions advise for
// http.server.request.duration.
var durationBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10}

// meter returns brandbase's meter of mp, or nil when mp is nil.
func meter(mp metric.MeterProvider) metric.Meter {
	if mp == nil {
		return nil
	}
	return mp.Meter(ScopeName)
}

// Tracer returns brandbase's tracer of tp, or nil when tp is nil (traces
// off).
func Tracer(tp trace.TracerProvider) trace.Tracer {
	if tp == nil {
		return nil
	}
	return tp.Tracer(ScopeName)
}

// noopMeter stands in for an instrument a provider refused to make (it
// logs why through otel's error handler): the rest still record.
var noopMeter = metricnoop.Meter{}

func counter(m metric.Meter, name, unit, desc string) metric.Int64Counter {
	c, err := m.Int64Counter(name, metric.WithUnit(unit), metric.WithDescription(desc))
	if err != nil {
		c, _ = noopMeter.Int64Counter(name)
	}
	return c
}

func upDown(m metric.Meter, name, unit, desc string) metric.Int64UpDownCounter {
	c, err := m.Int64UpDownCounter(name, metric.WithUnit(unit), metric.WithDescription(desc))
	if err != nil {
		c, _ = noopMeter.Int64UpDownCounter(name)
	}
	return c
}

func seconds(m metric.Meter, name, desc string) metric.Float64Histogram {
	h, err := m.Float64Histogram(name, metric.WithUnit("s"), metric.WithDescription(desc),
		metric.WithExplicitBucketBoundaries(durationBuckets...))
	if err != nil {
		h, _ = noopMeter.Float64Histogram(name)
	}
	return h
}

// Counter is a counter with one attribute set prepared per value of its
// one attribute, so that Add allocates nothing for a value it has seen.
type Counter struct {
	c    metric.Int64Counter
	key  attribute.Key
	opts map[string][]metric.AddOption // read-only after construction
}

func newCounter(c metric.Int64Counter, key attribute.Key, values ...string) *Counter {
	k := &Counter{c: c, key: key, opts: make(map[string][]metric.AddOption, len(values))}
	for _, v := range values {
		k.opts[v] = addOpts(attribute.NewSet(key.String(v)))
	}
	return k
}

// Add adds one with the attribute set to value. A nil Counter does
// nothing.
func (k *Counter) Add(ctx context.Context, value string) {
	if k == nil {
		return
	}
	opts, ok := k.opts[value]
	if !ok {
		opts = addOpts(attribute.NewSet(k.key.String(value)))
	}
	k.c.Add(ctx, 1, opts...)
}

func addOpts(set attribute.Set) []metric.AddOption {
	return []metric.AddOption{metric.WithAttributeSet(set)}
}

func recordOpts(set attribute.Set) []metric.RecordOption {
	return []metric.RecordOption{metric.WithAttributeSet(set)}
}

// Logins returns the login counter of mp (brandbase.auth.logins, by
// outcome), or nil when mp is nil. The auth service counts the outcomes of
// its Login, the HTTP adapter the logins its rate limits refuse; both get
// the one instrument of the provider.
func Logins(mp metric.MeterProvider) *Counter {
	m := meter(mp)
	if m == nil {
		return nil
	}
	return newCounter(counter(m, MetricLogins, "{login}", "Logins by outcome."), AttrLoginOutcome,
		LoginSuccess, LoginInvalidCredentials, LoginLimited, LoginShed, LoginRefused, LoginInvalid, LoginError)
}

// EndSpan ends span, marking it an error with err's message when err is
// not nil. A nil span is ignored.
func EndSpan(span trace.Span, err error) {
	if span == nil {
		return
	}
	if err != nil {
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}

// Since returns the seconds elapsed since start, as histograms record
// them.
func Since(start time.Time) float64 {
	return time.Since(start).Seconds()
}
