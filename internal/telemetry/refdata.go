package telemetry

import (
	"context"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// Reference-data names (docs/observability.md describes each).
const (
	MetricRefDataBuilds    = "brandbase.refdata.builds"
	MetricRefDataPatches   = "brandbase.refdata.patches"
	MetricRefDataReady     = "brandbase.refdata.ready.duration"
	MetricRefDataLag       = "brandbase.refdata.revision.lag"
	MetricRefDataLists     = "brandbase.refdata.lists"
	MetricListCacheLookups = "brandbase.httpadapter.list_cache.lookups"
	AttrSnapshot           = attribute.Key("brandbase.refdata.snapshot")
	SpanRefDataBuild       = "refdata.build"
	SpanRefDataPatch       = "refdata.patch"
	SnapshotCurrent        = "current" // a list answered from a snapshot of the store's revision
	SnapshotHeld           = "held"    // a list answered from the snapshot held while the store is unavailable
	CacheResultHit         = "hit"
	CacheResultMiss        = "miss"
)

// RefData records what the reference-data service does: snapshots read
// whole (builds) and patched, with a span each; the time from the
// service's start to its first snapshot, once; the lists answered from a
// current snapshot or from the one held during an outage; and, observed at
// each collection, how many revisions the snapshot is behind the store.
// Build it with [NewRefData]; a nil *RefData records nothing.
type RefData struct {
	tracer  trace.Tracer
	builds  metric.Int64Counter
	patches metric.Int64Counter
	ready   metric.Float64Histogram
	lists   *Counter
	lag     metric.Int64ObservableGauge
	meter   metric.Meter
	start   time.Time
	once    sync.Once
}

// NewRefData returns the recorder of a reference-data service started at
// start, or nil when both providers are nil.
func NewRefData(mp metric.MeterProvider, tp trace.TracerProvider, start time.Time) *RefData {
	if mp == nil && tp == nil {
		return nil
	}
	r := &RefData{tracer: Tracer(tp), start: start}
	m := meter(mp)
	if m == nil {
		return r
	}
	r.meter = m
	r.builds = counter(m, MetricRefDataBuilds, "{build}", "Reference-data snapshots read whole from the store.")
	r.patches = counter(m, MetricRefDataPatches, "{patch}", "Reference-data snapshots patched with the cities changed since their revision.")
	r.ready = seconds(m, MetricRefDataReady, "Time from the reference-data service's start to its first snapshot (once per service).")
	r.lists = newCounter(counter(m, MetricRefDataLists, "{list}",
		"Lists answered, by snapshot: current (of the store's revision) or held (the store unavailable)."),
		AttrSnapshot, SnapshotCurrent, SnapshotHeld)
	return r
}

// ObserveLag registers the revision-lag gauge, observing lag at each
// collection (ok false: nothing to observe then). The returned function
// unregisters it; nil without metrics.
func (r *RefData) ObserveLag(lag func(ctx context.Context) (int64, bool)) (stop func()) {
	if r == nil || r.meter == nil {
		return func() {}
	}
	g, err := r.meter.Int64ObservableGauge(MetricRefDataLag, metric.WithUnit("{revision}"),
		metric.WithDescription("Revisions the reference-data snapshot is behind the store (store revision minus snapshot revision)."))
	if err != nil {
		return func() {}
	}
	reg, err := r.meter.RegisterCallback(func(ctx context.Context, o metric.Observer) error {
		if v, ok := lag(ctx); ok {
			o.ObserveInt64(g, v)
		}
		return nil
	}, g)
	if err != nil {
		return func() {}
	}
	return func() { _ = reg.Unregister() }
}

// StartBuild starts the span of a snapshot's build under ctx's span, if
// any; name it with Patched when it turns out a patch.
func (r *RefData) StartBuild(ctx context.Context) trace.Span {
	if r == nil || r.tracer == nil {
		return nil
	}
	_, span := r.tracer.Start(ctx, SpanRefDataBuild)
	return span
}

// Built counts a snapshot read whole (patched false) or patched, renames
// span after it, and records the time to ready at the first snapshot.
func (r *RefData) Built(ctx context.Context, span trace.Span, patched bool) {
	if r == nil {
		return
	}
	if span != nil && patched {
		span.SetName(SpanRefDataPatch)
	}
	if r.meter == nil {
		return
	}
	if patched {
		r.patches.Add(ctx, 1)
	} else {
		r.builds.Add(ctx, 1)
	}
	r.once.Do(func() { r.ready.Record(ctx, Since(r.start)) })
}

// Listed counts a list answered from a snapshot: current or held.
func (r *RefData) Listed(ctx context.Context, held bool) {
	if r == nil {
		return
	}
	if held {
		r.lists.Add(ctx, SnapshotHeld)
	} else {
		r.lists.Add(ctx, SnapshotCurrent)
	}
}
