package postgres

// Bounded waits. Every wait on the database has a bound, so that a
// database that stops, crashes or stalls costs a caller at most that bound
// and an envelope.Unavailable error (the HTTP adapter answers 503 with
// Retry-After), never a hang:
//
//   - connecting (a pool connection, the listener's, Open's): the URL's
//     connect_timeout, else the connect timeout option (5 s by default);
//   - each call of the store (waiting for a pool connection, then every
//     statement of the call, or of its transaction): the query timeout
//     option (5 s by default); a bulk write (a batch of cities) gets the
//     query timeout for each started thousand rows;
//   - the listener's pings and reconnections (listen.go).
//
// The statements of a call run under a context whose deadline is the
// call's bound ([boundedPool], [boundedTx]). The server is told to give up
// first: unless the URL sets them, statement_timeout and lock_timeout are
// the bound less a margin ([serverTimeout]), and a transaction lowers
// them (SET LOCAL) before a statement that would otherwise outlast the
// call's deadline less half the margin. So a wait the server ends (a lock
// or statement timeout, a deadlock, a serialization failure: [serverEnded])
// comes back as the server's answer before the client-side deadline, and
// a client-side deadline means that the server did not answer.
//
// Two kinds of failure are told apart, once, here:
//
//   - one call's failure: the server answered, but ended the call's wait.
//     That call fails with envelope.Unavailable (503, Retry-After: retry
//     shortly); nothing else changes.
//   - an outage: a connection failure ([unreachable]), or a client-side
//     deadline while the server answered no statement of the store since
//     the failed call began (a pool exhausted by calls that the server
//     serves, or waits that the server is about to end, are no outage;
//     a client-side deadline after an answer is one call's failure, and
//     a server that stopped answering is found by the calls that follow).
//     The store's outage log ([outage]) logs it once and, until the server
//     answers again, lets one probe at a time through.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/brandbase/brandbase/envelope"
)

// Default bounds of the waits on the database.
const (
	// DefaultConnectTimeout bounds a connection attempt (TCP connect, TLS,
	// authentication) unless the URL sets connect_timeout.
	DefaultConnectTimeout = 5 * time.Second
	// DefaultQueryTimeout bounds each call of the store: waiting for a
	// pool connection and running its statements.
	DefaultQueryTimeout = 5 * time.Second
)

// errWaitBound is the cause of a context that a bound of the store ended.
var errWaitBound = errors.New("the database did not answer within the bound")

// errOutage fails a call at once during an outage, between two probes of
// the database.
var errOutage = errors.New("the database is unreachable (an outage is under way; it is probed now and then)")

// WithConnectTimeout bounds each connection attempt (dial, TLS and
// authentication) to d, instead of the URL's connect_timeout or, without
// one, DefaultConnectTimeout. A server that accepts and never answers
// fails Open within d.
func WithConnectTimeout(d time.Duration) Option {
	return func(o *options) { o.connectTimeout = d }
}

// WithQueryTimeout bounds each call of the store to d, instead of
// DefaultQueryTimeout: waiting for a pool connection and running the
// call's statements (a write's whole transaction). A call that runs out
// fails with envelope.Unavailable. Unless the URL sets them, the
// connections' statement_timeout and lock_timeout are d less a margin (a
// fifth of d, at least 50 ms), so that the server ends a wait, and
// answers so, before the call's deadline: a lock wait the server ends
// fails that call alone, and is never taken for an outage.
func WithQueryTimeout(d time.Duration) Option {
	return func(o *options) { o.queryTimeout = d }
}

// WithLogger sets the logger of the store's outage log and of its
// listener, instead of slog.Default().
func WithLogger(l *slog.Logger) Option {
	return func(o *options) { o.log = l }
}

