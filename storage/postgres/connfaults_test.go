package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/internal/testkit/pgtest"
	"github.com/brandbase/brandbase/storage/postgres"
)

// Faults of one connection, as production databases have them every day
// (a DBA's pg_terminate_backend, a pooler or an idle timeout closing one
// connection, too many connections, a default isolation level that is not
// read committed, one backend that stops answering), each on a throwaway
// cluster of its own so that killing or stopping backends never touches
// the shared server.

// admin connects to url (a cluster's database) for the test's own
// statements.
func admin(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), url)
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// TestConnectionFaults runs the faults below on one throwaway cluster,
// each in a database of its own: first the one that freezes the whole
// cluster, then, in parallel, those of one connection.
func TestConnectionFaults(t *testing.T) {
	t.Parallel()
	c := pgtest.NewCluster(t)
	root := admin(t, c.URL())
	var mu sync.Mutex // one CREATE DATABASE at a time (they copy template1)
	t.Run("FrozenWhileIdleIsAnOutage", func(t *testing.T) {
		_, err := root.Exec(t.Context(), "CREATE DATABASE frozen")
		require.NoError(t, err)
		frozenWhileIdleIsAnOutage(t, c, strings.Replace(c.URL(), "/brandbase_test?", "/frozen?", 1))
	})
	for name, fault := range map[string]func(t *testing.T, url string){
		"OneDeadConnectionIsNoOutage":    oneDeadConnectionIsNoOutage,
		"TooManyConnectionsIsNoOutage":   tooManyConnectionsIsNoOutage,
		"WritesUnderSerializableDefault": writesUnderSerializableDefault,
		"SilentListenerNoticed":          silentListenerNoticed,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			db := strings.ToLower(name)
			mu.Lock()
			_, err := root.Exec(t.Context(), "CREATE DATABASE "+db)
			mu.Unlock()
			require.NoError(t, err)
			fault(t, strings.Replace(c.URL(), "/brandbase_test?", "/"+db+"?", 1))
		})
	}
}

// traffic runs reads, writes and pings on s from a few goroutines until
// stop is closed, and returns the errors they met.
func traffic(t *testing.T, s *postgres.Store, brand auth.Brand, stop <-chan struct{}) func() []error {
	t.Helper()
	ctx := t.Context()
	var mu sync.Mutex
	var errs []error
	var calls int
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				var err error
				switch (g + i) % 4 {
				case 0:
					_, err = s.BrandByID(ctx, brand.ID)
				case 1:
					_, err = s.ListBrands(ctx)
				case 2:
					b := brand
					b.Name = fmt.Sprintf("Name %d-%d", g, i)
					err = s.UpdateBrand(ctx, b)
				case 3:
					err = s.Ping(ctx)
				}
				mu.Lock()
				calls++
				if err != nil {
					errs = append(errs, err)
				}
				mu.Unlock()
			}
		})
	}
	return func() []error {
		wg.Wait()
		t.Logf("%d calls, %d failed", calls, len(errs))
		return errs
	}
}

// lostConnection reports whether err says that the call's own connection
// was closed under it: the server's "terminating connection due to
// administrator command" (57P01), or the connection seen closed.
func lostConnection(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code == "57P01"
	}
	msg := err.Error()
	return strings.Contains(msg, "conn closed") || strings.Contains(msg, "unexpected EOF") ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// oneDeadConnectionIsNoOutage terminates, under traffic, each backend
