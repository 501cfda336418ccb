package postgres_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/internal/testkit/pgtest"
	"github.com/brandbase/brandbase/storage/postgres"
)

// resetProxy forwards TCP connections to a PostgreSQL server and, on
// demand, resets the client side of the connections that never carried a
// LISTEN (the pool's, not the listener's): the store's next write on such
// a connection fails at once, before a byte is sent, as on a connection
// a network device or the server's host reset while it was idle.
type resetProxy struct {
	l     net.Listener
	mu    sync.Mutex
	conns []*proxied
}

type proxied struct {
	client, server net.Conn
	listens        atomic.Bool
	closed         atomic.Bool // by its client
	reset          bool        // under resetProxy.mu
}

// newResetProxy starts a proxy in front of the server of rawURL and
// returns it with rawURL's address replaced by the proxy's.
func newResetProxy(t *testing.T, rawURL string) (*resetProxy, string) {
	t.Helper()
	u, err := url.Parse(rawURL)
	require.NoError(t, err)
	target := u.Host
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &resetProxy{l: l}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			s, err := net.DialTimeout("tcp", target, 5*time.Second)
			if err != nil {
				c.Close()
				continue
			}
			pc := &proxied{client: c, server: s}
			p.mu.Lock()
			p.conns = append(p.conns, pc)
			p.mu.Unlock()
			go func() { _, _ = io.Copy(c, s); c.Close() }()
			go func() { _, _ = io.Copy(s, listenSpy{c, pc}); pc.closed.Store(true); s.Close() }()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, pc := range p.conns {
			pc.client.Close()
			pc.server.Close()
		}
	})
	u.Host = l.Addr().String()
	return p, u.String()
}

// listenSpy reads what the client sends and notes a LISTEN among it.
type listenSpy struct {
	r  io.Reader
	pc *proxied
}

func (l listenSpy) Read(b []byte) (int, error) {
	n, err := l.r.Read(b)
	if bytes.Contains(b[:n], []byte("LISTEN ")) {
		l.pc.listens.Store(true)
	}
	return n, err
}

// poolConns returns the number of connections open that never carried a
// LISTEN and were not reset.
func (p *resetProxy) poolConns() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, pc := range p.conns {
		if !pc.reset && !pc.listens.Load() && !pc.closed.Load() {
			n++
		}
	}
	return n
}

// resetPool sends a reset to the client side of every connection that
// never carried a LISTEN and is open, closes its server side, and returns
// how many it reset.
func (p *resetProxy) resetPool() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, pc := range p.conns {
		if pc.reset || pc.listens.Load() {
			continue
		}
		pc.reset = true
		if pc.client.(*net.TCPConn).SetLinger(0) != nil { // closed already (by its client)
			continue
		}
		pc.client.Close() // sends RST
		pc.server.Close()
		n++
	}
	return n
}

// TestUnsentStatementIsRetriedOnce: a pool connection reset while idle
// fails the store's next statement on it before a byte is sent
// (pgconn.SafeToRetry), and the store sends it once more, on a new
// connection: the call succeeds. For a single statement (Ping) and for a
// write's BEGIN (CreateBrand).
func TestUnsentStatementIsRetriedOnce(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	p, proxied := newResetProxy(t, pgtest.Schema(t))
	s, err := postgres.Open(ctx, proxied)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })

	for _, tc := range []struct {
		name string
		call func(context.Context) error
	}{
		{"statement", s.Ping},
		{"begin", func(ctx context.Context) error {
			return s.CreateBrand(ctx, auth.Brand{ID: "retry-brand", URL: "retry.example.com", Name: "Retry",
				Status: auth.StatusActive, DefaultCurrency: "USD", CreatedAt: time.Now()})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s.Pool().Reset() // the connections of Open and of the run before go
			require.NoError(t, s.Ping(ctx))
			// The pool closes the others in the background.
			require.Eventually(t, func() bool { return p.poolConns() == 1 }, 10*time.Second, time.Millisecond)
			require.NoError(t, s.Ping(ctx), "the pool's one connection, just used (no ping before its next use)")
			before := s.Pool().Stat()
			require.Equal(t, 1, p.resetPool(), "the pool's one connection reset")
			time.Sleep(20 * time.Millisecond) // the reset reaches the client's socket (loopback)
			require.NoError(t, tc.call(ctx), "the statement not sent is sent again")
			after := s.Pool().Stat()
			assert.Equal(t, before.AcquireCount()+2, after.AcquireCount(), "sent on the reset connection, then once more")
			assert.Equal(t, before.NewConnsCount()+1, after.NewConnsCount(), "on a new connection")
		})
	}
}
