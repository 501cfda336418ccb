package sqlite

// Reference data (refdata.Store) on SQLite: rows in their order of
// storage (seq), read whole or since a revision in one read transaction;
// upserts of currencies, countries and cities; the dataset version. The
// revision and its cache are in revision.go.

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"

	"github.com/brandbase/brandbase/internal/refrows"
	"github.com/brandbase/brandbase/internal/textfold"
	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/storage/internal/sqlstore"
)

// metaDatasetVersion is the meta key of the dataset version.
const metaDatasetVersion = "refdata.dataset_version"

// ReadRefData implements refdata.Store: one read transaction.
func (s *Store) ReadRefData(ctx context.Context) (refdata.RefData, error) {
	return s.readRefData(ctx, false, 0)
}

// RefDataChangesSince implements refdata.Store: one read transaction,
// the cities by the index of their revisions (cities_rev).
func (s *Store) RefDataChangesSince(ctx context.Context, rev uint64) (refdata.RefData, error) {
	return s.readRefData(ctx, true, rev)
}

// readRefData reads the reference data (the cities changed since since,
// when changed is set) and the revision in one read transaction of the
// reader pool: in WAL mode, a consistent snapshot of the file.
func (s *Store) readRefData(ctx context.Context, changed bool, since uint64) (refdata.RefData, error) {
	tx, err := s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return refdata.RefData{}, storeError(err)
	}
	defer tx.Rollback()
	query := func(q string, args []any, scan func(sqlstore.Scanner) error) error {
		rows, err := tx.QueryContext(ctx, q, args...)
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
		v, err := sqlstore.ScanColumn[string](tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, metaRefDataRevision))
		if errors.Is(err, sql.ErrNoRows) {
			return 0, nil
		}
		n, _ := strconv.ParseUint(v, 10, 64)
		return n, err
	}
	data, err := sqlstore.ReadRefData(query, revision, "?", changed, since)
	if err != nil {
		return refdata.RefData{}, storeError(err)
	}
	return data, storeError(tx.Commit())
}

// upsertQuery returns the statement that inserts a row of columns
// (starting with id) into table, at the end of the order of storage
// (seq), or, when its id is stored, replaces every other column but seq.
func upsertQuery(table string, cols []string) string {
	marks := make([]string, len(cols))
	var set []string
	for i, c := range cols {
		marks[i] = "?"
		if c != "id" {
			set = append(set, c+" = excluded."+c)
		}
	}
	return `INSERT INTO ` + table + ` (` + strings.Join(cols, ", ") + `, seq) VALUES (` + strings.Join(marks, ", ") +
		`, (SELECT coalesce(max(seq), 0) + 1 FROM ` + table + `)) ON CONFLICT (id) DO UPDATE SET ` +
		strings.Join(set, ", ")
}

// The upserts of a currency and of a country; their arguments are
// sqlstore.CurrencyRow and sqlstore.CountryRow.
var (
	upsertCurrency = upsertQuery("currencies", sqlstore.CurrencyColumns)
	upsertCountry  = upsertQuery("countries", sqlstore.CountryColumns)
)

// UpsertCurrencies implements refdata.Store.
func (s *Store) UpsertCurrencies(ctx context.Context, cs []refdata.Currency) error {
	return upsertRows(ctx, s, upsertCurrency, cs, sqlstore.CurrencyRow)
}

// UpsertCountries implements refdata.Store.
func (s *Store) UpsertCountries(ctx context.Context, cs []refdata.Country) error {
	return upsertRows(ctx, s, upsertCountry, cs, sqlstore.CountryRow)
}

// upsertRows upserts recs in one transaction of reference data, each by
// upsert with the arguments args gives, and bumps the revision.
func upsertRows[T any](ctx context.Context, s *Store, upsert string, recs []T, args func(T) []any) error {
	return s.writeRefData(ctx, func(tx *sql.Tx) error {
		ctx, done := bulk(ctx)
		stmts, closeAll, err := prepare(ctx, tx, upsert)
		if err != nil {
			return err
		}
		defer closeAll()
		for _, r := range recs {
			if err := done(); err != nil {
				return err
			}
			if _, err := stmts[0].ExecContext(ctx, args(r)...); err != nil {
				return err
			}
		}
		return s.bumpRevision(ctx, tx)
	})
}

