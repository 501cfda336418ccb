package sqlstore

// auth.Store on the core: brands, users, key pairs and devices. Every
// failure a caller must tell apart is one of auth's sentinel errors.
// Read-modify-write methods lock the rows they read (the dialect's
// ForUpdate, ForShare), so concurrent writers never lose an update where
// write transactions run in parallel; writes that change what an instance
// may cache tell the dialect's Notifier.

import (
	"context"
	"errors"
	"github.com/brandbase/brandbase/outbox"
	"slices"
	"strings"
	"time"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
)

var _ auth.Store = (*Core)(nil)

// --- brands ---

// scanBrand reads a row of BrandColumns.
func (c *Core) scanBrand(row Scanner) (auth.Brand, error) {
	var b auth.Brand
	var status string
	if err := row.Scan(&b.ID, &b.URL, &b.Name, &status, &b.DefaultCurrency, c.d.ScanTime(&b.CreatedAt)); err != nil {
		return auth.Brand{}, err
	}
	b.Status = auth.Status(status)
	return b, nil
}

// CreateBrand implements auth.Store: auth.ErrBrandExists if its ID or URL
// is taken. It notifies ChangeBrand.
func (c *Core) CreateBrand(ctx context.Context, b auth.Brand, out ...outbox.Item) error {
	seqCol, seqVal := c.seq("brands")
	return c.write(ctx, func(tx DB) error {
		if _, err := c.exec(ctx, tx, auth.ErrBrandExists, nil, `INSERT INTO brands (`+BrandColumns+seqCol+`)
			VALUES (?, ?, ?, ?, ?, ?`+seqVal+`)`,
			b.ID, b.URL, b.Name, string(b.Status), b.DefaultCurrency, c.d.Time(b.CreatedAt)); err != nil {
			return err
		}
		if err := c.enqueue(ctx, tx, out); err != nil {
			return err
		}
		return c.changed(ctx, tx, ChangeBrand, b.ID)
	})
}

// UpdateBrand implements auth.Store: auth.ErrBrandNotFound if absent,
// auth.ErrBrandExists if b.URL belongs to another brand. It notifies
// ChangeBrand.
func (c *Core) UpdateBrand(ctx context.Context, b auth.Brand, out ...outbox.Item) error {
	return c.write(ctx, func(tx DB) error {
		if err := c.execOne(ctx, tx, auth.ErrBrandNotFound, auth.ErrBrandExists,
			`UPDATE brands SET url = ?, name = ?, status = ?, default_currency = ? WHERE id = ?`,
			b.URL, b.Name, string(b.Status), b.DefaultCurrency, b.ID); err != nil {
			return err
		}
		if err := c.enqueue(ctx, tx, out); err != nil {
			return err
		}
		return c.changed(ctx, tx, ChangeBrand, b.ID)
	})
}

// BrandByID implements auth.Store: auth.ErrBrandNotFound if absent.
func (c *Core) BrandByID(ctx context.Context, id string) (auth.Brand, error) {
	return queryOne(ctx, c, c.r, c.scanBrand, auth.ErrBrandNotFound, `SELECT `+BrandColumns+` FROM brands WHERE id = ?`, id)
}

// BrandByURL implements auth.Store: auth.ErrBrandNotFound if absent.
func (c *Core) BrandByURL(ctx context.Context, url string) (auth.Brand, error) {
	return queryOne(ctx, c, c.r, c.scanBrand, auth.ErrBrandNotFound, `SELECT `+BrandColumns+` FROM brands WHERE url = ?`, url)
}

// ListBrands implements auth.Store: in order of creation.
func (c *Core) ListBrands(ctx context.Context) ([]auth.Brand, error) {
	return QueryAll(ctx, c, c.r, c.scanBrand, `SELECT `+BrandColumns+` FROM brands ORDER BY created_at, seq`)
}

// --- users ---

// permissionList returns ps as the strings of a list column, never nil.
func permissionList(ps []auth.Permission) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = string(p)
	}
	return out
}

