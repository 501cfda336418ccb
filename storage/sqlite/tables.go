package sqlite

// The currencies and countries tables: their filters, sort columns and
// upserts. Both are small and listed the same way (see refdata.go).

import (
	"context"
	"database/sql"

	"github.com/brandbase/brandbase/refdata"
)

const currencyColumns = `id, code, name, name_plural, symbol, symbol_native, decimal_digits, rounding, is_coin, tags, keywords`

// currencyOrder maps a sort field to its column; isDefault is handled apart.
var currencyOrder = map[refdata.Field]string{
	refdata.FieldID: "id", refdata.FieldCode: "code", refdata.FieldName: "name_fold",
	refdata.FieldNamePlural: "name_plural_fold", refdata.FieldSymbol: "symbol_fold",
	refdata.FieldSymbolNative: "symbol_native_fold", refdata.FieldDecimalDigits: "decimal_digits",
	refdata.FieldRounding: "rounding", refdata.FieldIsCoin: "is_coin", refdata.FieldTags: "tags_key",
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
		f.Page.Size, func(rows *sql.Rows) (refdata.Currency, error) {
			var c refdata.Currency
			err := rows.Scan(&c.ID, &c.Code, &c.Name, &c.NamePlural, &c.Symbol, &c.SymbolNative,
				&c.DecimalDigits, &c.Rounding, &c.IsCoin, &c.Tags, &c.Keywords)
			return c, err
		})
}

// UpsertCurrencies implements refdata.Store.
func (s *Store) UpsertCurrencies(ctx context.Context, cs []refdata.Currency) error {
	return s.writeRefData(ctx, func(tx *sql.Tx) error {
		ctx, done := bulk(ctx)
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO currencies (`+currencyColumns+`,
			name_fold, name_plural_fold, symbol_fold, symbol_native_fold, tags_key)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (id) DO UPDATE SET code = excluded.code, name = excluded.name,
			name_plural = excluded.name_plural, symbol = excluded.symbol, symbol_native = excluded.symbol_native,
			decimal_digits = excluded.decimal_digits, rounding = excluded.rounding, is_coin = excluded.is_coin,
			tags = excluded.tags, keywords = excluded.keywords, name_fold = excluded.name_fold,
			name_plural_fold = excluded.name_plural_fold, symbol_fold = excluded.symbol_fold,
			symbol_native_fold = excluded.symbol_native_fold, tags_key = excluded.tags_key
			RETURNING rowid`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		kw := searchRows{table: "currencies_kw", column: "kw"}
		for _, c := range cs {
			if err := done(); err != nil {
				return err
			}
			var rowid int64
			if err := stmt.QueryRowContext(ctx, c.ID, c.Code, c.Name, c.NamePlural, c.Symbol, c.SymbolNative,
				c.DecimalDigits, c.Rounding, c.IsCoin, c.Tags, c.Keywords, refdata.Fold(c.Name),
				refdata.Fold(c.NamePlural), refdata.Fold(c.Symbol), refdata.Fold(c.SymbolNative),
				refdata.TagKey(c.Tags)).Scan(&rowid); err != nil {
				return err
			}
			kw.set(rowid, c.SearchText(), true)
		}
		if err := kw.write(ctx, tx); err != nil {
			return err
		}
		return s.bumpRevision(ctx, tx)
	})
}

const countryColumns = `id, region, subregion, code_alpha2, code_alpha3, code_numeric, code_phone, name,
	capital, currency, tld, native, tags, keywords`

var countryOrder = map[refdata.Field]string{
	refdata.FieldID: "id", refdata.FieldRegion: "region_fold", refdata.FieldSubregion: "subregion_fold",
	refdata.FieldCodeAlpha2: "code_alpha2", refdata.FieldCodeAlpha3: "code_alpha3",
	refdata.FieldCodeNumeric: "code_numeric", refdata.FieldCodePhone: "code_phone",
	refdata.FieldName: "name_fold", refdata.FieldCapital: "capital_fold", refdata.FieldCurrency: "currency",
	refdata.FieldTld: "tld", refdata.FieldNative: "native_fold", refdata.FieldTags: "tags_key",
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
		f.Page.Size, func(rows *sql.Rows) (refdata.Country, error) {
			var c refdata.Country
			err := rows.Scan(&c.ID, &c.Region, &c.Subregion, &c.CodeAlpha2, &c.CodeAlpha3, &c.CodeNumeric,
				&c.CodePhone, &c.Name, &c.Capital, &c.Currency, &c.Tld, &c.Native, &c.Tags, &c.Keywords)
			return c, err
		})
}

// UpsertCountries implements refdata.Store.
func (s *Store) UpsertCountries(ctx context.Context, cs []refdata.Country) error {
	return s.writeRefData(ctx, func(tx *sql.Tx) error {
		ctx, done := bulk(ctx)
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO countries (`+countryColumns+`,
			region_fold, subregion_fold, name_fold, capital_fold, native_fold, tags_key)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (id) DO UPDATE SET region = excluded.region, subregion = excluded.subregion,
			code_alpha2 = excluded.code_alpha2, code_alpha3 = excluded.code_alpha3,
			code_numeric = excluded.code_numeric, code_phone = excluded.code_phone, name = excluded.name,
			capital = excluded.capital, currency = excluded.currency, tld = excluded.tld,
			native = excluded.native, tags = excluded.tags, keywords = excluded.keywords,
			region_fold = excluded.region_fold, subregion_fold = excluded.subregion_fold,
			name_fold = excluded.name_fold, capital_fold = excluded.capital_fold,
			native_fold = excluded.native_fold, tags_key = excluded.tags_key
			RETURNING rowid`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		kw := searchRows{table: "countries_kw", column: "kw"}
		for _, c := range cs {
			if err := done(); err != nil {
				return err
			}
			var rowid int64
			if err := stmt.QueryRowContext(ctx, c.ID, c.Region, c.Subregion, c.CodeAlpha2, c.CodeAlpha3,
				c.CodeNumeric, c.CodePhone, c.Name, c.Capital, c.Currency, c.Tld, c.Native, c.Tags, c.Keywords,
				refdata.Fold(c.Region), refdata.Fold(c.Subregion), refdata.Fold(c.Name), refdata.Fold(c.Capital),
				refdata.Fold(c.Native), refdata.TagKey(c.Tags)).Scan(&rowid); err != nil {
				return err
			}
			kw.set(rowid, c.SearchText(), true)
		}
		if err := kw.write(ctx, tx); err != nil {
			return err
		}
		return s.bumpRevision(ctx, tx)
	})
}
