package main

import (
	"io"
	"net/http"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/internal/testkit/telemetrytest"
)

// TestServerMetrics: with -metrics-addr the demo server serves /metrics in
// the Prometheus text format on a listener of its own, with the request
// metrics of the API traffic it served; the API's listener has no
// /metrics. Without the flag there is no such listener.
func TestServerMetrics(t *testing.T) {
	t.Parallel()
	s := launch("-db", ":memory:", "-metrics-addr", "127.0.0.1:0")
	base, stop := s.wait(t)
	defer stop()
	m := regexp.MustCompile(`msg="metrics listening" url=(http://\S+/metrics)`).FindStringSubmatch(s.stderr.String())
	require.Len(t, m, 2, "the metrics URL is logged: %s", s.stderr.String())
	metricsURL := m[1]

	for range 3 {
		req, err := http.NewRequestWithContext(t.Context(), "GET", base+"/api/v1/currencies?PageSize=1", nil)
		require.NoError(t, err)
		req.Header.Set("Brand-URL", demoBrandURL)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
	}
	f := telemetrytest.Scrape(t, metricsURL)
	assert.Equal(t, 3.0, f.Value("http_server_request_duration_seconds",
		"http_route", "/api/v1/currencies", "http_request_method", "GET", "http_response_status_code", "200"))
	assert.Contains(t, f, "target_info", "the resource (service.name) is exported")
	assert.Equal(t, "brandbase-server", telemetrytest.Label(f["target_info"].GetMetric()[0], "service_name"))

	resp, err := http.Get(base + "/metrics")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusNotFound, resp.StatusCode, "not on the API's listener")
}

// -metrics-addr is off by default.
func TestMetricsAddrOffByDefault(t *testing.T) {
	t.Parallel()
	o, err := parseFlags(nil, io.Discard)
	require.NoError(t, err)
	assert.Empty(t, o.metricsAddr)
	s := launch("-db", ":memory:")
	_, stop := s.wait(t)
	stop()
	assert.NotContains(t, s.stderr.String(), "metrics listening")
}