// scanUser reads a row of UserColumns.
func (c *Core) scanUser(row Scanner) (auth.UserRecord, error) {
	var u auth.UserRecord
	var emailKey *string
	var perms []string
	var status string
	if err := row.Scan(&u.ID, &u.BrandID, &u.Username, &u.UsernameKey, &u.EmailAddress, &emailKey, &u.PhoneNumber,
		&u.PasswordHash, c.d.ScanList(&perms), &status, c.d.ScanTime(&u.CreatedAt), c.d.ScanTime(&u.UpdatedAt),
		&u.SessionEpoch, &u.FirstName, &u.LastName, &u.NickName); err != nil {
		return auth.UserRecord{}, err
	}
	if emailKey != nil {
		u.EmailKey = *emailKey
	}
	for _, p := range perms {
		u.Permissions = append(u.Permissions, auth.Permission(p))
	}
	u.Status = auth.Status(status)
	return u, nil
}

// CreateUser implements auth.Store: auth.ErrBrandNotFound if u.BrandID
// names no brand, auth.ErrUserExists if its ID or keys are taken.
func (c *Core) CreateUser(ctx context.Context, u auth.UserRecord, out ...outbox.Item) error {
	seqCol, seqVal := c.seq("users")
	return c.write(ctx, func(tx DB) error {
		_, err := c.exec(ctx, tx, auth.ErrUserExists, auth.ErrBrandNotFound, `INSERT INTO users (`+UserColumns+seqCol+`)
			VALUES (`+placeholders(16)+seqVal+`)`,
			u.ID, u.BrandID, u.Username, u.UsernameKey, u.EmailAddress, emptyAsNull(u.EmailKey), u.PhoneNumber,
			u.PasswordHash, c.d.List(permissionList(u.Permissions)), string(u.Status), c.d.Time(u.CreatedAt),
			c.d.Time(u.UpdatedAt), u.SessionEpoch, u.FirstName, u.LastName, u.NickName)
		if err != nil {
			return err
		}
		if err := c.claimKeys(ctx, tx, u.BrandID, u.ID, nil, []string{u.UsernameKey, u.EmailKey}); err != nil {
			return err
		}
		if err := c.putUserWords(ctx, tx, u.BrandID, u.ID, nil, auth.UserWords(u.User)); err != nil {
			return err
		}
		return c.enqueue(ctx, tx, out)
	})
}

// claimKeys records in tx that user userID of brandID holds the keys of
// keys (usernames and email addresses, one namespace) and no longer those
// of old that keys lacks: auth.ErrUserExists when another user of the
// brand holds one of the new keys. Empty keys hold nothing; a key in both
// is left as it is, so a user whose stored key another holds (stored
// before the namespace was shared) keeps working.
func (c *Core) claimKeys(ctx context.Context, tx DB, brandID, userID string, old, keys []string) error {
	for _, k := range old {
		if k != "" && !slices.Contains(keys, k) {
			if _, err := c.exec(ctx, tx, nil, nil, `DELETE FROM user_identifiers WHERE brand_id = ? AND ident = ? AND user_id = ?`,
				brandID, k, userID); err != nil {
				return err
			}
		}
	}
	for i, k := range keys {
		if k == "" || slices.Contains(old, k) || slices.Contains(keys[:i], k) {
			continue
		}
		if _, err := c.exec(ctx, tx, auth.ErrUserExists, nil, `INSERT INTO user_identifiers (brand_id, ident, user_id) VALUES (?, ?, ?)`,
			brandID, k, userID); err != nil {
			return err
		}
	}
	return nil
}

// UpdateUser implements auth.Store: the user's row is locked (ForUpdate)
// from the read to the write, so concurrent updates apply one after the
// other. auth.ErrUserNotFound if absent, auth.ErrUserExists if the new
// keys are taken. It notifies ChangeUser.
func (c *Core) UpdateUser(ctx context.Context, id string, fn func(*auth.UserRecord) error, out ...outbox.Item) (auth.UserRecord, error) {
	var u auth.UserRecord
	err := c.write(ctx, func(tx DB) error {
		var err error
		if u, err = c.updateUserIn(ctx, tx, id, fn); err != nil {
			return err
		}
		return c.enqueue(ctx, tx, out)
	})
	if err != nil {
		return auth.UserRecord{}, err
	}
	return u, nil
}

