package sqlite

// The currencies and countries tables: their columns, filters, sort
// columns and upserts. Both are small and listed the same way (see
// refdata.go), and both keep their search text in a keywords index
// (search.go).

import (
	"context"
	"database/sql"
	"strings"

	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/storage/internal/sqlstore"
)

// currencyColumns are the columns of a currency, as
// sqlstore.ScanCurrency reads them.
var currencyColumns = strings.Join(sqlstore.CurrencyColumns[:sqlstore.CurrencyScanned], ", ")

// ListCurrencies implements refdata.Store.
func (s *Store) ListCurrencies(ctx context.Context, f refdata.CurrencyFilter) ([]refdata.Currency, int, error) {
	var w filter
	sqlstore.CurrencyConditions(&w, f)
	w.keywords("rowid", "currencies_kw", f.Keywords, f.Nothing)

	key, keyArgs := sqlstore.CurrencyOrder[f.Sort], []any(nil)
	if f.Sort == refdata.FieldIsDefault {
		key, keyArgs = "(code = ?)", []any{f.DefaultCode}
	}
	return list(ctx, s, countOf(ctx, `SELECT count(*) FROM currencies`+w.where(), w.args),
		pageOf(`SELECT `+currencyColumns+` FROM currencies`+w.where()+orderBy(key, "id", f.Desc),
			append(append([]any{}, w.args...), keyArgs...), f.Page),
		sqlstore.ScanCurrency)
}

// upsertCurrency is the upsert of a currency; its arguments are
// sqlstore.CurrencyRow.
var upsertCurrency = upsertQuery("currencies", sqlstore.CurrencyColumns)

// UpsertCurrencies implements refdata.Store.
func (s *Store) UpsertCurrencies(ctx context.Context, cs []refdata.Currency) error {
	return upsertSearchable(ctx, s, upsertCurrency, "currencies_kw", cs, sqlstore.CurrencyRow)
}

// countryColumns are the columns of a country, as sqlstore.ScanCountry
// reads them.
var countryColumns = strings.Join(sqlstore.CountryColumns[:sqlstore.CountryScanned], ", ")

// ListCountries implements refdata.Store.
func (s *Store) ListCountries(ctx context.Context, f refdata.CountryFilter) ([]refdata.Country, int, error) {
	var w filter
	sqlstore.CountryConditions(&w, f)
	w.keywords("rowid", "countries_kw", f.Keywords, f.Nothing)

	return list(ctx, s, countOf(ctx, `SELECT count(*) FROM countries`+w.where(), w.args),
		pageOf(`SELECT `+countryColumns+` FROM countries`+w.where()+orderBy(sqlstore.CountryOrder[f.Sort], "id", f.Desc), w.args, f.Page),
		sqlstore.ScanCountry)
}

// upsertCountry is the upsert of a country; its arguments are
// sqlstore.CountryRow.
var upsertCountry = upsertQuery("countries", sqlstore.CountryColumns)

// UpsertCountries implements refdata.Store.
func (s *Store) UpsertCountries(ctx context.Context, cs []refdata.Country) error {
	return upsertSearchable(ctx, s, upsertCountry, "countries_kw", cs, sqlstore.CountryRow)
}

// upsertQuery returns the statement that inserts a row of columns
// (starting with id) into table, at the end of the
// order of storage (seq), or, when its id is stored, replaces every other
// column but seq; it returns the row's rowid.
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
		strings.Join(set, ", ") + ` RETURNING rowid`
}

// migrationSteps are the Go steps of migrations, by version: each runs in
// its migration's transaction, after its SQL.
var migrationSteps = map[int]func(context.Context, *sql.Tx) error{7: numberStored}

// numberStored numbers the currencies and countries stored before their
// order of storage was recorded (seq NULL), after the others: in the
// embedded dataset's order (refdata.DatasetOrder), then in rowid order.
func numberStored(ctx context.Context, tx *sql.Tx) error {
	for _, table := range []string{"currencies", "countries"} {
		ids, err := queryAll(ctx, tx, sqlstore.ScanColumn[string], `SELECT id FROM `+table+` WHERE seq IS NULL ORDER BY rowid`)
		if err != nil {
			return err
		}
		if ids, err = refdata.DatasetOrder(ids); err != nil {
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

// upsertSearchable upserts recs in one transaction of reference data: each
// by upsert (see upsertQuery) with the arguments args gives, its search
// text set in the keywords index kwTable.
func upsertSearchable[T interface{ SearchText() string }](ctx context.Context, s *Store, upsert, kwTable string,
	recs []T, args func(T) []any) error {
	return s.writeRefData(ctx, func(tx *sql.Tx) error {
		ctx, done := bulk(ctx)
		stmts, closeAll, err := prepare(ctx, tx, upsert)
		if err != nil {
			return err
		}
		defer closeAll()
		kw := searchRows{table: kwTable, column: "kw"}
		for _, r := range recs {
			if err := done(); err != nil {
				return err
			}
			rowid, err := sqlstore.ScanColumn[int64](stmts[0].QueryRowContext(ctx, args(r)...))
			if err != nil {
				return err
			}
			kw.set(rowid, r.SearchText(), true)
		}
		if err := kw.write(ctx, tx); err != nil {
			return err
		}
		return s.bumpRevision(ctx, tx)
	})
}
