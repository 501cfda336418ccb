package sqlite

// Users, key pairs and devices (auth.Store but brands, see brands.go), read
// and written through the dialect (dialect.go). Every failure a caller
// must tell apart is one of auth's sentinel errors.

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/storage/internal/sqlstore"
)

// joinPermissions encodes permissions as one comma-separated column.
func joinPermissions(ps []auth.Permission) string {
	ss := make([]string, len(ps))
	for i, p := range ps {
		ss[i] = string(p)
	}
	return strings.Join(ss, ",")
}

// splitPermissions decodes what joinPermissions encoded.
func splitPermissions(s string) []auth.Permission {
	if s == "" {
		return nil
	}
	parts := strings.Split(s, ",")
	out := make([]auth.Permission, len(parts))
	for i, p := range parts {
		out[i] = auth.Permission(p)
	}
	return out
}

// scanUser reads a row of sqlstore.UserColumns.
func scanUser(row scanner) (auth.UserRecord, error) {
	var u auth.UserRecord
	var emailKey sql.NullString
	var perms, status string
	var created, updated int64
	if err := row.Scan(&u.ID, &u.BrandID, &u.Username, &u.UsernameKey, &u.EmailAddress, &emailKey, &u.PhoneNumber,
		&u.PasswordHash, &perms, &status, &created, &updated, &u.SessionEpoch); err != nil {
		return auth.UserRecord{}, err
	}
	u.EmailKey = emailKey.String
	u.Permissions = splitPermissions(perms)
	u.Status = auth.Status(status)
	u.CreatedAt, u.UpdatedAt = fromMicro(created), fromMicro(updated)
	return u, nil
}

// CreateUser implements auth.Store.
func (s *Store) CreateUser(ctx context.Context, u auth.UserRecord) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		if err := exists(ctx, tx, auth.ErrBrandNotFound, `SELECT 1 FROM brands WHERE id = ?`, u.BrandID); err != nil {
			return err
		}
		_, err := exec(ctx, tx, auth.ErrUserExists, `INSERT INTO users (`+sqlstore.UserColumns+`, seq)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, (SELECT coalesce(max(seq), 0) + 1 FROM users))`,
			u.ID, u.BrandID, u.Username, u.UsernameKey, u.EmailAddress, emptyAsNull(u.EmailKey), u.PhoneNumber,
			u.PasswordHash, joinPermissions(u.Permissions), string(u.Status), toMicro(u.CreatedAt), toMicro(u.UpdatedAt),
			u.SessionEpoch)
		return err
	})
}

// UpdateUser implements auth.Store.
func (s *Store) UpdateUser(ctx context.Context, id string, fn func(*auth.UserRecord) error) (auth.UserRecord, error) {
	var u auth.UserRecord
	err := s.write(ctx, func(tx *sql.Tx) error {
		old, err := queryOne(ctx, tx, scanUser, auth.ErrUserNotFound, `SELECT `+sqlstore.UserColumns+` FROM users WHERE id = ?`, id)
		if err != nil {
			return err
		}
		u = old
		u.Permissions = append([]auth.Permission(nil), old.Permissions...)
		if err := fn(&u); err != nil {
			return err
		}
		u.ID, u.BrandID, u.CreatedAt = old.ID, old.BrandID, old.CreatedAt
		_, err = exec(ctx, tx, auth.ErrUserExists, `UPDATE users SET username = ?, username_key = ?, email_address = ?,
			email_key = ?, phone_number = ?, password_hash = ?, permissions = ?, status = ?, updated_at = ?,
			session_epoch = ? WHERE id = ?`,
			u.Username, u.UsernameKey, u.EmailAddress, emptyAsNull(u.EmailKey), u.PhoneNumber, u.PasswordHash,
			joinPermissions(u.Permissions), string(u.Status), toMicro(u.UpdatedAt), u.SessionEpoch, id)
		return err
	})
	if err != nil {
		return auth.UserRecord{}, err
	}
	return u, nil
}