// updateUserIn is UpdateUser inside tx: it locks the user's row, applies
// fn, writes the result and notifies ChangeUser. A change of the password
// hash, the status or the email address ends the user's outstanding
// single-use tokens in tx (endUserTokens).
func (c *Core) updateUserIn(ctx context.Context, tx DB, id string, fn func(*auth.UserRecord) error) (auth.UserRecord, error) {
	old, err := queryOne(ctx, c, tx, c.scanUser, auth.ErrUserNotFound,
		`SELECT `+UserColumns+` FROM users WHERE id = ?`+c.d.ForUpdate(), id)
	if err != nil {
		return auth.UserRecord{}, err
	}
	u := old
	u.Permissions = append([]auth.Permission(nil), old.Permissions...)
	if err := fn(&u); err != nil {
		return auth.UserRecord{}, err
	}
	u.ID, u.BrandID, u.CreatedAt = old.ID, old.BrandID, old.CreatedAt
	if endsTokens(old, u) {
		if err := c.endUserTokens(ctx, tx, id); err != nil {
			return auth.UserRecord{}, err
		}
	}
	if _, err := c.exec(ctx, tx, auth.ErrUserExists, nil, `UPDATE users SET username = ?, username_key = ?,
		email_address = ?, email_key = ?, phone_number = ?, password_hash = ?, permissions = ?, status = ?,
		updated_at = ?, session_epoch = ?, first_name = ?, last_name = ?, nick_name = ? WHERE id = ?`,
		u.Username, u.UsernameKey, u.EmailAddress, emptyAsNull(u.EmailKey), u.PhoneNumber, u.PasswordHash,
		c.d.List(permissionList(u.Permissions)), string(u.Status), c.d.Time(u.UpdatedAt), u.SessionEpoch,
		u.FirstName, u.LastName, u.NickName, id); err != nil {
		return auth.UserRecord{}, err
	}
	if err := c.claimKeys(ctx, tx, u.BrandID, id, []string{old.UsernameKey, old.EmailKey},
		[]string{u.UsernameKey, u.EmailKey}); err != nil {
		return auth.UserRecord{}, err
	}
	if err := c.putUserWords(ctx, tx, u.BrandID, id, auth.UserWords(old.User), auth.UserWords(u.User)); err != nil {
		return auth.UserRecord{}, err
	}
	return u, c.changed(ctx, tx, ChangeUser, id)
}

// userWhere returns the one user the condition finds.
func (c *Core) userWhere(ctx context.Context, where string, args ...any) (auth.UserRecord, error) {
	return queryOne(ctx, c, c.r, c.scanUser, auth.ErrUserNotFound, `SELECT `+UserColumns+` FROM users WHERE `+where, args...)
}

// UserByID implements auth.Store: auth.ErrUserNotFound if absent.
func (c *Core) UserByID(ctx context.Context, id string) (auth.UserRecord, error) {
	return c.userWhere(ctx, `id = ?`, id)
}

// UserByUsername implements auth.Store: auth.ErrUserNotFound if absent.
func (c *Core) UserByUsername(ctx context.Context, brandID, key string) (auth.UserRecord, error) {
	return c.userWhere(ctx, `brand_id = ? AND username_key = ?`, brandID, key)
}

// UserByEmail implements auth.Store: auth.ErrUserNotFound if absent
// (always for an empty key, unless ctx is done).
func (c *Core) UserByEmail(ctx context.Context, brandID, key string) (auth.UserRecord, error) {
	if key == "" {
		if err := ctx.Err(); err != nil {
			return auth.UserRecord{}, err
		}
		return auth.UserRecord{}, auth.ErrUserNotFound
	}
	return c.userWhere(ctx, `brand_id = ? AND email_key = ?`, brandID, key)
}

// ListUsers implements auth.Store: the brand's users in order of creation.
func (c *Core) ListUsers(ctx context.Context, brandID string) ([]auth.UserRecord, error) {
	return QueryAll(ctx, c, c.r, c.scanUser, `SELECT `+UserColumns+` FROM users WHERE brand_id = ? ORDER BY created_at, seq`, brandID)
}

// --- key pairs ---

