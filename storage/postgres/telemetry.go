package postgres

import (
	"context"
	"strings"
	"unicode"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/multitracer"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/brandbase/brandbase/internal/telemetry"
)

// Metric names of the store's pool and listener (see
// docs/observability.md).
const (
	MetricConnectionCount   = "db.client.connection.count"
	MetricConnectionMax     = "db.client.connection.max"
	MetricConnectionPending = "db.client.connection.pending_requests"
	MetricListenerConnected = "brandbase.postgres.listener.connected"
	MetricListenerReconnect = "brandbase.postgres.listener.reconnects"
)

// WithTracerProvider makes the store trace its statements with tp: a
// client span per statement (named after its first keyword, with
// db.system.name postgresql, db.operation.name and db.query.text, the
// parameterised SQL, which carries no values), started only under a span
// already in the statement's context (such as brandbase's "store <Method>"
// span), so that migrations and the listener's own statements make no
// root spans. A tracer the host set on the pool's ConnConfig keeps
// running beside it. Nil (the default) traces nothing.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(o *options) { o.tracerProvider = tp }
}

// WithMeterProvider makes the store report its pool (connections by state
// idle and used, the maximum, the acquires waiting for a connection being
// opened: pgxpool does not count those waiting for a busy one) and its listener
// (connected 1 or 0, reconnections) to mp, as observable instruments read
// at each collection. Nil (the default) reports nothing.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(o *options) { o.meterProvider = mp }
}

// traceStatements sets the statement tracer of tp on cfg, beside any
// tracer already set.
func traceStatements(cfg *pgxpool.Config, tp trace.TracerProvider) {
	if tp == nil {
		return
	}
	t := &statementTracer{tracer: telemetry.Tracer(tp)}
	if cfg.ConnConfig.Tracer != nil {
		cfg.ConnConfig.Tracer = multitracer.New(cfg.ConnConfig.Tracer, t)
		return
	}
	cfg.ConnConfig.Tracer = t
}

// statementTracer is a pgx.QueryTracer making a span of each statement run
// under a span.
type statementTracer struct {
	tracer trace.Tracer
}

// TraceQueryStart starts the statement's span when ctx holds a span.
func (t *statementTracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return ctx
	}
	op := firstKeyword(data.SQL)
	ctx, _ = t.tracer.Start(ctx, op, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
		telemetry.AttrDBSystem.String(telemetry.DBSystemPostgreSQL),
		telemetry.AttrDBOperation.String(op),
		telemetry.AttrDBQueryText.String(data.SQL)))
	return ctx
}

// TraceQueryEnd ends the span TraceQueryStart started, if any.
func (t *statementTracer) TraceQueryEnd(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryEndData) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	if data.Err != nil {
		typ, _ := telemetry.ErrorType(data.Err)
		span.SetAttributes(telemetry.AttrErrorType.String(typ))
		span.SetStatus(codes.Error, data.Err.Error())
	}
	span.End()
}

// firstKeyword returns the upper-cased first word of a statement (SELECT,
// INSERT, WITH...), after any leading space and comments.
func firstKeyword(sql string) string {
	s := strings.TrimLeftFunc(sql, unicode.IsSpace)
	for strings.HasPrefix(s, "--") || strings.HasPrefix(s, "/*") {
		if strings.HasPrefix(s, "--") {
			_, s, _ = strings.Cut(s, "\n")
		} else {
			_, s, _ = strings.Cut(s, "*/")
		}
		s = strings.TrimLeftFunc(s, unicode.IsSpace)
	}
	end := strings.IndexFunc(s, func(r rune) bool { return !unicode.IsLetter(r) })
	if end >= 0 {
		s = s[:end]
	}
	if s == "" {
		return "_OTHER"
	}
	return strings.ToUpper(s)
}

// observe registers the store's observable pool and listener instruments
// with mp; Close unregisters them.
func (s *Store) observe(mp metric.MeterProvider) error {
	if mp == nil {
		return nil
	}
	m := mp.Meter(telemetry.ScopeName)
	count, err := m.Int64ObservableUpDownCounter(MetricConnectionCount, metric.WithUnit("{connection}"),
		metric.WithDescription("Connections of the store's pool, by state (idle, used)."))
	if err != nil {
		return err
	}
	maxConns, err := m.Int64ObservableUpDownCounter(MetricConnectionMax, metric.WithUnit("{connection}"),
		metric.WithDescription("The most connections the store's pool opens."))
	if err != nil {
		return err
	}
	pending, err := m.Int64ObservableUpDownCounter(MetricConnectionPending, metric.WithUnit("{request}"),
		metric.WithDescription("Acquires of the store's pool waiting for a connection being opened."))
	if err != nil {
		return err
	}
	connected, err := m.Int64ObservableGauge(MetricListenerConnected,
		metric.WithDescription("1 while the store listens for other instances' changes, else 0."))
	if err != nil {
		return err
	}
	reconnects, err := m.Int64ObservableCounter(MetricListenerReconnect, metric.WithUnit("{reconnection}"),
		metric.WithDescription("Times the store's listener connected again after losing its connection."))
	if err != nil {
		return err
	}
	system := telemetry.AttrDBSystem.String(telemetry.DBSystemPostgreSQL)
	pool := attribute.Key("db.client.connection.pool.name").String(s.schema)
	idle := metric.WithAttributes(system, pool, attribute.String("db.client.connection.state", "idle"))
	used := metric.WithAttributes(system, pool, attribute.String("db.client.connection.state", "used"))
	plain := metric.WithAttributes(system, pool)
	reg, err := m.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		st := s.pool.Stat()
		o.ObserveInt64(count, int64(st.IdleConns()), idle)
		o.ObserveInt64(count, int64(st.AcquiredConns()), used)
		o.ObserveInt64(maxConns, int64(st.MaxConns()), plain)
		o.ObserveInt64(pending, int64(st.ConstructingConns()), plain)
		var up int64
		if s.Listening() {
			up = 1
		}
		o.ObserveInt64(connected, up, plain)
		if s.multi.listener != nil {
			o.ObserveInt64(reconnects, s.multi.listener.reconnects.Load(), plain)
		}
		return nil
	}, count, maxConns, pending, connected, reconnects)
	if err != nil {
		return err
	}
	s.observed = reg
	return nil
}
