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

// TestUnreachable: what fails a call for want of the database (a 503,
// unreachable), and of that what is an outage (noAnswer: the database
// cannot be reached), and what is an answer.
func TestUnreachable(t *testing.T) {
	t.Parallel()
	refused := connectError(t)
	for _, tc := range []struct {
		name           string
		err            error
		call, noAnswer bool
	}{
		{"nil", nil, false, false},
		{"no row", pgx.ErrNoRows, false, false},
		{"unique violation", &pgconn.PgError{Code: codeUniqueViolation}, false, false},
		{"syntax error", &pgconn.PgError{Code: "42601"}, false, false},
		{"bad encoding", &pgconn.PgError{Code: codeBadEncoding}, false, false},
		// One connection lost: the call fails, no outage.
		{"connection failure", &pgconn.PgError{Code: "08006"}, true, false},
		{"admin shutdown (terminated)", &pgconn.PgError{Code: "57P01"}, true, false},
		{"crash shutdown", &pgconn.PgError{Code: "57P02"}, true, false},
		{"cannot connect now", &pgconn.PgError{Code: "57P03"}, true, false},
		{"too many connections", &pgconn.PgError{Code: "53300"}, true, false},
		{"reset", fmt.Errorf("read: %w", syscall.ECONNRESET), true, false},
		{"unexpected EOF", fmt.Errorf("receive message failed: %w", io.ErrUnexpectedEOF), true, false},
		{"closed", fmt.Errorf("x: %w", net.ErrClosed), true, false},
		{"conn closed", fmt.Errorf("x: %w", pgconn.ErrConnClosed), true, false},
		// The call's bound, waiting for a connection of the pool.
		{"deadline", fmt.Errorf("x: %w", context.DeadlineExceeded), true, false},
		// Waits the server ended are its answer: see TestServerEnded
		// (they are still a 503 for the call).
		{"statement timeout", &pgconn.PgError{Code: "57014"}, false, false},
		{"lock timeout", &pgconn.PgError{Code: "55P03"}, false, false},
		// The database cannot be reached.
		{"connection refused", &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}, true, true},
		{"connect error", refused, true, true},
		{"outage", errOutage, true, true},
		{"other", errors.New("cannot scan"), false, false},
	} {
		assert.Equal(t, tc.call, unreachable(tc.err), "%s fails the call", tc.name)
		assert.Equal(t, tc.noAnswer, noAnswer(tc.err), "%s is an outage", tc.name)
	}
}

// connectError returns the error of a connection attempt to a port
// nothing listens on.
func connectError(t *testing.T) error {
	t.Helper()
	_, err := pgconn.Connect(t.Context(), fmt.Sprintf("postgres://u@127.0.0.1:%d/db?sslmode=disable", closedPort(t)))
	var ce *pgconn.ConnectError
	require.ErrorAs(t, err, &ce)
	return err
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
			o.observe(t.Context(), cause)
			assert.False(t, o.down.Load(), "no outage")
			o.failed(errors.New("down"))
			o.observe(t.Context(), cause)
			assert.False(t, o.down.Load(), "the server answered: the outage ends")
		})
	}
	for _, code := range []string{"23505", "08006", "57P01", "42601"} {
		assert.False(t, serverEnded(&pgconn.PgError{Code: code}), code)
	}
}

// TestOutageObserve: what pgx's tracer reports starts an outage (a
// connection that cannot be made), ends one (an answer, even a refusal),
// or neither (one connection lost, a wait for the pool, a caller that
// gave up).
func TestOutageObserve(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	o := &outage{log: slog.New(slog.NewTextHandler(&buf, nil)), now: time.Now, interval: time.Second}
	ctx := t.Context()
	gaveUp, cancel := context.WithCancel(ctx)
	cancel()
	refused := connectError(t)
	for _, tc := range []struct {
		name     string
		ctx      context.Context
		err      error
		was, now bool
	}{
		{"lost connection", ctx, io.ErrUnexpectedEOF, false, false},
		{"terminated", ctx, &pgconn.PgError{Code: "57P01", Severity: "FATAL"}, false, false},
		{"waited for the pool", ctx, context.DeadlineExceeded, false, false},
		{"too many connections", ctx, &pgconn.PgError{Code: "53300"}, false, false},
		{"caller gave up", gaveUp, refused, false, false},
		{"cannot connect", ctx, refused, false, true},
		{"lost connection, during an outage", ctx, io.ErrUnexpectedEOF, true, true},
		{"caller gave up, during an outage", gaveUp, nil, true, true},
		{"too many connections, during an outage", ctx, &pgconn.PgError{Code: "53300"}, true, false},
		{"answered", ctx, nil, true, false},
	} {
		if tc.was {
			o.failed(errors.New("down"))
		} else {
			o.ok()
		}
		o.observe(tc.ctx, tc.err)
		assert.Equal(t, tc.now, o.down.Load(), tc.name)
	}
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
