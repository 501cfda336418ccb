// Package sqlstore is the SQL core that the SQL stores (storage/sqlite,
// storage/postgres) share: auth (brands, users, key pairs, devices),
// integrations (app integrations, configurations, revisions), the
// persistence of reference data and the migration runner, written once
// over a small Dialect that each SQL store implements. The core never
// imports a store; a store embeds a *Core (its methods implement
// auth.Store, integrations.Store and most of refdata.Store) and gives it
// its Dialect, its read handle and its migrations.
//
// The core writes every statement once, with "?" placeholders; a dialect
// whose driver numbers them ($1, $2, ...) gets each statement rebound
// once, then from a cache.
package sqlstore

import (
	"context"
	"io/fs"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/refdata"
)

// Rows is the result of a query: *sql.Rows and pgx.Rows, through a thin
// adapter where their Close differs.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close()
}

// DB runs statements written in the driver's own placeholder syntax: a
// store's read handle (pool), or one of its transactions.
type DB interface {
	// Exec runs a statement and returns how many rows it changed.
	Exec(ctx context.Context, query string, args ...any) (int64, error)
	// Query runs a query; the caller closes the Rows.
	Query(ctx context.Context, query string, args ...any) (Rows, error)
	// QueryRow runs a query of one row, read (and its error reported) by
	// Scan.
	QueryRow(ctx context.Context, query string, args ...any) Scanner
}

// Violation is the kind of constraint a failed statement broke.
type Violation int

// The violations the core maps to the domain's sentinel errors.
const (
	NoViolation Violation = iota
	// Unique: a unique or primary key is taken.
	Unique
	// ForeignKey: a row refers to a row that does not exist.
	ForeignKey
)

// Dialect is what a SQL store gives the core: its placeholders, its
// encodings of times and lists, its error classification, its row-lock
// clauses and its write transactions. A dialect whose write
// transactions run in parallel implements PartitionLocker too; one that
// tells other instances about changes implements Notifier.
type Dialect interface {
	// Numbered reports whether placeholders are $1, $2, ... (else ?).
	Numbered() bool

	// Time returns the value stored in a time column for t (never the
	// zero time: the core stores that as NULL where a column allows it).
	Time(t time.Time) any
	// ScanTime returns the scan destination of a time column that sets
	// *dst to the stored time in UTC, or to the zero time for NULL.
	ScanTime(dst *time.Time) any
	// List returns the value stored in a list column (permissions, a
	// revision's fields) for ss, which is never nil.
	List(ss []string) any
	// ScanList returns the scan destination of a list column that sets
	// *dst to the stored list (nil or empty when it is empty).
	ScanList(dst *[]string) any
	// JSON returns the value stored in a column of JSON text that may be
	// NULL (a configuration's secrets) for b, not nil.
	JSON(b []byte) any

	// NextSeq returns the SQL expression of the insertion-order column
	// (seq) of table for an INSERT, or "" when the database fills it in.
	NextSeq(table string) string
	// ForUpdate and ForShare return the row-lock clause appended to a
	// SELECT (" FOR UPDATE", " FOR SHARE"), or "" when the store's write
	// transactions do not run in parallel.
	ForUpdate() string
	ForShare() string
	// SkipLocked returns the clause appended to a SELECT that locks the
	// rows it returns and passes over the rows another transaction holds
	// (" FOR UPDATE SKIP LOCKED": the outbox's claims), or "" when the
	// store's write transactions do not run in parallel.
	SkipLocked() string
	// Lateral reports whether the database joins a LATERAL subquery (one
	// that reads the columns of the tables before it); else the core
	// joins such a subquery through an IN on the rows' seq.
	Lateral() bool

	// Violation classifies err: the constraint it broke, if any.
	Violation(err error) Violation
	// Missing reports whether err says that a query found no row
	// (including a key that no column can hold, so no row has it).
	Missing(err error) bool
	// Error maps any other driver error to the store contract:
	// envelope errors and ctx's errors as they are, an unreachable or busy
	// database as envelope.Unavailable, a unique violation as
	// envelope.ErrStoreConflict, a missing row as envelope.ErrStoreNotFound,
	// anything else as an internal error.
	Error(ctx context.Context, err error) error

	// Write runs fn in one write transaction, with the store's own bounds:
	// committed when fn returns nil, rolled back otherwise. Its error is
	// fn's or the commit's, mapped by Error.
	Write(ctx context.Context, fn func(tx DB) error) error
	// Bulk returns ctx for a write transaction of n rows: a dialect whose
	// bound on a transaction grows with its rows marks it, another
	// returns ctx.
	Bulk(ctx context.Context, n int) context.Context
	// Read runs fn in one read-only transaction whose statements all see
	// the same state of the database, as Write does.
	Read(ctx context.Context, fn func(tx DB) error) error
	// ExecBatch runs query in tx once for each of args, in order (a loop
	// of writes, run as the driver runs one fastest).
	ExecBatch(ctx context.Context, tx DB, query string, args [][]any) error

	// Revision returns the statements of the reference-data revision:
	// read selects it (one row of one integer, or no row for 0), bump
	// adds one to it and returns the new value (one row of one integer).
	Revision() (read, bump string)
	// WriteCities writes cs in tx, whose writes of reference data run one
	// at a time: a city whose natural key (country_code, state_code,
	// name_fold; folds[i] is cs[i]'s folded name) is not stored is
	// inserted after the others (seq), in order; a stored one takes
	// cs[i]'s name and its stored tags merged with cs[i]'s
	// (refrows.MergeTags), and is written only if either differs. A
	// written city's rev is rev. cs holds one city per key. It returns
	// how many it inserted.
	WriteCities(ctx context.Context, tx DB, rev int64, cs []refdata.City, folds []string) (int, error)
}

