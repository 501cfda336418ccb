package postgres

// Reference data (refdata.Store) on PostgreSQL: rows in their order of
// storage (seq), read whole or since a revision in one repeatable-read
// transaction; upserts; the revision (refdata_state) and the dataset
// version.

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/brandbase/brandbase/internal/refrows"
	"github.com/brandbase/brandbase/internal/textfold"
	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/storage/internal/sqlstore"
)

var _ refdata.Store = (*Store)(nil)

const metaDatasetVersion = "refdata.dataset_version"

// readTx begins the transaction of a read: read-only and repeatable-read,
// so that its statements see the same data.
const readTx = `BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY`

// readRows sizes the bound of a read of the reference data (see bulk):
// 20 query timeouts, 100 s by default; 150,000 cities take under a second
// on a quiet machine.
const readRows = 20_000

// ReadRefData implements refdata.Store: one repeatable-read transaction.
func (s *Store) ReadRefData(ctx context.Context) (refdata.RefData, error) {
	return s.readRefData(ctx, false, 0)
}

// RefDataChangesSince implements refdata.Store: one repeatable-read
// transaction, the cities by the index of their revisions (cities_rev).
func (s *Store) RefDataChangesSince(ctx context.Context, rev uint64) (refdata.RefData, error) {
	return s.readRefData(ctx, true, rev)
}

// readRefData reads the reference data (the cities changed since since,
// when changed is set) and the revision in one transaction, bounded as a
// bulk write of readRows rows is (readRows/1000 query timeouts, for the
// transaction and each statement): the whole reference data is read in
// one statement.
func (s *Store) readRefData(ctx context.Context, changed bool, since uint64) (refdata.RefData, error) {
	var data refdata.RefData
	err := s.inTx(bulk(ctx, readRows), pgx.TxOptions{BeginQuery: readTx}, func(tx pgx.Tx) error {
		query := func(q string, args []any, scan func(sqlstore.Scanner) error) error {
			rows, err := tx.Query(ctx, q, args...)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				if err := scan(rows); err != nil {
					return err
				}
			}
			return rows.Err()
		}
		revision := func() (uint64, error) {
			n, err := sqlstore.ScanColumn[int64](tx.QueryRow(ctx, `SELECT revision FROM refdata_state WHERE id = 1`))
			return uint64(n), err
		}
		var err error
		data, err = sqlstore.ReadRefData(query, revision, "$1", changed, since)
		return err
	})
	return data, err
}

