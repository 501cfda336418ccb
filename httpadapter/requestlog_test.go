package httpadapter_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/httpadapter"
)

// requestLines serves one list request naming the brand in another spelling
// and one without Brand-URL through a handler with opts and a JSON logger
// that keeps keep and above, and returns the "request" lines it wrote.
func requestLines(t *testing.T, keep slog.Level, opts ...httpadapter.Option) (lines []map[string]any, f *fixture) {
	t.Helper()
	var buf bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: keep}))
	f = newFixture(t, stores["memory"], append([]httpadapter.Option{httpadapter.WithLogger(logger)}, opts...)...)
	f.do(t, "GET", "/api/v1/currencies?PageSize=1", map[string]string{"Brand-URL": "https://Shop.Example.com/"}, "")
	f.do(t, "GET", "/api/v1/countries", nil, "")
	for line := range strings.Lines(buf.String()) {
		var rec map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &rec), line)
		if rec["msg"] == "request" {
			lines = append(lines, rec)
		}
	}
	return lines, f
}

func TestRequestLogLevel(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		keep  slog.Level
		opts  []httpadapter.Option
		level string // of the lines written; "" for none
	}{
		{"by default at DEBUG", slog.LevelDebug, nil, "DEBUG"},
		{"by default not to a logger that keeps INFO", slog.LevelInfo, nil, ""},
		{"at INFO when set", slog.LevelInfo, []httpadapter.Option{httpadapter.WithRequestLogLevel(slog.LevelInfo)}, "INFO"},
		{"at WARN when set", slog.LevelDebug, []httpadapter.Option{httpadapter.WithRequestLogLevel(slog.LevelWarn)}, "WARN"},
		{"not at DEBUG to a logger that keeps INFO", slog.LevelInfo, []httpadapter.Option{httpadapter.WithRequestLogLevel(slog.LevelDebug)}, ""},
		{"off", slog.LevelDebug, []httpadapter.Option{httpadapter.WithoutRequestLog()}, ""},
		{"the last option wins", slog.LevelDebug, []httpadapter.Option{httpadapter.WithoutRequestLog(), httpadapter.WithRequestLogLevel(slog.LevelInfo)}, "INFO"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			lines, _ := requestLines(t, tc.keep, tc.opts...)
			if tc.level == "" {
				assert.Empty(t, lines)
				return
			}
			require.Len(t, lines, 2)
			for _, l := range lines {
				assert.Equal(t, tc.level, l["level"])
			}
		})
	}
}

// A request line names the brand by its normalised URL, never its ID, and
// the duration in milliseconds as a number.
func TestRequestLogLine(t *testing.T) {
	t.Parallel()
	lines, f := requestLines(t, slog.LevelInfo, httpadapter.WithRequestLogLevel(slog.LevelInfo))
	require.Len(t, lines, 2)
	list, noBrand := lines[0], lines[1]

	assert.Equal(t, "GET", list["method"])
	assert.Equal(t, "/api/v1/currencies", list["path"])
	assert.EqualValues(t, 200, list["status"])
	assert.Positive(t, list["bytes"])
	assert.Equal(t, "shop.example.com", list["brand"], "the brand's normalised URL")
	ms, ok := list["duration_ms"].(float64)
	require.True(t, ok, "duration_ms is a number: %v", list["duration_ms"])
	assert.Greater(t, ms, 0.0)
	assert.Less(t, ms, 60_000.0, "milliseconds, not nanoseconds")
	assert.NotContains(t, list, "duration")
	for k, v := range list {
		assert.NotEqual(t, f.brand.ID, v, "the brand's ID is not logged (%s)", k)
	}

	assert.EqualValues(t, 400, noBrand["status"])
	assert.NotContains(t, noBrand, "brand", "no brand named, none logged")
	assert.Contains(t, noBrand, "duration_ms")
}
