package postgres

// Reference data on PostgreSQL: what the SQL core (sqlstore) leaves to
// the dialect (the revision's statements, the write of cities, one
// repeatable-read transaction, a batch of writes), the revision's cache
// and the Go step of migration 0007.

import (
	"context"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/brandbase/brandbase/internal/refrows"
	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/storage/internal/sqlstore"
)

var _ refdata.Store = (*Store)(nil)

// readTx begins the transaction of a read: read-only and repeatable-read,
// so that its statements see the same data.
const readTx = `BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY`

// readRows sizes the bound of a read of the reference data (see bulk):
// 20 query timeouts, 100 s by default; 150,000 cities take under a second
// on a quiet machine.
const readRows = 20_000

// Read runs fn in one repeatable-read transaction, bounded as a bulk write
// of readRows rows is (readRows/1000 query timeouts, for the transaction
// and each statement): the whole reference data is read in one statement.
func (d dialect) Read(ctx context.Context, fn func(tx sqlstore.DB) error) error {
	return d.s.inTx(bulk(ctx, readRows), pgx.TxOptions{BeginQuery: readTx},
		func(ctx context.Context, tx pgx.Tx) error { return fn(db{q: tx, ctx: ctx}) })
}

// Bulk marks ctx as a bulk write of n rows (bulk).
func (dialect) Bulk(ctx context.Context, n int) context.Context { return bulk(ctx, n) }

// Revision: the revision is the one row of refdata_state.
func (dialect) Revision() (read, bump string) {
	return `SELECT revision FROM refdata_state WHERE id = 1`, `UPDATE refdata_state SET revision = revision + 1 WHERE id = 1 RETURNING revision`
}

// RefDataWritten forgets the cached revision: this store sees its own
// write at once, before the notification (sqlstore.RevisionCache).
func (d dialect) RefDataWritten() { d.s.multi.revision.forget() }

// ExecBatch sends one batch of the statements.
func (dialect) ExecBatch(ctx context.Context, tx sqlstore.DB, query string, args [][]any) error {
	var b pgx.Batch
	for _, a := range args {
		b.Queue(query, a...)
	}
	ctx, t := tx.(db).tx(ctx)
	return t.SendBatch(ctx, &b).Close()
}

// WriteCities copies the cities (their stored tags merged in front of
// their own) into a temporary table (COPY), updates the stored ones whose
// name or tags differ and inserts the others in order with the next seqs
// (dense: city writes run one at a time, as they lock the refdata_state
// row). Its transaction's bound is the query timeout for each started
// thousand cities (Bulk).
func (dialect) WriteCities(ctx context.Context, dbtx sqlstore.DB, rev int64, cs []refdata.City, folds []string) (int, error) {
	ctx, tx := dbtx.(db).tx(ctx)
	merged, err := withStoredTags(ctx, tx, cs, folds)
	if err != nil {
		return 0, err
	}
	if err := stageCities(ctx, tx, merged, folds); err != nil {
		return 0, err
	}
	if _, err := tx.Exec(ctx, `UPDATE cities c SET name = i.name, tags = i.tags, rev = $1
		FROM city_in i
		WHERE c.country_code = i.country_code AND c.state_code = i.state_code AND c.name_fold = i.name_fold
			AND (c.name <> i.name OR c.tags <> i.tags)`, rev); err != nil {
		return 0, err
	}
	var added int
	err = tx.QueryRow(ctx, `WITH base AS (SELECT coalesce(max(seq), 0) AS n FROM cities), ins AS (
			INSERT INTO cities (seq, country_code, state_code, name, tags, name_fold, rev)
			SELECT base.n + row_number() OVER (ORDER BY i.ord), i.country_code, i.state_code, i.name, i.tags,
				i.name_fold, $1::bigint
			FROM city_in i, base
			WHERE NOT EXISTS (SELECT 1 FROM cities c WHERE c.country_code = i.country_code
				AND c.state_code = i.state_code AND c.name_fold = i.name_fold)
			ORDER BY i.ord
			RETURNING 1
		)
		SELECT count(*) FROM ins`, rev).Scan(&added)
	return added, err
}

