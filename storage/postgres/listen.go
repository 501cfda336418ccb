package postgres

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"

	"github.com/brandbase/brandbase/auth"
)

// ChangeAll is the kind of the Change that says "anything may have
// changed": the store delivers it to its subscribers when it cannot vouch
// that no notification was lost (see [Store.OnChange]).
const ChangeAll = "all"

// Timings of the listener (see listener).
const (
	// listenRetry is how often, while the listening connection is down,
	// every subscriber is told that anything may have changed. It bounds
	// the staleness of the caches during an outage.
	listenRetry = 500 * time.Millisecond
	// listenMinBackoff and listenMaxBackoff bound the wait between two
	// attempts to reconnect; it doubles after each failed attempt.
	listenMinBackoff = 100 * time.Millisecond
	listenMaxBackoff = 5 * time.Second
	// listenHealth is how long the listener waits for a notification
	// before it pings the server, and how long the ping may take: a silent
	// connection (a stopped backend: the kernel still answers TCP
	// keepalives) is noticed within twice this, under a second.
	listenHealth = 450 * time.Millisecond
)

// listener keeps one dedicated connection LISTENing on a channel and
// delivers the changes notified on it to its subscribers, in the order the
// server sends them.
//
// A notification sent while the connection is down is lost, so the
// listener never lets a subscriber trust its cache across an outage: when
// the connection is lost it delivers a change of kind "all" at once, again
// every listenRetry while it is down, and once more after it is listening
// again. It reconnects with backoff until it is closed.
type listener struct {
	cfg     *pgx.ConnConfig
	channel string
	log     *slog.Logger

	// Timings, the constants above unless a test shortens them.
	retry, minBackoff, maxBackoff, health time.Duration

	mu   sync.Mutex
	subs map[uint64]func(Change)
	next uint64

	pid atomic.Uint32 // backend of the current connection; 0 when down
	// listening is true while notifications can be trusted: from the
	// first LISTEN, and again once the "all" that follows a reconnection
	// has been delivered.
	listening atomic.Bool
	// reconnects counts the connections made again after a loss.
	reconnects atomic.Int64
	cancel     context.CancelFunc
	done       chan struct{}
	closeOnce  sync.Once
}

// newListener returns a listener that will connect with a copy of cfg and
// listen on channel, logging its outages to log. Start it with start.
func newListener(cfg *pgx.ConnConfig, channel string, log *slog.Logger) *listener {
	if log == nil {
		log = slog.Default()
	}
	cfg = cfg.Copy()
	// A wait's deadline ends it at once, without a cancel request.
	cfg.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.DeadlineContextWatcherHandler{Conn: c.Conn()}
	}
	return &listener{
		cfg: cfg, channel: channel, log: log,
		retry: listenRetry, minBackoff: listenMinBackoff, maxBackoff: listenMaxBackoff, health: listenHealth,
		subs: map[uint64]func(Change){}, done: make(chan struct{}),
	}
}

// start connects and LISTENs once, within ctx, and then keeps listening in
// the background until close. It fails, and nothing runs, when that first
// connection or LISTEN fails.
func (l *listener) start(ctx context.Context) error {
	conn, err := l.connect(ctx)
	if err != nil {
		close(l.done)
		return err
	}
	runCtx, cancel := context.WithCancel(context.Background())
	l.cancel = cancel
	l.listening.Store(true)
	go l.run(runCtx, conn)
	return nil
}

// close stops the listener and waits until it has closed its connection.
// It is safe to call more than once.
func (l *listener) close() {
	l.closeOnce.Do(func() {
		if l.cancel != nil {
			l.cancel()
		}
	})
	<-l.done
}

// subscribe registers fn to receive every change from now on, until the
// returned function is called. fn runs on the listener's goroutine, one
// change at a time: it must return quickly and must not call subscribe.
func (l *listener) subscribe(fn func(Change)) (unsubscribe func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	id := l.next
	l.next++
	l.subs[id] = fn
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		delete(l.subs, id)
	}
}

// deliver calls every subscriber with c.
func (l *listener) deliver(c Change) {
	l.mu.Lock()
	fns := make([]func(Change), 0, len(l.subs))
	for _, fn := range l.subs {
		fns = append(fns, fn)
	}
	l.mu.Unlock()
	for _, fn := range fns {
		fn(c)
	}
}

