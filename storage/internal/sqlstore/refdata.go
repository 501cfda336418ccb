// Package sqlstore holds what the SQL stores (storage/sqlite and
// storage/postgres) share of reference data, independent of their
// dialects: the columns of the tables, the sort field of each column, the
// scans of rows, the encodings of records as rows and the conditions of
// the list filters, written against [Conditions], which each store's
// condition builder implements with its own placeholders.
package sqlstore

import (
	"github.com/brandbase/brandbase/internal/textfold"
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

// Conditions builds the WHERE clause of a list query in a store's
// dialect; every method adds one condition joined by AND, or none.
type Conditions interface {
	// Eq adds "col = v" unless v is "".
	Eq(col, v string)
	// Equal adds "col = v".
	Equal(col string, v any)
	// Contains adds a substring test of col (a folded column) unless
	// needle is "".
	Contains(col, needle string)
	// Tags adds the any-of test of col (a tags_key column) unless tags is
	// empty.
	Tags(col string, tags []string)
}

// CurrencyColumns are the columns of the currencies table a record is
// stored in: the first CurrencyScanned are those ScanCurrency reads, the
// others the folded keys CurrencyRow adds.
var CurrencyColumns = []string{"id", "code", "name", "name_plural", "symbol", "symbol_native", "decimal_digits",
	"rounding", "is_coin", "tags", "keywords", "name_fold", "name_plural_fold", "symbol_fold", "symbol_native_fold", "tags_key"}

// CurrencyScanned is the number of CurrencyColumns ScanCurrency reads.
const CurrencyScanned = 11

// CurrencyOrder maps a sort field to its column; refdata.FieldIsDefault
// is handled apart.
var CurrencyOrder = map[refdata.Field]string{
	refdata.FieldID: "id", refdata.FieldCode: "code", refdata.FieldName: "name_fold",
	refdata.FieldNamePlural: "name_plural_fold", refdata.FieldSymbol: "symbol_fold",
	refdata.FieldSymbolNative: "symbol_native_fold", refdata.FieldDecimalDigits: "decimal_digits",
	refdata.FieldRounding: "rounding", refdata.FieldIsCoin: "is_coin", refdata.FieldTags: "tags_key",
	refdata.FieldCreatedDate: "seq",
}

// ScanCurrency reads a row of the first CurrencyScanned CurrencyColumns;
// it returns the scan's error.
func ScanCurrency(row Scanner) (refdata.Currency, error) {
	var c refdata.Currency
	err := row.Scan(&c.ID, &c.Code, &c.Name, &c.NamePlural, &c.Symbol, &c.SymbolNative,
		&c.DecimalDigits, &c.Rounding, &c.IsCoin, &c.Tags, &c.Keywords)
	return c, err
}

// CurrencyRow returns the values of CurrencyColumns for c.
func CurrencyRow(c refdata.Currency) []any {
	return []any{c.ID, c.Code, c.Name, c.NamePlural, c.Symbol, c.SymbolNative,
		c.DecimalDigits, c.Rounding, c.IsCoin, c.Tags, c.Keywords, textfold.Fold(c.Name),
		textfold.Fold(c.NamePlural), textfold.Fold(c.Symbol), textfold.Fold(c.SymbolNative),
		textfold.TagKey(c.Tags)}
}

// CurrencyConditions adds to w the conditions of f but its Keywords,
// Nothing, Sort and DefaultCode, which the stores handle in their own
// ways.
func CurrencyConditions(w Conditions, f refdata.CurrencyFilter) {
	w.Eq("code", f.Code)
	w.Contains("name_fold", f.Name)
	w.Contains("name_plural_fold", f.NamePlural)
	w.Contains("symbol_fold", f.Symbol)
	w.Contains("symbol_native_fold", f.SymbolNative)
	if f.DecimalDigits != nil {
		w.Equal("decimal_digits", *f.DecimalDigits)
	}
	if f.Rounding != nil {
		w.Equal("rounding", *f.Rounding)
	}
	if f.IsCoin != nil {
		w.Equal("is_coin", *f.IsCoin)
	}
	w.Tags("tags_key", f.Tags)
}

// CountryColumns are the columns of the countries table a record is
// stored in: the first CountryScanned are those ScanCountry reads, the
// others the folded keys CountryRow adds.
var CountryColumns = []string{"id", "region", "subregion", "code_alpha2", "code_alpha3", "code_numeric", "code_phone",
	"name", "capital", "currency", "tld", "native", "tags", "keywords",
	"region_fold", "subregion_fold", "name_fold", "capital_fold", "native_fold", "tags_key"}

// CountryScanned is the number of CountryColumns ScanCountry reads.
const CountryScanned = 14

// CountryOrder maps a sort field to its column.
var CountryOrder = map[refdata.Field]string{
	refdata.FieldID: "id", refdata.FieldRegion: "region_fold", refdata.FieldSubregion: "subregion_fold",
	refdata.FieldCodeAlpha2: "code_alpha2", refdata.FieldCodeAlpha3: "code_alpha3",
	refdata.FieldCodeNumeric: "code_numeric", refdata.FieldCodePhone: "code_phone",
	refdata.FieldName: "name_fold", refdata.FieldCapital: "capital_fold", refdata.FieldCurrency: "currency",
	refdata.FieldTld: "tld", refdata.FieldNative: "native_fold", refdata.FieldTags: "tags_key",
	refdata.FieldCreatedDate: "seq",
}

// ScanCountry reads a row of the first CountryScanned CountryColumns; it
// returns the scan's error.
func ScanCountry(row Scanner) (refdata.Country, error) {
	var c refdata.Country
	err := row.Scan(&c.ID, &c.Region, &c.Subregion, &c.CodeAlpha2, &c.CodeAlpha3, &c.CodeNumeric,
		&c.CodePhone, &c.Name, &c.Capital, &c.Currency, &c.Tld, &c.Native, &c.Tags, &c.Keywords)
	return c, err
}

// CountryRow returns the values of CountryColumns for c.
func CountryRow(c refdata.Country) []any {
	return []any{c.ID, c.Region, c.Subregion, c.CodeAlpha2, c.CodeAlpha3,
		c.CodeNumeric, c.CodePhone, c.Name, c.Capital, c.Currency, c.Tld, c.Native, c.Tags, c.Keywords,
		textfold.Fold(c.Region), textfold.Fold(c.Subregion), textfold.Fold(c.Name), textfold.Fold(c.Capital),
		textfold.Fold(c.Native), textfold.TagKey(c.Tags)}
}

// CountryConditions adds to w the conditions of f but its Keywords and
// Nothing, which the stores handle in their own ways.
func CountryConditions(w Conditions, f refdata.CountryFilter) {
	w.Eq("code_alpha2", f.CodeAlpha2)
	w.Eq("code_alpha3", f.CodeAlpha3)
	if f.CodeNumeric != nil {
		w.Equal("code_numeric", *f.CodeNumeric)
	}
	w.Eq("code_phone", f.CodePhone)
	w.Eq("currency", f.Currency)
	w.Eq("tld", f.Tld)
	w.Contains("region_fold", f.Region)
	w.Contains("subregion_fold", f.Subregion)
	w.Contains("name_fold", f.Name)
	w.Contains("capital_fold", f.Capital)
	w.Contains("native_fold", f.Native)
	w.Tags("tags_key", f.Tags)
}

// CityColumns are the columns ScanCity reads.
const CityColumns = `country_code, state_code, name, tags`

// CityOrder maps a sort field to its column.
var CityOrder = map[refdata.Field]string{
	refdata.FieldID: "seq", refdata.FieldCountryCode: "country_code", refdata.FieldStateCode: "state_code",
	refdata.FieldName: "name_fold", refdata.FieldTags: "tags_key",
}

// ScanCity reads a row of CityColumns; it returns the scan's error.
func ScanCity(row Scanner) (refdata.City, error) {
	var c refdata.City
	err := row.Scan(&c.CountryCode, &c.StateCode, &c.Name, &c.Tags)
	return c, err
}

// OrderBy returns the ORDER BY clause for key then tie, both reversed
// when desc; by key alone when it is tie.
func OrderBy(key, tie string, desc bool) string {
	dir := ""
	if desc {
		dir = " DESC"
	}
	if key == tie {
		return " ORDER BY " + key + dir
	}
	return " ORDER BY " + key + dir + ", " + tie + dir
}