// userWhere returns the one user the condition finds.
func (s *Store) userWhere(ctx context.Context, where string, args ...any) (auth.UserRecord, error) {
	return queryOne(ctx, s.r, scanUser, auth.ErrUserNotFound, `SELECT `+sqlstore.UserColumns+` FROM users WHERE `+where, args...)
}

// UserByID implements auth.Store.
func (s *Store) UserByID(ctx context.Context, id string) (auth.UserRecord, error) {
	return s.userWhere(ctx, `id = ?`, id)
}

// UserByUsername implements auth.Store.
func (s *Store) UserByUsername(ctx context.Context, brandID, key string) (auth.UserRecord, error) {
	return s.userWhere(ctx, `brand_id = ? AND username_key = ?`, brandID, key)
}

// UserByEmail implements auth.Store.
func (s *Store) UserByEmail(ctx context.Context, brandID, key string) (auth.UserRecord, error) {
	if key == "" {
		return auth.UserRecord{}, auth.ErrUserNotFound
	}
	return s.userWhere(ctx, `brand_id = ? AND email_key = ?`, brandID, key)
}

// ListUsers implements auth.Store.
func (s *Store) ListUsers(ctx context.Context, brandID string) ([]auth.UserRecord, error) {
	return queryAll(ctx, s.r, scanUser, `SELECT `+sqlstore.UserColumns+` FROM users WHERE brand_id = ? ORDER BY created_at, seq`, brandID)
}

// scanKey reads a row of sqlstore.KeyColumns.
func scanKey(row scanner) (auth.KeyPair, error) {
	var k auth.KeyPair
	var created, authExp, refreshExp int64
	var revoked sql.NullInt64
	if err := row.Scan(&k.ID, &k.FamilyID, &k.BrandID, &k.UserID, &k.DeviceID, &k.AuthHash, &k.RefreshHash,
		&created, &authExp, &refreshExp, &revoked, &k.ReplacedBy, &k.SessionEpoch); err != nil {
		return auth.KeyPair{}, err
	}
	k.CreatedAt, k.AuthExpiresAt, k.RefreshExpiresAt = fromMicro(created), fromMicro(authExp), fromMicro(refreshExp)
	k.RevokedAt = fromNullMicro(revoked)
	return k, nil
}

// insertKey stores k in tx after checking its hashes, its user, its
// user's session epoch and status, and its device.
func insertKey(ctx context.Context, tx *sql.Tx, k auth.KeyPair) error {
	if len(k.AuthHash) != 32 || len(k.RefreshHash) != 32 {
		return auth.ErrKeyHashSize
	}
	type state struct {
		epoch         int64
		status        string
		deviceRevoked bool
	}
	st, err := queryOne(ctx, tx, func(row scanner) (state, error) {
		var st state
		return st, row.Scan(&st.epoch, &st.status, &st.deviceRevoked)
	}, auth.ErrUserNotFound, `SELECT session_epoch, status,
		EXISTS (SELECT 1 FROM devices WHERE id = ? AND revoked_at IS NOT NULL) FROM users WHERE id = ?`,
		k.DeviceID, k.UserID)
	switch {
	case err != nil:
		return err
	case st.epoch != k.SessionEpoch || auth.Status(st.status) != auth.StatusActive:
		return auth.ErrKeysRevoked
	case st.deviceRevoked:
		return auth.ErrDeviceRevoked
	}
	_, err = exec(ctx, tx, auth.ErrKeyPairExists, `INSERT INTO key_pairs (`+sqlstore.KeyColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		k.ID, k.FamilyID, k.BrandID, k.UserID, k.DeviceID, k.AuthHash, k.RefreshHash, toMicro(k.CreatedAt),
		toMicro(k.AuthExpiresAt), toMicro(k.RefreshExpiresAt), toNullMicro(k.RevokedAt), k.ReplacedBy, k.SessionEpoch)
	return err
}

