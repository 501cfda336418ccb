package postgres

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

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

// WithMeterProvider makes the store report its pool (connections by state
// idle and used, the maximum, the acquires waiting for a connection being
// opened: pgxpool does not count those waiting for a busy one) and its listener
// (connected 1 or 0, reconnections) to mp, as observable instruments read
// at each collection. Nil (the default) reports nothing.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(o *options) { o.meterProvider = mp }
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
