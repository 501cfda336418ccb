package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
)

const brandColumns = `id, url, name, status, default_currency, created_at`

func scanBrand(row interface{ Scan(...any) error }) (auth.Brand, error) {
	var b auth.Brand
	var created int64
	var status string
	if err := row.Scan(&b.ID, &b.URL, &b.Name, &status, &b.DefaultCurrency, &created); err != nil {
		return auth.Brand{}, err
	}
	b.Status = auth.Status(status)
	b.CreatedAt = time.UnixMicro(created).UTC()
	return b, nil
}

func brandNotFound(err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return envelope.NotFound("The brand does not exist.")
	}
	return storeError(err)
}

// CreateBrand implements auth.Store.
func (s *Store) CreateBrand(ctx context.Context, b auth.Brand) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO brands (`+brandColumns+`, seq)
			VALUES (?, ?, ?, ?, ?, ?, (SELECT coalesce(max(seq), 0) + 1 FROM brands))`,
			b.ID, b.URL, b.Name, string(b.Status), b.DefaultCurrency, b.CreatedAt.UnixMicro())
		return err
	})
}

// UpdateBrand implements auth.Store.
func (s *Store) UpdateBrand(ctx context.Context, b auth.Brand) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE brands SET url = ?, name = ?, status = ?, default_currency = ?
			WHERE id = ?`, b.URL, b.Name, string(b.Status), b.DefaultCurrency, b.ID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return envelope.NotFound("The brand does not exist.")
		}
		return nil
	})
}

// BrandByID implements auth.Store.
func (s *Store) BrandByID(ctx context.Context, id string) (auth.Brand, error) {
	b, err := scanBrand(s.r.QueryRowContext(ctx, `SELECT `+brandColumns+` FROM brands WHERE id = ?`, id))
	return b, brandNotFound(err)
}

// BrandByURL implements auth.Store.
func (s *Store) BrandByURL(ctx context.Context, url string) (auth.Brand, error) {
	b, err := scanBrand(s.r.QueryRowContext(ctx, `SELECT `+brandColumns+` FROM brands WHERE url = ?`, url))
	return b, brandNotFound(err)
}

// ListBrands implements auth.Store.
func (s *Store) ListBrands(ctx context.Context) ([]auth.Brand, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+brandColumns+` FROM brands ORDER BY created_at, seq`)
	if err != nil {
		return nil, storeError(err)
	}
	defer rows.Close()
	var out []auth.Brand
	for rows.Next() {
		b, err := scanBrand(rows)
		if err != nil {
			return nil, storeError(err)
		}
		out = append(out, b)
	}
	return out, storeError(rows.Err())
}