// writeRefData runs fn in a write transaction, and bumps the revision by
// one and notifies ChangeRefData in the same transaction: also when fn
// changed nothing, because a Service takes the revision as the label of
// what it read, and every write must show in it (docs/several-instances.md).
func (s *Store) writeRefData(ctx context.Context, fn func(tx pgx.Tx) error) error {
	defer s.multi.revision.forget() // seen by this store at once, before the notification
	return s.write(ctx, func(tx pgx.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE refdata_state SET revision = revision + 1 WHERE id = 1`); err != nil {
			return err
		}
		return s.notify(ctx, tx, Change{Kind: ChangeRefData})
	})
}

// The statements of UpsertCurrencies and UpsertCountries.
var (
	upsertCurrency = upsertSQL("currencies", sqlstore.CurrencyColumns)
	upsertCountry  = upsertSQL("countries", sqlstore.CountryColumns)
)

// itoa formats a placeholder number.
func itoa(n int) string { return strconv.Itoa(n) }

// upsertSQL returns the statement that inserts a row of table (columns)
// or, when its id is stored, replaces it if any column differs; seq, the
// place in the order of storage, is drawn on insert and kept.
func upsertSQL(table string, columns []string) string {
	var vals, sets, old, excl []string
	for i, c := range columns {
		vals = append(vals, "$"+itoa(i+1))
		if c != "id" {
			sets = append(sets, c+" = excluded."+c)
			old = append(old, table+"."+c)
			excl = append(excl, "excluded."+c)
		}
	}
	return `INSERT INTO ` + table + ` (` + strings.Join(columns, ", ") + `) VALUES (` + strings.Join(vals, ", ") + `)
		ON CONFLICT (id) DO UPDATE SET ` + strings.Join(sets, ", ") + `
		WHERE (` + strings.Join(old, ", ") + `) IS DISTINCT FROM (` + strings.Join(excl, ", ") + `)`
}

// upsertRows upserts recs, of which the last of each ID, at the place of
// the first (one statement per ID: an upsert cannot touch a row twice),
// in one batch in a write of reference data.
func upsertRows[T any](ctx context.Context, s *Store, query string, recs []T, id func(T) string, row func(T) []any) error {
	last := map[string]T{}
	var order []string
	for _, r := range recs {
		if _, ok := last[id(r)]; !ok {
			order = append(order, id(r))
		}
		last[id(r)] = r
	}
	return s.writeRefData(ctx, func(tx pgx.Tx) error {
		var b pgx.Batch
		for _, k := range order {
			b.Queue(query, row(last[k])...)
		}
		return tx.SendBatch(ctx, &b).Close()
	})
}

// UpsertCurrencies implements refdata.Store: of currencies with the same ID
// the last is stored, at the place of the first; new ones take the next
// seqs in the order given. It bumps the revision and notifies ChangeRefData,
// also when no row changed.
func (s *Store) UpsertCurrencies(ctx context.Context, cs []refdata.Currency) error {
	return upsertRows(ctx, s, upsertCurrency, cs, func(c refdata.Currency) string { return c.ID }, sqlstore.CurrencyRow)
}

// UpsertCountries implements refdata.Store, as UpsertCurrencies does.
func (s *Store) UpsertCountries(ctx context.Context, cs []refdata.Country) error {
	return upsertRows(ctx, s, upsertCountry, cs, func(c refdata.Country) string { return c.ID }, sqlstore.CountryRow)
}

// UpsertCities implements refdata.Store. City upserts run one at a time
// (they lock the refdata_state row), which keeps seq dense: the cities
// (deduplicated as sqlstore.DedupCities does, each stored one's tags
// merged in front of its own: refrows.MergeTags) are copied (COPY) into a
// temporary table, the stored ones whose name or tags differ are updated
// in place, the others inserted in order with the next seqs; every
// written city takes the revision of the write. It bumps the revision and
// notifies ChangeRefData, also when no city changed. Its bound is the
// query timeout for each started thousand cities.
func (s *Store) UpsertCities(ctx context.Context, cs []refdata.City) (int, error) {
	ctx = bulk(ctx, len(cs))
	cs = sqlstore.DedupCities(cs)
	folds := make([]string, len(cs))
	for i := range cs {
		folds[i] = textfold.Fold(cs[i].Name)
	}
	var added int64
	err := s.writeRefData(ctx, func(tx pgx.Tx) error {
		added = 0
		var rev int64 // the revision this write bumps to, each written city's
		if err := tx.QueryRow(ctx, `SELECT revision + 1 FROM refdata_state WHERE id = 1 FOR UPDATE`).Scan(&rev); err != nil {
			return err
		}
		merged, err := withStoredTags(ctx, tx, cs, folds)
		if err != nil {
			return err
		}
		if err := stageCities(ctx, tx, merged, folds); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE cities c SET name = i.name, tags = i.tags, rev = $1
			FROM city_in i
			WHERE c.country_code = i.country_code AND c.state_code = i.state_code AND c.name_fold = i.name_fold
				AND (c.name <> i.name OR c.tags <> i.tags)`, rev); err != nil {
			return err
		}
		return tx.QueryRow(ctx, `WITH base AS (SELECT coalesce(max(seq), 0) AS n FROM cities), ins AS (
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
	})
	if err != nil {
		return 0, err
	}
	return int(added), nil
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
		var n int64
		if err := s.db.QueryRow(ctx, `SELECT revision FROM refdata_state WHERE id = 1`).Scan(&n); err != nil {
			return 0, storeError(ctx, err)
		}
		return uint64(n), nil
	})
}

// DatasetVersion implements refdata.Store.
func (s *Store) DatasetVersion(ctx context.Context) (string, error) {
	return s.getMeta(ctx, metaDatasetVersion)
}

// SetDatasetVersion implements refdata.Store. It notifies ChangeRefData.
func (s *Store) SetDatasetVersion(ctx context.Context, version string) error {
	return s.write(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO meta (key, value) VALUES ($1, $2)
			ON CONFLICT (key) DO UPDATE SET value = excluded.value`, metaDatasetVersion, version); err != nil {
			return err
		}
		return s.notify(ctx, tx, Change{Kind: ChangeRefData})
	})
}

// numberStored numbers the currencies and countries stored before their
// order of storage was recorded again, from their seq sequence: in the
// embedded dataset's order (sqlstore.DatasetOrder), then in the order the
// migration gave the others.
func numberStored(ctx context.Context, tx pgx.Tx) error {
	for _, table := range []string{"currencies", "countries"} {
		ids, err := queryAll(ctx, tx, sqlstore.ScanColumn[string], `SELECT id FROM `+table+` ORDER BY seq`)
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
