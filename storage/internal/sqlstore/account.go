package sqlstore

// auth.AccountStore on the core: brand settings and password-reset
// tokens.

import (
	"bytes"
	"context"
	"github.com/brandbase/brandbase/outbox"
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
func (c *Core) SetBrandSettings(ctx context.Context, brandID string, bs auth.BrandSettings, out ...outbox.Item) error {
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
		if err := c.enqueue(ctx, tx, out); err != nil {
			return err
		}
		return c.changed(ctx, tx, ChangeBrand, brandID)
	})
}

// PutResetToken implements auth.AccountStore: it stores t as its user's
// token, replacing the user's earlier one; auth.ErrUserNotFound if the
// user does not exist, auth.ErrKeyHashSize for a hash that is not 32
// bytes, auth.ErrResetTokenInvalid if t.UserStamp is set and the user's
// stamp (read under its row's lock, as every user write takes it) is
// another.
func (c *Core) PutResetToken(ctx context.Context, t auth.ResetToken, out ...outbox.Item) error {
	if len(t.Hash) != 32 {
		return auth.ErrKeyHashSize
	}
	return c.write(ctx, func(tx DB) error {
		u, err := queryOne(ctx, c, tx, c.scanUser, auth.ErrUserNotFound,
			`SELECT `+UserColumns+` FROM users WHERE id = ?`+c.d.ForUpdate(), t.UserID)
		if err != nil {
			return err
		}
		if t.UserStamp != nil && !bytes.Equal(t.UserStamp, u.TokenStamp()) {
			return auth.ErrResetTokenInvalid // its user changed since: the change ended it
		}
		_, err = c.exec(ctx, tx, nil, auth.ErrUserNotFound, `INSERT INTO password_reset_tokens
			(user_id, brand_id, token_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (user_id) DO UPDATE SET brand_id = excluded.brand_id, token_hash = excluded.token_hash,
			created_at = excluded.created_at, expires_at = excluded.expires_at`,
			t.UserID, t.BrandID, t.Hash, c.d.Time(t.CreatedAt), c.d.Time(t.ExpiresAt))
		if err != nil {
			return err
		}
		return c.enqueue(ctx, tx, out)
	})
}

// UseResetToken implements auth.AccountStore: the token's user's row, then
// the token's, are locked (ForUpdate), so of two concurrent uses one finds
// it gone;
// auth.ErrResetTokenInvalid when no unexpired token has the hash. The
// user is updated as UpdateUser does (it notifies ChangeUser) and the
// token deleted, in one transaction.
func (c *Core) UseResetToken(ctx context.Context, hash []byte, at time.Time, fn func(*auth.UserRecord) error, out ...outbox.Item) (auth.UserRecord, error) {
	var u auth.UserRecord
	err := c.write(ctx, func(tx DB) error {
		// Locks in the order of every user write (the user's row, then
		// its tokens: updateUserIn ends them), so that a use racing a
		// password change cannot deadlock with it.
		var userID string
		err := tx.QueryRow(ctx, c.bind(`SELECT user_id FROM password_reset_tokens WHERE token_hash = ?`), hash).Scan(&userID)
		if err != nil {
			return c.missing(ctx, err, auth.ErrResetTokenInvalid)
		}
		if _, err := c.found(ctx, tx, `SELECT 1 FROM users WHERE id = ?`+c.d.ForUpdate(), userID); err != nil {
			return err
		}
		var expires time.Time
		err = tx.QueryRow(ctx, c.bind(`SELECT expires_at FROM password_reset_tokens WHERE token_hash = ? AND user_id = ?`+
			c.d.ForUpdate()), hash, userID).Scan(c.d.ScanTime(&expires))
		if err != nil {
			return c.missing(ctx, err, auth.ErrResetTokenInvalid) // ended or used meanwhile
		}
		if !at.Before(expires) {
			return auth.ErrResetTokenInvalid
		}
		if u, err = c.updateUserIn(ctx, tx, userID, fn); err != nil {
			return err
		}
		if _, err = c.exec(ctx, tx, nil, nil, `DELETE FROM password_reset_tokens WHERE user_id = ?`, userID); err != nil {
			return err
		}
		return c.enqueue(ctx, tx, out)
	})
	if err != nil {
		return auth.UserRecord{}, err
	}
	return u, nil
}

// endsTokens reports whether the change of a user from old to u ends its
// outstanding single-use tokens: a change of its password hash, its status
// or its email address (a token was mailed to the old one, or to an owner
// who since secured the account). Its enrolled factors are no token and
// stay.
func endsTokens(old, u auth.UserRecord) bool {
	return u.PasswordHash != old.PasswordHash || u.Status != old.Status ||
		u.EmailAddress != old.EmailAddress || u.EmailKey != old.EmailKey
}

// endUserTokens ends, in tx, every outstanding single-use token of the user
// userID: the one place where every kind of such token (reset
// tokens now; verification tokens, mailed sign-in codes and links, pending
// second-factor tokens as they come) is ended, each kind by a statement of
// its own here. Every write that changes a user's password, status or
// email address calls it in its transaction (updateUserIn), and so must a
// deletion of the user (the tables' ON DELETE CASCADE does it too).
func (c *Core) endUserTokens(ctx context.Context, tx DB, userID string) error {
	_, err := c.exec(ctx, tx, nil, nil, `DELETE FROM password_reset_tokens WHERE user_id = ?`, userID)
	return err
}