// applyBounds fills in the bounds of o and sets them on cfg: the connect
// timeout (the option, else the URL's, else the default) and the
// server-side timeouts the URL leaves unset.
func applyBounds(o *options, cfg *pgxpool.Config) {
	if o.connectTimeout <= 0 {
		o.connectTimeout = cfg.ConnConfig.ConnectTimeout
	}
	if o.connectTimeout <= 0 {
		o.connectTimeout = DefaultConnectTimeout
	}
	cfg.ConnConfig.ConnectTimeout = o.connectTimeout
	if o.queryTimeout <= 0 {
		o.queryTimeout = DefaultQueryTimeout
	}
	ms := strconv.FormatInt(serverTimeout(o.queryTimeout).Milliseconds(), 10)
	o.serverParams = nil
	for _, p := range serverParams {
		if _, ok := cfg.ConnConfig.RuntimeParams[p]; !ok {
			cfg.ConnConfig.RuntimeParams[p] = ms
			o.serverParams = append(o.serverParams, p)
		}
	}
	if o.log == nil {
		o.log = slog.Default()
	}
}

// ConnConfig returns the configuration of one connection to the database
// that url names, parsed as Open parses it: the pool_* parameters are
// accepted (and ignored: they set a pool), and the connect timeout and the
// server-side timeouts are those Open would use with opts. For a host
// that needs a connection of its own beside the store's pool (a session
// lock, say).
func ConnConfig(url string, opts ...Option) (*pgx.ConnConfig, error) {
	cfg, _, err := parseConfig(url, opts)
	if err != nil {
		return nil, err
	}
	return cfg.ConnConfig, nil
}

// parseConfig applies opts and parses url into the pool configuration
// that Open and ConnConfig both use, with the bounds applied.
func parseConfig(url string, opts []Option) (*pgxpool.Config, options, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, o, fmt.Errorf("postgres: parse url: %w", err)
	}
	applyBounds(&o, cfg)
	return cfg, o, nil
}

// serverMargin returns how long before the client-side deadline of a
// call of bound d the server is to end the call's waits: a fifth of d, at
// least 50 ms and at most half of d.
func serverMargin(d time.Duration) time.Duration {
	return min(max(d/5, 50*time.Millisecond), d/2)
}

// serverTimeout returns the statement_timeout and lock_timeout of a call
// of bound d: d less its margin, at least a millisecond.
func serverTimeout(d time.Duration) time.Duration {
	return max(d-serverMargin(d), time.Millisecond)
}

// SQLSTATE codes of the waits the server ends: it answers, the call alone
// fails.
const (
	codeQueryCanceled        = "57014" // statement_timeout (or a cancel request)
	codeLockNotAvailable     = "55P03" // lock_timeout
	codeDeadlockDetected     = "40P01"
	codeSerializationFailure = "40001"
)

// serverEnded reports whether err is the server's answer that it ended a
// wait of the call: a lock or statement timeout, a deadlock it broke, a
// serialization failure. The server answered: no outage, but the call
// failed for want of time or luck, and a retry may succeed.
func serverEnded(err error) bool {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return false
	}
	switch pe.Code {
	case codeQueryCanceled, codeLockNotAvailable, codeDeadlockDetected, codeSerializationFailure:
		return true
	}
	return false
}

