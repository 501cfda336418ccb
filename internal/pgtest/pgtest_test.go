package pgtest_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/internal/pgtest"
)

func TestSchemasAreApart(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, b := pgtest.Schema(t), pgtest.Schema(t)
	require.NotEqual(t, a, b)
	ca, err := pgx.Connect(ctx, a)
	require.NoError(t, err)
	defer ca.Close(ctx)
	cb, err := pgx.Connect(ctx, b)
	require.NoError(t, err)
	defer cb.Close(ctx)

	_, err = ca.Exec(ctx, "CREATE TABLE t (v int); INSERT INTO t VALUES (1)")
	require.NoError(t, err)
	var n int
	assert.Error(t, cb.QueryRow(ctx, "SELECT count(*) FROM t").Scan(&n), "b must not see a's table")
	require.NoError(t, ca.QueryRow(ctx, "SELECT count(*) FROM t").Scan(&n))
	assert.Equal(t, 1, n)
	var sim float64
	require.NoError(t, cb.QueryRow(ctx, "SELECT similarity('brandbase', 'brand')").Scan(&sim), "pg_trgm is installed")
	assert.Greater(t, sim, 0.0)
}

func TestWithSearchPath(t *testing.T) {
	t.Parallel()
	got, err := pgtest.WithSearchPath("postgres://u@h:5432/db?sslmode=disable", "s1,public")
	require.NoError(t, err)
	assert.Equal(t, "postgres://u@h:5432/db?search_path=s1%2Cpublic&sslmode=disable", got)
}
