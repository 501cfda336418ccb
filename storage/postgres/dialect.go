package postgres

// The SQL dialect of this package (sqlstore.Dialect): how the SQL core
// (storage/internal/sqlstore), which holds auth and integrations, reads
// and writes PostgreSQL through pgx, and the few helpers the
// reference-data files read rows through.
//
//   - Times are timestamptz (microsecond precision, as the other stores
//     keep them); a zero time is NULL where the column allows it
//     ([pgTime]). Lists (permissions, a revision's fields) are text[];
//     JSON documents are text.
//   - Placeholders are $1, $2, ...: the core writes "?" and rebinds each
//     statement once. The insertion order (seq) is an identity column.
//   - Write transactions run in parallel, read committed, bounded
//     (bounds.go): the core locks the rows it reads to write (FOR UPDATE,
//     FOR SHARE) and the partitions of the integration records
//     (transaction-level advisory locks, [dialect.LockPartition]), and
//     tells the other instances what changed (NOTIFY, [dialect.Notify]).
//   - A unique violation is [sqlstore.Unique], a foreign-key violation
//     [sqlstore.ForeignKey]; a missing row, or a key no text column can
//     hold, is a missing row ([dialect.Missing]); every other driver
//     error goes through [storeError]. Stores write no client-facing text
//     of their own: the domain packages own every message.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
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

// querier runs statements: the pool, or a transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// storeError maps a driver error to the store contract: *envelope.Error
// values pass through; a failure while ctx is done is ctx's error (pgx
// reports a cancelled statement in several ways); a database that cannot
// be reached or did not answer within a bound (unreachable), and a wait
// the server ended (serverEnded: a lock or statement timeout, a deadlock,
// a serialization failure; Retry-After 1 s), are envelope.Unavailable;
// unique violations become envelope.ErrStoreConflict,
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
	if unreachable(err) || serverEnded(err) {
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

// dialect is the sqlstore.Dialect of a Store.
type dialect struct{ s *Store }

var (
	_ sqlstore.Dialect         = dialect{}
	_ sqlstore.Notifier        = dialect{}
	_ sqlstore.PartitionLocker = dialect{}
)

func (dialect) Numbered() bool                             { return true }
func (dialect) Time(t time.Time) any                       { return t }
func (dialect) ScanTime(dst *time.Time) any                { return pgTime{dst} }
func (dialect) ScanList(dst *[]string) any                 { return dst }
func (dialect) JSON(b []byte) any                          { return string(b) }
func (dialect) NextSeq(string) string                      { return "" }
func (dialect) ForUpdate() string                          { return " FOR UPDATE" }
func (dialect) ForShare() string                           { return " FOR SHARE" }
func (dialect) SkipLocked() string                         { return " FOR UPDATE SKIP LOCKED" }
func (dialect) Lateral() bool                              { return true }
func (dialect) Error(ctx context.Context, err error) error { return storeError(ctx, err) }

func (dialect) List(ss []string) any {
	if ss == nil {
		return []string{}
	}
	return ss
}

// Missing reports pgx.ErrNoRows, and a key that no text column can hold
// (invalid UTF-8, NUL): no row has it.
func (dialect) Missing(err error) bool {
	var pe *pgconn.PgError
	return errors.Is(err, pgx.ErrNoRows) || errors.As(err, &pe) && pe.Code == codeBadEncoding
}

func (dialect) Violation(err error) sqlstore.Violation {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case codeUniqueViolation:
			return sqlstore.Unique
		case codeForeignKeyViolation:
			return sqlstore.ForeignKey
		}
	}
	return sqlstore.NoViolation
}

// Write runs fn in a transaction bounded by the query timeout (inTx).
func (d dialect) Write(ctx context.Context, fn func(tx sqlstore.DB) error) error {
	return d.s.inTx(ctx, pgx.TxOptions{}, func(ctx context.Context, tx pgx.Tx) error { return fn(db{q: tx, ctx: ctx}) })
}

// Notify queues the change on the store's channel inside tx: PostgreSQL
// delivers it to every listener when tx commits, and never if it rolls
// back.
func (d dialect) Notify(ctx context.Context, tx sqlstore.DB, kind, id string) error {
	c := Change{Kind: kind, ID: id}
	// The time first (see changeAt), then the change: the select list is
	// evaluated in order, and a transaction's notifications are delivered
	// in the order they were sent.
	const notify = `SELECT pg_notify($1, 'at:' || (extract(epoch FROM clock_timestamp()) * 1000000)::bigint), pg_notify($1, $2)`
	if _, err := tx.Exec(ctx, notify, d.s.channel, c.String()); err != nil {
		return fmt.Errorf("notify %s: %w", c, err)
	}
	return nil
}

