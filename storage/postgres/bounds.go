package postgres

// Bounded waits on pgx's own machinery, and what is an outage
// (docs/reliability.md). A call of the store (Store.call) runs under one
// context.WithTimeout: its bound less a margin, when pgx asks the server
// to cancel the statement ([watch]). One call's failure ([unreachable],
// not [noAnswer]) fails that call alone (503, Retry-After 1). An outage
// ([noAnswer]: no new connection can be made, or a deadline passed with no
// answer) is logged once at each end ([outage], fed by pgx's tracer and
// [watch]); meanwhile one probe at a time goes through, others fail at once.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/multitracer"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/brandbase/brandbase/envelope"
)

// errOutage fails a call at once during an outage, but for the probes.
var errOutage = errors.New("the database is unreachable (an outage is under way; it is probed now and then)")

// watchCalls sets the pool's context watcher ([watch]: the connection of
// a call with no answer is closed within margin of its deadline, pgx's
// 100 ms pause after a cancel request included) and tracer (o).
func watchCalls(cfg *pgxpool.Config, margin time.Duration, o *outage) {
	delay := max(margin-100*time.Millisecond, margin/2)
	cfg.ConnConfig.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &watch{CancelRequestContextWatcherHandler: pgconn.CancelRequestContextWatcherHandler{Conn: c, DeadlineDelay: delay}, outage: o}
	}
	if t := cfg.ConnConfig.Tracer; t != nil {
		cfg.ConnConfig.Tracer = multitracer.New(t, o)
	} else {
		cfg.ConnConfig.Tracer = o
	}
}

// watch is a pool connection's context watcher: at a statement's
// deadline pgx asks the server to cancel it; no answer within
// DeadlineDelay, and pgx closes the connection: an outage.
type watch struct {
	pgconn.CancelRequestContextWatcherHandler
	outage *outage
	close  time.Time // when pgx closes the connection unless the server answers
}

func (w *watch) HandleCancel(ctx context.Context) {
	w.close = time.Now().Add(w.DeadlineDelay)
	w.CancelRequestContextWatcherHandler.HandleCancel(ctx)
}

func (w *watch) HandleUnwatchAfterCancel() {
	if !time.Now().Before(w.close) {
		w.outage.failed(fmt.Errorf("no answer to a cancel request within %s", w.DeadlineDelay))
	}
	w.CancelRequestContextWatcherHandler.HandleUnwatchAfterCancel()
}

// serverMargin returns the margin of a call of bound d: a fifth of d, at
// least 50 ms, at most half of d. serverTimeout returns d less it (at
// least 1 ms): the statement_timeout and lock_timeout.
func serverMargin(d time.Duration) time.Duration {
	return min(max(d/5, 50*time.Millisecond), d/2)
}

func serverTimeout(d time.Duration) time.Duration {
	return max(d-serverMargin(d), time.Millisecond)
}

// SQLSTATE codes of answers that fail one call.
const (
	codeQueryCanceled        = "57014" // statement_timeout (or a cancel request)
	codeLockNotAvailable     = "55P03" // lock_timeout
	codeDeadlockDetected     = "40P01"
	codeSerializationFailure = "40001"
	codeTooManyConnections   = "53300"
)

// serverEnded reports whether err is the server's answer that it ended a
// wait: a lock or statement timeout, a cancel, a deadlock, a conflict.
func serverEnded(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) &&
		slices.Contains([]string{codeQueryCanceled, codeLockNotAvailable, codeDeadlockDetected, codeSerializationFailure}, pe.Code)
}

// noAnswer reports whether err says that the database cannot be reached:
// a failed connection attempt (but 53300: an answer), a wait unanswered
// past its deadline and margin (pgconn.Timeout, but a context done before
// sending), a refused dial, errOutage.
func noAnswer(err error) bool {
	var ce *pgconn.ConnectError
	var pe *pgconn.PgError
	if errors.As(err, &ce) {
		return !errors.As(err, &pe) || pe.Code != codeTooManyConnections
	}
	return pgconn.Timeout(err) && !pgconn.SafeToRetry(err) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, errOutage)
}

// unreachable reports whether err fails its call for want of the database
// (503, as serverEnded does): noAnswer, the call's bound, a connection lost
// (SQLSTATE class 08, 57P01..57P03, 53300, an end of file, a network
// error, closed), anything pgx never sent. Others are answers.
func unreachable(err error) bool {
	var ce *pgconn.ConnectError
	var pe *pgconn.PgError
	var ne net.Error
	switch {
	case err == nil:
		return false
	case errors.As(err, &ce):
		return true
	case errors.As(err, &pe):
		return pe.Code == codeTooManyConnections || strings.HasPrefix(pe.Code, "08") || strings.HasPrefix(pe.Code, "57P")
	}
	return noAnswer(err) || errors.Is(err, context.DeadlineExceeded) || pgconn.SafeToRetry(err) || errors.As(err, &ne) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, pgconn.ErrConnClosed)
}

