package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
)

// metricsPath is where the -metrics-addr listener serves the metrics.
const metricsPath = "/metrics"

// metrics is the demo server's metrics pipeline: the App records through
// the OpenTelemetry API into provider, whose Prometheus exporter the
// listener of -metrics-addr serves at /metrics in the Prometheus text
// format. The exporter, not a client_golang registry of brandbase's own,
// keeps one pipeline: the library speaks only the OTel API, and a host that
// exports by OTLP instead swaps the reader, not the instrumentation.
type metrics struct {
	provider *sdkmetric.MeterProvider
	srv      *http.Server
	ln       net.Listener
}

// startMetrics builds the pipeline and listens on addr; serve it with
// serve, stop it with close.
func startMetrics(addr string, logger *slog.Logger) (*metrics, error) {
	reg := prometheus.NewRegistry()
	exp, err := otelprom.New(otelprom.WithRegisterer(reg))
	if err != nil {
		return nil, fmt.Errorf("metrics exporter: %w", err)
	}
	res := resource.NewSchemaless(semconv.ServiceName("brandbase-server"))
	m := &metrics{provider: sdkmetric.NewMeterProvider(sdkmetric.WithReader(exp), sdkmetric.WithResource(res))}
	mux := http.NewServeMux()
	mux.Handle("GET "+metricsPath, promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn)}))
	m.srv = newHTTPServer(mux, logger)
	if m.ln, err = net.Listen("tcp", addr); err != nil {
		_ = m.provider.Shutdown(context.Background())
		return nil, fmt.Errorf("metrics listener: %w", err)
	}
	logger.Info("metrics listening", "url", "http://"+m.ln.Addr().String()+metricsPath)
	return m, nil
}

// serve serves /metrics until close; its error, other than the one of a
// closed server, is logged.
func (m *metrics) serve(logger *slog.Logger) {
	if err := m.srv.Serve(m.ln); err != nil && err != http.ErrServerClosed {
		logger.Error("metrics listener", "error", err)
	}
}

// close stops the listener and the provider.
func (m *metrics) close(ctx context.Context) {
	_ = m.srv.Shutdown(ctx)
	_ = m.provider.Shutdown(ctx)
}
