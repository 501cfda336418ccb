package telemetry

import (
	"context"
	"errors"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/brandbase/brandbase/envelope"
)

// Store call attribute keys and names: OpenTelemetry's database semantic
// conventions.
const (
	AttrDBSystem          = attribute.Key("db.system.name")
	AttrDBOperation       = attribute.Key("db.operation.name")
	AttrDBQueryText       = attribute.Key("db.query.text")
	MetricDBCallDuration  = "db.client.operation.duration"
	SpanStorePrefix       = "store "
	DBSystemSQLite        = "sqlite"
	DBSystemPostgreSQL    = "postgresql"
	DBSystemMemory        = "memory"
	errorTypeOther        = "_OTHER"
	errorTypeCanceled     = "canceled"
	errorTypeDeadline     = "deadline_exceeded"
	storeSpanKindInternal = trace.SpanKindClient
)

// StoreCalls records the calls the domain services make to their store: a
// client span "store <Method>" and the duration of each, by operation (the
// method's name) and, on failure, error type (the stable code of the
// domain's error, such as "not_found", "canceled" or "deadline_exceeded",
// else "_OTHER"). Build it with [NewStoreCalls]; a nil *StoreCalls records
// nothing.
type StoreCalls struct {
	system   string
	tracer   trace.Tracer
	duration metric.Float64Histogram
	ops      sync.Map // operation name → *storeOp
}

// storeOp holds one operation's prepared span name, start options and
// metric attribute set.
type storeOp struct {
	name      string
	spanName  string
	spanOpts  []trace.SpanStartOption
	okOpts    []metric.RecordOption
	errorOpts sync.Map // error type → []metric.RecordOption
}

// NewStoreCalls returns the recorder of the store calls of a store of the
// given system (DBSystemSQLite, DBSystemPostgreSQL, DBSystemMemory), or nil
// when both providers are nil.
func NewStoreCalls(system string, mp metric.MeterProvider, tp trace.TracerProvider) *StoreCalls {
	if mp == nil && tp == nil {
		return nil
	}
	s := &StoreCalls{system: system, tracer: Tracer(tp)}
	if m := meter(mp); m != nil {
		s.duration = seconds(m, MetricDBCallDuration,
			"Duration of the store calls the services make, by store system, operation and error type.")
	}
	return s
}

func (s *StoreCalls) op(name string) *storeOp {
	if o, ok := s.ops.Load(name); ok {
		return o.(*storeOp)
	}
	attrs := []attribute.KeyValue{AttrDBSystem.String(s.system), AttrDBOperation.String(name)}
	o := &storeOp{name: name, spanName: SpanStorePrefix + name,
		spanOpts: []trace.SpanStartOption{trace.WithSpanKind(storeSpanKindInternal), trace.WithAttributes(attrs...)},
		okOpts:   recordOpts(attribute.NewSet(attrs...))}
	actual, _ := s.ops.LoadOrStore(name, o)
	return actual.(*storeOp)
}

// StoreCall is one store call under way; End it when the call returns.
type StoreCall struct {
	s     *StoreCalls
	op    *storeOp
	span  trace.Span
	start time.Time
}

// Start begins the store call op (the store method's name): the returned
// context carries its span, when ctx holds a span to be its parent, for
// the store's own spans (PostgreSQL statements) to be its children.
func (s *StoreCalls) Start(ctx context.Context, op string) (context.Context, StoreCall) {
	if s == nil {
		return ctx, StoreCall{}
	}
	c := StoreCall{s: s, op: s.op(op), start: time.Now()}
	// Only under a span (a request's, a build's): a call outside any, such
	// as the revision read of a metric collection, makes no root span.
	if s.tracer != nil && trace.SpanContextFromContext(ctx).IsValid() {
		ctx, c.span = s.tracer.Start(ctx, c.op.spanName, c.op.spanOpts...)
	}
	return ctx, c
}

// End records the call's duration and ends its span, with err's type when
// err is not nil. A domain answer such as "not found" or "exists" is
// recorded with its error type but does not mark the span an error; any
// other error does.
func (c StoreCall) End(ctx context.Context, err error) {
	if c.s == nil {
		return
	}
	var typ string
	domain := false
	if err != nil {
		typ, domain = ErrorType(err)
	}
	if c.s.duration != nil {
		opts := c.op.okOpts
		if err != nil {
			opts = c.op.errorOptions(c.s.system, typ)
		}
		c.s.duration.Record(ctx, Since(c.start), opts...)
	}
	if c.span != nil {
		if err != nil {
			c.span.SetAttributes(AttrErrorType.String(typ))
			if !domain {
				c.span.SetStatus(codes.Error, err.Error())
			}
		}
		c.span.End()
	}
}

func (o *storeOp) errorOptions(system, typ string) []metric.RecordOption {
	if v, ok := o.errorOpts.Load(typ); ok {
		return v.([]metric.RecordOption)
	}
	opts := recordOpts(attribute.NewSet(AttrDBSystem.String(system), AttrDBOperation.String(o.name), AttrErrorType.String(typ)))
	o.errorOpts.Store(typ, opts)
	return opts
}

// ErrorType returns the bounded error.type of a store error and whether it
// is a domain answer (not found, exists, invalid, conflict): the stable
// code of a brandbase error (such as "not_found" or "user_exists"),
// "canceled" or "deadline_exceeded" for a context's end, "unavailable" for
// a store that could not answer, else "_OTHER".
func ErrorType(err error) (typ string, domain bool) {
	switch {
	case errors.Is(err, context.Canceled):
		return errorTypeCanceled, false
	case errors.Is(err, context.DeadlineExceeded):
		return errorTypeDeadline, false
	}
	var e *envelope.Error
	if errors.As(err, &e) && e.Code != "" {
		switch e.Kind {
		case envelope.KindNotFound, envelope.KindConflict, envelope.KindInvalid, envelope.KindPreconditionFailed:
			return e.Code, true
		}
		return e.Code, false
	}
	return errorTypeOther, false
}
