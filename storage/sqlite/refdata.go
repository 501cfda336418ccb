package sqlite

import (
	"context"
	"database/sql"

	"github.com/brandbase/brandbase/refdata"
)

const metaDatasetVersion = "refdata.dataset_version"

// ListCurrencies implements refdata.Store.
func (s *Store) ListCurrencies(ctx context.Context, q refdata.CurrencyQuery) ([]refdata.Currency, int, error) {
	var total int
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM currencies`).Scan(&total); err != nil {
		return nil, 0, storeError(err)
	}
	rows, err := s.r.QueryContext(ctx, `SELECT id, code, name, name_plural, symbol, symbol_native,
		decimal_digits, rounding, is_coin, tags, keywords FROM currencies ORDER BY id LIMIT ? OFFSET ?`,
		q.Page.Size, q.Page.Offset())
	if err != nil {
		return nil, 0, storeError(err)
	}
	defer rows.Close()
	out := make([]refdata.Currency, 0, q.Page.Size)
	for rows.Next() {
		var c refdata.Currency
		if err := rows.Scan(&c.ID, &c.Code, &c.Name, &c.NamePlural, &c.Symbol, &c.SymbolNative,
			&c.DecimalDigits, &c.Rounding, &c.IsCoin, &c.Tags, &c.Keywords); err != nil {
			return nil, 0, storeError(err)
		}
		out = append(out, c)
	}
	return out, total, storeError(rows.Err())
}

// UpsertCurrencies implements refdata.Store.
func (s *Store) UpsertCurrencies(ctx context.Context, cs []refdata.Currency) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO currencies (id, code, name, name_plural, symbol,
			symbol_native, decimal_digits, rounding, is_coin, tags, keywords)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (id) DO UPDATE SET code = excluded.code, name = excluded.name,
			name_plural = excluded.name_plural, symbol = excluded.symbol, symbol_native = excluded.symbol_native,
			decimal_digits = excluded.decimal_digits, rounding = excluded.rounding, is_coin = excluded.is_coin,
			tags = excluded.tags, keywords = excluded.keywords`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for _, c := range cs {
			if _, err := stmt.ExecContext(ctx, c.ID, c.Code, c.Name, c.NamePlural, c.Symbol, c.SymbolNative,
				c.DecimalDigits, c.Rounding, c.IsCoin, c.Tags, c.Keywords); err != nil {
				return err
			}
		}
		return nil
	})
}

// DatasetVersion implements refdata.Store.
func (s *Store) DatasetVersion(ctx context.Context) (string, error) {
	return s.getMeta(ctx, metaDatasetVersion)
}

// SetDatasetVersion implements refdata.Store.
func (s *Store) SetDatasetVersion(ctx context.Context, version string) error {
	return s.setMeta(ctx, metaDatasetVersion, version)
}
