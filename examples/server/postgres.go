package main

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/brandbase/brandbase/storage/postgres"
	"github.com/brandbase/brandbase/storage/storeurl"
)

// demoLockSQL takes the demo lock of the schema the store uses (the first
// of the connection's search_path): a session-level advisory lock, held
// until released or the connection closes.
const demoLockSQL = `SELECT pg_advisory_lock(hashtextextended('brandbase.demo.' || current_schema(), 0))`

// lockDemo, for a PostgreSQL URL, waits for the demo lock of its schema
// and returns the function that releases it; for another store it returns
// a no-op at once. A server holds it while it reads or creates the key ring
// and seeds or reads the demo data, so that of several servers started at
// once on one database exactly one seeds, and the others see its data and
// its files. It fails when the database cannot be reached or ctx ends
// while waiting.
func lockDemo(ctx context.Context, db string) (unlock func(), err error) {
	if !storeurl.IsPostgresURL(db) {
		return func() {}, nil
	}
	// Parsed as the store parses it: the URL may hold pool settings
	// (pool_max_conns=25), which a single connection must not send to
	// the server.
	cfg, err := postgres.ConnConfig(db)
	if err != nil {
		return nil, fmt.Errorf("demo lock: %w", err)
	}
	// The lock waits for another server's seeding, however long it takes.
	cfg.RuntimeParams["lock_timeout"], cfg.RuntimeParams["statement_timeout"] = "0", "0"
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("demo lock: %w", err)
	}
	if _, err := conn.Exec(ctx, demoLockSQL); err != nil {
		conn.Close(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("demo lock: %w", err)
	}
	// Closing the session releases its advisory locks.
	return func() { conn.Close(context.WithoutCancel(ctx)) }, nil
}
