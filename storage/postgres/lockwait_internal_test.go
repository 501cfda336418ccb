package postgres

import (
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/internal/testkit/pgtest"
	"github.com/brandbase/brandbase/storage/internal/sqlstore"
)

// TestLaterStatementLockWait: a transaction whose first statement took
// most of the bound (a slow statement, pg_sleep on the server) then waits
// for a row lock: the transaction lowers its server-side timeouts before
// that statement, so the server still ends the wait before the call's
// deadline. The call fails with envelope.Unavailable carrying the
// server's answer, and no outage is logged.
func TestLaterStatementLockWait(t *testing.T) {
	t.Parallel()
	url := pgtest.Schema(t)
	ctx := t.Context()
	const bound = time.Second
	var buf syncLog
	s, err := Open(ctx, url, WithQueryTimeout(bound), WithLogger(slog.New(slog.NewTextHandler(&buf, nil))))
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	brand := auth.Brand{ID: "b-1", URL: "later.example.com", Name: "Later", Status: auth.StatusActive,
		CreatedAt: time.Now().UTC().Truncate(time.Second)}
	require.NoError(t, s.CreateBrand(ctx, brand))

	locker, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	t.Cleanup(func() { locker.Close(ctx) })
	held, err := locker.Begin(ctx)
	require.NoError(t, err)
	defer held.Rollback(ctx) //nolint:errcheck // the test's end
	_, err = held.Exec(ctx, `SELECT 1 FROM brands WHERE id = $1 FOR UPDATE`, brand.ID)
	require.NoError(t, err)

	start := time.Now()
	err = dialect{s}.Write(ctx, func(tx sqlstore.DB) error {
		if _, err := tx.Exec(ctx, `SELECT pg_sleep(0.6)`); err != nil { // 0.6 s of the 1 s bound
			return err
		}
		_, err := tx.Exec(ctx, `UPDATE brands SET name = 'x' WHERE id = $1`, brand.ID)
		return err
	})
	took := time.Since(start)
	require.True(t, envelope.IsUnavailable(err), "a 503: %v", err)
	var pe *pgconn.PgError
	require.True(t, errors.As(err, &pe), "the server ended the wait, not the client-side deadline: %v", err)
	assert.Contains(t, []string{"55P03", "57014"}, pe.Code)
	assert.Less(t, took, bound)
	assert.Zero(t, buf.count(`msg="database unreachable"`), "no outage:\n%s", buf.String())
	assert.False(t, s.outage.down.Load())
}

// syncLog is a log buffer safe for concurrent writers.
type syncLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func (l *syncLog) count(s string) int { return strings.Count(l.String(), s) }
