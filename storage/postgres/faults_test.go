package postgres_test

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/internal/testkit/pgtest"
	"github.com/brandbase/brandbase/storage/postgres"
)

// silentServer listens on a loopback port, accepts connections and never
// answers them: a server that stalls before the first byte.
func silentServer(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c) // held open, never read nor written
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return l.Addr().String()
}

// TestOpenFailsAgainstSilentServer: Open against an address that accepts
// and never answers fails within the connect timeout (the option's, the
// URL's connect_timeout, or the default), with an error that says so.
func TestOpenFailsAgainstSilentServer(t *testing.T) {
	t.Parallel()
	addr := silentServer(t)
	for _, tc := range []struct {
		name  string
		query string
		opts  []postgres.Option
		bound time.Duration
	}{
		{"option", "", []postgres.Option{postgres.WithConnectTimeout(300 * time.Millisecond)}, 300 * time.Millisecond},
		{"url", "&connect_timeout=1", nil, time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second) // far past any bound
			defer cancel()
			start := time.Now()
			s, err := postgres.Open(ctx, "postgres://u@"+addr+"/db?sslmode=disable"+tc.query, tc.opts...)
			took := time.Since(start)
			if err == nil {
				s.Close()
			}
			require.Error(t, err)
			assert.Less(t, took, tc.bound+time.Second, "within the bound")
			assert.Contains(t, err.Error(), "cannot connect to 127.0.0.1")
			assert.Contains(t, err.Error(), "connect timeout "+tc.bound.String())
			assert.NoError(t, ctx.Err(), "the bound ended it, not the context")
		})
	}
}

// syncBuffer is a bytes.Buffer safe for the log's concurrent writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) count(s string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.Count(b.b.String(), s)
}

// TestStoreOutages stops its own PostgreSQL server, then freezes it:
// meanwhile every read, write and Ping fails with envelope.Unavailable
// within the query timeout (no call hangs), the outage is logged once
// when it starts and once when it ends, and after the restart (thaw) the
// same store serves again.
func TestStoreOutages(t *testing.T) {
	t.Parallel()
	c := pgtest.NewCluster(t)
	const bound = time.Second
	var log syncBuffer
	s, err := postgres.Open(t.Context(), c.URL(), postgres.WithQueryTimeout(bound),
		postgres.WithLogger(slog.New(slog.NewTextHandler(&log, nil))))
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	ctx := t.Context()
	now := time.Now().UTC().Truncate(time.Second)
	brand := auth.Brand{ID: "b-1", URL: "out.example.com", Name: "Out", Status: auth.StatusActive, CreatedAt: now}
	require.NoError(t, s.CreateBrand(ctx, brand))
	require.NoError(t, s.Ping(ctx))

	calls := map[string]func() error{
		"read": func() error { _, err := s.BrandByID(ctx, brand.ID); return err },
		"list": func() error { _, err := s.ListBrands(ctx); return err },
		"write": func() error {
			b := brand
			b.Name = "Changed"
			return s.UpdateBrand(ctx, b)
		},
		"ping": func() error { return s.Ping(ctx) },
	}
	down := func(what string) {
		t.Helper()
		for range 2 {
			for name, call := range calls {
				start := time.Now()
				err := call()
				took := time.Since(start)
				assert.True(t, envelope.IsUnavailable(err), "%s while %s: %v", name, what, err)
				assert.Less(t, took, bound+time.Second, "%s while %s: no wait past the bound", name, what)
			}
		}
	}
	up := func(what string) {
		t.Helper()
		require.Eventually(t, func() bool { return s.Ping(ctx) == nil }, 20*time.Second, 50*time.Millisecond,
			"serves again after %s", what)
		for name, call := range calls {
			assert.NoError(t, call(), "%s after %s", name, what)
		}
	}

	c.Stop(t)
	down("stopped")
	c.Start(t)
	up("the restart")
	assert.Equal(t, 1, log.count(`msg="database unreachable"`), "the outage is logged once:\n%s", &log.b)
	assert.Equal(t, 1, log.count(`msg="database reachable again"`), "its end once")

	c.Freeze(t)
	down("frozen")
	c.Thaw(t)
	up("the thaw")
	assert.Equal(t, 2, log.count(`msg="database unreachable"`), "each outage logged once")
	assert.Equal(t, 2, log.count(`msg="database reachable again" outage=`), "with its duration")
}

// TestURLSettings: the pool_* parameters of the URL set the pool (they are
// not sent to the server), connect_timeout, statement_timeout and
// lock_timeout are honoured, and the query timeout less a margin (a
// fifth) is the server-side timeout the URL leaves unset.
func TestURLSettings(t *testing.T) {
	t.Parallel()
	url := pgtest.Schema(t)
	show := func(s *postgres.Store, name string) string {
		var v string
		require.NoError(t, s.Pool().QueryRow(t.Context(), "SHOW "+name).Scan(&v))
		return v
	}
	s, err := postgres.Open(t.Context(), url+"&pool_max_conns=25&pool_min_conns=1&connect_timeout=7&lock_timeout=1500")
	require.NoError(t, err)
	defer s.Close()
	assert.EqualValues(t, 25, s.Pool().Config().MaxConns)
	assert.Equal(t, 7*time.Second, s.Pool().Config().ConnConfig.ConnectTimeout)
	assert.Equal(t, "1500ms", show(s, "lock_timeout"), "the URL's")
	assert.Equal(t, "4s", show(s, "statement_timeout"), "the default query timeout (5 s) less its margin (a fifth)")

	s2, err := postgres.Open(t.Context(), url, postgres.WithQueryTimeout(3*time.Second), postgres.WithConnectTimeout(2*time.Second))
	require.NoError(t, err)
	defer s2.Close()
	assert.Equal(t, 2*time.Second, s2.Pool().Config().ConnConfig.ConnectTimeout)
	assert.Equal(t, "2400ms", show(s2, "statement_timeout"), "3 s less its margin: the server ends a wait first")
	assert.Equal(t, "2400ms", show(s2, "lock_timeout"))

	// A pool of one would wait for itself in Open (the setup's lock holds
	// one connection while the dataset loads on another): it gets two.
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	s3, err := postgres.Open(ctx, url+"&pool_max_conns=1")
	require.NoError(t, err, "Open with pool_max_conns=1 returns")
	defer s3.Close()
	assert.EqualValues(t, postgres.MinConns, s3.Pool().Config().MaxConns)
}