// storedTagsSQL reads the tags of the stored cities among the keys $1
// (countries), $2 (states), $3 (folded names), with the ordinal of each
// key. It runs as an unnamed statement (pgx.QueryExecModeExec), planned
// for the batch's actual keys each time: a cached generic plan knows
// neither how many keys there are nor which states they name, and once
// chose to find each key through the (country, state) index and then
// filter by name, reading every stored city of the state once per key.
// Planned for its keys, the join finds them through the unique (country,
// state, name) index or hashes them.
const storedTagsSQL = `SELECT k.i, c.tags
		FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY k(cc, sc, nf, i)
		JOIN cities c ON c.country_code = k.cc COLLATE "C" AND c.state_code = k.sc COLLATE "C"
			AND c.name_fold = k.nf COLLATE "C"`

// withStoredTags returns cs with the tags of each city already stored
// merged in front of its own (refrows.MergeTags); folds[i] is
// textfold.Fold(cs[i].Name). The caller holds the lock of city upserts, so
// that they stay the stored ones until it commits.
func withStoredTags(ctx context.Context, tx pgx.Tx, cs []refdata.City, folds []string) ([]refdata.City, error) {
	cc, sc := make([]string, len(cs)), make([]string, len(cs))
	for i, c := range cs {
		cc[i], sc[i] = c.CountryCode, c.StateCode
	}
	rows, err := tx.Query(ctx, storedTagsSQL, pgx.QueryExecModeExec, cc, sc, folds)
	if err != nil {
		return nil, err
	}
	out := slices.Clone(cs)
	var i int64
	var tags string
	_, err = pgx.ForEachRow(rows, []any{&i, &tags}, func() error {
		out[i-1].Tags = refrows.MergeTags(tags, out[i-1].Tags)
		return nil
	})
	return out, err
}

// stageCities copies cs into a new temporary table city_in, dropped when
// tx ends; folds[i] is textfold.Fold(cs[i].Name).
func stageCities(ctx context.Context, tx pgx.Tx, cs []refdata.City, folds []string) error {
	if _, err := tx.Exec(ctx, `CREATE TEMPORARY TABLE city_in (ord integer, country_code text COLLATE "C",
		state_code text COLLATE "C", name text, tags text, name_fold text COLLATE "C") ON COMMIT DROP`); err != nil {
		return err
	}
	_, err := tx.CopyFrom(ctx, pgx.Identifier{"city_in"},
		[]string{"ord", "country_code", "state_code", "name", "tags", "name_fold"},
		pgx.CopyFromSlice(len(cs), func(i int) ([]any, error) {
			c := cs[i]
			return []any{int32(i), c.CountryCode, c.StateCode, c.Name, c.Tags, folds[i]}, nil
		}))
	return err
}

// RefDataRevision implements refdata.Store: the revision is read from the
// database, so that it is the same for every instance, and kept while the
// store listens and hears no reference-data change (listen.go).
func (s *Store) RefDataRevision(ctx context.Context) (uint64, error) {
	return s.multi.revision.get(s.Listening(), func() (uint64, error) {
		return sqlstore.Revision(ctx, s.core)
	})
}

// numberStored numbers the currencies and countries stored before their
// order of storage was recorded again, from their seq sequence: in the
// embedded dataset's order (sqlstore.DatasetOrder), then in the order the
// migration gave the others.
func numberStored(ctx context.Context, dbtx sqlstore.DB) error {
	ctx, tx := dbtx.(db).tx(ctx)
	for _, table := range []string{"currencies", "countries"} {
		rows, err := tx.Query(ctx, `SELECT id FROM `+table+` ORDER BY seq`)
		if err != nil {
			return err
		}
		ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return err
		}
		if ids, err = sqlstore.DatasetOrder(ids); err != nil {
			return err
		}
		var b pgx.Batch
		for _, id := range ids {
			b.Queue(`UPDATE `+table+` SET seq = nextval(pg_get_serial_sequence('`+table+`', 'seq')) WHERE id = $1`, id)
		}
		if err := tx.SendBatch(ctx, &b).Close(); err != nil {
			return err
		}
	}
	return nil
}