// run receives on conn until it fails, reconnects, and so on until ctx
// ends.
func (l *listener) run(ctx context.Context, conn *pgx.Conn) {
	defer close(l.done)
	for conn != nil {
		err := l.receive(ctx, conn)
		l.listening.Store(false)
		l.pid.Store(0)
		if ctx.Err() == nil {
			l.deliver(Change{Kind: ChangeAll}) // first: closing may take a while
		}
		closeCtx, cancel := context.WithTimeout(context.Background(), l.health)
		_ = conn.Close(closeCtx) // the connection is lost or being dropped
		cancel()
		if ctx.Err() != nil {
			return
		}
		l.log.Warn("postgres: the listening connection was lost; caches are dropped until it is back",
			"channel", l.channel, "error", err)
		conn = l.reconnect(ctx)
	}
}

// receive delivers the notifications that arrive on conn until the
// connection fails (or does not answer a ping after health without a
// notification) or ctx ends, and returns why.
func (l *listener) receive(ctx context.Context, conn *pgx.Conn) error {
	// at is the time the last "at:" notification gave, for the change
	// that follows it from the same backend (pid).
	var at time.Time
	var atPID uint32
	for {
		waitCtx, cancel := context.WithTimeout(ctx, l.health)
		n, err := conn.WaitForNotification(waitCtx)
		cancel()
		switch {
		case err == nil:
			if t, ok := parseAt(n.Payload); ok {
				at, atPID = t, n.PID
				continue
			}
			c := l.decode(n.Payload)
			if atPID == n.PID && !at.IsZero() {
				c.At = at
			}
			at = time.Time{}
			l.deliver(c)
			continue
		case ctx.Err() != nil:
			return ctx.Err()
		case !pgconn.Timeout(err):
			return err
		}
		pingCtx, cancel := context.WithTimeout(ctx, l.health)
		err = conn.Ping(pingCtx)
		cancel()
		if err != nil {
			return fmt.Errorf("ping: %w", err)
		}
	}
}

// decode reads a notification's payload; one that does not parse is read
// as "anything may have changed".
func (l *listener) decode(payload string) Change {
	c, ok := parseChange(payload)
	if !ok {
		l.log.Warn("postgres: unreadable notification, every cache dropped", "channel", l.channel, "payload", payload)
		return Change{Kind: ChangeAll}
	}
	return c
}

// reconnect tells the subscribers that anything may have changed every
// retry (run told them at the loss) while it tries to connect again with
// backoff. Once listening it tells them once more (a change may have been
// notified while it was down) and returns the connection; nil when ctx
// ended first.
func (l *listener) reconnect(ctx context.Context) *pgx.Conn {
	all := Change{Kind: ChangeAll}
	guardCtx, stopGuard := context.WithCancel(ctx)
	guarded := make(chan struct{})
	go func() {
		defer close(guarded)
		tick := time.NewTicker(l.retry)
		defer tick.Stop()
		for {
			select {
			case <-guardCtx.Done():
				return
			case <-tick.C:
				l.deliver(all)
			}
		}
	}()
	defer func() { stopGuard(); <-guarded }()

	for backoff := l.minBackoff; ; backoff = min(2*backoff, l.maxBackoff) {
		conn, err := l.connect(ctx)
		if err == nil {
			stopGuard()
			<-guarded
			l.deliver(all)
			l.listening.Store(true)
			l.reconnects.Add(1)
			l.log.Info("postgres: listening again", "channel", l.channel)
			return conn
		}
		if ctx.Err() != nil {
			return nil
		}
		// Once per attempt: debug only (the loss and the return are
		// logged once each, and the store logs the outage).
		l.log.Debug("postgres: cannot listen yet", "channel", l.channel, "retry_in", backoff, "error", err)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(backoff):
		}
	}
}

// connect opens a connection and LISTENs on the channel, within the
// connect timeout (at least health).
func (l *listener) connect(ctx context.Context) (*pgx.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, max(l.cfg.ConnectTimeout, l.health))
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, l.cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: connect to listen: %w", err)
	}
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{l.channel}.Sanitize()); err != nil {
		_ = conn.Close(ctx) // the LISTEN error says why
		return nil, fmt.Errorf("postgres: listen on %s: %w", l.channel, err)
	}
	l.pid.Store(conn.PgConn().PID())
	return conn, nil
}