// unreachable reports whether err says that the database could not be
// reached or did not answer within a bound, as opposed to an answer (a
// refused statement, no row, a wait the server ended: [serverEnded]): a
// timeout (pgconn.Timeout, a deadline, a bound of this package), a failed
// connection attempt, a network error or a connection lost midway, an
// error pgx reports as safe to retry (nothing was sent), and the server's
// connection-class errors (SQLSTATE class 08; 57P01..57P03: shutting down,
// crashed, starting up; 53300: too many connections). It is the one place
// that tells them apart.
func unreachable(err error) bool {
	if err == nil {
		return false
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "57P01", "57P02", "57P03", "53300":
			return true
		}
		return strings.HasPrefix(pe.Code, "08")
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	return errors.Is(err, errWaitBound) || errors.Is(err, errOutage) || pgconn.Timeout(err) || errors.Is(err, context.DeadlineExceeded) ||
		errors.As(err, &ce) || errors.As(err, &ne) || pgconn.SafeToRetry(err) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// retryAfterWait is the Retry-After, in seconds, of a call whose wait the
// server ended: the lock holder, or the conflicting transaction, is
// likely done by then.
const retryAfterWait = 1

// unavailable returns the store's error for a call the database could not
// serve: envelope.Unavailable, its cause err. A wait the server ended
// (serverEnded) advises a retry after retryAfterWait; a call's bound that
// ran out, or an unreachable database, after envelope.DefaultRetryAfter.
func unavailable(err error) error {
	if serverEnded(err) {
		return envelope.Unavailable(fmt.Errorf("postgres: the database ended the wait: %w", err), retryAfterWait)
	}
	if errors.Is(err, errWaitBound) { // says so itself; an outage or not (outage.observeSince)
		return envelope.Unavailable(fmt.Errorf("postgres: %w", err), envelope.DefaultRetryAfter)
	}
	return envelope.Unavailable(fmt.Errorf("postgres: database unreachable: %w", err), envelope.DefaultRetryAfter)
}

// outage logs when the database becomes unreachable and when it is
// reachable again, once each, however many calls fail meanwhile. During
// an outage it admits a call to the database (the probe, whose answer ends
// the outage) only when no other probe runs and the last one started at
// least interval ago; the other calls fail at once instead of each waiting
// out its bound on a database that does not answer. With interval longer
// than the bound, a request that makes several calls waits out one bound
// at most: its call that ran into the outage, or probed, was the last
// probe for a while.
type outage struct {
	log      *slog.Logger
	now      func() time.Time
	interval time.Duration
	down     atomic.Bool  // fast path of ok and admit
	answered atomic.Int64 // when the server last answered a statement (UnixNano of now)
	mu       sync.Mutex
	from     time.Time // start of the current outage; zero when none
	probe    time.Time // start of the last probe (or of the outage)
	probing  bool      // a probe runs
	// reset drops the pool's connections (pgxpool.Pool.Reset) when an
	// outage starts: they belong to a server that went away, and one taken
	// from the pool after it is back would fail once more ("conn closed")
	// and start a second outage. Nil: nothing to drop.
	reset func()
}

// admit reports whether a call may go to the database now, and returns
// the function that says it has ended.
func (o *outage) admit() (end func(), ok bool) {
	if !o.down.Load() {
		return func() {}, true
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	now := o.now()
	if o.from.IsZero() { // ended meanwhile
		return func() {}, true
	}
	if o.probing || now.Sub(o.probe) < o.interval {
		return nil, false
	}
	o.probing, o.probe = true, now
	return func() {
		o.mu.Lock()
		defer o.mu.Unlock()
		o.probing = false
	}, true
}

// observe records the outcome of a statement run for a caller whose
// context is ctx, as observeSince does for a call begun at an unknown
// time: a client-side deadline starts no outage then.
func (o *outage) observe(ctx context.Context, err error) {
	o.observeSince(ctx, time.Time{}, err)
}

// observeSince records the outcome of a statement of a call that began at
// began (the statement, or its transaction) for a caller whose context is
// ctx. err nil or an answer of the server (a wait it ended too:
// serverEnded) ends an outage. A database that cannot be reached starts
// one; so does a client-side deadline (errWaitBound), when the server
// answered no statement of the store since the call began: a deadline
// while it answers others (or answered the call's own first statements)
// is a wait, the pool's or a lock's, that failed one call, not an outage;
// a server that stopped answering is found by the calls that follow. A
// caller that gave up (its own context ended) says nothing either way.
func (o *outage) observeSince(ctx context.Context, began time.Time, err error) {
	if ctx.Err() != nil || errors.Is(err, errOutage) {
		return
	}
	switch {
	case errors.Is(err, errWaitBound):
		if !began.IsZero() && o.answered.Load() < began.UnixNano() {
			o.failed(err)
		}
	case !serverEnded(err) && (unreachable(err) || envelope.IsUnavailable(err)):
		o.failed(err)
	default:
		o.answered.Store(o.now().UnixNano())
		if o.down.Load() {
			o.ok()
		}
	}
}

func (o *outage) failed(err error) {
	o.mu.Lock()
	if !o.from.IsZero() {
		o.mu.Unlock()
		return
	}
	o.from = o.now()
	o.probe = o.from
	o.down.Store(true)
	o.mu.Unlock()
	o.log.Warn("database unreachable", "error", err)
	if o.reset != nil {
		o.reset()
	}
}

func (o *outage) ok() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.from.IsZero() {
		return
	}
	o.log.Info("database reachable again", "outage", o.now().Sub(o.from).Round(time.Millisecond))
	o.from = time.Time{}
	o.down.Store(false)
}

// bounds is what a bounded querier needs of its store.
type bounds struct {
	timeout time.Duration
	outage  *outage
	// server lists the server-side timeouts (statement_timeout,
	// lock_timeout) the store sets: those the URL leaves unset.
	server []string
}

// unboundedKey marks the context of Open's own work (migrations, the
// default dataset), which the query timeout does not bound: it may take
// long, and Open's caller bounds it with its context.
type unboundedKey struct{}

// unbounded returns ctx marked as Open's own work.
func unbounded(ctx context.Context) context.Context {
	return context.WithValue(ctx, unboundedKey{}, true)
}

// isUnbounded reports whether ctx is marked as Open's own work.
func isUnbounded(ctx context.Context) bool { return ctx.Value(unboundedKey{}) != nil }

// bulkKey marks the context of a bulk write (bulk).
type bulkKey struct{}

// bulkRowsPerBound is the number of rows of a bulk write that one query
// timeout covers.
const bulkRowsPerBound = 1000

// bulk returns ctx marked as a write of n rows: its transaction is bounded
// by the query timeout for each started thousand rows (a city import's
// batch of 25,000 has 25 times the bound), not by one.
func bulk(ctx context.Context, n int) context.Context {
	return context.WithValue(ctx, bulkKey{}, n)
}

// txTimeout returns the bound of a transaction begun with ctx, and whether
// it is longer than the query timeout (a bulk write).
func (b *bounds) txTimeout(ctx context.Context) (time.Duration, bool) {
	n, _ := ctx.Value(bulkKey{}).(int)
	if k := (n + bulkRowsPerBound - 1) / bulkRowsPerBound; k > 1 {
		return time.Duration(k) * b.timeout, true
	}
	return b.timeout, false
}

// beganKey holds, in the context of a statement, when its call began: the
// statement itself, or its transaction.
type beganKey struct{}

// stmt returns the context of one statement of a caller with context ctx
// and the store's deadline (a zero deadline: now plus the timeout), for a
// call that began at start (zero: now); done reads start from it.
func (b *bounds) stmt(ctx context.Context, deadline, start time.Time) (context.Context, context.CancelFunc) {
	if start.IsZero() {
		start = b.outage.now()
	}
	ctx = context.WithValue(ctx, beganKey{}, start)
	if isUnbounded(ctx) {
		return context.WithCancel(ctx)
	}
	if deadline.IsZero() {
		deadline = time.Now().Add(b.timeout)
	}
	return context.WithDeadlineCause(ctx, deadline, errWaitBound)
}

// call starts a call of the store on the pool: the context of its
// statement (stmt) and the function that ends it, or errOutage at once
// when an outage is under way and the call is not its probe.
func (b *bounds) call(ctx context.Context, deadline time.Time) (context.Context, context.CancelFunc, error) {
	end, ok := b.outage.admit()
	if !ok {
		return nil, nil, errOutage
	}
	sctx, cancel := b.stmt(ctx, deadline, time.Time{})
	return sctx, func() { cancel(); end() }, nil
}

// done observes the outcome of a statement and returns err, saying so
// when the statement's bound ended it (and not the caller).
func (b *bounds) done(ctx, sctx context.Context, err error) error {
	if err != nil && ctx.Err() == nil && errors.Is(context.Cause(sctx), errWaitBound) && !errors.Is(err, errWaitBound) {
		err = fmt.Errorf("%w (%s): %w", errWaitBound, b.timeout, err)
	}
	began, _ := sctx.Value(beganKey{}).(time.Time)
	b.outage.observeSince(ctx, began, err)
	return err
}

// serverParams are the server-side timeouts of a statement.
var serverParams = []string{"statement_timeout", "lock_timeout"}

// setTimeouts returns the statement that sets the server-side timeouts
// params to d for the rest of a transaction (0: none), or "" when params
// is empty.
func setTimeouts(params []string, d time.Duration) string {
	var set []string
	for _, p := range params {
		set = append(set, fmt.Sprintf("SET LOCAL %s = %d", p, d.Milliseconds()))
	}
	return strings.Join(set, "; ")
}

// boundedPool is the pool as the store's reads use it: each statement is
// bounded by the query timeout (waiting for a connection included) and
// observed by the outage log. Its statements run under the connections'
// server-side timeouts (the bound less its margin): one sent after a long
// wait for a connection may outlast the call's deadline on the server,
// and its deadline is an outage only if the server answered nothing else
// meanwhile (outage.observeSince).
type boundedPool struct {
	pool *pgxpool.Pool
	b    *bounds
}

var _ querier = boundedPool{}

func (p boundedPool) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	sctx, cancel, err := p.b.call(ctx, time.Time{})
	if err != nil {
		return pgconn.CommandTag{}, err
	}
	defer cancel()
	tag, err := p.pool.Exec(sctx, sql, args...)
	return tag, p.b.done(ctx, sctx, err)
}