// of an instance in turn (its listener's too), while the server stays up:
// only calls that ran on a killed connection fail (503, the connection's
// loss as cause, at most one per killed backend), nothing is logged as an
// outage, and the store serves on.
func oneDeadConnectionIsNoOutage(t *testing.T, url string) {
	var log syncBuffer
	s, err := postgres.Open(t.Context(), url, postgres.WithQueryTimeout(time.Second),
		postgres.WithLogger(slog.New(slog.NewTextHandler(&log, nil))))
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	ctx := t.Context()
	brand := auth.Brand{ID: "b-1", URL: "dead.example.com", Name: "Dead", Status: auth.StatusActive,
		CreatedAt: time.Now().UTC().Truncate(time.Second)}
	require.NoError(t, s.CreateBrand(ctx, brand))
	conn := admin(t, url)

	stop := make(chan struct{})
	wait := traffic(t, s, brand, stop)
	time.Sleep(200 * time.Millisecond) // traffic fills the pool
	killed := map[uint32]bool{}
	var listenerKilled bool
	for i := range 8 {
		// The pool's connections, the listener's as the sixth.
		var pid uint32
		var query string
		err := conn.QueryRow(ctx, `SELECT pid, query FROM pg_stat_activity
			WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()
				AND NOT pid = ANY($1) AND (query LIKE 'LISTEN%') = $2 ORDER BY random() LIMIT 1`,
			keys(killed), i == 5).Scan(&pid, &query)
		require.NoError(t, err)
		var ok bool
		require.NoError(t, conn.QueryRow(ctx, `SELECT pg_terminate_backend($1)`, pid).Scan(&ok))
		killed[pid] = true
		listenerKilled = listenerKilled || strings.HasPrefix(query, "LISTEN")
		time.Sleep(150 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	close(stop)
	errs := wait()

	assert.True(t, listenerKilled, "the listener's backend was among them")
	assert.LessOrEqual(t, len(errs), len(killed), "at most one failed call per killed connection")
	var others []error
	for _, err := range errs {
		if !envelope.IsUnavailable(err) || !lostConnection(err) {
			others = append(others, err)
		}
	}
	assert.Empty(t, others[:min(len(others), 3)], "only calls on a killed connection fail (503), %d others", len(others))
	assert.Zero(t, log.count(`msg="database unreachable"`), "one dead connection is no outage:\n%s", &log.b)
	require.NoError(t, s.Ping(ctx))
	_, err = s.BrandByID(ctx, brand.ID)
	require.NoError(t, err)
	require.Eventually(t, s.Listening, 5*time.Second, 10*time.Millisecond, "listening again")
}

// dbName returns the database that url names.
func dbName(url string) string {
	_, rest, _ := strings.Cut(strings.TrimPrefix(url, "postgres://"), "/")
	name, _, _ := strings.Cut(rest, "?")
	return name
}

func keys(m map[uint32]bool) []uint32 {
	out := make([]uint32, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// tooManyConnectionsIsNoOutage opens a store as a role allowed fewer
// connections than its pool may open: the server refuses the extra ones
// (53300). A call that needed one fails alone (503), no outage is logged,
// the pool keeps the connections it has and the calls on them succeed.
func tooManyConnectionsIsNoOutage(t *testing.T, url string) {
	ctx := t.Context()
	conn := admin(t, url)
	for _, stmt := range []string{
		`CREATE ROLE limited LOGIN CONNECTION LIMIT 3`,
		`ALTER DATABASE ` + dbName(url) + ` OWNER TO limited`,
	} {
		_, err := conn.Exec(ctx, stmt)
		require.NoError(t, err)
	}
	conn.Close(ctx)
	url = strings.Replace(url, "postgres@", "limited@", 1)
	var log syncBuffer
	s, err := postgres.Open(ctx, url+"&pool_max_conns=8", postgres.WithQueryTimeout(time.Second),
		postgres.WithLogger(slog.New(slog.NewTextHandler(&log, nil))))
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	brand := auth.Brand{ID: "b-1", URL: "many.example.com", Name: "Many", Status: auth.StatusActive,
		CreatedAt: time.Now().UTC().Truncate(time.Second)}
	require.NoError(t, s.CreateBrand(ctx, brand))

	stop := make(chan struct{})
	var mu sync.Mutex
	var ok, refused int
	var other []error
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				err := s.Ping(ctx)
				var pe *pgconn.PgError
				mu.Lock()
				switch {
				case err == nil:
					ok++
				case envelope.IsUnavailable(err) && errors.As(err, &pe) && pe.Code == "53300":
					refused++
				default:
					other = append(other, err)
				}
				mu.Unlock()
			}
		})
	}
	time.Sleep(time.Second)
	close(stop)
	wg.Wait()
	t.Logf("%d served, %d refused (53300)", ok, refused)
	assert.Empty(t, other[:min(len(other), 3)], "a 503 for want of a connection slot, nothing else (%d others)", len(other))
	assert.Positive(t, refused, "the server refused connections beyond the role's limit")
	assert.Greater(t, ok, refused, "the connections the pool holds keep serving")
	assert.Zero(t, log.count(`msg="database unreachable"`), "too many connections is no outage:\n%s", &log.b)
}

