package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/brandbase/brandbase/storage"
	"github.com/brandbase/brandbase/storage/internal/sqlstore"
)

// DBSystem returns "sqlite", the db.system.name of the store's calls.
func (s *Store) DBSystem() string { return "sqlite" }

// Schema returns the status of the schema of the SQLite database at path
// (see storage.SchemaStatus) without opening the store: it applies no
// migration, loads no data and creates no file. A file that does not
// exist, or holds no brandbase table yet, has every migration pending, as
// has ":memory:" (a private database, empty until Open migrates it). It
// fails when the file cannot be read as an SQLite database.
func Schema(ctx context.Context, path string) (storage.SchemaStatus, error) {
	all, err := sqlstore.Migrations(migrations, "migrations")
	if err != nil {
		return storage.SchemaStatus{}, fmt.Errorf("sqlite: %w", err)
	}
	if path == "" || strings.ContainsAny(path, "?#") {
		return storage.SchemaStatus{}, fmt.Errorf("sqlite: invalid database path %q", path)
	}
	if path == ":memory:" {
		return sqlstore.SchemaOf(nil, all), nil
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return sqlstore.SchemaOf(nil, all), nil
	} else if err != nil {
		return storage.SchemaStatus{}, fmt.Errorf("sqlite: %w", err)
	}
	db, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(10000)&_pragma=query_only(1)")
	if err != nil {
		return storage.SchemaStatus{}, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	defer db.Close()
	var tables int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'`).Scan(&tables); err != nil {
		return storage.SchemaStatus{}, fmt.Errorf("sqlite: read %s: %w", path, err)
	}
	applied := map[int]string{}
	if tables > 0 {
		rows, err := db.QueryContext(ctx, `SELECT version, name FROM schema_migrations`)
		if err != nil {
			return storage.SchemaStatus{}, fmt.Errorf("sqlite: read %s: %w", path, err)
		}
		defer rows.Close()
		for rows.Next() {
			var v int
			var name string
			if err := rows.Scan(&v, &name); err != nil {
				return storage.SchemaStatus{}, fmt.Errorf("sqlite: read %s: %w", path, err)
			}
			applied[v] = name
		}
		if err := rows.Err(); err != nil {
			return storage.SchemaStatus{}, fmt.Errorf("sqlite: read %s: %w", path, err)
		}
	}
	return sqlstore.SchemaOf(applied, all), nil
}
