package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/brandbase/brandbase/storage"
	"github.com/brandbase/brandbase/storage/internal/sqlstore"
)

// DBSystem returns "postgresql", the db.system.name of the store's calls.
func (s *Store) DBSystem() string { return "postgresql" }

// Schema returns the status of the schema of the database url names (the
// first schema of its search_path; see storage.SchemaStatus) without
// opening the store: one connection, bounded as Open bounds it (opts), two
// reads; it applies no migration and creates nothing. A schema that holds
// no brandbase table yet has every migration pending. It fails when the
// database cannot be reached or read.
func Schema(ctx context.Context, url string, opts ...Option) (storage.SchemaStatus, error) {
	all, err := sqlstore.Migrations(migrations, "migrations")
	if err != nil {
		return storage.SchemaStatus{}, fmt.Errorf("postgres: %w", err)
	}
	cfg, err := ConnConfig(url, opts...)
	if err != nil {
		return storage.SchemaStatus{}, err
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return storage.SchemaStatus{}, fmt.Errorf("postgres: cannot connect to %s:%d: %w", cfg.Host, cfg.Port, err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var exists bool
	if err := conn.QueryRow(ctx, `SELECT to_regclass('schema_migrations') IS NOT NULL`).Scan(&exists); err != nil {
		return storage.SchemaStatus{}, fmt.Errorf("postgres: read the schema: %w", err)
	}
	applied := map[int]string{}
	if exists {
		rows, err := conn.Query(ctx, `SELECT version, name FROM schema_migrations`)
		if err != nil {
			return storage.SchemaStatus{}, fmt.Errorf("postgres: read the schema: %w", err)
		}
		var v int
		var name string
		if _, err := pgx.ForEachRow(rows, []any{&v, &name}, func() error { applied[v] = name; return nil }); err != nil {
			return storage.SchemaStatus{}, fmt.Errorf("postgres: read the schema: %w", err)
		}
	}
	return sqlstore.SchemaOf(applied, all), nil
}
