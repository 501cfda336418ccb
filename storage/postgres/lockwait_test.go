package postgres_test

import (
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/internal/testkit/pgtest"
	"github.com/brandbase/brandbase/storage/postgres"
)

// TestLockWaitIsNotAnOutage holds a brand's row locked from a connection
// of its own (SELECT ... FOR UPDATE in an open transaction) while the
// store, with a small query timeout, updates that row: the server ends
// the wait (lock_timeout, a margin before the call's deadline), and that
// call alone fails with envelope.Unavailable and a Retry-After. Meanwhile
// another brand's write and reads succeed, and after the wait too: no
// outage, no "database unreachable" line. Once the lock is released the
// update succeeds.
func TestLockWaitIsNotAnOutage(t *testing.T) {
	t.Parallel()
	url := pgtest.Schema(t)
	ctx := t.Context()
	const bound = time.Second
	var log syncBuffer
	s, err := postgres.Open(ctx, url, postgres.WithQueryTimeout(bound),
		postgres.WithLogger(slog.New(slog.NewTextHandler(&log, nil))))
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	now := time.Now().UTC().Truncate(time.Second)
	a := auth.Brand{ID: "b-a", URL: "a.example.com", Name: "A", Status: auth.StatusActive, CreatedAt: now}
	b := auth.Brand{ID: "b-b", URL: "b.example.com", Name: "B", Status: auth.StatusActive, CreatedAt: now}
	require.NoError(t, s.CreateBrand(ctx, a))
	require.NoError(t, s.CreateBrand(ctx, b))

	locker, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	t.Cleanup(func() { locker.Close(ctx) })
	held, err := locker.Begin(ctx)
	require.NoError(t, err)
	var id string
	require.NoError(t, held.QueryRow(ctx, `SELECT id FROM brands WHERE id = $1 FOR UPDATE`, a.ID).Scan(&id))

	type result struct {
		err  error
		took time.Duration
	}
	waited := make(chan result, 1)
	go func() {
		changed := a
		changed.Name = "A while locked"
		start := time.Now()
		err := s.UpdateBrand(ctx, changed)
		waited <- result{err, time.Since(start)}
	}()

	// While the update waits for the lock: other calls are served.
	for i := range 3 {
		other := b
		other.Name = "B " + string(rune('0'+i))
		require.NoError(t, s.UpdateBrand(ctx, other), "another brand's write does not wait")
		got, err := s.BrandByID(ctx, a.ID)
		require.NoError(t, err, "a read of the locked row does not wait")
		assert.Equal(t, "A", got.Name)
	}

	r := <-waited
	require.Error(t, r.err, "the update waited for the lock")
	assert.True(t, envelope.IsUnavailable(r.err), "a 503: %v", r.err)
	e := envelope.As(r.err)
	require.NotNil(t, e)
	assert.Equal(t, 1, e.RetryAfter, "the client is told to retry shortly")
	var pe *pgconn.PgError
	require.True(t, errors.As(r.err, &pe), "the server ended the wait, not the client-side deadline: %v", r.err)
	assert.Contains(t, []string{"55P03", "57014"}, pe.Code, "lock_timeout or statement_timeout")
	assert.Less(t, r.took, bound, "ended by the server before the call's bound")

	// After the wait too: no outage.
	got, err := s.BrandByID(ctx, b.ID)
	require.NoError(t, err, "a read after the lock wait")
	assert.Equal(t, "B 2", got.Name)
	require.NoError(t, s.Ping(ctx))
	assert.Zero(t, log.count(`msg="database unreachable"`), "a lock wait is not an outage:\n%s", &log.b)

	require.NoError(t, held.Rollback(ctx))
	changed := a
	changed.Name = "A after the lock"
	require.NoError(t, s.UpdateBrand(ctx, changed), "the lock released, the update succeeds")
	got, err = s.BrandByID(ctx, a.ID)
	require.NoError(t, err)
	assert.Equal(t, "A after the lock", got.Name)
	assert.Zero(t, log.count(`msg="database unreachable"`), "no outage at all:\n%s", &log.b)
}
