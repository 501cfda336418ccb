package sqlite

// Reference data on SQLite: what the SQL core (sqlstore) leaves to the
// dialect (the revision's statements, the write of cities, one read
// transaction, a batch of writes), the revision's cache and the Go step
// of migration 0007.

import (
	"context"
	"database/sql"
	"sync/atomic"
	"time"

	"github.com/brandbase/brandbase/internal/refrows"
	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/storage/internal/sqlstore"
)

// revisionTTL is how long RefDataRevision trusts its cached value when
// this process has not written: writes by another process sharing the
// file are seen after at most this long.
const revisionTTL = time.Second

// refState is the reference-data state a Store keeps in memory.
type refState struct {
	revision atomic.Pointer[cachedRevision]
	// writes counts the writes of reference data this Store has ended: a
	// revision cached before the last of them is stale.
	writes atomic.Uint64
	// revisionRead, when set (by tests), runs in RefDataRevision between
	// reading the revision and caching it.
	revisionRead func()
}

// cachedRevision is a revision read from the database, and when.
type cachedRevision struct {
	n      uint64
	at     time.Time
	writes uint64 // refState.writes before n was read
}

// RefDataWritten counts a write of reference data (sqlstore.RevisionCache).
func (d dialect) RefDataWritten() { d.s.ref.writes.Add(1) }

// RefDataRevision implements refdata.Store. A revision read from the
// database is trusted for revisionTTL, unless this Store has ended a
// write of reference data since: the count of writes is taken before the
// read, so a read that raced with a write (and may have seen the database
// before its commit) is not trusted once the write has returned, however
// the two interleave.
func (s *Store) RefDataRevision(ctx context.Context) (uint64, error) {
	writes := s.ref.writes.Load()
	if c := s.ref.revision.Load(); c != nil && c.writes == writes && time.Since(c.at) < revisionTTL {
		return c.n, nil
	}
	n, err := sqlstore.Revision(ctx, s.core)
	if err != nil {
		return 0, err
	}
	if s.ref.revisionRead != nil {
		s.ref.revisionRead()
	}
	s.ref.revision.Store(&cachedRevision{n: n, at: time.Now(), writes: writes})
	return n, nil
}

// ReadRefData implements refdata.Store. A database that Open created from
// the template holds the template's reference data while its generation
// is the one Open gave it and its revision the template's (every write of
// reference data raises the revision): they are then answered from
// memory, after one read of the generation and revision, instead of read
// again. Any other read is the SQL core's.
func (s *Store) ReadRefData(ctx context.Context) (refdata.RefData, error) {
	if s.templateGen != "" {
		gen, rev, err := s.core.RefDataGeneration(ctx)
		if err != nil {
			return refdata.RefData{}, err
		}
		if tp, err := templateOf(); err == nil && gen == s.templateGen && rev == tp.data.Revision {
			return tp.refData(gen), nil
		}
	}
	return s.core.ReadRefData(ctx)
}

// metaRefDataRevision is the meta key of the revision.
const metaRefDataRevision = "refdata.revision"

// Bulk returns ctx: a write's bound is busy_timeout, whatever its rows.
func (dialect) Bulk(ctx context.Context, _ int) context.Context { return ctx }

// Revision: the revision is a counter in meta.
func (dialect) Revision() (read, bump string) {
	return `SELECT CAST(value AS INTEGER) FROM meta WHERE key = '` + metaRefDataRevision + `'`,
		`INSERT INTO meta (key, value) VALUES ('` + metaRefDataRevision + `', '1')
			ON CONFLICT (key) DO UPDATE SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT)
			RETURNING CAST(value AS INTEGER)`
}

// Read runs fn in a read transaction of the reader pool: in WAL mode, a
// consistent snapshot of the file.
func (d dialect) Read(ctx context.Context, fn func(tx sqlstore.DB) error) error {
	tx, err := d.s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return storeError(err)
	}
	defer tx.Rollback()
	if err := fn(db{tx}); err != nil {
		return storeError(err)
	}
	return storeError(tx.Commit())
}

// ExecBatch prepares query once and runs it for each of args (see bulk).
func (dialect) ExecBatch(ctx context.Context, tx sqlstore.DB, query string, args [][]any) error {
	ctx, done := bulk(ctx)
	stmts, closeAll, err := prepare(ctx, tx.(db).q.(*sql.Tx), query)
	if err != nil {
		return err
	}
	defer closeAll()
	for _, a := range args {
		if err := done(); err != nil {
			return err
		}
		if _, err := stmts[0].ExecContext(ctx, a...); err != nil {
			return err
		}
	}
	return nil
}

// WriteCities inserts each city unless its natural key is stored, then
// updates a stored one in place if its name or merged tags differ.
func (dialect) WriteCities(ctx context.Context, dbtx sqlstore.DB, rev int64, cs []refdata.City, folds []string) (int, error) {
	ctx, done := bulk(ctx)
	stmts, closeAll, err := prepare(ctx, dbtx.(db).q.(*sql.Tx),
		`INSERT INTO cities (country_code, state_code, name, tags, name_fold, rev)
			VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
		`SELECT seq, name, tags FROM cities WHERE country_code = ? AND state_code = ? AND name_fold = ?`,
		`UPDATE cities SET name = ?, tags = ?, rev = ? WHERE seq = ?`)
	if err != nil {
		return 0, err
	}
	defer closeAll()
	insert, find, update := stmts[0], stmts[1], stmts[2]
	added := 0
	for i, c := range cs {
		if err := done(); err != nil {
			return 0, err
		}
		res, err := insert.ExecContext(ctx, c.CountryCode, c.StateCode, c.Name, c.Tags, folds[i], rev)
		if err != nil {
			return 0, err
		}
		if n, _ := res.RowsAffected(); n > 0 {
			added++
			continue
		}
		var seq int64
		var name, tags string
		if err := find.QueryRowContext(ctx, c.CountryCode, c.StateCode, folds[i]).Scan(&seq, &name, &tags); err != nil {
			return 0, err
		}
		if c.Tags = refrows.MergeTags(tags, c.Tags); name == c.Name && tags == c.Tags {
			continue
		}
		if _, err := update.ExecContext(ctx, c.Name, c.Tags, rev, seq); err != nil {
			return 0, err
		}
	}
	return added, nil
}

// numberStored numbers the currencies and countries stored before their
// order of storage was recorded (seq NULL), after the others: in the
// embedded dataset's order (sqlstore.DatasetOrder), then in rowid order.
// It is the Go step of migration 0007, run in its transaction tx.
func numberStored(ctx context.Context, c *core, tx sqlstore.DB) error {
	for _, table := range []string{"currencies", "countries"} {
		ids, err := sqlstore.QueryAll(ctx, c, tx, sqlstore.ScanColumn[string], `SELECT id FROM `+table+` WHERE seq IS NULL ORDER BY rowid`)
		if err != nil {
			return err
		}
		if ids, err = sqlstore.DatasetOrder(ids); err != nil {
			return err
		}
		last, err := sqlstore.ScanColumn[int64](tx.QueryRow(ctx, `SELECT coalesce(max(seq), 0) FROM `+table))
		if err != nil {
			return err
		}
		for i, id := range ids {
			if _, err := tx.Exec(ctx, `UPDATE `+table+` SET seq = ? WHERE id = ?`, last+int64(i)+1, id); err != nil {
				return err
			}
		}
	}
	return nil
}
