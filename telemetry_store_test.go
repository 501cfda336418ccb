package brandbase_test

import (
	"net/http"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/internal/pgtest"
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
// db.operation.name), and on PostgreSQL each store call has its
// statements' spans as children (db.query.text without values).
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
			if tc.system == "postgresql" {
				assert.Positive(t, statements, "pgx statement spans")
			} else {
				assert.Zero(t, statements)
			}
		})
	}
}
