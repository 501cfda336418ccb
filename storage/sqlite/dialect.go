package sqlite

// The SQL dialect of this package (sqlstore.Dialect): how the SQL core
// (storage/internal/sqlstore), which holds auth and integrations, reads
// and writes SQLite, and the few helpers the reference-data files read
// and write rows through.
//
//   - Times are stored as integer microseconds since the Unix epoch (UTC);
//     a zero time is NULL where the column allows it ([microTime]).
//   - Lists (permissions, a revision's fields) are one comma-separated
//     TEXT column ([commaList]); JSON documents are BLOBs.
//   - Placeholders are "?"; the insertion order (seq) is the largest seq
//     plus one, given on insert.
//   - Write transactions are serialised (one writer connection, BEGIN
//     IMMEDIATE), so no row lock clause and no partition lock is needed,
//     and there is no notification: an instance owns its file.
//   - A loop of writes prepares its statements once ([prepare]) and runs
//     them without the context's cancellation watch ([bulk]).
//   - A unique or primary-key violation is [sqlstore.Unique], a
//     foreign-key violation [sqlstore.ForeignKey]; every other driver
//     error goes through [storeError]. Stores write no client-facing text
//     of their own: the domain packages own every message.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/storage/internal/sqlstore"
)

// bulk returns, for the statements of a loop of writes, ctx without its
// cancellation (the driver watches a cancellable context with a goroutine
// per statement, which doubled the cost of small inserts) and a function
// that reports ctx's error, for the loop to check each round.
func bulk(ctx context.Context) (context.Context, func() error) {
	return context.WithoutCancel(ctx), ctx.Err
}

// prepare prepares queries in tx, for a loop of writes (see [bulk]).
// closeAll closes the statements; on failure none stays open.
func prepare(ctx context.Context, tx *sql.Tx, queries ...string) (stmts []*sql.Stmt, closeAll func(), err error) {
	closeAll = func() {
		for _, st := range stmts {
			st.Close()
		}
	}
	for _, q := range queries {
		st, err := tx.PrepareContext(ctx, q)
		if err != nil {
			closeAll()
			return nil, func() {}, err
		}
		stmts = append(stmts, st)
	}
	return stmts, closeAll, nil
}

// storeError maps a driver error to the store contract: *envelope.Error and
// context errors pass through, a lock still held by another connection
// when busy_timeout ran out (SQLITE_BUSY, SQLITE_LOCKED) becomes
// envelope.Unavailable, unique and primary-key violations become
// envelope.ErrStoreConflict, sql.ErrNoRows envelope.ErrStoreNotFound (each
// carrying err), anything else KindInternal. It writes no client-facing
// text: the sentinels' packages own it.
func storeError(err error) error {
	if err == nil {
		return nil
	}
	var e *envelope.Error
	if errors.As(err, &e) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if errors.Is(err, sql.ErrNoRows) {
		return envelope.ErrStoreNotFound.WithCause(err)
	}
	if isBusy(err) {
		return envelope.Unavailable(fmt.Errorf("sqlite: the database stayed locked past busy_timeout: %w", err), envelope.DefaultRetryAfter)
	}
	if isUnique(err) {
		return envelope.ErrStoreConflict.WithCause(err)
	}
	return envelope.Internal(fmt.Errorf("sqlite: %w", err))
}

// isUnique reports whether err is a unique or primary-key violation.
func isUnique(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	code := se.Code()
	return code == sqlite3.SQLITE_CONSTRAINT_UNIQUE || code == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
}

// isForeignKey reports whether err is a foreign-key violation.
func isForeignKey(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code() == sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY
}

// isBusy reports whether err is SQLITE_BUSY or SQLITE_LOCKED (any of their
// extended codes): another connection held a lock for longer than the
// busy timeout.
func isBusy(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	primary := se.Code() & 0xff
	return primary == sqlite3.SQLITE_BUSY || primary == sqlite3.SQLITE_LOCKED
}

// dialect is the sqlstore.Dialect of a Store.
type dialect struct{ s *Store }

var _ sqlstore.Dialect = dialect{}

func (dialect) Numbered() bool                           { return false }
func (dialect) Time(t time.Time) any                     { return t.UnixMicro() }
func (dialect) ScanTime(dst *time.Time) any              { return microTime{dst} }
func (dialect) List(ss []string) any                     { return strings.Join(ss, ",") }
func (dialect) ScanList(dst *[]string) any               { return commaList{dst} }
func (dialect) JSON(b []byte) any                        { return b }
func (dialect) ForUpdate() string                        { return "" }
func (dialect) ForShare() string                         { return "" }
func (dialect) SkipLocked() string                       { return "" }
func (dialect) Lateral() bool                            { return false }
func (dialect) Missing(err error) bool                   { return errors.Is(err, sql.ErrNoRows) }
func (dialect) Error(_ context.Context, err error) error { return storeError(err) }

func (dialect) NextSeq(table string) string {
	return "(SELECT coalesce(max(seq), 0) + 1 FROM " + table + ")"
}

func (dialect) Violation(err error) sqlstore.Violation {
	switch {
	case isUnique(err):
		return sqlstore.Unique
	case isForeignKey(err):
		return sqlstore.ForeignKey
	}
	return sqlstore.NoViolation
}

// Write runs fn in a transaction on the writer connection (BEGIN
// IMMEDIATE): transactions are serialised and see each other's committed
// writes.
func (d dialect) Write(ctx context.Context, fn func(tx sqlstore.DB) error) error {
	return d.s.write(ctx, func(tx *sql.Tx) error { return fn(db{tx}) })
}

// microTime scans a time column of microseconds since the Unix epoch into
// a UTC time; NULL is the zero time.
type microTime struct{ t *time.Time }

func (m microTime) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*m.t = time.Time{}
	case int64:
		*m.t = time.UnixMicro(v).UTC()
	default:
		return fmt.Errorf("sqlite: a time column holds %T", src)
	}
	return nil
}

// commaList scans a comma-separated TEXT column into a list; "" is none.
type commaList struct{ l *[]string }

func (c commaList) Scan(src any) error {
	var s string
	switch v := src.(type) {
	case nil:
	case string:
		s = v
	case []byte:
		s = string(v)
	default:
		return fmt.Errorf("sqlite: a list column holds %T", src)
	}
	*c.l = nil
	if s != "" {
		*c.l = strings.Split(s, ",")
	}
	return nil
}

// db is a sqlstore.DB on a *sql.DB or *sql.Tx.
type db struct {
	q interface {
		QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
		QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
		ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	}
}

func (d db) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	res, err := d.q.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (d db) Query(ctx context.Context, query string, args ...any) (sqlstore.Rows, error) {
	rows, err := d.q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return sqlRows{rows}, nil
}

func (d db) QueryRow(ctx context.Context, query string, args ...any) sqlstore.Scanner {
	return d.q.QueryRowContext(ctx, query, args...)
}

// sqlRows is *sql.Rows as sqlstore.Rows.
type sqlRows struct{ *sql.Rows }

func (r sqlRows) Close() { r.Rows.Close() }
