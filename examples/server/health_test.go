package main

import (
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestServerHealthAndReadiness: the demo server answers /healthz at once
// and /readyz once its reference-data index is built (the first probe
// starts the build), both without Brand-URL and in plain JSON; the API
// is served as before beside them.
func TestServerHealthAndReadiness(t *testing.T) {
	t.Parallel()
	base, _, stop := startServer(t, "-db", filepath.Join(t.TempDir(), "health.db"))
	defer stop()

	get := func(path string) (int, map[string]any) {
		resp, err := http.Get(base + path)
		require.NoError(t, err)
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		var m map[string]any
		require.NoError(t, json.Unmarshal(body, &m), "%s", body)
		return resp.StatusCode, m
	}
	status, body := get("/healthz")
	assert.Equal(t, http.StatusOK, status)
	assert.Equal(t, "ok", body["status"])

	require.Eventually(t, func() bool {
		status, _ := get("/readyz")
		return status == http.StatusOK
	}, waitBound(t), 100*time.Millisecond, "ready once the index is built")
	_, body = get("/readyz")
	assert.Equal(t, []any{
		map[string]any{"name": "store", "status": "ok"},
		map[string]any{"name": "migrations", "status": "ok"},
		map[string]any{"name": "refdata_index", "status": "ok"},
	}, body["checks"])

	status, body = get("/api/v1/currencies")
	assert.Equal(t, http.StatusBadRequest, status, "the API beside the probes: Brand-URL required")
	assert.Equal(t, false, body["success"])
}