// writesUnderSerializableDefault: on a database whose default
// isolation level is serializable, as some managed databases set it,
// concurrent integration writes of two instances on one integration all
// succeed: the store asks for read committed (its sessions' default, and
// each write transaction's, even when the URL asks for serializable
// sessions), so that no snapshot is taken before the advisory lock is
// granted.
func writesUnderSerializableDefault(t *testing.T, url string) {
	ctx := t.Context()
	_, err := admin(t, url).Exec(ctx, `ALTER DATABASE `+dbName(url)+` SET default_transaction_isolation = 'serializable'`)
	require.NoError(t, err)
	keys, err := integrations.NewKeyRing("k1", map[string][]byte{"k1": []byte("0123456789abcdef0123456789abcdef")})
	require.NoError(t, err)
	// The second instance's URL asks for serializable sessions: its
	// writes still ask for read committed.
	stores := []*postgres.Store{open(t, url), open(t, url+"&default_transaction_isolation=serializable")}
	for i, want := range []string{"read committed", "serializable"} {
		var level string
		require.NoError(t, stores[i].Pool().QueryRow(ctx, `SELECT current_setting('default_transaction_isolation')`).Scan(&level))
		assert.Equal(t, want, level, "the sessions' default: the store's, unless the URL sets one")
	}

	b, err := auth.NewService(stores[0]).CreateBrand(ctx, auth.NewBrand{URL: "serial.example.com", Name: "Serial"})
	require.NoError(t, err)
	admin := auth.Principal{UserID: "admin", BrandID: b.ID, Permissions: []auth.Permission{auth.PermAll}}
	svcs := []*integrations.Service{
		integrations.NewService(stores[0], integrations.WithKeyRing(keys)),
		integrations.NewService(stores[1], integrations.WithKeyRing(keys)),
	}
	app, err := svcs[0].CreateAppIntegration(ctx, admin, integrations.AppIntegrationInput{
		Type: integrations.TypeAnalytics, Name: "Analytics app", Domain: "https://analytics.example.com"})
	require.NoError(t, err)
	str := func(s string) *string { return &s }
	input := func(tracking string) integrations.AnalyticsInput {
		return integrations.AnalyticsInput{AppIntegrationID: &app.ID, TrackingID: str(tracking),
			APIKey: str("ak_" + tracking + "_0123456789"), Metadata: str("from " + tracking)}
	}
	created, err := svcs[0].CreateAnalytics(ctx, admin, input("G-0"))
	require.NoError(t, err)

	var wg sync.WaitGroup
	for i, svc := range svcs {
		for j := range 10 {
			wg.Go(func() {
				_, err := svc.UpdateAnalytics(ctx, admin, created.ID, input(fmt.Sprintf("G-%d-%d", i, j)))
				assert.NoError(t, err, "no 503 for a serialization failure")
			})
		}
	}
	wg.Wait()
	after, err := stores[1].ConfigByID(ctx, integrations.KindAnalytics, b.ID, created.ID)
	require.NoError(t, err)
	assert.Equal(t, created.Version+20, after.Version, "every write landed")
}

