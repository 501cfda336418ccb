package telemetry_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/brandbase/brandbase/internal/telemetry"
)

// Without providers every recorder is nil, and every method of a nil one
// does nothing (and does not panic).
func TestNilRecordersDoNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := telemetry.NewHTTPServer(telemetry.HTTPConfig{Patterns: []string{"GET /x"}})
	require.Nil(t, s)
	r := httptest.NewRequest(http.MethodGet, "/x", nil)
	got, rq := s.Start(r)
	assert.Equal(t, r.Context(), got, "the request's own context")
	rq.End(ctx, "GET /x", 200)
	s.Refused(ctx, "lists", true)

	a := telemetry.NewAuth(nil, nil)
	require.Nil(t, a)
	a.Login(ctx, telemetry.LoginSuccess)
	a.HashWaited(ctx, time.Now(), telemetry.HashAcquired)
	a.ChangeHeard(ctx, "user", time.Now(), time.Now())
	a.CacheLookups(telemetry.CacheKey).Record(true)
	hctx, span := a.StartHash(ctx, telemetry.HashVerify)
	assert.Equal(t, ctx, hctx)
	telemetry.EndSpan(span, nil)

	i := telemetry.NewIntegrations(nil)
	require.Nil(t, i)
	i.Updated(ctx, "Analytics")
	i.PreconditionFailed(ctx, "Analytics")
}

// A method outside the standard nine is recorded as _OTHER and a request
// no pattern served under the route "unmatched", so that a client cannot
// make series of its own.
func TestHTTPAttributesAreBounded(t *testing.T) {
	t.Parallel()
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	s := telemetry.NewHTTPServer(telemetry.HTTPConfig{MeterProvider: mp, Patterns: []string{"GET /api/v1/cities"}})
	for _, tc := range []struct {
		method, pattern string
		status          int
	}{
		{"BREW", "", http.StatusMethodNotAllowed},
		{"GET", "GET /api/v1/cities", http.StatusOK},
		{"GET", "", http.StatusNotFound},
		{"HEAD", "GET /api/v1/cities", http.StatusOK},
	} {
		r := httptest.NewRequest(tc.method, "/api/v1/cities/secret-path", nil)
		ctx, rq := s.Start(r)
		rq.End(ctx, tc.pattern, tc.status)
	}
	var rm metricdata.ResourceMetrics
	require.NoError(t, reader.Collect(context.Background(), &rm))
	var got []string
	for _, sm := range rm.ScopeMetrics {
		assert.Equal(t, telemetry.ScopeName, sm.Scope.Name)
		for _, m := range sm.Metrics {
			if m.Name != telemetry.MetricHTTPDuration {
				continue
			}
			for _, dp := range m.Data.(metricdata.Histogram[float64]).DataPoints {
				method, _ := dp.Attributes.Value("http.request.method")
				route, _ := dp.Attributes.Value("http.route")
				got = append(got, method.AsString()+" "+route.AsString())
				_, hasErr := dp.Attributes.Value(attribute.Key("error.type"))
				assert.False(t, hasErr, "no 5xx here")
			}
		}
	}
	assert.ElementsMatch(t, []string{"_OTHER unmatched", "GET /api/v1/cities", "GET unmatched", "HEAD /api/v1/cities"}, got)
}
