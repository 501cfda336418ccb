package sqlstore

// auth.AccountStore on the core: brand settings and password-reset
// tokens.

import (
	"context"
	"time"

	"github.com/brandbase/brandbase/auth"
)

// BrandSettings implements auth.AccountStore: the brand's stored settings,
// the zero BrandSettings when none are stored, auth.ErrBrandNotFound if
// the brand does not exist.
func (c *Core) BrandSettings(ctx context.Context, brandID string) (auth.BrandSettings, error) {
	var bs auth.BrandSettings
	err := c.d.Read(ctx, func(tx DB) error {
		ok, err := c.found(ctx, tx, `SELECT 1 FROM brands WHERE id = ?`, brandID)
		if err != nil {
			return err
		}
		if !ok {
			return auth.ErrBrandNotFound
		}
		err = tx.QueryRow(ctx, c.bind(`SELECT registration_open, max_devices_per_user, reset_link_origins
			FROM brand_settings WHERE brand_id = ?`), brandID).
			Scan(&bs.RegistrationOpen, &bs.MaxDevicesPerUser, c.d.ScanList(&bs.ResetLinkOrigins))
		if err != nil && !c.d.Missing(err) {
			return c.d.Error(ctx, err)
		}
		return nil
	})
	if err != nil {
		return auth.BrandSettings{}, err
	}
	if len(bs.ResetLinkOrigins) == 0 {
		bs.ResetLinkOrigins = nil
	}
	return bs, nil
}

// SetBrandSettings implements auth.AccountStore: it stores bs for the
// brand, replacing what was stored; auth.ErrBrandNotFound if the brand
// does not exist. It notifies ChangeBrand.
func (c *Core) SetBrandSettings(ctx context.Context, brandID string, bs auth.BrandSettings) error {
	origins := bs.ResetLinkOrigins
	if origins == nil {
		origins = []string{}
	}
	return c.write(ctx, func(tx DB) error {
		if _, err := c.exec(ctx, tx, nil, auth.ErrBrandNotFound, `INSERT INTO brand_settings
			(brand_id, registration_open, max_devices_per_user, reset_link_origins, updated_at) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (brand_id) DO UPDATE SET registration_open = excluded.registration_open,
			max_devices_per_user = excluded.max_devices_per_user, reset_link_origins = excluded.reset_link_origins,
			updated_at = excluded.updated_at`,
			brandID, bs.RegistrationOpen, bs.MaxDevicesPerUser, c.d.List(origins), c.d.Time(time.Now())); err != nil {
			return err
		}
		return c.changed(ctx, tx, ChangeBrand, brandID)
	})
}