// silentListenerNoticed stops (SIGSTOP) the backend of one instance's
// listener, so that its connection stays open and its kernel still
// answers TCP, while another instance revokes a key the first one has
// cached: the first notices its silent listener within a second, stops
// trusting its caches, and refuses the key within 1.5 s of the revocation.
func silentListenerNoticed(t *testing.T, url string) {
	ctx := t.Context()
	a := open(t, url+"&application_name=instance-a")
	b := open(t, url+"&application_name=instance-b")
	svcA, svcB := auth.NewService(a), auth.NewService(b)
	a.OnAuthChange(svcA.Forget)
	b.OnAuthChange(svcB.Forget)
	brand, err := svcB.CreateBrand(ctx, auth.NewBrand{URL: "silent.example.com", Name: "Silent"})
	require.NoError(t, err)
	_, err = svcB.CreateUser(ctx, brand.ID, auth.NewUser{Username: "user", Password: "user password 1"})
	require.NoError(t, err)
	sess, err := svcB.Login(ctx, brand, auth.LoginRequest{Username: "user", Password: "user password 1"})
	require.NoError(t, err)
	_, err = svcA.Authenticate(ctx, brand, sess.AuthKey)
	require.NoError(t, err, "A caches the key")

	// The listener's backend: its last statement was its LISTEN, or a
	// ping (a pool connection's ping is followed by its statement).
	var pid int
	require.NoError(t, admin(t, url).QueryRow(ctx, `SELECT pid FROM pg_stat_activity
		WHERE application_name = 'instance-a' AND (query LIKE 'LISTEN%' OR query = '-- ping')`).Scan(&pid))
	require.NoError(t, syscall.Kill(pid, syscall.SIGSTOP))
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGCONT) })

	start := time.Now()
	require.NoError(t, svcB.RevokeKeyPair(ctx, sess.KeyID))
	for {
		_, err := svcA.Authenticate(ctx, brand, sess.AuthKey)
		if envelope.KindOf(err) == envelope.KindUnauthenticated {
			break
		}
		require.NoError(t, err)
		require.Less(t, time.Since(start), 1500*time.Millisecond, "the revoked key is refused within 1.5 s")
		time.Sleep(10 * time.Millisecond) // a poll interval
	}
	t.Logf("refused %v after the revocation", time.Since(start).Round(time.Millisecond))
	require.Eventually(t, a.Listening, 5*time.Second, 10*time.Millisecond, "A listens again, on a new backend")
}

// frozenWhileIdleIsAnOutage freezes the cluster (SIGSTOP) while the
// store's connections are idle, so that pgxpool pings the one a call
// takes, and nothing answers the ping nor the cancel request that its
// deadline sends: the call fails within its bound (503) and the outage is
// logged by then (a deadline passed with no answer), long before a new
// connection's attempt would time out (the default 5 s). After the thaw
// the store serves again and logs the outage's end.
func frozenWhileIdleIsAnOutage(t *testing.T, c *pgtest.Cluster, url string) {
	ctx := t.Context()
	const bound = time.Second
	var log syncBuffer
	s, err := postgres.Open(ctx, url, postgres.WithQueryTimeout(bound),
		postgres.WithLogger(slog.New(slog.NewTextHandler(&log, nil))))
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	brand := auth.Brand{ID: "b-1", URL: "frozen.example.com", Name: "Frozen", Status: auth.StatusActive,
		CreatedAt: time.Now().UTC().Truncate(time.Second)}
	require.NoError(t, s.CreateBrand(ctx, brand))
	time.Sleep(1200 * time.Millisecond) // the pool's connections idle over a second: pinged before use

	c.Freeze(t)
	thawed := false
	defer func() {
		if !thawed {
			c.Thaw(t)
		}
	}()
	start := time.Now()
	_, err = s.BrandByID(ctx, brand.ID)
	took := time.Since(start)
	outages := log.count(`msg="database unreachable"`)
	c.Thaw(t)
	thawed = true
	assert.True(t, envelope.IsUnavailable(err), "a 503: %v", err)
	assert.Less(t, took, bound, "within the bound")
	assert.Equal(t, 1, outages, "the outage is logged when the ping's deadline passes with no answer:\n%s", &log.b)

	require.Eventually(t, func() bool { return s.Ping(ctx) == nil }, 10*time.Second, 20*time.Millisecond, "serves again")
	_, err = s.BrandByID(ctx, brand.ID)
	require.NoError(t, err)
	assert.Equal(t, 1, log.count(`msg="database unreachable"`), "one outage:\n%s", &log.b)
	assert.Equal(t, 1, log.count(`msg="database reachable again"`), "its end, once")
	t.Logf("took %s; log:\n%s", took, &log.b)
}
