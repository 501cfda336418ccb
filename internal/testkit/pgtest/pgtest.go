// Package pgtest gives each test its own PostgreSQL schema on the server
// that the environment variable BRANDBASE_TEST_POSTGRES names, so that
// tests against a real server run in parallel without seeing each other's
// rows. Without the variable, tests that need a server skip with a message
// saying how to run them; .ci/run starts a throwaway server and sets it.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvURL is the environment variable that names the test server.
const EnvURL = "BRANDBASE_TEST_POSTGRES"

// skipMessage says how to run the tests that skipped.
const skipMessage = EnvURL + " is not set: these tests need a PostgreSQL server. " +
	"Run `bash .ci/run` (it starts a throwaway server), or set " + EnvURL +
	"=postgres://user:password@127.0.0.1:5432/dbname?sslmode=disable to a database the tests may fill."

// URL returns the server URL, or skips t when none is set.
func URL(t testing.TB) string {
	t.Helper()
	u := os.Getenv(EnvURL)
	if u == "" {
		t.Skip(skipMessage)
	}
	return u
}

var extensions struct {
	once sync.Once
	err  error
}

// Schema creates a schema of its own for t and returns a URL of the test
// server whose connections use it (search_path is the schema, then public,
// where the extensions the stores need are installed once). The schema is
// dropped when t ends. Tests that share the returned URL share the
// schema: that is how several store instances see one database.
func Schema(t testing.TB) string {
	t.Helper()
	base := URL(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("pgtest: connect to %s: %v", EnvURL, err)
	}
	defer conn.Close(ctx)
	extensions.once.Do(func() { extensions.err = installExtensions(ctx, conn) })
	if extensions.err != nil {
		t.Fatalf("pgtest: %v", extensions.err)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "test_" + hex.EncodeToString(b[:])
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+name); err != nil {
		t.Fatalf("pgtest: create schema: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Errorf("pgtest: drop schema %s: %v", name, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP SCHEMA "+name+" CASCADE"); err != nil {
			t.Errorf("pgtest: drop schema %s: %v", name, err)
		}
	})
	u, err := WithSearchPath(base, name+",public")
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	return u
}

// WithSearchPath returns rawURL with its connections' search_path set.
func WithSearchPath(rawURL, path string) (string, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", fmt.Errorf("parse %s: %w", EnvURL, err)
	}
	q := u.Query()
	q.Set("search_path", path)
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// installExtensions installs, once per database and under an advisory lock
// (test binaries of several packages run at once), the extensions the
// stores use, in the public schema.
func installExtensions(ctx context.Context, conn *pgx.Conn) error {
	const lockID = 0x62726e6462617365 // "brndbase"
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", lockID); err != nil {
		return fmt.Errorf("lock: %w", err)
	}
	defer conn.Exec(ctx, "SELECT pg_advisory_unlock($1)", lockID) //nolint:errcheck // closing the connection unlocks too
	if _, err := conn.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public"); err != nil {
		return fmt.Errorf("install pg_trgm: %w", err)
	}
	return nil
}
