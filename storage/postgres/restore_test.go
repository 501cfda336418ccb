package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/internal/testkit/pgtest"
	"github.com/brandbase/brandbase/refdata"
)

// restoreDatabase creates a database of its own on the test server
// (dropped when t ends) with the extensions the store needs and a schema
// "app", and returns the URL of its connections (search_path app, public)
// and the directory of pg_dump and pg_restore. It skips without the
// server or the binaries.
func restoreDatabase(t *testing.T) (dbURL, bin string) {
	t.Helper()
	base := pgtest.URL(t)
	bin = os.Getenv(pgtest.EnvBin)
	if bin == "" {
		bin = "/usr/lib/postgresql/15/bin"
	}
	for _, tool := range []string{"pg_dump", "pg_restore"} {
		if _, err := os.Stat(filepath.Join(bin, tool)); err != nil {
			t.Skipf("no %s in %s (set %s): %v", tool, bin, pgtest.EnvBin, err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin, err := pgx.Connect(ctx, base)
	require.NoError(t, err)
	defer admin.Close(ctx)
	var b [6]byte
	_, _ = rand.Read(b[:])
	var current string
	require.NoError(t, admin.QueryRow(ctx, "SELECT current_database()").Scan(&current))
	name := current + "_restore_" + hex.EncodeToString(b[:])
	_, err = admin.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		admin, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Errorf("drop database %s: %v", name, err)
			return
		}
		defer admin.Close(ctx)
		if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
	})
	u, err := url.Parse(base)
	require.NoError(t, err)
	u.Path = "/" + name
	conn, err := pgx.Connect(ctx, u.String())
	require.NoError(t, err)
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public; CREATE SCHEMA app")
	require.NoError(t, err)
	dbURL, err = pgtest.WithSearchPath(u.String(), "app,public")
	require.NoError(t, err)
	return dbURL, bin
}

// pgTool runs one of the server's client programs and fails t with its
// output when it fails.
func pgTool(t *testing.T, bin, tool string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, filepath.Join(bin, tool), args...).CombinedOutput()
	require.NoError(t, err, "%s %v: %s", tool, args, out)
}

// libpqURL returns dbURL without the parameters libpq does not know.
func libpqURL(t *testing.T, dbURL string) string {
	t.Helper()
	u, err := url.Parse(dbURL)
	require.NoError(t, err)
	q := u.Query()
	q.Del("search_path")
	u.RawQuery = q.Encode()
	return u.String()
}

// TestRestoreReachesEveryInstance: two running instances (a store and a
// reference-data service each) share a database; a dump is taken, cities
// are written and listed by both, and the dump is restored into the
// running database (pg_restore --clean: the revision goes back, and no
// notification is sent). Within 2 s every instance lists what the
// database holds; then writes move the revision past where it was, and
// every instance lists those writes and not the cities the restore took
// away.
func TestRestoreReachesEveryInstance(t *testing.T) {
	t.Parallel()
	dbURL, bin := restoreDatabase(t)
	ctx := t.Context()
	quietLog := slog.New(slog.DiscardHandler)
	var stores []*Store
	var svcs []*refdata.Service
	for range 2 {
		s, err := Open(ctx, dbURL, WithLogger(quietLog))
		require.NoError(t, err)
		t.Cleanup(func() { s.Close() })
		svc := refdata.NewService(s, refdata.WithLogger(quietLog))
		t.Cleanup(svc.Close)
		require.NoError(t, svc.Ready(ctx))
		stores, svcs = append(stores, s), append(svcs, svc)
	}
	all := refdata.CityQuery{SortDataField: new("name"), Page: refdata.Paging{Size: refdata.MaxPageSize}, CountryCode: new("XA")}
	// held returns what the database holds now, read whole by a fresh
	// service on a store of its own.
	held := func() refdata.Page[refdata.City] {
		s, err := Open(ctx, dbURL, WithLogger(quietLog))
		require.NoError(t, err)
		defer s.Close()
		svc := refdata.NewService(s, refdata.WithLogger(quietLog))
		defer svc.Close()
		p, err := svc.ListCities(ctx, all)
		require.NoError(t, err)
		return p
	}
	// agree waits up to within for every instance to list what the
	// database holds, and fails t naming the one that does not.
	agree := func(within time.Duration, what string) {
		t.Helper()
		want := held()
		start := time.Now()
		agreed := true
		for i, svc := range svcs {
			var got refdata.Page[refdata.City]
			ok := assert.Eventually(t, func() bool {
				var err error
				got, err = svc.ListCities(ctx, all)
				return err == nil && assert.ObjectsAreEqual(want, got)
			}, within-time.Since(start), 20*time.Millisecond, "%s: instance %d lists what the database holds", what, i)
			if !ok {
				assert.Equal(t, want, got, "%s: instance %d", what, i)
				agreed = false
			}
		}
		if agreed {
			t.Logf("%s: every instance lists what the database holds after %v", what, time.Since(start))
		}
	}
	city := func(name string) refdata.City { return refdata.City{CountryCode: "XA", StateCode: "AA", Name: name} }
	_, err := stores[0].UpsertCities(ctx, []refdata.City{city("Dumpville")})
	require.NoError(t, err)
	agree(2*time.Second, "before the dump")

	dump := filepath.Join(t.TempDir(), "brandbase.dump")
	pgTool(t, bin, "pg_dump", "--format=custom", "--schema=app", "--file="+dump, libpqURL(t, dbURL))
	for i := range 3 {
		_, err := stores[i%2].UpsertCities(ctx, []refdata.City{city(fmt.Sprintf("Lostville %d", i))})
		require.NoError(t, err)
	}
	agree(2*time.Second, "after writes past the dump")
	for _, svc := range svcs {
		p, err := svc.ListCities(ctx, all)
		require.NoError(t, err)
		require.Len(t, p.Items, 4, "Dumpville and the three written after the dump")
	}

	pgTool(t, bin, "pg_restore", "--clean", "--if-exists", "--single-transaction", "--dbname="+libpqURL(t, dbURL), dump)
	agree(2*time.Second, "after the restore")
	p := held()
	require.Len(t, p.Items, 1, "the database holds what the dump held")

	// Writes move the revision back past where the instances were: they
	// list these, never the cities the restore took away.
	for i := range 5 {
		_, err := stores[i%2].UpsertCities(ctx, []refdata.City{city(fmt.Sprintf("Newville %d", i))})
		require.NoError(t, err)
	}
	agree(2*time.Second, "after writes past the old revision")
	p = held()
	require.Len(t, p.Items, 6, "Dumpville and the five written after the restore")
}
