package telemetry_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/brandbase/brandbase/internal/telemetry"
)

// BenchmarkRecording is what recording alone costs a request (Start and
// End of the HTTP recorder) and a key check (one cache lookup counted),
// with an SDK meter provider (a manual reader nobody collects) and, for
// the request, an SDK tracer provider sampling every span into an
// exporter that drops it.
func BenchmarkRecording(b *testing.B) {
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()), sdktrace.WithSampler(sdktrace.AlwaysSample()))
	b.Cleanup(func() {
		_ = mp.Shutdown(b.Context())
		_ = tp.Shutdown(b.Context())
	})
	patterns := []string{"GET /api/v1/cities"}
	r := httptest.NewRequest(http.MethodGet, "/api/v1/cities?Name=par", nil)
	for _, bc := range []struct {
		name string
		cfg  telemetry.HTTPConfig
	}{
		{"request/off", telemetry.HTTPConfig{Patterns: patterns}},
		{"request/metrics", telemetry.HTTPConfig{MeterProvider: mp, Patterns: patterns}},
		{"request/metrics+traces", telemetry.HTTPConfig{MeterProvider: mp, TracerProvider: tp, Patterns: patterns}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			s := telemetry.NewHTTPServer(bc.cfg)
			b.ReportAllocs()
			for b.Loop() {
				ctx, rq := s.Start(r)
				rq.End(ctx, "GET /api/v1/cities", http.StatusOK)
			}
		})
	}
	b.Run("lookup/metrics", func(b *testing.B) {
		l := telemetry.NewAuth(mp, nil).CacheLookups(telemetry.CacheKey)
		b.ReportAllocs()
		for b.Loop() {
			l.Record(true)
		}
	})
}
