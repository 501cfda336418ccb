package storeurl_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/httpadapter"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/internal/testkit/pgtest"
	"github.com/brandbase/brandbase/storage/postgres"
	"github.com/brandbase/brandbase/storage/storeurl"
)

func TestOpenStore(t *testing.T) {
	t.Parallel()
	for _, path := range []string{storeurl.MemoryPath, t.TempDir() + "/open.db"} {
		s, err := storeurl.Open(t.Context(), path, storeurl.Options{})
		require.NoError(t, err, path)
		n, err := s.DatasetVersion(t.Context())
		require.NoError(t, err)
		assert.NotEmpty(t, n, "%s: the default dataset is loaded", path)
		require.NoError(t, s.Close())
	}
	_, err := storeurl.Open(t.Context(), "bad?path", storeurl.Options{})
	assert.Error(t, err)
}

func TestIsPostgresURL(t *testing.T) {
	t.Parallel()
	for path, want := range map[string]bool{
		"postgres://u@h/db": true, "postgresql://h/db?sslmode=disable": true, "POSTGRES://h/db": true,
		"brandbase.db": false, ":memory:": false, "postgres.db": false, "./postgres://x": false,
	} {
		assert.Equal(t, want, storeurl.IsPostgresURL(path), path)
	}
}

// TestOpenStorePostgres opens a PostgreSQL database by URL, in both
// spellings of the scheme: a store that reports changes and shares rate
// limits.
func TestOpenStorePostgres(t *testing.T) {
	t.Parallel()
	url := pgtest.Schema(t)
	for _, u := range []string{url, "postgresql" + strings.TrimPrefix(url, "postgres")} {
		s, err := storeurl.Open(t.Context(), u, storeurl.Options{})
		require.NoError(t, err, u)
		n, err := s.DatasetVersion(t.Context())
		require.NoError(t, err)
		assert.NotEmpty(t, n, "the default dataset is loaded")
		assert.Implements(t, (*brandbase.ChangeFeed)(nil), s)
		assert.Implements(t, (*brandbase.SharedLimiter)(nil), s)
		require.NoError(t, s.Close())
	}
}

func TestOpenStorePostgresUnreachable(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	_, err := storeurl.Open(ctx, "postgres://nobody@127.0.0.1:1/none?sslmode=disable&connect_timeout=5", storeurl.Options{})
	assert.Error(t, err)
}

func TestRedact(t *testing.T) {
	t.Parallel()
	for db, want := range map[string]string{
		"brandbase.db":                         "brandbase.db",
		":memory:":                             ":memory:",
		"postgres://app:s3cret@db/bb":          "postgres://app:xxxxx@db/bb",
		"postgresql://app@db/bb?sslmode=allow": "postgresql://app@db/bb?sslmode=allow",
		"postgres://a:b@h:99999999999/x y%zz":  "postgres://(unreadable URL)",
	} {
		assert.Equal(t, want, storeurl.Redact(db), db)
	}
}

// TestSchema reads a database's schema status without opening its store
// (nothing is created or migrated), then through an App on the opened
// store, whose readiness names a newer schema as degraded.
func TestSchema(t *testing.T) {
	t.Parallel()
	paths := map[string]func(t *testing.T) string{
		"sqlite": func(t *testing.T) string { return filepath.Join(t.TempDir(), "schema.db") },
	}
	if os.Getenv(pgtest.EnvURL) != "" {
		paths["postgres"] = func(t *testing.T) string { return pgtest.Schema(t) }
	}
	for name, newPath := range paths {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			path := newPath(t)
			st, err := storeurl.Schema(ctx, path)
			require.NoError(t, err)
			assert.Empty(t, st.Applied)
			assert.Empty(t, st.Newer)
			assert.NotEmpty(t, st.Pending, "a new database has every migration pending")
			assert.False(t, st.UpToDate())
			if name == "sqlite" {
				_, err := os.Stat(path)
				assert.ErrorIs(t, err, fs.ErrNotExist, "reading the status creates no file")
			}
			pending := st.Pending

			store, err := storeurl.Open(ctx, path, storeurl.Options{})
			require.NoError(t, err)
			t.Cleanup(func() { store.Close() })
			st, err = storeurl.Schema(ctx, path)
			require.NoError(t, err)
			assert.True(t, st.UpToDate())
			assert.Equal(t, pending, st.Applied)

			app, err := brandbase.New(store, brandbase.Config{SecretKeys: integrations.EphemeralKeyRing()})
			require.NoError(t, err)
			t.Cleanup(func() { app.Close() })
			require.NoError(t, app.WarmUp(ctx))
			ast, err := app.Schema(ctx)
			require.NoError(t, err)
			assert.Equal(t, st, ast)

			execSQL(t, path, `INSERT INTO schema_migrations (version, name) VALUES (9998, '9998_newer.sql')`)
			st, err = storeurl.Schema(ctx, path)
			require.NoError(t, err)
			assert.Equal(t, []string{"9998_newer.sql"}, st.Newer)
			assert.Equal(t, pending, st.Applied, "the applied ones are still known")

			rec := httptest.NewRecorder()
			app.Readiness(httpadapter.ReadinessConfig{Logger: slog.New(slog.DiscardHandler)}).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
			assert.Equal(t, http.StatusOK, rec.Code, "a newer schema is served")
			assert.Contains(t, rec.Body.String(), `"degraded":["migrations"]`)
		})
	}
	st, err := storeurl.Schema(t.Context(), storeurl.MemoryPath)
	require.NoError(t, err)
	assert.NotEmpty(t, st.Pending, "the memory store has no schema before it opens")
}

// execSQL runs one statement on the database path names.
func execSQL(t *testing.T, path, stmt string) {
	t.Helper()
	if storeurl.IsPostgresURL(path) {
		cfg, err := postgres.ConnConfig(path)
		require.NoError(t, err)
		conn, err := pgx.ConnectConfig(t.Context(), cfg)
		require.NoError(t, err)
		defer conn.Close(t.Context())
		_, err = conn.Exec(t.Context(), stmt)
		require.NoError(t, err)
		return
	}
	db, err := sql.Open("sqlite", path)
	require.NoError(t, err)
	defer db.Close()
	_, err = db.ExecContext(t.Context(), stmt)
	require.NoError(t, err)
}

// syncBuffer is a bytes.Buffer safe for the store's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestOpenLogger: the PostgreSQL store's own lines (its listener's) go to
// Options.Logger, not to slog.Default().
func TestOpenLogger(t *testing.T) {
	t.Parallel()
	url := pgtest.Schema(t)
	var logs syncBuffer
	store, err := storeurl.Open(t.Context(), url, storeurl.Options{Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	require.NoError(t, err)
	t.Cleanup(func() { store.Close() })
	channel := store.(*postgres.Store).Channel()
	cfg, err := postgres.ConnConfig(url)
	require.NoError(t, err)
	conn, err := pgx.ConnectConfig(t.Context(), cfg)
	require.NoError(t, err)
	defer conn.Close(t.Context())
	require.Eventually(t, func() bool {
		var n int
		err := conn.QueryRow(t.Context(), `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
			WHERE datname = current_database() AND query ILIKE '%LISTEN%' AND query LIKE '%' || $1 || '%'`, channel).Scan(&n)
		return err == nil && n > 0
	}, 10*time.Second, 50*time.Millisecond, "the store's listening connection")
	require.Eventually(t, func() bool { return strings.Contains(logs.String(), "listening connection was lost") },
		10*time.Second, 20*time.Millisecond, "the listener's line reaches the logger given")
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		assert.True(t, json.Valid([]byte(line)), line)
	}
}
