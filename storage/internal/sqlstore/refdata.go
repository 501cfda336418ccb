// Package sqlstore holds what the SQL stores (storage/sqlite and
// storage/postgres) share, independent of their dialects. For reference
// data: the columns of the tables, the scans and encodings of rows, the
// reads of a whole snapshot and of the changes since a revision (one
// function over a store's own way of running a query), and the
// deduplication of a batch of cities.
package sqlstore

import (
	"cmp"
	"slices"
	"strings"

	"github.com/brandbase/brandbase/internal/refrows"
	"github.com/brandbase/brandbase/refdata"
)

// Scanner reads a row: *sql.Row, *sql.Rows, pgx.Row, pgx.Rows.
type Scanner interface{ Scan(dest ...any) error }

// ScanColumn reads a row of one column.
func ScanColumn[T any](row Scanner) (T, error) {
	var v T
	err := row.Scan(&v)
	return v, err
}

// CurrencyColumns are the columns of the currencies table a record is
// stored in (then seq, its place in the order of storage).
var CurrencyColumns = []string{"id", "code", "name", "name_plural", "symbol", "symbol_native", "decimal_digits",
	"rounding", "is_coin", "tags", "keywords"}

// ScanCurrency reads a row of CurrencyColumns; it returns the scan's error.
func ScanCurrency(row Scanner) (refdata.Currency, error) {
	var c refdata.Currency
	err := row.Scan(&c.ID, &c.Code, &c.Name, &c.NamePlural, &c.Symbol, &c.SymbolNative,
		&c.DecimalDigits, &c.Rounding, &c.IsCoin, &c.Tags, &c.Keywords)
	return c, err
}

// CurrencyRow returns the values of CurrencyColumns for c.
func CurrencyRow(c refdata.Currency) []any {
	return []any{c.ID, c.Code, c.Name, c.NamePlural, c.Symbol, c.SymbolNative,
		c.DecimalDigits, c.Rounding, c.IsCoin, c.Tags, c.Keywords}
}

// CountryColumns are the columns of the countries table a record is
// stored in (then seq).
var CountryColumns = []string{"id", "region", "subregion", "code_alpha2", "code_alpha3", "code_numeric", "code_phone",
	"name", "capital", "currency", "tld", "native", "tags", "keywords"}

// ScanCountry reads a row of CountryColumns; it returns the scan's error.
func ScanCountry(row Scanner) (refdata.Country, error) {
	var c refdata.Country
	err := row.Scan(&c.ID, &c.Region, &c.Subregion, &c.CodeAlpha2, &c.CodeAlpha3, &c.CodeNumeric,
		&c.CodePhone, &c.Name, &c.Capital, &c.Currency, &c.Tld, &c.Native, &c.Tags, &c.Keywords)
	return c, err
}

// CountryRow returns the values of CountryColumns for c.
func CountryRow(c refdata.Country) []any {
	return []any{c.ID, c.Region, c.Subregion, c.CodeAlpha2, c.CodeAlpha3,
		c.CodeNumeric, c.CodePhone, c.Name, c.Capital, c.Currency, c.Tld, c.Native, c.Tags, c.Keywords}
}

// CityColumns are the columns ScanCity reads. The cities table also holds
// seq (the insertion order, the order of every read), name_fold (the
// folded name: with the codes, the natural key, unique) and rev (the
// revision of the write that last inserted or changed the city).
const CityColumns = `country_code, state_code, name, tags`

// ScanCity reads a row of CityColumns; it returns the scan's error.
func ScanCity(row Scanner) (refdata.City, error) {
	var c refdata.City
	err := row.Scan(&c.CountryCode, &c.StateCode, &c.Name, &c.Tags)
	return c, err
}

// Query runs query with args in a store's read transaction and calls scan
// on each row, in order; it returns the first error of either.
type Query func(query string, args []any, scan func(Scanner) error) error

// ReadRefData reads, with query (every call in one read transaction of
// the store, which the caller commits), the currencies and countries in
// their order of storage, the cities in insertion order (when changed is
// false, every city; else those whose rev is above since) and the
// revision, which revision reads in the same transaction. mark is the
// dialect's placeholder of the first argument ("?", "$1").
func ReadRefData(query Query, revision func() (uint64, error), mark string, changed bool, since uint64) (refdata.RefData, error) {
	var out refdata.RefData
	var err error
	if out.Revision, err = revision(); err != nil {
		return out, err
	}
	if out.Currencies, err = readAll(query, `SELECT `+strings.Join(CurrencyColumns, ", ")+` FROM currencies ORDER BY seq`, nil, ScanCurrency); err != nil {
		return out, err
	}
	if out.Countries, err = readAll(query, `SELECT `+strings.Join(CountryColumns, ", ")+` FROM countries ORDER BY seq`, nil, ScanCountry); err != nil {
		return out, err
	}
	if !changed {
		out.Cities, err = readAll(query, `SELECT `+CityColumns+` FROM cities ORDER BY seq`, nil, ScanCity)
		return out, err
	}
	type seqCity struct {
		seq  int64
		city refdata.City
	}
	rows, err := readAll(query, ChangedCitiesSQL(mark), []any{int64(min(since, 1<<63-1))}, func(row Scanner) (seqCity, error) {
		var c seqCity
		err := row.Scan(&c.seq, &c.city.CountryCode, &c.city.StateCode, &c.city.Name, &c.city.Tags)
		return c, err
	})
	slices.SortFunc(rows, func(a, b seqCity) int { return cmp.Compare(a.seq, b.seq) })
	out.Cities = make([]refdata.City, len(rows))
	for i, r := range rows {
		out.Cities[i] = r.city
	}
	return out, err
}

// ChangedCitiesSQL returns the read of the cities changed since a
// revision (its first argument, placeholder mark), each with its seq
// first: in the order of the index of revisions (cities_rev), which the
// planners then use rather than scan the table in seq order;
// ReadRefData sorts them by seq.
func ChangedCitiesSQL(mark string) string {
	return `SELECT seq, ` + CityColumns + ` FROM cities WHERE rev > ` + mark + ` ORDER BY rev, seq`
}

// readAll returns the rows of a query, each read by scan; never nil.
func readAll[T any](query Query, sql string, args []any, scan func(Scanner) (T, error)) ([]T, error) {
	out := []T{}
	err := query(sql, args, func(row Scanner) error {
		v, err := scan(row)
		out = append(out, v)
		return err
	})
	return out, err
}

// DedupCities returns cs with one city per natural key (refrows.CityKey),
// as a store holds them after UpsertCities(cs): at the place of the key's
// first occurrence, with the name of its last and the tags of all
// (refrows.MergeTags).
func DedupCities(cs []refdata.City) []refdata.City {
	out := make([]refdata.City, 0, len(cs))
	at := make(map[string]int, len(cs))
	for _, c := range cs {
		k := refrows.CityKey(c.CountryCode, c.StateCode, c.Name)
		if i, ok := at[k]; ok {
			out[i].Name, out[i].Tags = c.Name, refrows.MergeTags(out[i].Tags, c.Tags)
			continue
		}
		at[k] = len(out)
		out = append(out, c)
	}
	return out
}