// retryAfterWait is the Retry-After, in seconds, of one call's failure.
const retryAfterWait = 1

// unavailable returns envelope.Unavailable for a call the database could
// not serve, caused by err: Retry-After retryAfterWait for one call's
// failure, envelope.DefaultRetryAfter for an outage.
func unavailable(err error) error {
	switch {
	case serverEnded(err):
		return envelope.Unavailable(fmt.Errorf("postgres: the database ended the wait: %w", err), retryAfterWait)
	case noAnswer(err):
		return envelope.Unavailable(fmt.Errorf("postgres: database unreachable: %w", err), envelope.DefaultRetryAfter)
	}
	return envelope.Unavailable(fmt.Errorf("postgres: the call failed (its connection, or its bound): %w", err), retryAfterWait)
}

// outage logs when the database becomes unreachable and when it is
// reachable again, once each. As the pgx tracer of the pool's and the
// listener's connections, it sees each connection attempt and statement
// (observe); [watch] reports too. During an outage it admits a call (the
// probe) only when no other runs and the last started interval ago or
// more (over the bound: a request waits out one bound at most).
type outage struct {
	log      *slog.Logger
	now      func() time.Time
	interval time.Duration
	down     atomic.Bool // fast path of admit and observe
	mu       sync.Mutex
	from     time.Time // start of the current outage; zero when none
	probe    time.Time // start of the last probe (or of the outage)
	probing  bool      // a probe runs
}

// admit reports whether a call may go to the database now, and its end.
func (o *outage) admit() (end func(), ok bool) {
	if !o.down.Load() {
		return func() {}, true
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	switch now := o.now(); {
	case o.from.IsZero(): // ended meanwhile
		return func() {}, true
	case o.probing || now.Sub(o.probe) < o.interval:
		return nil, false
	}
	o.probing, o.probe = true, o.now()
	return sync.OnceFunc(func() { o.mu.Lock(); o.probing = false; o.mu.Unlock() }), true
}

// observe records the outcome err of a statement or connection attempt
// under ctx: noAnswer starts an outage, nil or the server's answer ends
// one; a caller that gave up (ctx canceled) says nothing.
func (o *outage) observe(ctx context.Context, err error) {
	var pe *pgconn.PgError
	var ce *pgconn.ConnectError
	switch {
	case errors.Is(ctx.Err(), context.Canceled):
	case noAnswer(err):
		o.failed(err)
	case o.down.Load() && (err == nil || errors.As(err, &pe) && !errors.As(err, &ce)):
		o.ok()
	}
}

// The tracer's methods: see outage.
func (*outage) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	return ctx
}
func (o *outage) TraceQueryEnd(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryEndData) {
	o.observe(ctx, d.Err)
}
func (*outage) TraceConnectStart(ctx context.Context, _ pgx.TraceConnectStartData) context.Context {
	return ctx
}
func (o *outage) TraceConnectEnd(ctx context.Context, d pgx.TraceConnectEndData) {
	o.observe(ctx, d.Err)
}

func (o *outage) failed(err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.from.IsZero() {
		o.from, o.probe = o.now(), o.now()
		o.down.Store(true)
		o.log.Warn("database unreachable", "error", err)
	}
}

func (o *outage) ok() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.from.IsZero() {
		o.log.Info("database reachable again", "outage", o.now().Sub(o.from).Round(time.Millisecond))
		o.from = time.Time{}
		o.down.Store(false)
	}
}

// bulkKey holds the rows of a bulk write (bulk); -1: Open's own work.
type bulkKey struct{}

// bulk returns ctx marked as a write of n rows: its transaction has the
// query timeout for each started thousand rows (25 for 25,000 cities).
func bulk(ctx context.Context, n int) context.Context {
	return context.WithValue(ctx, bulkKey{}, n)
}

// unbounded returns ctx marked as Open's own work (migrations, the default
// dataset): Open's caller bounds it with its context.
func unbounded(ctx context.Context) context.Context { return bulk(ctx, -1) }

// bound returns the bound of a call with ctx: the query timeout, for each
// started thousand rows of a bulk write; none (0) for Open's own work.
func (s *Store) bound(ctx context.Context) time.Duration {
	n, _ := ctx.Value(bulkKey{}).(int)
	if n < 0 {
		return 0
	}
	return time.Duration(max(1, (n+999)/1000)) * s.timeout
}

// call starts a call of the store: its context (deadline: its bound less
// the margin) and its end; errOutage during an outage, but for a probe.
func (s *Store) call(ctx context.Context) (context.Context, func(), error) {
	end, ok := s.outage.admit()
	if !ok {
		return nil, nil, errOutage
	}
	d := s.bound(ctx)
	if d == 0 {
		return ctx, end, nil
	}
	ctx, cancel := context.WithTimeout(ctx, d-serverMargin(s.timeout))
	return ctx, func() { cancel(); end() }, nil
}
