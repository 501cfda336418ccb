// Package sqlite implements storage.Storage on SQLite through the pure-Go
// driver modernc.org/sqlite (no cgo).
//
// A Store opens a file (or ":memory:") in WAL mode with foreign keys on and a
// busy timeout, applies the embedded migrations in order (each in its own
// transaction), and loads the default reference dataset. Writes go through
// one connection, so concurrent writers queue instead of failing with
// "database is locked"; reads use a pool of their own. Every writing method
// runs in one transaction.
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"runtime"
	"slices"
	"strings"

	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/storage"
	"github.com/brandbase/brandbase/storage/internal/sqlstore"
)

var _ storage.Storage = (*Store)(nil)

//go:embed migrations/*.sql
var migrations embed.FS

// core is the SQL core, embedded: its methods implement auth.Store and
// integrations.Store.
type core = sqlstore.Core

// newCore returns the SQL core of s, whose handles are set.
func newCore(s *Store) *core {
	fsys, _ := fs.Sub(migrations, "migrations")
	return sqlstore.New(dialect{s}, db{s.r}, fsys)
}

// Store is an SQLite-backed storage.Storage. It is safe for concurrent use.
type Store struct {
	*core
	w   *sql.DB  // the one writer connection
	r   *sql.DB  // readers; the same as w for ":memory:"
	ref refState // reference-data caches (refdata.go)
	// templateGen is the generation of a database this Open created from
	// the template (Store.ReadRefData), "" for any other.
	templateGen string
}

// Open opens (creating if needed) the SQLite database at path, or a private
// in-memory database when path is ":memory:", migrates it to the current
// schema and loads the default reference dataset. A database that Open
// creates, and that nobody else has touched, starts as a copy of a
// template holding the dataset (milliseconds); any other (an existing
// file, even empty or holding the host's own tables, which are kept)
// gets the schema and the dataset by upserts, once. A database file that
// Open creates, and its -wal and -shm files, are readable and writable by
// their owner only (0600); an existing file keeps its mode.
func Open(ctx context.Context, path string) (*Store, error) {
	if path == "" || strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("sqlite: invalid database path %q", path)
	}
	fromTemplate := false
	if path != ":memory:" {
		fromTemplate = createFromTemplate(path)
		createPrivate(path)
	}
	const pragmas = "_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate"
	dsn := path + "?" + pragmas
	w, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	s := &Store{w: w, r: w}
	if path != ":memory:" {
		r, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)&_pragma=query_only(1)")
		if err != nil {
			w.Close()
			return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
		}
		n := max(4, runtime.GOMAXPROCS(0))
		r.SetMaxOpenConns(n)
		r.SetMaxIdleConns(n)
		s.r = r
	} else {
		fromTemplate = useTemplate(ctx, w)
	}
	s.core = newCore(s)
	if err := s.migrate(ctx); err != nil {
		s.Close()
		return nil, err
	}
	if err := refdata.LoadDefault(ctx, s); err != nil {
		s.Close()
		return nil, fmt.Errorf("sqlite: load default dataset: %w", err)
	}
	if err := s.core.EnsureGeneration(ctx); err != nil { // a copy of the template has none
		s.Close()
		return nil, fmt.Errorf("sqlite: write the reference data's generation: %w", err)
	}
	if fromTemplate {
		gen, _, err := s.core.RefDataGeneration(ctx)
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("sqlite: read the reference data's generation: %w", err)
		}
		s.templateGen = gen
	}
	return s, nil
}

// Ping checks that the database file answers a read: nil when it does,
// else an envelope.Unavailable error. For readiness checks.
func (s *Store) Ping(ctx context.Context) error {
	var n int
	if err := s.r.QueryRowContext(ctx, `SELECT 1`).Scan(&n); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err := storeError(err); envelope.IsUnavailable(err) {
			return err
		}
		return envelope.Unavailable(fmt.Errorf("sqlite: ping: %w", err), envelope.DefaultRetryAfter)
	}
	return nil
}

// Close closes the database handles.
func (s *Store) Close() error {
	err := s.w.Close()
	if s.r != s.w {
		err = errors.Join(err, s.r.Close())
	}
	return err
}

// migrate applies the embedded migrations the database has not applied
// (sqlstore.Migrate), each in a write transaction.
func (s *Store) migrate(ctx context.Context) error {
	if _, err := s.w.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, name TEXT NOT NULL) STRICT`); err != nil {
		return fmt.Errorf("sqlite: migrations table: %w", err)
	}
	all, err := sqlstore.Migrations(migrations, "migrations")
	if err == nil {
		steps := map[string]func(context.Context, sqlstore.DB) error{
			"0007_created_order.sql":    func(ctx context.Context, tx sqlstore.DB) error { return numberStored(ctx, s.core, tx) },
			"0013_user_identifiers.sql": func(ctx context.Context, tx sqlstore.DB) error { return sqlstore.RekeyUsers(ctx, tx, false) },
			"0018_administration.sql":   func(ctx context.Context, tx sqlstore.DB) error { return sqlstore.FillUserWords(ctx, tx, false) }}
		err = sqlstore.Migrate(ctx, all, false, dialect{s}.Write, steps, 0)
	}
	if err != nil {
		return fmt.Errorf("sqlite: %w", err)
	}
	return nil
}

// write runs fn in a transaction on the writer connection: committed when fn
// returns nil, rolled back otherwise. Errors are mapped by storeError.
func (s *Store) write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return storeError(err)
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return storeError(err)
	}
	return storeError(tx.Commit())
}

// Check runs SQLite's integrity check on the database and returns an error
// describing the first problems found, or nil when the file is intact. It
// reads the whole file: use it after a crash or in a health check, not per
// request.
func (s *Store) Check(ctx context.Context) error {
	lines, err := sqlstore.QueryAll(ctx, s.core, db{s.r}, sqlstore.ScanColumn[string], `PRAGMA integrity_check`)
	if err != nil {
		return err
	}
	problems := slices.DeleteFunc(lines, func(line string) bool { return line == "ok" })
	if len(problems) > 0 {
		return envelope.Internal(fmt.Errorf("sqlite: integrity check: %s", strings.Join(problems, "; ")))
	}
	return nil
}