// CreateKeyPair implements auth.Store.
func (s *Store) CreateKeyPair(ctx context.Context, k auth.KeyPair) error {
	return s.write(ctx, func(tx *sql.Tx) error { return insertKey(ctx, tx, k) })
}

// KeyPairByAuthHash implements auth.Store.
func (s *Store) KeyPairByAuthHash(ctx context.Context, hash []byte) (auth.KeyPair, error) {
	return queryOne(ctx, s.r, scanKey, auth.ErrKeyPairNotFound, `SELECT `+sqlstore.KeyColumns+` FROM key_pairs WHERE auth_hash = ?`, hash)
}

// KeyPairByRefreshHash implements auth.Store.
func (s *Store) KeyPairByRefreshHash(ctx context.Context, hash []byte) (auth.KeyPair, error) {
	return queryOne(ctx, s.r, scanKey, auth.ErrKeyPairNotFound, `SELECT `+sqlstore.KeyColumns+` FROM key_pairs WHERE refresh_hash = ?`, hash)
}

// RotateKeyPair implements auth.Store.
func (s *Store) RotateKeyPair(ctx context.Context, oldID string, at time.Time, next auth.KeyPair) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		old, err := queryOne(ctx, tx, scanKey, auth.ErrKeyPairNotFound, `SELECT `+sqlstore.KeyColumns+` FROM key_pairs WHERE id = ?`, oldID)
		if err != nil {
			return err
		}
		if !old.RevokedAt.IsZero() {
			return auth.ErrKeyPairRevoked
		}
		if err := insertKey(ctx, tx, next); err != nil {
			return err
		}
		_, err = exec(ctx, tx, nil, `UPDATE key_pairs SET revoked_at = ?, replaced_by = ? WHERE id = ?`,
			toMicro(at), next.ID, oldID)
		return err
	})
}

// revokeKeys revokes in tx the unrevoked pairs that sel matches.
func revokeKeys(ctx context.Context, tx *sql.Tx, sel auth.KeySelector, at time.Time) (int, error) {
	where := []string{"revoked_at IS NULL"}
	args := []any{toMicro(at)}
	for _, f := range []struct{ col, val string }{
		{"id", sel.ID}, {"family_id", sel.FamilyID}, {"user_id", sel.UserID}, {"device_id", sel.DeviceID},
	} {
		if f.val != "" {
			where = append(where, f.col+" = ?")
			args = append(args, f.val)
		}
	}
	return exec(ctx, tx, nil, `UPDATE key_pairs SET revoked_at = ? WHERE `+strings.Join(where, " AND "), args...)
}

// RevokeKeyPairs implements auth.Store.
func (s *Store) RevokeKeyPairs(ctx context.Context, sel auth.KeySelector, at time.Time) (int, error) {
	if sel.Empty() {
		return 0, auth.ErrEmptySelector
	}
	return s.writeCount(ctx, func(tx *sql.Tx) (int, error) { return revokeKeys(ctx, tx, sel, at) })
}

// DeleteKeyPairs implements auth.Store.
func (s *Store) DeleteKeyPairs(ctx context.Context, before time.Time) (int, error) {
	return s.writeCount(ctx, func(tx *sql.Tx) (int, error) {
		return exec(ctx, tx, nil, `DELETE FROM key_pairs WHERE refresh_expires_at <= ?`, toMicro(before))
	})
}

// scanDevice reads a row of sqlstore.DeviceColumns.
func scanDevice(row scanner) (auth.Device, error) {
	var d auth.Device
	var created, seen int64
	var revoked sql.NullInt64
	if err := row.Scan(&d.ID, &d.BrandID, &d.UserID, &d.Code, &d.Token, &d.Name, &d.AppVersion, &d.OS,
		&created, &seen, &revoked); err != nil {
		return auth.Device{}, err
	}
	d.CreatedAt, d.LastSeenAt, d.RevokedAt = fromMicro(created), fromMicro(seen), fromNullMicro(revoked)
	return d, nil
}

