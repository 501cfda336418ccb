package postgres

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/envelope"
)

// TestUnreachable: what says the database cannot be reached, or did not
// answer within a bound, and what is an answer.
func TestUnreachable(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"no row", pgx.ErrNoRows, false},
		{"unique violation", &pgconn.PgError{Code: codeUniqueViolation}, false},
		{"syntax error", &pgconn.PgError{Code: "42601"}, false},
		{"bad encoding", &pgconn.PgError{Code: codeBadEncoding}, false},
		{"connection failure", &pgconn.PgError{Code: "08006"}, true},
		{"admin shutdown", &pgconn.PgError{Code: "57P01"}, true},
		{"crash shutdown", &pgconn.PgError{Code: "57P02"}, true},
		{"cannot connect now", &pgconn.PgError{Code: "57P03"}, true},
		{"too many connections", &pgconn.PgError{Code: "53300"}, true},
		// Waits the server ended are its answer, not unreachable: see
		// TestServerEnded (they are still a 503 for the call).
		{"statement timeout", &pgconn.PgError{Code: "57014"}, false},
		{"lock timeout", &pgconn.PgError{Code: "55P03"}, false},
		{"bound", fmt.Errorf("%w: x", errWaitBound), true},
		{"deadline", fmt.Errorf("x: %w", context.DeadlineExceeded), true},
		{"connection refused", &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}, true},
		{"reset", fmt.Errorf("read: %w", syscall.ECONNRESET), true},
		{"unexpected EOF", fmt.Errorf("receive message failed: %w", io.ErrUnexpectedEOF), true},
		{"closed", fmt.Errorf("x: %w", net.ErrClosed), true},
		{"other", errors.New("cannot scan"), false},
	} {
		assert.Equal(t, tc.want, unreachable(tc.err), tc.name)
	}
}

// TestServerEnded: a wait the server ended (lock or statement timeout,
// deadlock, serialization failure) fails the call with
// envelope.Unavailable and a short Retry-After, carrying the server's
// error, and is an answer to the outage log: it ends an outage and starts
// none.
func TestServerEnded(t *testing.T) {
	t.Parallel()
	for _, code := range []string{"57014", "55P03", "40P01", "40001"} {
		t.Run(code, func(t *testing.T) {
			t.Parallel()
			cause := &pgconn.PgError{Code: code}
			assert.True(t, serverEnded(fmt.Errorf("x: %w", cause)))
			assert.False(t, unreachable(cause))
			err := storeError(t.Context(), cause)
			require.True(t, envelope.IsUnavailable(err), "a 503 for the call: %v", err)
			assert.Equal(t, retryAfterWait, envelope.As(err).RetryAfter)
			assert.ErrorIs(t, err, cause)
			assert.NotContains(t, err.Error(), "unreachable")

			var buf bytes.Buffer
			o := &outage{log: slog.New(slog.NewTextHandler(&buf, nil)), now: time.Now, interval: time.Second}
			o.observeSince(t.Context(), time.Now(), cause)
			assert.False(t, o.down.Load(), "no outage")
			o.failed(errors.New("down"))
			o.observeSince(t.Context(), time.Now(), cause)
			assert.False(t, o.down.Load(), "the server answered: the outage ends")
		})
	}
	for _, code := range []string{"23505", "08006", "57P01", "42601"} {
		assert.False(t, serverEnded(&pgconn.PgError{Code: code}), code)
	}
}

// TestOutageClientDeadline: a client-side deadline starts an outage only
// when the server answered no statement of the store since the one that
// ran out was sent; while it answers others (the wait was a lock's, or
// the pool's), the call fails alone.
func TestOutageClientDeadline(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var buf bytes.Buffer
	o := &outage{log: slog.New(slog.NewTextHandler(&buf, nil)), now: func() time.Time { return now }, interval: time.Second}
	ctx := t.Context()
	deadline := fmt.Errorf("%w (1s): timeout", errWaitBound)

	sent := now
	now = now.Add(100 * time.Millisecond)
	o.observeSince(ctx, now, nil) // another call answered after sent
	now = now.Add(time.Second)
	o.observeSince(ctx, sent, deadline)
	assert.False(t, o.down.Load(), "the server answered another call meanwhile: no outage")
	o.observeSince(ctx, time.Time{}, deadline)
	assert.False(t, o.down.Load(), "a statement sent at an unknown time starts none")

	sent = now
	now = now.Add(time.Second)
	o.observeSince(ctx, sent, deadline)
	assert.True(t, o.down.Load(), "no answer since it was sent: an outage")
	assert.Equal(t, 1, strings.Count(buf.String(), `msg="database unreachable"`), buf.String())
}

