package main

import (
	"context"
	"encoding/hex"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/internal/testkit/pgtest"
	"github.com/brandbase/brandbase/storage/postgres"
	"github.com/brandbase/brandbase/storage/storeurl"
)

// TestServersShareOnePostgres starts three demo servers at the same moment
// on one fresh PostgreSQL schema, with the key ring and demo files in one
// directory: the database is seeded once, every server prints the same
// demo line and serves its credentials, and no secret of the demo is found
// in plaintext anywhere in the database.
func TestServersShareOnePostgres(t *testing.T) {
	t.Parallel()
	db := pgtest.Schema(t)
	dir := t.TempDir()
	keyring := filepath.Join(dir, "brandbase.key")
	var servers []*server
	for range 3 {
		servers = append(servers, launch("-db", db, "-keyring", keyring))
	}
	var lines []demoInfo
	var bases []string
	for _, s := range servers {
		base, stop := s.wait(t)
		defer stop()
		bases = append(bases, base)
		lines = append(lines, demoLine(t, s.stdout.String()))
	}
	assert.Equal(t, lines[0], lines[1], "the same demo line")
	assert.Equal(t, lines[0], lines[2], "the same demo line")
	d := lines[0]
	for _, base := range bases {
		status, _ := call(t, "POST", base+"/api/v1/users/auth", d.BrandURL, nil, loginBody("username", d.Username, d.Password))
		assert.Equal(t, 200, status, "the demo admin logs in on %s", base)
	}
	_, err := os.Stat(filepath.Join(dir, "brandbase.demo.json"))
	require.NoError(t, err, "the demo file is beside the key ring")

	app := openWithKeyRing(t, db, keyring)
	brands, err := app.Auth.Brands(t.Context())
	require.NoError(t, err)
	assert.Len(t, brands, 2, "seeded once")
	for _, b := range brands {
		users, err := app.Store.ListUsers(t.Context(), b.ID)
		require.NoError(t, err)
		assert.Len(t, users, 2, "seeded once: %s", b.URL)
	}
	assertNoPlaintext(t, db, demoSecrets(t, app, d))
}

// TestServerPostgresKeyRingMissing: a seeded database whose key ring is not
// where the server looks is refused, not re-keyed.
func TestServerPostgresKeyRingMissing(t *testing.T) {
	t.Parallel()
	db := pgtest.Schema(t)
	dir := t.TempDir()
	_, _, stop := startServer(t, "-db", db, "-keyring", filepath.Join(dir, "first.key"))
	stop()
	err := run(t.Context(), []string{"-addr", "127.0.0.1:0", "-db", db, "-keyring", filepath.Join(dir, "other.key")},
		&syncBuffer{}, &syncBuffer{}, nil)
	assert.ErrorContains(t, err, "key file")
}

// openWithKeyRing opens the database with the key ring file, as the
// servers do, closed when the test ends.
func openWithKeyRing(t *testing.T, db, keyring string) *brandbase.App {
	t.Helper()
	store, err := storeurl.Open(t.Context(), db, storeurl.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { store.Close() })
	b, err := os.ReadFile(keyring)
	require.NoError(t, err)
	keys, err := integrations.ParseKeyRing(b)
	require.NoError(t, err)
	app, err := brandbase.New(store, brandbase.Config{SecretKeys: keys})
	require.NoError(t, err)
	return app
}