// RevisionCache is implemented by a dialect that caches the
// reference-data revision: RefDataWritten is called once a write of
// reference data has ended (committed or not).
type RevisionCache interface {
	RefDataWritten()
}

// Notifier is implemented by a dialect that tells other instances about
// the changes of a write transaction (PostgreSQL: NOTIFY, delivered on
// commit).
type Notifier interface {
	// Notify queues, inside tx, the change of the record of kind
	// (ChangeBrand, ChangeUser) with id.
	Notify(ctx context.Context, tx DB, kind, id string) error
}

// The kinds of change a Notifier is told about.
const (
	// ChangeBrand: the brand with the ID changed (created or updated).
	ChangeBrand = "brand"
	// ChangeUser: the user with the ID, its key pairs or its devices
	// changed.
	ChangeUser = "user"
)

// PartitionLocker is implemented by a dialect whose integration
// transactions run in parallel (PostgreSQL): the core calls it before a
// transaction first reads or writes a partition of the integration
// records, so that transactions on one partition run one after the other.
type PartitionLocker interface {
	// LockPartition locks, until tx ends, the records of integration in
	// brandID; every integration of the brand when integration is "";
	// every brand when brandID is "".
	LockPartition(ctx context.Context, tx DB, brandID, integration string) error
}

// Core implements auth.Store (brands, users, key pairs, devices) and
// integrations.Store on a Dialect. It is safe for concurrent use.
type Core struct {
	d      Dialect
	fsys   fs.FS // the migrations, *.sql in the root
	r      DB    // reads outside transactions
	notify Notifier
	locker PartitionLocker
	binds  sync.Map // query -> its rebound text
	// refWritten is the revision of the last reference-data write
	// committed through this Core (RefDataWritten).
	refWritten atomic.Uint64
}

// New returns the core of a store whose dialect is d, whose reads
// outside transactions run on reads and whose migrations are the *.sql
// files of migrations.
func New(d Dialect, reads DB, migrations fs.FS) *Core {
	c := &Core{d: d, r: reads, fsys: migrations}
	c.notify, _ = d.(Notifier)
	c.locker, _ = d.(PartitionLocker)
	return c
}

// bind returns query in the dialect's placeholders.
func (c *Core) bind(query string) string {
	if !c.d.Numbered() {
		return query
	}
	if q, ok := c.binds.Load(query); ok {
		return q.(string)
	}
	q := Rebind(query)
	c.binds.Store(query, q)
	return q
}

// Rebind returns query with its "?" placeholders numbered $1, $2, ...
// in order; a "?" inside a quoted string or identifier stays.
func Rebind(query string) string {
	var b strings.Builder
	b.Grow(len(query) + 16)
	n := 0
	var quote byte
	for i := 0; i < len(query); i++ {
		ch := query[i]
		switch {
		case quote != 0:
			if ch == quote {
				quote = 0
			}
		case ch == '\'' || ch == '"':
			quote = ch
		case ch == '?':
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(ch)
	}
	return b.String()
}

// nullTime is the value of a nullable time column: NULL for the zero time.
func (c *Core) nullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return c.d.Time(t)
}

