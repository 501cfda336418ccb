package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/storage/internal/sqlstore"
)

func scanBrand(row scanner) (auth.Brand, error) {
	var b auth.Brand
	var status string
	if err := row.Scan(&b.ID, &b.URL, &b.Name, &status, &b.DefaultCurrency, &b.CreatedAt); err != nil {
		return auth.Brand{}, err
	}
	b.Status = auth.Status(status)
	b.CreatedAt = fromTime(b.CreatedAt)
	return b, nil
}

// CreateBrand implements auth.Store: auth.ErrBrandExists if its ID or URL
// is taken. It notifies ChangeBrand.
func (s *Store) CreateBrand(ctx context.Context, b auth.Brand) error {
	return s.write(ctx, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO brands (`+sqlstore.BrandColumns+`) VALUES ($1, $2, $3, $4, $5, $6)`,
			b.ID, b.URL, b.Name, string(b.Status), b.DefaultCurrency, b.CreatedAt)
		if err != nil {
			return constraintError(ctx, err, auth.ErrBrandExists, nil)
		}
		return s.notify(ctx, tx, Change{Kind: ChangeBrand, ID: b.ID})
	})
}

// UpdateBrand implements auth.Store: auth.ErrBrandNotFound if absent,
// auth.ErrBrandExists if b.URL belongs to another brand. It notifies
// ChangeBrand.
func (s *Store) UpdateBrand(ctx context.Context, b auth.Brand) error {
	return s.write(ctx, func(tx pgx.Tx) error {
		err := execOne(ctx, tx, auth.ErrBrandNotFound, `UPDATE brands SET url = $1, name = $2, status = $3,
			default_currency = $4 WHERE id = $5`, b.URL, b.Name, string(b.Status), b.DefaultCurrency, b.ID)
		if err != nil {
			return constraintError(ctx, err, auth.ErrBrandExists, nil)
		}
		return s.notify(ctx, tx, Change{Kind: ChangeBrand, ID: b.ID})
	})
}

// BrandByID implements auth.Store: auth.ErrBrandNotFound if absent.
func (s *Store) BrandByID(ctx context.Context, id string) (auth.Brand, error) {
	return queryOne(ctx, s.db, scanBrand, auth.ErrBrandNotFound, `SELECT `+sqlstore.BrandColumns+` FROM brands WHERE id = $1`, id)
}

// BrandByURL implements auth.Store: auth.ErrBrandNotFound if absent.
func (s *Store) BrandByURL(ctx context.Context, url string) (auth.Brand, error) {
	return queryOne(ctx, s.db, scanBrand, auth.ErrBrandNotFound, `SELECT `+sqlstore.BrandColumns+` FROM brands WHERE url = $1`, url)
}

// ListBrands implements auth.Store.
func (s *Store) ListBrands(ctx context.Context) ([]auth.Brand, error) {
	return queryAll(ctx, s.db, scanBrand, `SELECT `+sqlstore.BrandColumns+` FROM brands ORDER BY created_at, seq`)
}