// scanKey reads a row of KeyColumns.
func (c *Core) scanKey(row Scanner) (auth.KeyPair, error) {
	var k auth.KeyPair
	if err := row.Scan(&k.ID, &k.FamilyID, &k.BrandID, &k.UserID, &k.DeviceID, &k.AuthHash, &k.RefreshHash,
		c.d.ScanTime(&k.CreatedAt), c.d.ScanTime(&k.AuthExpiresAt), c.d.ScanTime(&k.RefreshExpiresAt),
		c.d.ScanTime(&k.RevokedAt), &k.ReplacedBy, &k.SessionEpoch); err != nil {
		return auth.KeyPair{}, err
	}
	return k, nil
}

// lockOwner locks k's user and, when k names one, k's device until tx
// ends (ForShare: UpdateUser and RevokeDevice, which lock them for
// update, wait for tx and then see the pair, or tx waits for them and
// sees their change), and returns why k may not be stored:
// auth.ErrUserNotFound, auth.ErrKeysRevoked (k.SessionEpoch is not its
// user's, or its user is not active), or auth.ErrDeviceRevoked (a
// DeviceID that names no device is not checked).
func (c *Core) lockOwner(ctx context.Context, tx DB, k auth.KeyPair) error {
	var epoch int64
	var status string
	if err := tx.QueryRow(ctx, c.bind(`SELECT session_epoch, status FROM users WHERE id = ?`+c.d.ForShare()),
		k.UserID).Scan(&epoch, &status); err != nil {
		return c.missing(ctx, err, auth.ErrUserNotFound)
	}
	deviceRevoked := false
	if k.DeviceID != "" {
		err := tx.QueryRow(ctx, c.bind(`SELECT revoked_at IS NOT NULL FROM devices WHERE id = ?`+c.d.ForShare()),
			k.DeviceID).Scan(&deviceRevoked)
		if err != nil && !c.d.Missing(err) {
			return c.d.Error(ctx, err)
		}
	}
	switch {
	case epoch != k.SessionEpoch || auth.Status(status) != auth.StatusActive:
		return auth.ErrKeysRevoked
	case deviceRevoked:
		return auth.ErrDeviceRevoked
	}
	return nil
}

// checkHashes returns auth.ErrKeyHashSize unless both hashes of k are 32
// bytes long.
func checkHashes(k auth.KeyPair) error {
	if len(k.AuthHash) != 32 || len(k.RefreshHash) != 32 {
		return auth.ErrKeyHashSize
	}
	return nil
}

// insertKey stores k in tx, whose owner lockOwner has locked and checked:
// auth.ErrKeyHashSize, auth.ErrUserNotFound, auth.ErrKeyPairExists.
func (c *Core) insertKey(ctx context.Context, tx DB, k auth.KeyPair) error {
	if err := checkHashes(k); err != nil {
		return err
	}
	_, err := c.exec(ctx, tx, auth.ErrKeyPairExists, auth.ErrUserNotFound, `INSERT INTO key_pairs (`+KeyColumns+`)
		VALUES (`+placeholders(13)+`)`,
		k.ID, k.FamilyID, k.BrandID, k.UserID, k.DeviceID, k.AuthHash, k.RefreshHash, c.d.Time(k.CreatedAt),
		c.d.Time(k.AuthExpiresAt), c.d.Time(k.RefreshExpiresAt), c.nullTime(k.RevokedAt), k.ReplacedBy, k.SessionEpoch)
	return err
}

// CreateKeyPair implements auth.Store: auth.ErrKeyHashSize,
// auth.ErrUserNotFound, auth.ErrKeysRevoked, auth.ErrDeviceRevoked,
// auth.ErrKeyPairExists. Its user and device stay locked (lockOwner) until
// the pair is stored.
func (c *Core) CreateKeyPair(ctx context.Context, k auth.KeyPair, out ...outbox.Item) error {
	if err := checkHashes(k); err != nil {
		return err
	}
	return c.write(ctx, func(tx DB) error {
		if err := c.lockOwner(ctx, tx, k); err != nil {
			return err
		}
		if err := c.insertKey(ctx, tx, k); err != nil {
			return err
		}
		return c.enqueue(ctx, tx, out)
	})
}