func (p boundedPool) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	sctx, cancel, err := p.b.call(ctx, time.Time{})
	if err != nil {
		return nil, err
	}
	rows, err := p.pool.Query(sctx, sql, args...)
	if err != nil {
		cancel()
		return nil, p.b.done(ctx, sctx, err)
	}
	return &boundedRows{Rows: rows, ctx: ctx, sctx: sctx, cancel: cancel, b: p.b}, nil
}

func (p boundedPool) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	sctx, cancel, err := p.b.call(ctx, time.Time{})
	if err != nil {
		return errRow{err}
	}
	return &boundedRow{row: p.pool.QueryRow(sctx, sql, args...), ctx: ctx, sctx: sctx, cancel: cancel, b: p.b}
}

// begin starts a transaction whose statements are all bounded by one
// deadline, the query timeout from now (longer for a bulk write). Its
// server-side timeouts end its waits a margin before that deadline: a
// bulk write sets them at once, and every statement lowers them when
// needed (boundedTx.fit).
func (p boundedPool) begin(ctx context.Context, opts pgx.TxOptions) (pgx.Tx, error) {
	timeout, long := p.b.txTimeout(ctx)
	start := p.b.outage.now()
	deadline := time.Now().Add(timeout)
	sctx, cancel, err := p.b.call(ctx, deadline)
	if err != nil {
		return nil, err
	}
	defer cancel()
	tx, err := p.pool.BeginTx(sctx, opts)
	if err != nil {
		return nil, p.b.done(ctx, sctx, err)
	}
	p.b.outage.observeSince(ctx, start, nil) // BEGIN was answered
	t := &boundedTx{Tx: tx, start: start, deadline: deadline, b: p.b,
		server: &txServer{params: p.b.server, timeout: serverTimeout(p.b.timeout), margin: serverMargin(p.b.timeout)}}
	set := ""
	switch {
	case isUnbounded(ctx):
		set = setTimeouts(serverParams, 0)
		t.server = nil
	case long: // longer than the URL's settings too
		t.server.params, t.server.timeout, t.server.margin = serverParams, serverTimeout(timeout), serverMargin(timeout)
		set = setTimeouts(serverParams, t.server.timeout)
	}
	if set != "" {
		if _, err := tx.Exec(sctx, set); err != nil {
			_ = tx.Rollback(context.WithoutCancel(sctx)) // the Exec's error says why
			return nil, p.b.done(ctx, sctx, err)
		}
	}
	return t, nil
}

