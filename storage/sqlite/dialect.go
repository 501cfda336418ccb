package sqlite

// The SQL dialect of this package: every file reads and writes rows through
// these few helpers, so that a query's shape is the same everywhere. A new
// SQL backend (storage/postgres) copies this file's set with its driver's
// types.
//
//   - Times are stored as integer microseconds since the Unix epoch (UTC);
//     a zero time is NULL where the column allows it ([toMicro],
//     [toNullMicro], [fromMicro], [fromNullMicro]).
//   - A row is scanned by one func(scanner) (T, error) per record kind.
//   - A loop of writes prepares its statements once ([prepare]) and runs
//     them without the context's cancellation watch ([bulk]).
//   - Reads go through a [querier] (the reader pool, or a transaction), so
//     one function serves the Store and its transactions alike.
//   - A missing row is reported as the domain's sentinel error
//     ([notFound], [queryOne], [exists], [execOne]), and so is a unique
//     key taken by a write ([exec], [execOne]: each call names its table's
//     sentinel); every other driver error goes through [storeError].
//     Stores write no client-facing text of their own: the domain
//     packages own every message.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/storage/internal/sqlstore"
)

// scanner is a *sql.Row or *sql.Rows.
type scanner = sqlstore.Scanner

// querier runs reads: the reader pool, the writer, or a transaction.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// toMicro encodes t as microseconds since the Unix epoch.
func toMicro(t time.Time) int64 { return t.UnixMicro() }

// fromMicro decodes microseconds since the Unix epoch as a UTC time.
func fromMicro(us int64) time.Time { return time.UnixMicro(us).UTC() }

// toNullMicro encodes t like toMicro, and the zero time as NULL.
func toNullMicro(t time.Time) sql.NullInt64 {
	if t.IsZero() {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: toMicro(t), Valid: true}
}

// fromNullMicro decodes what toNullMicro encoded: NULL is the zero time.
func fromNullMicro(n sql.NullInt64) time.Time {
	if !n.Valid {
		return time.Time{}
	}
	return fromMicro(n.Int64)
}

// emptyAsNull stores the empty string as NULL (for unique columns that
// allow several empty values).
func emptyAsNull(s string) sql.NullString { return sql.NullString{String: s, Valid: s != ""} }

// notFound maps sql.ErrNoRows to missing (a domain sentinel error), and any
// other error through storeError.
func notFound(err error, missing *envelope.Error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return missing
	}
	return storeError(err)
}

// queryOne runs a query that selects one row and scans it with scan;
// missing when there is no row.
func queryOne[T any](ctx context.Context, q querier, scan func(scanner) (T, error), missing *envelope.Error, query string, args ...any) (T, error) {
	v, err := scan(q.QueryRowContext(ctx, query, args...))
	if err != nil {
		var zero T
		return zero, notFound(err, missing)
	}
	return v, nil
}

// queryAll runs a query and scans every row with scan. The result is
// never nil on success.
func queryAll[T any](ctx context.Context, q querier, scan func(scanner) (T, error), query string, args ...any) ([]T, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, storeError(err)
	}
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, storeError(err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, storeError(err)
	}
	return out, nil
}

// exists returns missing (a domain sentinel error) unless query, which
// selects one column, finds a row.
func exists(ctx context.Context, q querier, missing *envelope.Error, query string, args ...any) error {
	var one any
	return notFound(q.QueryRowContext(ctx, query, args...).Scan(&one), missing)
}

// exec runs a write and returns how many rows it changed. A unique or
// primary-key violation is returned as taken (a domain sentinel error
// carrying the driver's error as its cause) when taken is not nil: each
// call names the conflict of the table it writes.
func exec(ctx context.Context, tx *sql.Tx, taken *envelope.Error, query string, args ...any) (int, error) {
	res, err := tx.ExecContext(ctx, query, args...)
	if err != nil {
		if taken != nil && isUnique(err) {
			return 0, taken.WithCause(err)
		}
		return 0, storeError(err)
	}
	n, err := res.RowsAffected()
	return int(n), storeError(err)
}

// execOne runs a write that must change exactly one row: missing when it
// changed none, taken (see [exec]) when it breaks a unique key.
func execOne(ctx context.Context, tx *sql.Tx, missing, taken *envelope.Error, query string, args ...any) error {
	n, err := exec(ctx, tx, taken, query, args...)
	if err == nil && n == 0 {
		return missing
	}
	return err
}

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