// The advisory locks of the integration partitions form a hierarchy, so
// that one statement can lock a whole brand or every brand: a partition
// is locked exclusively under shared locks of its brand and of the
// schema's integrations; a brand, exclusively under a shared lock of the
// schema's integrations; every brand, by an exclusive lock of the
// schema's integrations (the lock every integration transaction took
// before partitions existed, so instances of both versions exclude each
// other during a rolling upgrade). Locks are taken in that order, top
// down, and held until the transaction ends.
const (
	lockAll       = `SELECT pg_advisory_xact_lock(hashtextextended('brandbase.integrations.' || current_schema(), 0))`
	lockBrand     = `SELECT pg_advisory_xact_lock_shared(hashtextextended('brandbase.integrations.' || current_schema(), 0)), pg_advisory_xact_lock($1)`
	lockPartition = `SELECT pg_advisory_xact_lock_shared(hashtextextended('brandbase.integrations.' || current_schema(), 0)), pg_advisory_xact_lock_shared($1), pg_advisory_xact_lock($2)`
)

// LockPartition takes the transaction-level advisory lock of the
// partition of integration in brandID, of the whole brand when
// integration is "", of every brand when brandID is "".
func (d dialect) LockPartition(ctx context.Context, tx sqlstore.DB, brandID, integration string) error {
	var err error
	switch {
	case brandID == "":
		_, err = tx.Exec(ctx, lockAll)
	case integration == "":
		_, err = tx.Exec(ctx, lockBrand, lockKey(d.s.schema, brandID))
	default:
		_, err = tx.Exec(ctx, lockPartition, lockKey(d.s.schema, brandID), lockKey(d.s.schema, brandID, integration))
	}
	return err
}

// lockKey is the advisory lock key of parts in the schema: a 64-bit FNV-1a
// hash, computed here so that any brand ID (even one no text column can
// hold) makes a key. Two keys that collide only serialise more.
func lockKey(schema string, parts ...string) int64 {
	h := fnv.New64a()
	h.Write([]byte("brandbase.integrations\x00" + schema))
	for _, p := range parts {
		h.Write([]byte{0})
		h.Write([]byte(p))
	}
	return int64(h.Sum64())
}

// pgTime scans a timestamptz into a UTC time; NULL is the zero time.
type pgTime struct{ t *time.Time }

// ScanTimestamptz implements pgtype.TimestamptzScanner.
func (p pgTime) ScanTimestamptz(v pgtype.Timestamptz) error {
	*p.t = time.Time{}
	if v.Valid {
		*p.t = v.Time.UTC()
	}
	return nil
}

// db is a sqlstore.DB on pgx: the pool (s set), each statement one call
// of the store (Store.call, retry); a transaction of the store (ctx set),
// whose statements run under ctx, bounded, whatever context the core
// passes (the caller's); or a migration's transaction.
type db struct {
	q   querier
	s   *Store
	ctx context.Context
}

// start begins a statement: its context, and the function that ends it.
func (d db) start(ctx context.Context) (context.Context, func(), error) {
	if d.s != nil {
		return d.s.call(ctx)
	}
	return cmp.Or(d.ctx, ctx), func() {}, nil
}

// retry reports whether a statement of the pool that failed with err
// under ctx may be sent again: pgx says it was not sent, ctx is alive.
func (d db) retry(ctx context.Context, err error) bool {
	return err != nil && d.s != nil && ctx.Err() == nil && pgconn.SafeToRetry(err)
}

// run runs a statement (send) from start to end, again if retry says so.
func (d db) run(ctx context.Context, send func(context.Context) error) error {
	ctx, end, err := d.start(ctx)
	if err != nil {
		return err
	}
	defer end()
	if err = send(ctx); d.retry(ctx, err) {
		err = send(ctx)
	}
	return err
}

// tx returns d's transaction and the context its statements run under.
func (d db) tx(ctx context.Context) (context.Context, pgx.Tx) {
	return cmp.Or(d.ctx, ctx), d.q.(pgx.Tx)
}

func (d db) Exec(ctx context.Context, query string, args ...any) (n int64, err error) {
	err = d.run(ctx, func(ctx context.Context) error {
		tag, err := d.q.Exec(ctx, query, args...)
		n = tag.RowsAffected()
		return err
	})
	return n, err
}

// QueryRow returns the query, run by Scan (so that its call ends there).
func (d db) QueryRow(ctx context.Context, query string, args ...any) sqlstore.Scanner {
	return scanFunc(func(dest ...any) error {
		return d.run(ctx, func(ctx context.Context) error { return d.q.QueryRow(ctx, query, args...).Scan(dest...) })
	})
}

type scanFunc func(dest ...any) error

func (f scanFunc) Scan(dest ...any) error { return f(dest...) }

func (d db) Query(ctx context.Context, query string, args ...any) (sqlstore.Rows, error) {
	ctx, end, err := d.start(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := d.q.Query(ctx, query, args...)
	if d.retry(ctx, err) {
		rows, err = d.q.Query(ctx, query, args...)
	}
	if err != nil {
		end()
		return nil, err
	}
	return rowsEnd{rows, end}, nil
}

// rowsEnd ends the call of its rows when they are closed.
type rowsEnd struct {
	pgx.Rows
	end func()
}

func (r rowsEnd) Close() {
	r.Rows.Close()
	r.end()
}
