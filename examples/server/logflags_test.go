package main

import (
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// -log-requests sets the level of the line logged per request (or turns it
// off), and -log-level the lowest level the log keeps: by default the
// request lines are at DEBUG and the log keeps INFO, so none is written.
func TestRequestLogFlags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		line string // a pattern of the request line; "" for none
	}{
		{"default: none", nil, ""},
		{"at info", []string{"-log-requests", "info"}, `level=INFO msg=request method=GET path=/api/v1/currencies status=200 bytes=\d+ duration_ms=[0-9.]+ brand=demo.brandbase.test`},
		{"at debug, kept by -log-level debug", []string{"-log-level", "debug"}, `level=DEBUG msg=request method=GET path=/api/v1/currencies status=200 bytes=\d+ duration_ms=[0-9.]+ brand=demo.brandbase.test`},
		{"off, even at -log-level debug", []string{"-log-requests", "off", "-log-level", "debug"}, ""},
		{"at warn, kept by -log-level warn", []string{"-log-requests", "WARN", "-log-level", "warn"}, `level=WARN msg=request .*brand=demo.brandbase.test`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := launch(append([]string{"-db", ":memory:"}, tc.args...)...)
			base, stop := s.wait(t)
			req, err := http.NewRequestWithContext(t.Context(), "GET", base+"/api/v1/currencies?PageSize=1", nil)
			require.NoError(t, err)
			req.Header.Set("Brand-URL", "https://Demo.Brandbase.Test/")
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			stop()
			logs := s.stderr.String()
			if tc.line == "" {
				assert.NotContains(t, logs, "msg=request", logs)
				return
			}
			assert.Regexp(t, regexp.MustCompile(tc.line), logs)
			assert.Equal(t, 1, strings.Count(logs, "msg=request"), logs)
		})
	}
}

func TestRequestLogFlagsRefuseBadValues(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"-log-requests", "loud"}, {"-log-level", "off"}} {
		_, err := parseFlags(args, io.Discard)
		assert.Error(t, err, "%v", args)
	}
}
