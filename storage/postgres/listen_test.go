package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/internal/testkit/pgtest"
)

// within is how long a test waits for something the listener does in the
// background; the listener's own timings are shortened far below it.
const within = 10 * time.Second

// recorder is a subscriber that remembers what it was told.
type recorder struct {
	mu      sync.Mutex
	changes []Change
}

func (r *recorder) add(c Change) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.changes = append(r.changes, c)
}

// count returns how many changes of c's kind and ID were delivered (their
// At, the time of the write, is the database's: TestChangesReachEveryInstance
// checks it).
func (r *recorder) count(c Change) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, d := range r.changes {
		if d.Kind == c.Kind && d.ID == c.ID {
			n++
		}
	}
	return n
}

// reset forgets what was delivered so far.
func (r *recorder) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.changes = nil
}

// uniqueChannel returns a channel name no other test listens on.
func uniqueChannel() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "brandbase_test_" + hex.EncodeToString(b[:])
}

// startListener starts a listener on the test server (through addr, when
// not empty, instead of the server's own address), delivering "all" every
// retry while disconnected, with short timings otherwise, and
// a recorder subscribed to it. It is closed when the test ends.
func startListener(t *testing.T, channel, addr string, retry time.Duration) (*listener, *recorder) {
	t.Helper()
	cfg, err := pgx.ParseConfig(pgtest.URL(t))
	require.NoError(t, err)
	if addr != "" {
		host, port, err := net.SplitHostPort(addr)
		require.NoError(t, err)
		cfg.Host = host
		n, err := strconv.ParseUint(port, 10, 16)
		require.NoError(t, err)
		cfg.Port = uint16(n)
	}
	l := newListener(cfg, channel, slog.New(slog.DiscardHandler))
	l.retry, l.minBackoff, l.maxBackoff, l.health = retry, 5*time.Millisecond, 40*time.Millisecond, time.Second
	rec := &recorder{}
	l.subscribe(rec.add)
	require.NoError(t, l.start(t.Context()))
	t.Cleanup(l.close)
	return l, rec
}

// notify sends payload on channel from a connection of its own.
func notify(t *testing.T, channel, payload string) {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), pgtest.URL(t))
	require.NoError(t, err)
	defer conn.Close(context.Background())
	_, err = conn.Exec(t.Context(), "SELECT pg_notify($1, $2)", channel, payload)
	require.NoError(t, err)
}

// eventually waits until cond holds, failing the test after within.
func eventually(t *testing.T, cond func() bool, msg string, args ...any) {
	t.Helper()
	require.Eventually(t, cond, within, time.Millisecond, append([]any{msg}, args...)...)
}

func TestListenerDelivers(t *testing.T) {
	t.Parallel()
	channel := uniqueChannel()
	l, rec := startListener(t, channel, "", time.Hour)
	second := &recorder{}
	unsubscribe := l.subscribe(second.add)

	for _, tc := range []struct {
		payload string
		want    Change
	}{
		{"user:u-1", Change{Kind: "user", ID: "u-1"}},
		{"brand:b-1", Change{Kind: "brand", ID: "b-1"}},
		{"refdata:", Change{Kind: "refdata"}},
		{"nonsense", Change{Kind: ChangeAll}},
	} {
		notify(t, channel, tc.payload)
		eventually(t, func() bool { return rec.count(tc.want) == 1 && second.count(tc.want) == 1 }, "payload %q", tc.payload)
	}

	unsubscribe()
	notify(t, channel, "user:u-2")
	eventually(t, func() bool { return rec.count(Change{Kind: "user", ID: "u-2"}) == 1 }, "still delivered to the first")
	assert.Zero(t, second.count(Change{Kind: "user", ID: "u-2"}), "not to the one that unsubscribed")

	notify(t, uniqueChannel(), "user:elsewhere")
	notify(t, channel, "user:u-3") // notifications arrive in order
	eventually(t, func() bool { return rec.count(Change{Kind: "user", ID: "u-3"}) == 1 }, "u-3")
	assert.Zero(t, rec.count(Change{Kind: "user", ID: "elsewhere"}), "another channel is not heard")
}