// KeyPairByAuthHash implements auth.Store: auth.ErrKeyPairNotFound if
// absent.
func (c *Core) KeyPairByAuthHash(ctx context.Context, hash []byte) (auth.KeyPair, error) {
	return queryOne(ctx, c, c.r, c.scanKey, auth.ErrKeyPairNotFound, `SELECT `+KeyColumns+` FROM key_pairs WHERE auth_hash = ?`, hash)
}

// KeyPairByRefreshHash implements auth.Store: auth.ErrKeyPairNotFound if
// absent.
func (c *Core) KeyPairByRefreshHash(ctx context.Context, hash []byte) (auth.KeyPair, error) {
	return queryOne(ctx, c, c.r, c.scanKey, auth.ErrKeyPairNotFound, `SELECT `+KeyColumns+` FROM key_pairs WHERE refresh_hash = ?`, hash)
}

// RotateKeyPair implements auth.Store. The old pair's row is locked
// (ForUpdate), so of two concurrent rotations the second sees the pair
// revoked: exactly one wins. auth.ErrKeyPairNotFound if oldID does not
// exist, auth.ErrKeyPairRevoked if it is revoked, then the errors of
// CreateKeyPair for next. It notifies ChangeUser.
func (c *Core) RotateKeyPair(ctx context.Context, oldID string, at time.Time, next auth.KeyPair) error {
	return c.write(ctx, func(tx DB) error {
		// The owner first (users and devices before key pairs, as
		// RevokeDevice locks them), its verdict after the old pair's.
		owner := c.lockOwner(ctx, tx, next)
		if owner != nil && envelope.As(owner) == nil {
			return owner
		}
		var revoked time.Time
		var userID string
		if err := tx.QueryRow(ctx, c.bind(`SELECT revoked_at, user_id FROM key_pairs WHERE id = ?`+c.d.ForUpdate()),
			oldID).Scan(c.d.ScanTime(&revoked), &userID); err != nil {
			return c.missing(ctx, err, auth.ErrKeyPairNotFound)
		}
		if !revoked.IsZero() {
			return auth.ErrKeyPairRevoked
		}
		if owner != nil {
			return owner
		}
		if err := c.insertKey(ctx, tx, next); err != nil {
			return err
		}
		if _, err := c.exec(ctx, tx, nil, nil, `UPDATE key_pairs SET revoked_at = ?, replaced_by = ? WHERE id = ?`,
			c.d.Time(at), next.ID, oldID); err != nil {
			return err
		}
		return c.changed(ctx, tx, ChangeUser, userID)
	})
}

// ReissueKeyPair implements auth.Store: the reuse of a rotated pair's
// refresh key within the reuse interval is decided, and next stored, in
// one transaction, after its owner's rows are locked as a rotation locks
// them (lockOwner), so that a revocation of the family (revokeKeys, which
// locks the family's user for update first) either sees next or is seen
// by it. auth.ErrKeyPairNotFound if oldID does not exist,
// auth.ErrKeyPairRevoked unless it was rotated after rotatedAfter and its
// family holds an unrevoked pair, then the errors of CreateKeyPair for
// next.
func (c *Core) ReissueKeyPair(ctx context.Context, oldID string, rotatedAfter time.Time, next auth.KeyPair) error {
	return c.write(ctx, func(tx DB) error {
		owner := c.lockOwner(ctx, tx, next)
		if owner != nil && envelope.As(owner) == nil {
			return owner
		}
		var rotated time.Time
		var replacedBy string
		var live bool
		if err := tx.QueryRow(ctx, c.bind(`SELECT k.revoked_at, k.replaced_by,
			       EXISTS (SELECT 1 FROM key_pairs f WHERE f.family_id = k.family_id AND f.revoked_at IS NULL)
			  FROM key_pairs k WHERE k.id = ?`), oldID).Scan(c.d.ScanTime(&rotated), &replacedBy, &live); err != nil {
			return c.missing(ctx, err, auth.ErrKeyPairNotFound)
		}
		if replacedBy == "" || !rotated.After(rotatedAfter) || !live {
			return auth.ErrKeyPairRevoked
		}
		if owner != nil {
			return owner
		}
		return c.insertKey(ctx, tx, next)
	})
}