// errRow is a pgx.Row that failed before its statement was sent.
type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

// boundedRow is a pgx.Row whose statement ends (and is observed) with
// Scan.
type boundedRow struct {
	row       pgx.Row
	ctx, sctx context.Context
	cancel    context.CancelFunc
	b         *bounds
}

func (r *boundedRow) Scan(dest ...any) error {
	err := r.row.Scan(dest...)
	r.cancel()
	if errors.Is(err, pgx.ErrNoRows) {
		r.b.outage.observe(r.ctx, nil) // an answer
		return err
	}
	return r.b.done(r.ctx, r.sctx, err)
}

// boundedRows is a pgx.Rows whose statement ends (and is observed) with
// Close.
type boundedRows struct {
	pgx.Rows
	ctx, sctx context.Context
	cancel    context.CancelFunc
	b         *bounds
	closed    bool
}

func (r *boundedRows) Err() error {
	err := r.Rows.Err()
	if err != nil && r.ctx.Err() == nil && errors.Is(context.Cause(r.sctx), errWaitBound) {
		err = fmt.Errorf("%w (%s): %w", errWaitBound, r.b.timeout, err)
	}
	return err
}

func (r *boundedRows) Close() {
	r.Rows.Close()
	if !r.closed {
		r.closed = true
		r.b.done(r.ctx, r.sctx, r.Rows.Err()) //nolint:errcheck // Err reports it
		r.cancel()
	}
}