// UpsertDevice implements auth.Store.
func (s *Store) UpsertDevice(ctx context.Context, d auth.Device) (auth.Device, bool, error) {
	var stored auth.Device
	var created bool
	err := s.write(ctx, func(tx *sql.Tx) error {
		if err := exists(ctx, tx, auth.ErrUserNotFound, `SELECT 1 FROM users WHERE id = ?`, d.UserID); err != nil {
			return err
		}
		old, err := queryOne(ctx, tx, scanDevice, auth.ErrDeviceNotFound,
			`SELECT `+sqlstore.DeviceColumns+` FROM devices WHERE user_id = ? AND code = ?`, d.UserID, d.Code)
		switch {
		case err == nil && old.Revoked():
			stored = old
			return nil
		case err == nil:
			stored = old
			stored.Token, stored.Name, stored.AppVersion, stored.OS, stored.LastSeenAt = d.Token, d.Name, d.AppVersion, d.OS, d.LastSeenAt
			_, err = exec(ctx, tx, nil, `UPDATE devices SET token = ?, name = ?, app_version = ?, os = ?, last_seen_at = ?
				WHERE id = ?`, d.Token, d.Name, d.AppVersion, d.OS, toMicro(d.LastSeenAt), old.ID)
			return err
		case !errors.Is(err, auth.ErrDeviceNotFound):
			return err
		}
		_, err = exec(ctx, tx, auth.ErrDeviceExists, `INSERT INTO devices (`+sqlstore.DeviceColumns+`, seq)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, (SELECT coalesce(max(seq), 0) + 1 FROM devices))`,
			d.ID, d.BrandID, d.UserID, d.Code, d.Token, d.Name, d.AppVersion, d.OS,
			toMicro(d.CreatedAt), toMicro(d.LastSeenAt), toNullMicro(d.RevokedAt))
		stored, created = d, true
		return err
	})
	if err != nil {
		return auth.Device{}, false, err
	}
	return stored, created, nil
}

// DeviceByCode implements auth.Store.
func (s *Store) DeviceByCode(ctx context.Context, userID, code string) (auth.Device, error) {
	return queryOne(ctx, s.r, scanDevice, auth.ErrDeviceNotFound,
		`SELECT `+sqlstore.DeviceColumns+` FROM devices WHERE user_id = ? AND code = ?`, userID, code)
}

// ListDevices implements auth.Store.
func (s *Store) ListDevices(ctx context.Context, userID string) ([]auth.Device, error) {
	return queryAll(ctx, s.r, scanDevice, `SELECT `+sqlstore.DeviceColumns+` FROM devices WHERE user_id = ? ORDER BY created_at, seq`, userID)
}

// RevokeDevice implements auth.Store.
func (s *Store) RevokeDevice(ctx context.Context, userID, deviceID string, at time.Time) (auth.Device, error) {
	var d auth.Device
	err := s.write(ctx, func(tx *sql.Tx) error {
		var err error
		d, err = queryOne(ctx, tx, scanDevice, auth.ErrDeviceNotFound,
			`SELECT `+sqlstore.DeviceColumns+` FROM devices WHERE id = ? AND user_id = ?`, deviceID, userID)
		if err != nil {
			return err
		}
		if !d.Revoked() {
			d.RevokedAt = at.UTC().Truncate(time.Microsecond)
			if _, err := exec(ctx, tx, nil, `UPDATE devices SET revoked_at = ? WHERE id = ?`, toMicro(at), deviceID); err != nil {
				return err
			}
		}
		_, err = revokeKeys(ctx, tx, auth.KeySelector{DeviceID: deviceID}, at)
		return err
	})
	if err != nil {
		return auth.Device{}, err
	}
	return d, nil
}
