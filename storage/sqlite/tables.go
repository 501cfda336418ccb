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
)

// currencyColumns are the columns of a currency, as scanCurrency reads
// them.
const currencyColumns = `id, code, name, name_plural, symbol, symbol_native, decimal_digits, rounding, is_coin, tags, keywords`

// currencyOrder maps a sort field to its column; isDefault is handled apart.
var currencyOrder = map[refdata.Field]string{
	refdata.FieldID: "id", refdata.FieldCode: "code", refdata.FieldName: "name_fold",
	refdata.FieldNamePlural: "name_plural_fold", refdata.FieldSymbol: "symbol_fold",
	refdata.FieldSymbolNative: "symbol_native_fold", refdata.FieldDecimalDigits: "decimal_digits",
	refdata.FieldRounding: "rounding", refdata.FieldIsCoin: "is_coin", refdata.FieldTags: "tags_key",
}

// scanCurrency reads a row of currencyColumns.
func scanCurrency(row scanner) (refdata.Currency, error) {
	var c refdata.Currency
	err := row.Scan(&c.ID, &c.Code, &c.Name, &c.NamePlural, &c.Symbol, &c.SymbolNative,
		&c.DecimalDigits, &c.Rounding, &c.IsCoin, &c.Tags, &c.Keywords)
	return c, err
}

// ListCurrencies implements refdata.Store.
func (s *Store) ListCurrencies(ctx context.Context, f refdata.CurrencyFilter) ([]refdata.Currency, int, error) {
	var w filter
	w.eq("code", f.Code)
	w.contains("name_fold", f.Name)
	w.contains("name_plural_fold", f.NamePlural)
	w.contains("symbol_fold", f.Symbol)
	w.contains("symbol_native_fold", f.SymbolNative)
	if f.DecimalDigits != nil {
		w.add("decimal_digits = ?", *f.DecimalDigits)
	}
	if f.Rounding != nil {
		w.add("rounding = ?", *f.Rounding)
	}
	if f.IsCoin != nil {
		w.add("is_coin = ?", *f.IsCoin)
	}
	w.tags("tags_key", f.Tags)
	w.keywords("rowid", "currencies_kw", f.Keywords, f.Nothing)

	key, keyArgs := currencyOrder[f.Sort], []any(nil)
	if f.Sort == refdata.FieldIsDefault {
		key, keyArgs = "(code = ?)", []any{f.DefaultCode}
	}
	return list(ctx, s, countOf(ctx, `SELECT count(*) FROM currencies`+w.where(), w.args),
		pageOf(`SELECT `+currencyColumns+` FROM currencies`+w.where()+orderBy(key, "id", f.Desc),
			append(append([]any{}, w.args...), keyArgs...), f.Page),
		scanCurrency)
}

// upsertCurrency is the upsert of a currency; its arguments are
// currencyArgs.
var upsertCurrency = upsertQuery("currencies", currencyColumns+`,
	name_fold, name_plural_fold, symbol_fold, symbol_native_fold, tags_key`)

// currencyArgs returns the arguments of upsertCurrency for c.
func currencyArgs(c refdata.Currency) []any {
	return []any{c.ID, c.Code, c.Name, c.NamePlural, c.Symbol, c.SymbolNative,
		c.DecimalDigits, c.Rounding, c.IsCoin, c.Tags, c.Keywords, refdata.Fold(c.Name),
		refdata.Fold(c.NamePlural), refdata.Fold(c.Symbol), refdata.Fold(c.SymbolNative),
		refdata.TagKey(c.Tags)}
}

// UpsertCurrencies implements refdata.Store.
func (s *Store) UpsertCurrencies(ctx context.Context, cs []refdata.Currency) error {
	return upsertSearchable(ctx, s, upsertCurrency, "currencies_kw", cs, currencyArgs)
}

// countryColumns are the columns of a country, as scanCountry reads them.
const countryColumns = `id, region, subregion, code_alpha2, code_alpha3, code_numeric, code_phone, name,
	capital, currency, tld, native, tags, keywords`

