package postgres

import (
	"context"
	"fmt"

	"github.com/brandbase/brandbase/storage/internal/sqlstore"
)

// PendingMigrations returns the names of the embedded migrations that the
// schema has not applied, in order: none once Open has returned, unless
// the schema was changed behind the store's back. It reads
// schema_migrations (one query), for hosts' readiness checks, and fails
// with the store's error when the database cannot answer.
func (s *Store) PendingMigrations(ctx context.Context) ([]string, error) {
	applied, err := queryAll(ctx, s.db, sqlstore.ScanColumn[int], `SELECT version FROM schema_migrations`)
	if err != nil {
		return nil, err
	}
	pending, err := sqlstore.PendingMigrations(migrations, "migrations", applied)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	return pending, nil
}
