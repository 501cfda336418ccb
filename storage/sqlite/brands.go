package sqlite

// Brands: the brands table, read and written through the dialect
// (dialect.go).

import (
	"context"
	"database/sql"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/storage/internal/sqlstore"
)

// scanBrand reads a row of sqlstore.BrandColumns.
func scanBrand(row scanner) (auth.Brand, error) {
	var b auth.Brand
	var created int64
	var status string
	if err := row.Scan(&b.ID, &b.URL, &b.Name, &status, &b.DefaultCurrency, &created); err != nil {
		return auth.Brand{}, err
	}
	b.Status = auth.Status(status)
	b.CreatedAt = fromMicro(created)
	return b, nil
}

// CreateBrand implements auth.Store.
func (s *Store) CreateBrand(ctx context.Context, b auth.Brand) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		_, err := exec(ctx, tx, auth.ErrBrandExists, `INSERT INTO brands (`+sqlstore.BrandColumns+`, seq)
			VALUES (?, ?, ?, ?, ?, ?, (SELECT coalesce(max(seq), 0) + 1 FROM brands))`,
			b.ID, b.URL, b.Name, string(b.Status), b.DefaultCurrency, toMicro(b.CreatedAt))
		return err
	})
}

// UpdateBrand implements auth.Store.
func (s *Store) UpdateBrand(ctx context.Context, b auth.Brand) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		return execOne(ctx, tx, auth.ErrBrandNotFound, auth.ErrBrandExists,
			`UPDATE brands SET url = ?, name = ?, status = ?, default_currency = ? WHERE id = ?`,
			b.URL, b.Name, string(b.Status), b.DefaultCurrency, b.ID)
	})
}

// BrandByID implements auth.Store.
func (s *Store) BrandByID(ctx context.Context, id string) (auth.Brand, error) {
	return queryOne(ctx, s.r, scanBrand, auth.ErrBrandNotFound, `SELECT `+sqlstore.BrandColumns+` FROM brands WHERE id = ?`, id)
}

// BrandByURL implements auth.Store.
func (s *Store) BrandByURL(ctx context.Context, url string) (auth.Brand, error) {
	return queryOne(ctx, s.r, scanBrand, auth.ErrBrandNotFound, `SELECT `+sqlstore.BrandColumns+` FROM brands WHERE url = ?`, url)
}

// ListBrands implements auth.Store.
func (s *Store) ListBrands(ctx context.Context) ([]auth.Brand, error) {
	return queryAll(ctx, s.r, scanBrand, `SELECT `+sqlstore.BrandColumns+` FROM brands ORDER BY created_at, seq`)
}
