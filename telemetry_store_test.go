package brandbase_test

import (
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/internal/testkit/pgtest"
	"github.com/brandbase/brandbase/internal/testkit/telemetrytest"
)

// spanAttrs returns a span's attributes as strings.
func spanAttrs(s tracetest.SpanStub) map[string]string {
	m := map[string]string{}
	for _, kv := range s.Attributes {
		m[string(kv.Key)] = kv.Value.Emit()
	}
	return m
}

// TestStoreSpans: a request through an App on SQLite and on PostgreSQL
// has a child span per store call ("store <Method>", db.system.name,
// db.operation.name), the one layer that instruments store calls, the
// same on every store: no statement span under it on either (the pgx
// statement tracer that measured PostgreSQL's calls a second time is gone).
func TestStoreSpans(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, system string
		path         func(t *testing.T) string
	}{
		{"sqlite", "sqlite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "spans.db") }},
		{"postgres", "postgresql", func(t *testing.T) string { return pgtest.Schema(t) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := newObservedOn(t, tc.path(t), brandbase.Config{})
			ok := o.login(t, "alice", obsPassword)
			require.Equal(t, http.StatusOK, ok.status)
			o.spans.Reset()
			require.Equal(t, http.StatusOK,
				o.do(t, http.MethodGet, "/api/v1/app-integrations/analytics/"+o.analytics.ID, obsBrand, ok.data["authKey"].(string), "").status)
			spans := o.spans.GetSpans()
			server := findSpan(t, spans, "GET /api/v1/app-integrations/analytics/{id}")
			byID := map[trace.SpanID]tracetest.SpanStub{}
			for _, s := range spans {
				byID[s.SpanContext.SpanID()] = s
			}
			var ops []string
			statements := 0
			for _, s := range spans {
				attrs := spanAttrs(s)
				switch {
				case s.Name == "store "+attrs["db.operation.name"]:
					assert.Equal(t, server.SpanContext.SpanID(), s.Parent.SpanID(), "%s is a child of the request", s.Name)
					assert.Equal(t, trace.SpanKindClient, s.SpanKind)
					assert.Equal(t, tc.system, attrs["db.system.name"])
					ops = append(ops, attrs["db.operation.name"])
				case attrs["db.query.text"] != "":
					statements++
					parent, found := byID[s.Parent.SpanID()]
					require.True(t, found, "statement %q has a parent among the request's spans", s.Name)
					assert.Contains(t, parent.Name, "store ", "a statement is a child of a store call")
					assert.Equal(t, "postgresql", attrs["db.system.name"])
					assert.Equal(t, s.Name, attrs["db.operation.name"])
					assert.NotContains(t, attrs["db.query.text"], o.analytics.ID, "no values in the query text")
				}
			}
			// The key check reads the key pair; the read of the
			// configuration follows.
			assert.Contains(t, ops, "KeyPairByAuthHash")
			assert.Contains(t, ops, "ConfigByID")
			assert.Zero(t, statements, "store calls are instrumented once: no statement spans")
		})
	}
}

// TestMetricsScrapeStore: after real traffic through an App on SQLite and
// on PostgreSQL, a scrape finds the store calls by operation, the
// reference-data snapshot's builds and lag, the lists answered and the
// list cache's hits and misses; on PostgreSQL also the pool's
// connections and the listener's state.
func TestMetricsScrapeStore(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, system string
		path         func(t *testing.T) string
	}{
		{"sqlite", "sqlite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "scrape.db") }},
		{"postgres", "postgresql", func(t *testing.T) string { return pgtest.Schema(t) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := newObservedOn(t, tc.path(t), brandbase.Config{})
			for range 3 {
				require.Equal(t, http.StatusOK, o.do(t, http.MethodGet, "/api/v1/countries", obsBrand, "", "").status)
			}
			require.Equal(t, http.StatusUnauthorized, o.login(t, "alice", "wrong password").status)

			f := telemetrytest.ScrapeHandler(t, o.metrics)
			const calls = "db_client_operation_duration_seconds"
			op := func(name string) []string { return []string{"db_system_name", tc.system, "db_operation_name", name} }
			assert.Positive(t, f.Value(calls, op("RefDataRevision")...), "a revision read before each list")
			assert.Equal(t, 1.0, f.Value(calls, op("ReadRefData")...), "one snapshot read whole")
			assert.Positive(t, f.Value(calls, op("UserByUsername")...))
			assert.Positive(t, f.Value(calls, append(op("BrandByURL"), "error_type", "not_found")...)+
				f.Value(calls, op("BrandByURL")...), "brands read")
			assert.Empty(t, f.Series(calls, "error_type", "_OTHER"), "no unexpected store error")

			assert.Equal(t, 1.0, f.Value("brandbase_refdata_builds_total"))
			assert.Equal(t, 1.0, f.Value("brandbase_refdata_ready_duration_seconds"), "time to ready, once")
			assert.Equal(t, 0.0, f.Value("brandbase_refdata_revision_lag"))
			assert.NotEmpty(t, f.Series("brandbase_refdata_revision_lag"), "the lag is observed")
			assert.Equal(t, 1.0, f.Value("brandbase_refdata_lists_total", "brandbase_refdata_snapshot", "current"),
				"the first list; the others answer from the list cache")
			lookups := "brandbase_httpadapter_list_cache_lookups_total"
			assert.Equal(t, 2.0, f.Value(lookups, "brandbase_cache_result", "hit"))
			assert.Equal(t, 1.0, f.Value(lookups, "brandbase_cache_result", "miss"))

			if tc.system != "postgresql" {
				assert.Empty(t, f.Series("db_client_connection_count"))
				return
			}
			assert.Positive(t, f.Value("db_client_connection_count", "db_client_connection_state", "idle")+
				f.Value("db_client_connection_count", "db_client_connection_state", "used"))
			assert.Positive(t, f.Value("db_client_connection_max"))
			assert.NotEmpty(t, f.Series("db_client_connection_pending_requests"))
			assert.Equal(t, 1.0, f.Value("brandbase_postgres_listener_connected"))
			assert.NotEmpty(t, f.Series("brandbase_postgres_listener_reconnects_total"))
			// The set-up's writes are notified with their time, and heard
			// by this instance's own listener: their delay is recorded.
			require.Eventually(t, func() bool {
				return telemetrytest.ScrapeHandler(t, o.metrics).Value("brandbase_auth_change_delay_seconds") >= 1
			}, 10*time.Second, 10*time.Millisecond, "a change's delay recorded")
			f = telemetrytest.ScrapeHandler(t, o.metrics)
			delays := f.Value("brandbase_auth_change_delay_seconds")
			assert.InDelta(t, 0, f.Sum("brandbase_auth_change_delay_seconds")/delays, 2, "heard within a few ms")
			if t.Failed() {
				for name := range f {
					t.Log(name)
				}
			}
		})
	}
}
