package telemetry

import (
	"context"

	"go.opentelemetry.io/otel/metric"
)

// Integrations records what the integrations service does: updates
// committed and If-Match (precondition) failures, each by kind of record
// (AppIntegration, Analytics, PaymentGateway). Build it with
// [NewIntegrations]; a nil *Integrations records nothing.
type Integrations struct {
	updates       *Counter
	preconditions *Counter
}

// Updated counts one committed change of a record of kind.
func (i *Integrations) Updated(ctx context.Context, kind string) {
	if i != nil {
		i.updates.Add(ctx, kind)
	}
}

// PreconditionFailed counts one update of a record of kind refused by its
// precondition.
func (i *Integrations) PreconditionFailed(ctx context.Context, kind string) {
	if i != nil {
		i.preconditions.Add(ctx, kind)
	}
}

// recordKinds are the kinds of integration records.
var recordKinds = []string{"AppIntegration", "Analytics", "PaymentGateway"}

// NewIntegrations returns the recorder of an integrations service, or nil
// when mp is nil.
func NewIntegrations(mp metric.MeterProvider) *Integrations {
	m := meter(mp)
	if m == nil {
		return nil
	}
	return &Integrations{
		updates: newCounter(counter(m, MetricIntegrationUpdates, "{update}",
			"Committed changes of integration records (one a revision written), by kind."), AttrRecordKind, recordKinds...),
		preconditions: newCounter(counter(m, MetricPreconditionFailures, "{update}",
			"Updates refused because their precondition (If-Match) did not hold, by kind."), AttrRecordKind, recordKinds...),
	}
}