// TestListenerReconnectsAfterTermination kills the listener's backend, as
// a server restart or a network failure would: every subscriber is told
// that anything may have changed, and the listener listens again on a new
// connection.
func TestListenerReconnectsAfterTermination(t *testing.T) {
	t.Parallel()
	channel := uniqueChannel()
	l, rec := startListener(t, channel, "", time.Hour) // no "all" but at the loss and after reconnecting
	pid := l.pid.Load()
	require.NotZero(t, pid)
	assert.Zero(t, rec.count(Change{Kind: ChangeAll}), "nothing to drop while listening")

	conn, err := pgx.Connect(t.Context(), pgtest.URL(t))
	require.NoError(t, err)
	defer conn.Close(context.Background())
	var killed bool
	require.NoError(t, conn.QueryRow(t.Context(), "SELECT pg_terminate_backend($1)", pid).Scan(&killed))
	require.True(t, killed)

	eventually(t, func() bool { return rec.count(Change{Kind: ChangeAll}) >= 1 }, "all at once when the connection is lost")
	eventually(t, func() bool { return l.listening.Load() && l.pid.Load() != pid }, "listening on a new connection")
	assert.NotZero(t, l.pid.Load())
	assert.Equal(t, 2, rec.count(Change{Kind: ChangeAll}), "all at the loss, and again once listening again")
	notify(t, channel, "brand:b-2")
	eventually(t, func() bool { return rec.count(Change{Kind: "brand", ID: "b-2"}) == 1 }, "delivered after reconnecting")
}

// TestListenerOutage cuts the listener off the server for a while (through
// a proxy that stops forwarding): while it cannot reconnect, "all" keeps
// being delivered every retry; once the server is reachable again, the
// listener listens again, delivers notifications again and stops saying
// "all".
func TestListenerOutage(t *testing.T) {
	t.Parallel()
	channel := uniqueChannel()
	p := newProxy(t, serverAddr(t))
	l, rec := startListener(t, channel, p.addr(), 20*time.Millisecond)
	notify(t, channel, "user:before")
	eventually(t, func() bool { return rec.count(Change{Kind: "user", ID: "before"}) == 1 }, "through the proxy")

	p.cut()
	eventually(t, func() bool { return !l.listening.Load() }, "the loss is noticed")
	eventually(t, func() bool { return rec.count(Change{Kind: ChangeAll}) >= 5 }, "all, again and again while down")
	notify(t, channel, "user:lost") // sent while nobody listens: lost

	p.restore()
	eventually(t, func() bool { return l.listening.Load() }, "listening again")
	rec.reset()
	notify(t, channel, "user:after")
	eventually(t, func() bool { return rec.count(Change{Kind: "user", ID: "after"}) == 1 }, "delivered after the outage")
	assert.Zero(t, rec.count(Change{Kind: ChangeAll}), "no more all once listening")
}

func TestListenerStartFails(t *testing.T) {
	t.Parallel()
	cfg, err := pgx.ParseConfig(pgtest.URL(t))
	require.NoError(t, err)
	cfg.Port = closedPort(t)
	l := newListener(cfg, uniqueChannel(), nil)
	require.Error(t, l.start(t.Context()))
	l.close() // returns at once: nothing runs
}

func TestListenerCloseStops(t *testing.T) {
	t.Parallel()
	channel := uniqueChannel()
	l, rec := startListener(t, channel, "", 20*time.Millisecond)
	l.close()
	l.close() // twice is fine
	assert.False(t, l.listening.Load())
	notify(t, channel, "user:after-close")
	assert.Zero(t, rec.count(Change{Kind: "user", ID: "after-close"}))
	assert.Zero(t, rec.count(Change{Kind: ChangeAll}), "closing is not an outage")
}

// serverAddr returns host:port of the test server.
func serverAddr(t *testing.T) string {
	t.Helper()
	cfg, err := pgx.ParseConfig(pgtest.URL(t))
	require.NoError(t, err)
	return net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port)))
}

// closedPort returns a local port nothing listens on.
func closedPort(t *testing.T) uint16 {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	require.NoError(t, ln.Close())
	return uint16(port)
}

// proxy forwards TCP connections to a target until cut, which closes every
// connection and refuses new ones until restore.
type proxy struct {
	t      *testing.T
	ln     net.Listener
	target string

	mu    sync.Mutex
	down  bool
	conns []net.Conn
}

func newProxy(t *testing.T, target string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &proxy{t: t, ln: ln, target: target}
	t.Cleanup(func() { ln.Close(); p.cut() })
	go p.serve()
	return p
}

func (p *proxy) addr() string { return p.ln.Addr().String() }

func (p *proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if errors.Is(err, net.ErrClosed) {
			return
		}
		if err != nil {
			continue
		}
		p.mu.Lock()
		if p.down {
			p.mu.Unlock()
			c.Close()
			continue
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			p.mu.Unlock()
			c.Close()
			continue
		}
		p.conns = append(p.conns, c, s)
		p.mu.Unlock()
		go pipe(c, s)
		go pipe(s, c)
	}
}

func pipe(dst, src net.Conn) {
	_, _ = io.Copy(dst, src)
	dst.Close()
	src.Close()
}

// cut closes every forwarded connection and refuses new ones.
func (p *proxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = true
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// restore forwards new connections again.
func (p *proxy) restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = false
}