// instances is what a Store keeps to behave as one with the other
// instances sharing its schema: the listener, the shared limiter, and the
// reference-data revision the listener vouches for.
type instances struct {
	listener *listener
	limiter  *Limiter
	revision revisionCache
}

// startInstances starts listening on the store's channel and makes its
// limiter; Open calls it once the schema is set up, and fails when the
// first LISTEN fails (a pooler in transaction mode cannot LISTEN: the
// store needs session connections).
func (s *Store) startInstances(ctx context.Context) error {
	l := newListener(s.pool.Config().ConnConfig, s.channel, s.log)
	l.subscribe(func(c Change) {
		if c.Kind == ChangeRefData || c.Kind == ChangeAll {
			s.multi.revision.forget()
		}
	})
	if err := l.start(ctx); err != nil {
		return err
	}
	s.multi.listener, s.multi.limiter = l, NewLimiter(s.pool)
	return nil
}

// revisionCache is the reference-data revision last read from the
// database, trusted while the store listens and no reference-data change
// has been heard or made by this store since (so that a list answer cached
// by the HTTP adapter costs no round trip to the database).
//
// A read takes the generation before it reads the database, and its value
// is trusted only while the generation stays the same: a change committed
// after the read was made bumps it, whether it is heard before or after the
// value is stored.
type revisionCache struct {
	gen    atomic.Uint64
	cached atomic.Pointer[cachedRevision]
}

// cachedRevision is a revision, the generation it was read in, and when.
// It is trusted for at most revisionTTL: a restore of the database sends
// no notification.
type cachedRevision struct {
	n, gen uint64
	at     time.Time
}

// revisionTTL bounds how long a cached revision is trusted.
const revisionTTL = time.Second

// forget makes the cached revision stale: a reference-data change was heard
// or committed.
func (c *revisionCache) forget() { c.gen.Add(1) }

// get returns the cached revision when trusted is true and nothing was
// forgotten since it was read, else the one read reads (and caches it).
func (c *revisionCache) get(trusted bool, read func() (uint64, error)) (uint64, error) {
	gen := c.gen.Load()
	if v := c.cached.Load(); trusted && v != nil && v.gen == gen && time.Since(v.at) < revisionTTL {
		return v.n, nil
	}
	at := time.Now()
	n, err := read()
	if err == nil {
		c.cached.Store(&cachedRevision{n: n, gen: gen, at: at})
	}
	return n, err
}

// stopInstances stops the listener; Close calls it before closing the
// pool.
func (s *Store) stopInstances() {
	if s.multi.listener != nil {
		s.multi.listener.close()
	}
}

// OnChange calls fn with every change committed on the store's schema, by
// this instance or any other (a [Change] of kind ChangeBrand, ChangeUser or
// ChangeRefData), until unsubscribe is called or the store is closed. When
// the listening connection is lost, fn is called with a Change of kind
// [ChangeAll] at once, every 500 ms until the store listens again, and once
// more then: a change made meanwhile may not be reported, so everything
// cached must be forgotten. Changes are delivered in commit order, a few
// milliseconds after the commit, on one goroutine: fn must return quickly
// and must not call OnChange.
func (s *Store) OnChange(fn func(Change)) (unsubscribe func()) {
	return s.multi.listener.subscribe(fn)
}

// authChanges maps the kinds of change an auth.Service caches answers of.
var authChanges = map[string]auth.ChangeKind{
	ChangeBrand: auth.ChangeBrand,
	ChangeUser:  auth.ChangeUser,
	ChangeAll:   auth.ChangeAll,
}

// OnAuthChange is OnChange for an auth.Service's caches: fn is called with
// the brand, user and "all" changes (as auth.Change, for
// auth.Service.Forget), not with the others. brandbase.New subscribes its
// auth service so.
func (s *Store) OnAuthChange(fn func(auth.Change)) (unsubscribe func()) {
	return s.OnChange(func(c Change) {
		if kind, ok := authChanges[c.Kind]; ok {
			fn(auth.Change{Kind: kind, ID: c.ID, At: c.At})
		}
	})
}

// Listening reports whether the store is listening for the changes of other
// instances now; while it is not, its subscribers are told every 500 ms
// to forget everything. For hosts' health checks.
func (s *Store) Listening() bool {
	return s.multi.listener != nil && s.multi.listener.listening.Load()
}