// boundedTx is a pgx.Tx whose statements (its savepoints' too) are
// bounded by the deadline of its transaction and observed by the outage
// log.
type boundedTx struct {
	pgx.Tx
	start    time.Time // when the transaction's call began
	deadline time.Time
	b        *bounds
	server   *txServer // nil: the server-side timeouts are not the store's to fit
}

// stmt returns the context of one of the transaction's statements.
func (t *boundedTx) stmt(ctx context.Context) (context.Context, context.CancelFunc) {
	return t.b.stmt(ctx, t.deadline, t.start)
}

// txServer is the server-side timeout in force in a transaction (shared
// by its savepoints), the settings that hold it (those the store sets),
// and the margin it keeps before the deadline.
type txServer struct {
	mu      sync.Mutex
	params  []string
	timeout time.Duration
	margin  time.Duration
}

// fit lowers the transaction's server-side timeouts (SET LOCAL), before a
// statement sent now, when they would let the server wait past the
// transaction's deadline less half the margin: they become the time left
// less the margin. So the server, not the client-side deadline, ends a
// wait of the transaction's later statements too.
func (t *boundedTx) fit(ctx, sctx context.Context) error {
	if t.server == nil || len(t.server.params) == 0 {
		return nil
	}
	t.server.mu.Lock()
	defer t.server.mu.Unlock()
	left := time.Until(t.deadline)
	if left <= 0 || t.server.timeout <= left-t.server.margin/2 {
		return nil
	}
	d := max(left-t.server.margin, left/2, time.Millisecond)
	if _, err := t.Tx.Exec(sctx, setTimeouts(t.server.params, d)); err != nil {
		return t.b.done(ctx, sctx, err)
	}
	t.server.timeout = d
	return nil
}

func (t *boundedTx) Begin(ctx context.Context) (pgx.Tx, error) {
	sctx, cancel := t.stmt(ctx)
	defer cancel()
	sp, err := t.Tx.Begin(sctx)
	if err != nil {
		return nil, t.b.done(ctx, sctx, err)
	}
	return &boundedTx{Tx: sp, start: t.start, deadline: t.deadline, b: t.b, server: t.server}, nil
}

func (t *boundedTx) Commit(ctx context.Context) error {
	sctx, cancel := t.stmt(ctx)
	defer cancel()
	return t.b.done(ctx, sctx, t.Tx.Commit(sctx))
}

