// Package telemetrytest gives brandbase's tests real OpenTelemetry SDK
// providers and a reader of Prometheus scrapes: a meter provider exporting
// through the OTel Prometheus exporter on a registry of its own (served
// by an http.Handler, as /metrics is), a tracer provider recording spans in
// memory. It is for tests only.
package telemetrytest

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/require"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// MeterProvider returns an SDK meter provider whose metrics the returned
// handler serves in the Prometheus text format, as a /metrics endpoint
// does. It is shut down when t ends.
func MeterProvider(t testing.TB) (*sdkmetric.MeterProvider, http.Handler) {
	t.Helper()
	reg := prometheus.NewRegistry()
	exp, err := otelprom.New(otelprom.WithRegisterer(reg))
	require.NoError(t, err)
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(exp))
	t.Cleanup(func() { _ = mp.Shutdown(context.Background()) })
	return mp, promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
}

// TracerProvider returns an SDK tracer provider that records every span,
// synchronously, in the returned exporter.
func TracerProvider(t testing.TB) (*sdktrace.TracerProvider, *tracetest.InMemoryExporter) {
	t.Helper()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp), sdktrace.WithSampler(sdktrace.AlwaysSample()))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	return tp, exp
}

// Quiet returns SDK providers that record everything and export nothing,
// for benchmarks of what recording costs: a meter provider with a manual
// reader nobody collects, a tracer provider sampling every span into an
// exporter that drops it (batched, as a host's would be).
func Quiet(t testing.TB) (*sdkmetric.MeterProvider, *sdktrace.TracerProvider) {
	t.Helper()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()), sdktrace.WithSampler(sdktrace.AlwaysSample()))
	t.Cleanup(func() {
		_ = mp.Shutdown(context.Background())
		_ = tp.Shutdown(context.Background())
	})
	return mp, tp
}

// Families are the metric families of one scrape, by name.
type Families map[string]*dto.MetricFamily

// ScrapeHandler scrapes h (a /metrics handler) and parses its answer.
func ScrapeHandler(t testing.TB, h http.Handler) Families {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	require.Equal(t, http.StatusOK, rec.Code)
	return Parse(t, rec.Body)
}

// Scrape GETs url (a /metrics endpoint) and parses its answer.
func Scrape(t testing.TB, url string) Families {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.True(t, strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain"), resp.Header.Get("Content-Type"))
	return Parse(t, resp.Body)
}

// Parse reads the Prometheus text format.
func Parse(t testing.TB, r io.Reader) Families {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(r)
	require.NoError(t, err)
	return fams
}

// Series returns the series of family name whose labels include every
// label of want ("name", "value" pairs).
func (f Families) Series(name string, want ...string) []*dto.Metric {
	fam, ok := f[name]
	if !ok {
		return nil
	}
	var out []*dto.Metric
	for _, m := range fam.GetMetric() {
		if hasLabels(m, want) {
			out = append(out, m)
		}
	}
	return out
}

func hasLabels(m *dto.Metric, want []string) bool {
	for i := 0; i+1 < len(want); i += 2 {
		found := false
		for _, l := range m.GetLabel() {
			if l.GetName() == want[i] && l.GetValue() == want[i+1] {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// Value returns the sum over the series of family name with the labels
// of want: a counter's or a gauge's value, a histogram's count.
func (f Families) Value(name string, want ...string) float64 {
	var sum float64
	for _, m := range f.Series(name, want...) {
		switch {
		case m.Counter != nil:
			sum += m.Counter.GetValue()
		case m.Gauge != nil:
			sum += m.Gauge.GetValue()
		case m.Histogram != nil:
			sum += float64(m.Histogram.GetSampleCount())
		}
	}
	return sum
}

// Sum returns the sum of the observations of the histograms of family
// name with the labels of want.
func (f Families) Sum(name string, want ...string) float64 {
	var sum float64
	for _, m := range f.Series(name, want...) {
		sum += m.GetHistogram().GetSampleSum()
	}
	return sum
}

// Label returns the value of label name of m, or "".
func Label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}
