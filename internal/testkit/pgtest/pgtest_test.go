package pgtest_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/internal/testkit/pgtest"
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

func TestClusterStopStartFreezeThaw(t *testing.T) {
	t.Parallel()
	c := pgtest.NewCluster(t)
	shared := pgtest.URL(t)
	ctx := context.Background()
	exec := func(url, sql string) error {
		ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			return err
		}
		defer conn.Close(context.Background())
		_, err = conn.Exec(ctx, sql)
		return err
	}
	require.NoError(t, exec(c.URL(), "CREATE TABLE t (v int); INSERT INTO t VALUES (1)"))

	c.Stop(t)
	assert.Error(t, exec(c.URL(), "SELECT 1"), "a stopped cluster refuses connections")
	c.Start(t)
	require.NoError(t, exec(c.URL(), "SELECT 1/v FROM t WHERE v = 1"), "data survives a crash")

	conn, err := pgx.Connect(ctx, c.URL())
	require.NoError(t, err)
	defer conn.Close(context.Background())
	c.Freeze(t)
	start := time.Now()
	qctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	_, err = conn.Exec(qctx, "SELECT 1")
	cancel()
	assert.Error(t, err, "a frozen cluster answers nothing")
	assert.Less(t, time.Since(start), 2*time.Second)
	assert.Error(t, exec(c.URL(), "SELECT 1"), "nor accepts a session")
	assert.NoError(t, exec(shared, "SELECT 1"), "other servers run on")
	c.Thaw(t)
	assert.NoError(t, exec(c.URL(), "SELECT count(*) FROM t"), "a thawed cluster answers again")
}

func TestStatPPID(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		stat string
		want int
	}{
		{"123 (postgres) S 45 123 123 0", 45},
		{"124 (a) b (c) R 7 1 1", 7},
	} {
		got, err := pgtest.StatPPID([]byte(tc.stat))
		require.NoError(t, err)
		assert.Equal(t, tc.want, got, tc.stat)
	}
	_, err := pgtest.StatPPID([]byte("garbage"))
	assert.Error(t, err)
}
