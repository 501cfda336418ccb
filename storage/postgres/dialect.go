package postgres

// The SQL dialect of this package, the pgx twin of storage/sqlite's: every
// file reads and writes rows through these few helpers, so that a query's
// shape is the same everywhere.
//
//   - Times are stored as timestamptz (microsecond precision, as the other
//     stores keep them); a zero time is NULL where the column allows it
//     ([nullTime], [fromTime], [fromNullTime]).
//   - A row is scanned by one func(scanner) (T, error) per record kind.
//   - Reads go through a [querier] (the pool, or a transaction), so one
//     function serves the Store and its transactions alike.
//   - A missing row is reported as the domain's sentinel error
//     ([notFound], [queryOne], [execOne]); a unique or foreign-key
//     violation as the record's sentinel conflict or missing reference
//     ([constraintError]); every other driver error goes through
//     [storeError]. Stores write no client-facing text of their own: the
//     domain packages own every message.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/storage/internal/sqlstore"
)

// SQLSTATE codes the stores map to domain errors.
const (
	codeUniqueViolation     = "23505"
	codeForeignKeyViolation = "23503"
	// codeBadEncoding: a parameter is not valid UTF-8 or holds a NUL,
	// which no text column can hold.
	codeBadEncoding = "22021"
)

// scanner is a pgx.Row or pgx.Rows.
type scanner = sqlstore.Scanner

// querier runs statements: the pool, or a transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// fromTime decodes a timestamptz as a UTC time.
func fromTime(t time.Time) time.Time { return t.UTC() }

// nullTime encodes t, and the zero time as NULL.
func nullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t
}

// fromNullTime decodes what nullTime encoded: NULL is the zero time.
func fromNullTime(t pgtype.Timestamptz) time.Time {
	if !t.Valid {
		return time.Time{}
	}
	return fromTime(t.Time)
}

// emptyAsNull stores the empty string as NULL (for unique columns that
// allow several empty values).
func emptyAsNull(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// notFound maps pgx.ErrNoRows to missing (a domain sentinel error), and a
// key that no text column can hold (invalid UTF-8, NUL) too: no row has
// it. Any other error goes through storeError.
func notFound(ctx context.Context, err error, missing *envelope.Error) error {
	var pe *pgconn.PgError
	if errors.Is(err, pgx.ErrNoRows) || errors.As(err, &pe) && pe.Code == codeBadEncoding {
		return missing
	}
	return storeError(ctx, err)
}

// queryOne runs a query that selects one row and scans it with scan;
// missing when there is no row.
func queryOne[T any](ctx context.Context, q querier, scan func(scanner) (T, error), missing *envelope.Error, query string, args ...any) (T, error) {
	v, err := scan(q.QueryRow(ctx, query, args...))
	if err != nil {
		var zero T
		return zero, notFound(ctx, err, missing)
	}
	return v, nil
}

// queryAll runs a query and scans every row with scan; no row is an empty
// slice, not nil.
func queryAll[T any](ctx context.Context, q querier, scan func(scanner) (T, error), query string, args ...any) ([]T, error) {
	rows, err := q.Query(ctx, query, args...)
	if err != nil {
		return nil, storeError(ctx, err)
	}
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, storeError(ctx, err)
		}
		out = append(out, v)
	}
	return out, storeError(ctx, rows.Err())
}

// execOne runs a write that must change exactly one row; missing when it
// changed none.
func execOne(ctx context.Context, q querier, missing *envelope.Error, query string, args ...any) error {
	tag, err := q.Exec(ctx, query, args...)
	if err != nil {
		return storeError(ctx, err)
	}
	if tag.RowsAffected() == 0 {
		return missing
	}
	return nil
}

// constraintError maps a unique violation to conflict and a foreign-key
// violation to missingRef (the sentinel of the record a row refers to),
// when they are not nil, and any other error through storeError.
func constraintError(ctx context.Context, err error, conflict, missingRef *envelope.Error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case pe.Code == codeUniqueViolation && conflict != nil:
			return conflict.WithCause(err)
		case pe.Code == codeForeignKeyViolation && missingRef != nil:
			return missingRef.WithCause(err)
		}
	}
	return storeError(ctx, err)
}

// storeError maps a driver error to the store contract: *envelope.Error
// values pass through; a failure while ctx is done is ctx's error (pgx
// reports a cancelled statement in several ways); a database that cannot
// be reached or did not answer within a bound (unreachable) is
// envelope.Unavailable; unique violations become envelope.ErrStoreConflict,
// foreign-key violations and pgx.ErrNoRows envelope.ErrStoreNotFound (each
// carrying err), anything else KindInternal. It writes no client-facing
// text: the sentinels' packages own it.
func storeError(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	var e *envelope.Error
	if errors.As(err, &e) {
		return err
	}
	if ctx.Err() != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		return fmt.Errorf("postgres: %w (%w)", ctx.Err(), err)
	}
	if errors.Is(err, context.Canceled) {
		return err
	}
	if unreachable(err) {
		return unavailable(err)
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case codeUniqueViolation:
			return envelope.ErrStoreConflict.WithCause(err)
		case codeForeignKeyViolation:
			return envelope.ErrStoreNotFound.WithCause(err)
		}
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return envelope.ErrStoreNotFound.WithCause(err)
	}
	return envelope.Internal(fmt.Errorf("postgres: %w", err))
}