// Rollback gives up on the transaction. It is bounded like the rest: past
// the deadline pgx closes the connection instead of waiting. Its outcome
// is not observed by the outage log: a rollback follows a failure already
// observed (on a connection that failure may have closed: "conn closed"
// says nothing of the server now), or an answer.
func (t *boundedTx) Rollback(ctx context.Context) error {
	sctx, cancel := t.stmt(ctx)
	defer cancel()
	return t.Tx.Rollback(sctx)
}

func (t *boundedTx) CopyFrom(ctx context.Context, table pgx.Identifier, cols []string, src pgx.CopyFromSource) (int64, error) {
	sctx, cancel := t.stmt(ctx)
	defer cancel()
	if err := t.fit(ctx, sctx); err != nil {
		return 0, err
	}
	n, err := t.Tx.CopyFrom(sctx, table, cols, src)
	return n, t.b.done(ctx, sctx, err)
}

func (t *boundedTx) SendBatch(ctx context.Context, batch *pgx.Batch) pgx.BatchResults {
	sctx, cancel := t.stmt(ctx)
	if err := t.fit(ctx, sctx); err != nil {
		cancel()
		return errBatch{err}
	}
	return &boundedBatch{BatchResults: t.Tx.SendBatch(sctx, batch), ctx: ctx, sctx: sctx, cancel: cancel, b: t.b}
}

func (t *boundedTx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	sctx, cancel := t.stmt(ctx)
	defer cancel()
	if err := t.fit(ctx, sctx); err != nil {
		return pgconn.CommandTag{}, err
	}
	tag, err := t.Tx.Exec(sctx, sql, args...)
	return tag, t.b.done(ctx, sctx, err)
}

func (t *boundedTx) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	sctx, cancel := t.stmt(ctx)
	if err := t.fit(ctx, sctx); err != nil {
		cancel()
		return nil, err
	}
	rows, err := t.Tx.Query(sctx, sql, args...)
	if err != nil {
		cancel()
		return nil, t.b.done(ctx, sctx, err)
	}
	return &boundedRows{Rows: rows, ctx: ctx, sctx: sctx, cancel: cancel, b: t.b}, nil
}

func (t *boundedTx) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	sctx, cancel := t.stmt(ctx)
	if err := t.fit(ctx, sctx); err != nil {
		cancel()
		return errRow{err}
	}
	return &boundedRow{row: t.Tx.QueryRow(sctx, sql, args...), ctx: ctx, sctx: sctx, cancel: cancel, b: t.b}
}

// errBatch is the pgx.BatchResults of a batch that failed before it was
// sent.
type errBatch struct{ err error }

func (r errBatch) Exec() (pgconn.CommandTag, error) { return pgconn.CommandTag{}, r.err }
func (r errBatch) Query() (pgx.Rows, error)         { return nil, r.err }
func (r errBatch) QueryRow() pgx.Row                { return errRow{r.err} }
func (r errBatch) Close() error                     { return r.err }
func (r errBatch) Tx() pgx.Tx                       { return nil }

// boundedBatch is the pgx.BatchResults of a boundedTx: its statements end
// with Close.
type boundedBatch struct {
	pgx.BatchResults
	ctx, sctx context.Context
	cancel    context.CancelFunc
	b         *bounds
	closed    bool
}

func (r *boundedBatch) Exec() (pgconn.CommandTag, error) {
	tag, err := r.BatchResults.Exec()
	return tag, r.b.done(r.ctx, r.sctx, err)
}

func (r *boundedBatch) Close() error {
	err := r.BatchResults.Close()
	if !r.closed {
		r.closed = true
		err = r.b.done(r.ctx, r.sctx, err)
		r.cancel()
	}
	return err
}

// Ping checks that the database answers, within the query timeout (or
// ctx, when it ends first): nil when it does, an envelope.Unavailable
// error when it cannot be reached. It takes a connection of the pool (a
// new one when none is idle). For readiness checks.
func (s *Store) Ping(ctx context.Context) error {
	_, err := s.db.Exec(ctx, "SELECT 1")
	return storeError(ctx, err)
}