// revokeKeys revokes in tx the unrevoked pairs that sel matches, notifies
// ChangeUser for each of their users, and returns how many it revoked.
// A family's revocation locks the family's user first (ForUpdate, where
// transactions run in parallel): a rotation or reissue of the family,
// which locks it for share (lockOwner), then commits before the UPDATE
// reads the family (at read committed, its statement sees the new pair
// and revokes it), or starts after and sees the family revoked.
func (c *Core) revokeKeys(ctx context.Context, tx DB, sel auth.KeySelector, at time.Time) (int, error) {
	if sel.FamilyID != "" && c.d.ForUpdate() != "" {
		if _, err := QueryAll(ctx, c, tx, ScanColumn[string], `SELECT id FROM users
			WHERE id IN (SELECT user_id FROM key_pairs WHERE family_id = ?) ORDER BY id`+c.d.ForUpdate(), sel.FamilyID); err != nil {
			return 0, err
		}
	}
	where := []string{"revoked_at IS NULL"}
	args := []any{c.d.Time(at)}
	for _, f := range []struct{ col, val string }{
		{"id", sel.ID}, {"family_id", sel.FamilyID}, {"user_id", sel.UserID}, {"device_id", sel.DeviceID},
	} {
		if f.val != "" {
			where = append(where, f.col+" = ?")
			args = append(args, f.val)
		}
	}
	users, err := QueryAll(ctx, c, tx, ScanColumn[string],
		`UPDATE key_pairs SET revoked_at = ? WHERE `+strings.Join(where, " AND ")+` RETURNING user_id`, args...)
	if err != nil {
		return 0, err
	}
	notified := map[string]bool{}
	for _, u := range users {
		if !notified[u] {
			notified[u] = true
			if err := c.changed(ctx, tx, ChangeUser, u); err != nil {
				return 0, err
			}
		}
	}
	return len(users), nil
}

