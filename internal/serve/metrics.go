package serve

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

// MetricsPath is where the metrics listener serves the metrics.
const MetricsPath = "/metrics"

// Metrics is a metrics pipeline: the App records through the
// OpenTelemetry API into Provider, whose Prometheus exporter a listener of
// its own serves at /metrics in the Prometheus text format. The exporter, not a client_golang registry of brandbase's own,
// keeps one pipeline: the library speaks only the OTel API, and a host that
// exports by OTLP instead swaps the reader, not the instrumentation.
type Metrics struct {
	// Provider is the meter provider to give the App and the store.
	Provider *sdkmetric.MeterProvider
	srv      *http.Server
	ln       net.Listener
}

// StartMetrics builds the pipeline of the service named service and
// listens on addr; serve it with Serve, stop it with Close.
func StartMetrics(addr, service string, logger *slog.Logger) (*Metrics, error) {
	reg := prometheus.NewRegistry()
	exp, err := otelprom.New(otelprom.WithRegisterer(reg))
	if err != nil {
		return nil, fmt.Errorf("metrics exporter: %w", err)
	}
	res := resource.NewSchemaless(semconv.ServiceName(service))
	m := &Metrics{Provider: sdkmetric.NewMeterProvider(sdkmetric.WithReader(exp), sdkmetric.WithResource(res))}
	mux := http.NewServeMux()
	mux.Handle("GET "+MetricsPath, promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn)}))
	m.srv = NewHTTPServer(mux, logger)
	if m.ln, err = net.Listen("tcp", addr); err != nil {
		_ = m.Provider.Shutdown(context.Background())
		return nil, fmt.Errorf("metrics listener: %w", err)
	}
	logger.Info("metrics listening", "url", "http://"+m.ln.Addr().String()+MetricsPath)
	return m, nil
}

// Serve serves /metrics until Close; its error, other than the one of a
// closed server, is logged.
func (m *Metrics) Serve(logger *slog.Logger) {
	if err := m.srv.Serve(m.ln); err != nil && err != http.ErrServerClosed {
		logger.Error("metrics listener", "error", err)
	}
}

// Close stops the listener and the provider.
func (m *Metrics) Close(ctx context.Context) {
	_ = m.srv.Shutdown(ctx)
	_ = m.Provider.Shutdown(ctx)
}