// demoSecrets returns the demo's secrets: the users' passwords and the
// integrations' API keys, API secrets and private keys.
func demoSecrets(t *testing.T, app *brandbase.App, d demoInfo) []string {
	t.Helper()
	ctx := t.Context()
	secrets := []string{d.Password, d.ViewerPassword, d.OtherPassword}
	brands, err := app.Auth.Brands(ctx)
	require.NoError(t, err)
	byURL := map[string]string{}
	for _, b := range brands {
		byURL[b.URL] = b.ID
	}
	for _, c := range []struct{ brand, analytics, gateway string }{
		{d.BrandURL, d.AnalyticsIntegrationID, d.PaymentGatewayIntegrationID},
		{d.OtherBrandURL, d.OtherAnalyticsIntegrationID, d.OtherPaymentGatewayIntegrationID},
	} {
		a, err := app.Integrations.AnalyticsSecrets(ctx, byURL[c.brand], c.analytics)
		require.NoError(t, err)
		require.NotNil(t, a.APISecret)
		g, err := app.Integrations.PaymentGatewaySecrets(ctx, byURL[c.brand], c.gateway)
		require.NoError(t, err)
		require.NotNil(t, g.PrivateKey)
		require.NotNil(t, a.APIKey)
		secrets = append(secrets, *a.APIKey, *a.APISecret, *g.PrivateKey)
	}
	for _, s := range secrets {
		require.GreaterOrEqual(t, len(s), 8, "a secret worth looking for")
	}
	return secrets
}

// assertNoPlaintext reads every row of every table of the database's
// schema as text (every column, whatever its type; bytea in hex), and the
// pg_dump of the schema when pg_dump is installed, and checks that none
// holds a secret, as text or as the hex of its bytes.
func assertNoPlaintext(t *testing.T, db string, secrets []string) {
	t.Helper()
	ctx := t.Context()
	u, err := url.Parse(db)
	require.NoError(t, err)
	schema, _, _ := strings.Cut(u.Query().Get("search_path"), ",")
	require.NotEmpty(t, schema)
	conn, err := pgx.Connect(ctx, db)
	require.NoError(t, err)
	defer conn.Close(context.Background())
	rows, err := conn.Query(ctx, `SELECT table_name FROM information_schema.tables
		WHERE table_schema = $1 AND table_type = 'BASE TABLE' ORDER BY 1`, schema)
	require.NoError(t, err)
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	require.Contains(t, tables, "users")
	var dump strings.Builder
	for _, table := range tables {
		rows, err := conn.Query(ctx, "SELECT r::text FROM "+pgx.Identifier{schema, table}.Sanitize()+" r")
		require.NoError(t, err)
		texts, err := pgx.CollectRows(rows, pgx.RowTo[string])
		require.NoError(t, err)
		for _, s := range texts {
			dump.WriteString(s + "\n")
		}
	}
	require.Contains(t, dump.String(), "demo.brandbase.test", "the rows were read")
	assertNoneIn(t, "rows", dump.String(), secrets)

	pgDump, err := exec.LookPath("pg_dump")
	if err != nil {
		t.Log("pg_dump is not installed: only the rows were read")
		return
	}
	base := *u
	q := base.Query()
	q.Del("search_path")
	base.RawQuery = q.Encode()
	out, err := exec.CommandContext(ctx, pgDump, "--schema="+schema, "--data-only", base.String()).Output()
	if err != nil {
		t.Logf("pg_dump failed (%v): only the rows were read", err)
		return
	}
	require.Contains(t, string(out), "demo.brandbase.test", "the dump holds the data")
	assertNoneIn(t, "pg_dump", string(out), secrets)
	t.Logf("pg_dump of %d bytes read", len(out))
}

func assertNoneIn(t *testing.T, what, text string, secrets []string) {
	t.Helper()
	lower := strings.ToLower(text)
	for _, s := range secrets {
		assert.NotContains(t, text, s, "%s hold a secret in plaintext", what)
		assert.NotContains(t, lower, hex.EncodeToString([]byte(s)), "%s hold a secret's bytes", what)
	}
}

// TestDemoLockAcceptsPoolSettings: a URL with pool settings (which the
// server must not receive as session settings) takes and releases the demo
// lock, and the store opens on it with the pool they say.
func TestDemoLockAcceptsPoolSettings(t *testing.T) {
	t.Parallel()
	db := pgtest.Schema(t) + "&pool_max_conns=25&pool_max_conn_lifetime=1h"
	unlock, err := lockDemo(t.Context(), db)
	require.NoError(t, err, "the demo lock")
	unlock()
	s, err := postgres.Open(t.Context(), db)
	require.NoError(t, err)
	defer s.Close()
	assert.EqualValues(t, 25, s.Pool().Config().MaxConns)
}
