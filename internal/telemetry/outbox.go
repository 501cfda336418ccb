package telemetry

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// The outbox's metrics and attributes.
const (
	MetricOutboxDeliveries = "brandbase.outbox.deliveries"
	MetricOutboxDepth      = "brandbase.outbox.depth"
	MetricOutboxOldestAge  = "brandbase.outbox.oldest.age"
	AttrOutboxChannel      = attribute.Key("brandbase.outbox.channel")
	AttrOutboxOutcome      = attribute.Key("brandbase.outbox.outcome")
)

// The outcomes of a delivery attempt (the values of AttrOutboxOutcome).
const (
	OutboxDelivered = "delivered"
	OutboxRetried   = "retried"
	OutboxFailed    = "failed"
)

// Outbox records what an outbox dispatcher does: delivery attempts by
// channel and outcome and, observed at each collection, the pending items
// and the age of the oldest, by channel. Build it with [NewOutbox]; a nil
// *Outbox records nothing.
type Outbox struct {
	meter      metric.Meter
	deliveries metric.Int64Counter
}

// NewOutbox returns the recorder of a dispatcher, or nil when mp is nil.
func NewOutbox(mp metric.MeterProvider) *Outbox {
	m := meter(mp)
	if m == nil {
		return nil
	}
	return &Outbox{meter: m, deliveries: counter(m, MetricOutboxDeliveries, "{attempt}",
		"Delivery attempts of outbox items, by channel (event, webhook, mail) and outcome (delivered, retried, failed).")}
}

// Attempted counts one attempt on an item of channel that ended in
// outcome.
func (o *Outbox) Attempted(ctx context.Context, channel, outcome string) {
	if o == nil {
		return
	}
	o.deliveries.Add(ctx, 1, metric.WithAttributeSet(attribute.NewSet(AttrOutboxChannel.String(channel),
		AttrOutboxOutcome.String(outcome))))
}

// ObserveDepth registers the depth and oldest-age gauges, observing at each
// collection what depth returns: the pending items and the creation of the
// oldest, by channel, and now (ok false: nothing to observe then). The
// returned function unregisters them; it does nothing without metrics.
func (o *Outbox) ObserveDepth(depth func(ctx context.Context) (pending map[string]int64, oldest map[string]time.Time,
	now time.Time, ok bool)) (stop func()) {
	if o == nil {
		return func() {}
	}
	n, err1 := o.meter.Int64ObservableGauge(MetricOutboxDepth, metric.WithUnit("{item}"),
		metric.WithDescription("Pending outbox items (due, waiting for a retry, or in flight), by channel."))
	age, err2 := o.meter.Float64ObservableGauge(MetricOutboxOldestAge, metric.WithUnit("s"),
		metric.WithDescription("Age of the oldest pending outbox item, by channel."))
	if err1 != nil || err2 != nil {
		return func() {}
	}
	reg, err := o.meter.RegisterCallback(func(ctx context.Context, obs metric.Observer) error {
		pending, oldest, now, ok := depth(ctx)
		if !ok {
			return nil
		}
		for ch, v := range pending {
			set := metric.WithAttributeSet(attribute.NewSet(AttrOutboxChannel.String(ch)))
			obs.ObserveInt64(n, v, set)
			if at, ok := oldest[ch]; ok {
				obs.ObserveFloat64(age, max(0, now.Sub(at).Seconds()), set)
			}
		}
		return nil
	}, n, age)
	if err != nil {
		return func() {}
	}
	return func() { _ = reg.Unregister() }
}