// emptyAsNull stores the empty string as NULL (for unique columns that
// allow several empty values).
func emptyAsNull(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// missing maps an error that says no row was found to missing (a domain
// sentinel), any other through the dialect.
func (c *Core) missing(ctx context.Context, err error, missing *envelope.Error) error {
	if err != nil && c.d.Missing(err) {
		return missing
	}
	return c.d.Error(ctx, err)
}

// constraint maps a unique violation to taken and a foreign-key violation
// to missingRef (the sentinel of the record a row refers to), each
// carrying err, when they are not nil; any other error through the
// dialect.
func (c *Core) constraint(ctx context.Context, err error, taken, missingRef *envelope.Error) error {
	if err == nil {
		return nil
	}
	switch c.d.Violation(err) {
	case Unique:
		if taken != nil {
			return taken.WithCause(err)
		}
	case ForeignKey:
		if missingRef != nil {
			return missingRef.WithCause(err)
		}
	}
	return c.d.Error(ctx, err)
}

// queryOne runs a query of one row on db and scans it with scan; missing
// when there is no row.
func queryOne[T any](ctx context.Context, c *Core, db DB, scan func(Scanner) (T, error), missing *envelope.Error, query string, args ...any) (T, error) {
	v, err := scan(db.QueryRow(ctx, c.bind(query), args...))
	if err != nil {
		var zero T
		return zero, c.missing(ctx, err, missing)
	}
	return v, nil
}

// QueryAll runs a query on db (written with "?" placeholders) and scans
// every row with scan; no row is an empty slice, not nil. Errors are
// mapped by the dialect.
func QueryAll[T any](ctx context.Context, c *Core, db DB, scan func(Scanner) (T, error), query string, args ...any) ([]T, error) {
	rows, err := db.Query(ctx, c.bind(query), args...)
	if err != nil {
		return nil, c.d.Error(ctx, err)
	}
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, c.d.Error(ctx, err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, c.d.Error(ctx, err)
	}
	return out, nil
}

// exec runs a write on tx and returns how many rows it changed; a broken
// constraint is mapped by constraint (taken, missingRef).
func (c *Core) exec(ctx context.Context, tx DB, taken, missingRef *envelope.Error, query string, args ...any) (int, error) {
	n, err := tx.Exec(ctx, c.bind(query), args...)
	if err != nil {
		return 0, c.constraint(ctx, err, taken, missingRef)
	}
	return int(n), nil
}

// execOne runs a write that must change exactly one row: missing when it
// changed none, or when a key it names is one no column can hold (text
// PostgreSQL refuses: NUL, invalid UTF-8), so no row has it; taken when it
// breaks a unique key.
func (c *Core) execOne(ctx context.Context, tx DB, missing, taken *envelope.Error, query string, args ...any) error {
	n, err := tx.Exec(ctx, c.bind(query), args...)
	switch {
	case err != nil && missing != nil && c.d.Missing(err):
		return missing
	case err != nil:
		return c.constraint(ctx, err, taken, nil)
	case n == 0:
		return missing
	}
	return nil
}

// found reports whether query, which selects one column, finds a row.
func (c *Core) found(ctx context.Context, db DB, query string, args ...any) (bool, error) {
	var one any
	err := db.QueryRow(ctx, c.bind(query), args...).Scan(&one)
	switch {
	case err == nil:
		return true, nil
	case c.d.Missing(err):
		return false, nil
	}
	return false, c.d.Error(ctx, err)
}

// write runs fn in a write transaction of the dialect.
func (c *Core) write(ctx context.Context, fn func(tx DB) error) error {
	return c.d.Write(ctx, fn)
}

// changed tells the dialect's Notifier, if any, that the record of kind
// with id changed in tx.
func (c *Core) changed(ctx context.Context, tx DB, kind, id string) error {
	if c.notify == nil {
		return nil
	}
	return c.notify.Notify(ctx, tx, kind, id)
}

// seq returns the column list suffix and the value suffix of the
// insertion-order column of table: ", seq" and ", <expr>", or "" and ""
// when the database fills it in.
func (c *Core) seq(table string) (col, val string) {
	if e := c.d.NextSeq(table); e != "" {
		return ", seq", ", " + e
	}
	return "", ""
}

// placeholders returns n "?" separated by commas.
func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}
