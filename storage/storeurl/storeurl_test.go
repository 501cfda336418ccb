package storeurl_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/internal/pgtest"
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