// RevokeKeyPairs implements auth.Store: auth.ErrEmptySelector for an empty
// selector. It notifies ChangeUser for each user whose pairs it revoked.
func (c *Core) RevokeKeyPairs(ctx context.Context, sel auth.KeySelector, at time.Time) (int, error) {
	if sel.Empty() {
		return 0, auth.ErrEmptySelector
	}
	var n int
	err := c.write(ctx, func(tx DB) error {
		var err error
		n, err = c.revokeKeys(ctx, tx, sel, at)
		return err
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}

// DeleteKeyPairs implements auth.Store: it deletes the pairs whose refresh
// key expired at or before before, and returns how many.
func (c *Core) DeleteKeyPairs(ctx context.Context, before time.Time) (int, error) {
	var n int
	err := c.write(ctx, func(tx DB) error {
		var err error
		n, err = c.exec(ctx, tx, nil, nil, `DELETE FROM key_pairs WHERE refresh_expires_at <= ?`, c.d.Time(before))
		return err
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}

// --- devices ---

// asStored returns t as a store reads it back: UTC, to the microsecond
// (the zero time stays zero).
func asStored(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	return t.UTC().Truncate(time.Microsecond)
}

// scanDevice reads a row of DeviceColumns.
func (c *Core) scanDevice(row Scanner) (auth.Device, error) {
	var d auth.Device
	if err := row.Scan(&d.ID, &d.BrandID, &d.UserID, &d.Code, &d.Token, &d.Name, &d.AppVersion, &d.OS,
		c.d.ScanTime(&d.CreatedAt), c.d.ScanTime(&d.LastSeenAt), c.d.ScanTime(&d.RevokedAt),
		c.d.ScanTime(&d.LastAccessAt), c.d.ScanTime(&d.EndedAt), &d.FromUserAgent); err != nil {
		return auth.Device{}, err
	}
	return d, nil
}

// UpsertDevice implements auth.Store: the device of d.UserID with d.Code
// is locked (ForUpdate) and updated, left as it is when revoked, or
// inserted; an insert that a concurrent one beat (ON CONFLICT DO NOTHING
// inserts no row) reads and updates the winner's row, so concurrent
// registrations of one device store one row. auth.ErrUserNotFound if
// d.UserID names no user; auth.ErrDeviceExists if d.ID is another
// device's.
func (c *Core) UpsertDevice(ctx context.Context, d auth.Device, out ...outbox.Item) (auth.Device, bool, error) {
	var stored auth.Device
	var created bool
	seqCol, seqVal := c.seq("devices")
	err := c.write(ctx, func(tx DB) error {
		for range 2 {
			old, err := queryOne(ctx, c, tx, c.scanDevice, auth.ErrDeviceNotFound,
				`SELECT `+DeviceColumns+` FROM devices WHERE user_id = ? AND code = ?`+c.d.ForUpdate(), d.UserID, d.Code)
			switch {
			case err == nil && old.Revoked():
				stored = old
				return nil
			case err == nil:
				stored = old
				stored.Token, stored.Name, stored.AppVersion, stored.OS, stored.LastSeenAt = d.Token, d.Name, d.AppVersion, d.OS, d.LastSeenAt
				// A login from an ended device signs it in again.
				_, err = c.exec(ctx, tx, nil, nil, `UPDATE devices SET token = ?, name = ?, app_version = ?, os = ?,
					last_seen_at = ?, last_access_at = ?, ended_at = NULL WHERE id = ?`,
					d.Token, d.Name, d.AppVersion, d.OS, c.d.Time(d.LastSeenAt), c.nullTime(d.LastAccessAt), old.ID)
				stored.LastSeenAt, stored.LastAccessAt, stored.EndedAt = asStored(d.LastSeenAt), asStored(d.LastAccessAt), time.Time{}
				if err != nil {
					return err
				}
				return c.enqueue(ctx, tx, out)
			case !errors.Is(err, auth.ErrDeviceNotFound):
				return err
			}
			n, err := c.exec(ctx, tx, auth.ErrDeviceExists, auth.ErrUserNotFound, `INSERT INTO devices (`+DeviceColumns+seqCol+`)
				VALUES (`+placeholders(14)+seqVal+`) ON CONFLICT (user_id, code) DO NOTHING`,
				d.ID, d.BrandID, d.UserID, d.Code, d.Token, d.Name, d.AppVersion, d.OS,
				c.d.Time(d.CreatedAt), c.d.Time(d.LastSeenAt), c.nullTime(d.RevokedAt),
				c.nullTime(d.LastAccessAt), c.nullTime(d.EndedAt), d.FromUserAgent)
			if err != nil || n == 1 {
				stored, created = d, true
				stored.CreatedAt, stored.LastSeenAt, stored.RevokedAt = asStored(d.CreatedAt), asStored(d.LastSeenAt), asStored(d.RevokedAt)
				stored.LastAccessAt, stored.EndedAt = asStored(d.LastAccessAt), asStored(d.EndedAt)
				if err != nil {
					return err
				}
				return c.enqueue(ctx, tx, out)
			}
		}
		// Inserted by another transaction, yet not visible to this one.
		return auth.ErrDeviceExists
	})
	if err != nil {
		return auth.Device{}, false, err
	}
	return stored, created, nil
}

// DeviceByCode implements auth.Store: auth.ErrDeviceNotFound if absent.
func (c *Core) DeviceByCode(ctx context.Context, userID, code string) (auth.Device, error) {
	return queryOne(ctx, c, c.r, c.scanDevice, auth.ErrDeviceNotFound,
		`SELECT `+DeviceColumns+` FROM devices WHERE user_id = ? AND code = ?`, userID, code)
}

// ListDevices implements auth.Store: the user's devices in order of
// creation.
func (c *Core) ListDevices(ctx context.Context, userID string) ([]auth.Device, error) {
	return QueryAll(ctx, c, c.r, c.scanDevice,
		`SELECT `+DeviceColumns+` FROM devices WHERE user_id = ? ORDER BY created_at, seq`, userID)
}

// RevokeDevice implements auth.Store: the device's row is locked
// (ForUpdate) while it and its keys are revoked. auth.ErrDeviceNotFound if
// the user has no such device. It notifies ChangeUser.
func (c *Core) RevokeDevice(ctx context.Context, userID, deviceID string, at time.Time, out ...outbox.Item) (auth.Device, error) {
	return c.closeDevice(ctx, userID, deviceID, at, out, func(d *auth.Device) string {
		if d.Revoked() {
			return ""
		}
		d.RevokedAt = asStored(at)
		return "revoked_at"
	})
}