// UpsertCities implements refdata.Store: each city is inserted or, when
// its natural key is stored and its name differs or it adds tags
// (refrows.MergeTags), updated in place; a written city takes the
// revision of the write. It bumps the revision, also when nothing
// changed.
func (s *Store) UpsertCities(ctx context.Context, cs []refdata.City) (int, error) {
	added := 0
	err := s.writeRefData(ctx, func(tx *sql.Tx) error {
		added = 0
		ctx, done := bulk(ctx)
		rev, err := nextRevision(ctx, tx)
		if err != nil {
			return err
		}
		stmts, closeAll, err := prepare(ctx, tx,
			`INSERT INTO cities (country_code, state_code, name, tags, name_fold, rev)
				VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
			`SELECT seq, name, tags FROM cities WHERE country_code = ? AND state_code = ? AND name_fold = ?`,
			`UPDATE cities SET name = ?, tags = ?, rev = ? WHERE seq = ?`)
		if err != nil {
			return err
		}
		defer closeAll()
		insert, find, update := stmts[0], stmts[1], stmts[2]
		for _, c := range cs {
			if err := done(); err != nil {
				return err
			}
			fold := textfold.Fold(c.Name)
			res, err := insert.ExecContext(ctx, c.CountryCode, c.StateCode, c.Name, c.Tags, fold, rev)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n > 0 {
				added++
				continue
			}
			var seq int64
			var name, tags string
			if err := find.QueryRowContext(ctx, c.CountryCode, c.StateCode, fold).Scan(&seq, &name, &tags); err != nil {
				return err
			}
			if c.Tags = refrows.MergeTags(tags, c.Tags); name == c.Name && tags == c.Tags {
				continue
			}
			if _, err := update.ExecContext(ctx, c.Name, c.Tags, rev, seq); err != nil {
				return err
			}
		}
		return s.bumpRevision(ctx, tx) // also when nothing changed: see bumpRevision
	})
	return added, err
}

// migrationSteps are the Go steps of migrations, by version: each runs in
// its migration's transaction, after its SQL.
var migrationSteps = map[int]func(context.Context, *sql.Tx) error{7: numberStored}

// numberStored numbers the currencies and countries stored before their
// order of storage was recorded (seq NULL), after the others: in the
// embedded dataset's order (sqlstore.DatasetOrder), then in rowid order.
func numberStored(ctx context.Context, tx *sql.Tx) error {
	for _, table := range []string{"currencies", "countries"} {
		ids, err := queryAll(ctx, tx, sqlstore.ScanColumn[string], `SELECT id FROM `+table+` WHERE seq IS NULL ORDER BY rowid`)
		if err != nil {
			return err
		}
		if ids, err = sqlstore.DatasetOrder(ids); err != nil {
			return err
		}
		last, err := sqlstore.ScanColumn[int64](tx.QueryRowContext(ctx, `SELECT coalesce(max(seq), 0) FROM `+table))
		if err != nil {
			return err
		}
		for i, id := range ids {
			if _, err := tx.ExecContext(ctx, `UPDATE `+table+` SET seq = ? WHERE id = ?`, last+int64(i)+1, id); err != nil {
				return err
			}
		}
	}
	return nil
}

// DatasetVersion implements refdata.Store.
func (s *Store) DatasetVersion(ctx context.Context) (string, error) {
	return s.getMeta(ctx, metaDatasetVersion)
}

// SetDatasetVersion implements refdata.Store.
func (s *Store) SetDatasetVersion(ctx context.Context, version string) error {
	return s.setMeta(ctx, metaDatasetVersion, version)
}