// TestStoreErrorUnavailable: an unreachable database is
// envelope.Unavailable (wrapping the cause) unless the caller gave up,
// whose error stays its own.
func TestStoreErrorUnavailable(t *testing.T) {
	t.Parallel()
	cause := &pgconn.PgError{Code: "57P01"}
	err := storeError(context.Background(), cause)
	assert.True(t, envelope.IsUnavailable(err))
	assert.ErrorIs(t, err, cause)
	assert.Equal(t, envelope.KindInternal, envelope.KindOf(storeError(context.Background(), &pgconn.PgError{Code: "42601"})),
		"a bad statement stays an internal error")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = storeError(ctx, fmt.Errorf("x: %w", context.Canceled))
	assert.False(t, envelope.IsUnavailable(err), "the caller gave up")
	assert.ErrorIs(t, err, context.Canceled)
}

// TestOutageAdmitsOneProbe: no outage, every call goes; during one, a
// probe at a time and at most one per interval, the others fail at once;
// an answer ends it. Each outage is logged once when it starts and once
// when it ends.
func TestOutageAdmitsOneProbe(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	o := &outage{log: slog.New(slog.NewTextHandler(&buf, nil)), now: func() time.Time { return now }, interval: time.Second}
	ctx := context.Background()
	for range 3 {
		end, ok := o.admit()
		require.True(t, ok, "no outage")
		end()
	}
	lost := fmt.Errorf("dial: %w", syscall.ECONNREFUSED)
	o.observe(ctx, lost)
	o.observe(ctx, lost)
	_, ok := o.admit()
	assert.False(t, ok, "the call that found the outage was the last probe")
	now = now.Add(time.Second)
	end, ok := o.admit()
	require.True(t, ok, "a probe, an interval later")
	_, ok = o.admit()
	assert.False(t, ok, "another call while the probe runs")
	o.observe(ctx, lost)
	end()
	now = now.Add(500 * time.Millisecond)
	_, ok = o.admit()
	assert.False(t, ok, "no probe before the interval")
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	o.observe(cancelled, nil)
	assert.True(t, o.down.Load(), "a caller that gave up says nothing")
	o.observe(ctx, &pgconn.PgError{Code: "57014"})
	assert.False(t, o.down.Load(), "a statement timeout is an answer: the server is back")
	end, ok = o.admit()
	require.True(t, ok, "the outage ended")
	end()
	assert.Equal(t, 1, strings.Count(buf.String(), `msg="database unreachable"`), buf.String())
	assert.Equal(t, 1, strings.Count(buf.String(), `msg="database reachable again" outage=1.5s`), buf.String())
}

// TestStoreErrorFallbacks: the driver's unique and foreign-key violations
// and a missing row come out of storeError as the contract's fallback
// sentinels (their kind and text, not the driver's), carrying the driver
// error as their cause for logs.
func TestStoreErrorFallbacks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		err  error
		want *envelope.Error
	}{
		{"unique violation", &pgconn.PgError{Code: codeUniqueViolation, Message: "duplicate key value"}, envelope.ErrStoreConflict},
		{"foreign-key violation", &pgconn.PgError{Code: codeForeignKeyViolation, Message: "violates foreign key"}, envelope.ErrStoreNotFound},
		{"no row", pgx.ErrNoRows, envelope.ErrStoreNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := storeError(t.Context(), tc.err)
			require.ErrorIs(t, err, tc.want)
			assert.ErrorIs(t, err, tc.err, "the driver's error is the cause")
			assert.Equal(t, tc.want.Kind, envelope.KindOf(err))
			assert.Equal(t, tc.want.Message, envelope.As(err).Message, "the client reads the sentinel's text")
		})
	}
}