// countryOrder maps a sort field to its column.
var countryOrder = map[refdata.Field]string{
	refdata.FieldID: "id", refdata.FieldRegion: "region_fold", refdata.FieldSubregion: "subregion_fold",
	refdata.FieldCodeAlpha2: "code_alpha2", refdata.FieldCodeAlpha3: "code_alpha3",
	refdata.FieldCodeNumeric: "code_numeric", refdata.FieldCodePhone: "code_phone",
	refdata.FieldName: "name_fold", refdata.FieldCapital: "capital_fold", refdata.FieldCurrency: "currency",
	refdata.FieldTld: "tld", refdata.FieldNative: "native_fold", refdata.FieldTags: "tags_key",
}

// scanCountry reads a row of countryColumns.
func scanCountry(row scanner) (refdata.Country, error) {
	var c refdata.Country
	err := row.Scan(&c.ID, &c.Region, &c.Subregion, &c.CodeAlpha2, &c.CodeAlpha3, &c.CodeNumeric,
		&c.CodePhone, &c.Name, &c.Capital, &c.Currency, &c.Tld, &c.Native, &c.Tags, &c.Keywords)
	return c, err
}

// ListCountries implements refdata.Store.
func (s *Store) ListCountries(ctx context.Context, f refdata.CountryFilter) ([]refdata.Country, int, error) {
	var w filter
	w.eq("code_alpha2", f.CodeAlpha2)
	w.eq("code_alpha3", f.CodeAlpha3)
	if f.CodeNumeric != nil {
		w.add("code_numeric = ?", *f.CodeNumeric)
	}
	w.eq("code_phone", f.CodePhone)
	w.eq("currency", f.Currency)
	w.eq("tld", f.Tld)
	w.contains("region_fold", f.Region)
	w.contains("subregion_fold", f.Subregion)
	w.contains("name_fold", f.Name)
	w.contains("capital_fold", f.Capital)
	w.contains("native_fold", f.Native)
	w.tags("tags_key", f.Tags)
	w.keywords("rowid", "countries_kw", f.Keywords, f.Nothing)

	return list(ctx, s, countOf(ctx, `SELECT count(*) FROM countries`+w.where(), w.args),
		pageOf(`SELECT `+countryColumns+` FROM countries`+w.where()+orderBy(countryOrder[f.Sort], "id", f.Desc), w.args, f.Page),
		scanCountry)
}

// upsertCountry is the upsert of a country; its arguments are
// countryArgs.
var upsertCountry = upsertQuery("countries", countryColumns+`,
	region_fold, subregion_fold, name_fold, capital_fold, native_fold, tags_key`)

// countryArgs returns the arguments of upsertCountry for c.
func countryArgs(c refdata.Country) []any {
	return []any{c.ID, c.Region, c.Subregion, c.CodeAlpha2, c.CodeAlpha3,
		c.CodeNumeric, c.CodePhone, c.Name, c.Capital, c.Currency, c.Tld, c.Native, c.Tags, c.Keywords,
		refdata.Fold(c.Region), refdata.Fold(c.Subregion), refdata.Fold(c.Name), refdata.Fold(c.Capital),
		refdata.Fold(c.Native), refdata.TagKey(c.Tags)}
}

// UpsertCountries implements refdata.Store.
func (s *Store) UpsertCountries(ctx context.Context, cs []refdata.Country) error {
	return upsertSearchable(ctx, s, upsertCountry, "countries_kw", cs, countryArgs)
}

// upsertQuery returns the statement that inserts a row of columns (a
// comma-separated list starting with id) into table or, when its id is
// stored, replaces every other column; it returns the row's rowid.
func upsertQuery(table, columns string) string {
	cols := strings.Split(columns, ",")
	marks := make([]string, len(cols))
	var set []string
	for i, c := range cols {
		cols[i], marks[i] = strings.TrimSpace(c), "?"
		if cols[i] != "id" {
			set = append(set, cols[i]+" = excluded."+cols[i])
		}
	}
	return `INSERT INTO ` + table + ` (` + strings.Join(cols, ", ") + `) VALUES (` + strings.Join(marks, ", ") +
		`) ON CONFLICT (id) DO UPDATE SET ` + strings.Join(set, ", ") + ` RETURNING rowid`
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
			rowid, err := scanColumn[int64](stmts[0].QueryRowContext(ctx, args(r)...))
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
