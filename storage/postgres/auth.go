package postgres

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/storage/internal/sqlstore"
)

var _ auth.Store = (*Store)(nil)

func scanUser(row scanner) (auth.UserRecord, error) {
	var u auth.UserRecord
	var emailKey pgtype.Text
	var perms []string
	var status string
	if err := row.Scan(&u.ID, &u.BrandID, &u.Username, &u.UsernameKey, &u.EmailAddress, &emailKey, &u.PhoneNumber,
		&u.PasswordHash, &perms, &status, &u.CreatedAt, &u.UpdatedAt, &u.SessionEpoch); err != nil {
		return auth.UserRecord{}, err
	}
	u.EmailKey = emailKey.String
	for _, p := range perms {
		u.Permissions = append(u.Permissions, auth.Permission(p))
	}
	u.Status = auth.Status(status)
	u.CreatedAt, u.UpdatedAt = fromTime(u.CreatedAt), fromTime(u.UpdatedAt)
	return u, nil
}

// permissions encodes a user's permissions as a text array.
func permissions(ps []auth.Permission) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = string(p)
	}
	return out
}

// CreateUser implements auth.Store: auth.ErrBrandNotFound if u.BrandID
// names no brand, auth.ErrUserExists if its ID or keys are taken.
func (s *Store) CreateUser(ctx context.Context, u auth.UserRecord) error {
	return s.write(ctx, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO users (`+sqlstore.UserColumns+`)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
			u.ID, u.BrandID, u.Username, u.UsernameKey, u.EmailAddress, emptyAsNull(u.EmailKey), u.PhoneNumber,
			u.PasswordHash, permissions(u.Permissions), string(u.Status), u.CreatedAt, u.UpdatedAt, u.SessionEpoch)
		return constraintError(ctx, err, auth.ErrUserExists, auth.ErrBrandNotFound)
	})
}

// UpdateUser implements auth.Store: the user's row is locked (SELECT ...
// FOR UPDATE) from the read to the write, so concurrent updates, from any
// instance, apply one after the other. auth.ErrUserNotFound if absent,
// auth.ErrUserExists if the new keys are taken. It notifies ChangeUser.
func (s *Store) UpdateUser(ctx context.Context, id string, fn func(*auth.UserRecord) error) (auth.UserRecord, error) {
	var u auth.UserRecord
	err := s.write(ctx, func(tx pgx.Tx) error {
		old, err := queryOne(ctx, tx, scanUser, auth.ErrUserNotFound,
			`SELECT `+sqlstore.UserColumns+` FROM users WHERE id = $1 FOR UPDATE`, id)
		if err != nil {
			return err
		}
		u = old
		u.Permissions = append([]auth.Permission(nil), old.Permissions...)
		if err := fn(&u); err != nil {
			return err
		}
		u.ID, u.BrandID, u.CreatedAt = old.ID, old.BrandID, old.CreatedAt
		_, err = tx.Exec(ctx, `UPDATE users SET username = $1, username_key = $2, email_address = $3,
			email_key = $4, phone_number = $5, password_hash = $6, permissions = $7, status = $8, updated_at = $9,
			session_epoch = $10 WHERE id = $11`,
			u.Username, u.UsernameKey, u.EmailAddress, emptyAsNull(u.EmailKey), u.PhoneNumber, u.PasswordHash,
			permissions(u.Permissions), string(u.Status), u.UpdatedAt, u.SessionEpoch, id)
		if err != nil {
			return constraintError(ctx, err, auth.ErrUserExists, nil)
		}
		return s.notify(ctx, tx, Change{Kind: ChangeUser, ID: id})
	})
	if err != nil {
		return auth.UserRecord{}, err
	}
	return u, nil
}

// userWhere returns the one user the condition finds.
func (s *Store) userWhere(ctx context.Context, where string, args ...any) (auth.UserRecord, error) {
	return queryOne(ctx, s.db, scanUser, auth.ErrUserNotFound, `SELECT `+sqlstore.UserColumns+` FROM users WHERE `+where, args...)
}

// UserByID implements auth.Store: auth.ErrUserNotFound if absent.
func (s *Store) UserByID(ctx context.Context, id string) (auth.UserRecord, error) {
	return s.userWhere(ctx, `id = $1`, id)
}

// UserByUsername implements auth.Store: auth.ErrUserNotFound if absent.
func (s *Store) UserByUsername(ctx context.Context, brandID, key string) (auth.UserRecord, error) {
	return s.userWhere(ctx, `brand_id = $1 AND username_key = $2`, brandID, key)
}

// UserByEmail implements auth.Store: auth.ErrUserNotFound if absent (always
// for an empty key).
func (s *Store) UserByEmail(ctx context.Context, brandID, key string) (auth.UserRecord, error) {
	if key == "" {
		if err := ctx.Err(); err != nil {
			return auth.UserRecord{}, err
		}
		return auth.UserRecord{}, auth.ErrUserNotFound
	}
	return s.userWhere(ctx, `brand_id = $1 AND email_key = $2`, brandID, key)
}

// ListUsers implements auth.Store.
func (s *Store) ListUsers(ctx context.Context, brandID string) ([]auth.UserRecord, error) {
	return queryAll(ctx, s.db, scanUser, `SELECT `+sqlstore.UserColumns+` FROM users WHERE brand_id = $1 ORDER BY created_at, seq`, brandID)
}

func scanKey(row scanner) (auth.KeyPair, error) {
	var k auth.KeyPair
	var revoked pgtype.Timestamptz
	if err := row.Scan(&k.ID, &k.FamilyID, &k.BrandID, &k.UserID, &k.DeviceID, &k.AuthHash, &k.RefreshHash,
		&k.CreatedAt, &k.AuthExpiresAt, &k.RefreshExpiresAt, &revoked, &k.ReplacedBy, &k.SessionEpoch); err != nil {
		return auth.KeyPair{}, err
	}
	k.CreatedAt, k.AuthExpiresAt, k.RefreshExpiresAt = fromTime(k.CreatedAt), fromTime(k.AuthExpiresAt), fromTime(k.RefreshExpiresAt)
	k.RevokedAt = fromNullTime(revoked)
	return k, nil
}

// lockOwner locks k's user and, when k names one, k's device until tx
// ends (FOR SHARE: UpdateUser and RevokeDevice, which lock them FOR UPDATE,
// wait for tx and then see the pair, or tx waits for them and sees their
// change), and returns why k may not be stored: auth.ErrUserNotFound,
// auth.ErrKeysRevoked (k.SessionEpoch is not its user's, or its user is
// not active), or
// auth.ErrDeviceRevoked (a DeviceID that names no device is not checked).
func lockOwner(ctx context.Context, tx pgx.Tx, k auth.KeyPair) error {
	var epoch int64
	var status string
	if err := tx.QueryRow(ctx, `SELECT session_epoch, status FROM users WHERE id = $1 FOR SHARE`, k.UserID).Scan(&epoch, &status); err != nil {
		return notFound(ctx, err, auth.ErrUserNotFound)
	}
	deviceRevoked := false
	if k.DeviceID != "" {
		err := tx.QueryRow(ctx, `SELECT revoked_at IS NOT NULL FROM devices WHERE id = $1 FOR SHARE`,
			k.DeviceID).Scan(&deviceRevoked)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return storeError(ctx, err)
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
func insertKey(ctx context.Context, tx pgx.Tx, k auth.KeyPair) error {
	if err := checkHashes(k); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, `INSERT INTO key_pairs (`+sqlstore.KeyColumns+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
		k.ID, k.FamilyID, k.BrandID, k.UserID, k.DeviceID, k.AuthHash, k.RefreshHash, k.CreatedAt,
		k.AuthExpiresAt, k.RefreshExpiresAt, nullTime(k.RevokedAt), k.ReplacedBy, k.SessionEpoch)
	return constraintError(ctx, err, auth.ErrKeyPairExists, auth.ErrUserNotFound)
}

// CreateKeyPair implements auth.Store: auth.ErrKeyHashSize,
// auth.ErrUserNotFound, auth.ErrKeysRevoked, auth.ErrDeviceRevoked,
// auth.ErrKeyPairExists. Its user and device stay locked (lockOwner) until
// the pair is stored.
func (s *Store) CreateKeyPair(ctx context.Context, k auth.KeyPair) error {
	if err := checkHashes(k); err != nil {
		return err
	}
	return s.write(ctx, func(tx pgx.Tx) error {
		if err := lockOwner(ctx, tx, k); err != nil {
			return err
		}
		return insertKey(ctx, tx, k)
	})
}

// KeyPairByAuthHash implements auth.Store: auth.ErrKeyPairNotFound if
// absent.
func (s *Store) KeyPairByAuthHash(ctx context.Context, hash []byte) (auth.KeyPair, error) {
	return queryOne(ctx, s.db, scanKey, auth.ErrKeyPairNotFound, `SELECT `+sqlstore.KeyColumns+` FROM key_pairs WHERE auth_hash = $1`, hash)
}

// KeyPairByRefreshHash implements auth.Store: auth.ErrKeyPairNotFound if
// absent.
func (s *Store) KeyPairByRefreshHash(ctx context.Context, hash []byte) (auth.KeyPair, error) {
	return queryOne(ctx, s.db, scanKey, auth.ErrKeyPairNotFound, `SELECT `+sqlstore.KeyColumns+` FROM key_pairs WHERE refresh_hash = $1`, hash)
}

// RotateKeyPair implements auth.Store. The old pair's row is locked (SELECT
// ... FOR UPDATE), so of two concurrent rotations the second sees the
// pair revoked: exactly one wins. auth.ErrKeyPairNotFound if oldID does
// not exist, auth.ErrKeyPairRevoked if it is revoked, then the errors of
// CreateKeyPair for next. It notifies ChangeUser.
func (s *Store) RotateKeyPair(ctx context.Context, oldID string, at time.Time, next auth.KeyPair) error {
	return s.write(ctx, func(tx pgx.Tx) error {
		// The owner first (users and devices before key pairs, as
		// RevokeDevice locks them), its verdict after the old pair's.
		owner := lockOwner(ctx, tx, next)
		if envelope.As(owner) == nil && owner != nil {
			return owner
		}
		var revoked pgtype.Timestamptz
		var userID string
		if err := tx.QueryRow(ctx, `SELECT revoked_at, user_id FROM key_pairs WHERE id = $1 FOR UPDATE`,
			oldID).Scan(&revoked, &userID); err != nil {
			return notFound(ctx, err, auth.ErrKeyPairNotFound)
		}
		if revoked.Valid {
			return auth.ErrKeyPairRevoked
		}
		if owner != nil {
			return owner
		}
		if err := insertKey(ctx, tx, next); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE key_pairs SET revoked_at = $1, replaced_by = $2 WHERE id = $3`,
			at, next.ID, oldID); err != nil {
			return err
		}
		return s.notify(ctx, tx, Change{Kind: ChangeUser, ID: userID})
	})
}

// revokeKeys revokes in tx the unrevoked pairs that sel matches, notifies
// ChangeUser for each of their users, and returns how many it revoked.
func (s *Store) revokeKeys(ctx context.Context, tx pgx.Tx, sel auth.KeySelector, at time.Time) (int, error) {
	where := []string{"revoked_at IS NULL"}
	args := []any{at}
	for _, f := range []struct{ col, val string }{
		{"id", sel.ID}, {"family_id", sel.FamilyID}, {"user_id", sel.UserID}, {"device_id", sel.DeviceID},
	} {
		if f.val != "" {
			args = append(args, f.val)
			where = append(where, f.col+" = $"+itoa(len(args)))
		}
	}
	users, err := queryAll(ctx, tx, sqlstore.ScanColumn[string],
		`UPDATE key_pairs SET revoked_at = $1 WHERE `+strings.Join(where, " AND ")+` RETURNING user_id`, args...)
	if err != nil {
		return 0, err
	}
	notified := map[string]bool{}
	for _, u := range users {
		if !notified[u] {
			notified[u] = true
			if err := s.notify(ctx, tx, Change{Kind: ChangeUser, ID: u}); err != nil {
				return 0, err
			}
		}
	}
	return len(users), nil
}

// RevokeKeyPairs implements auth.Store: auth.ErrEmptySelector for an empty
// selector. It notifies ChangeUser for each user whose pairs it revoked.
func (s *Store) RevokeKeyPairs(ctx context.Context, sel auth.KeySelector, at time.Time) (int, error) {
	if sel.Empty() {
		return 0, auth.ErrEmptySelector
	}
	var n int
	err := s.write(ctx, func(tx pgx.Tx) error {
		var err error
		n, err = s.revokeKeys(ctx, tx, sel, at)
		return err
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}

// DeleteKeyPairs implements auth.Store.
func (s *Store) DeleteKeyPairs(ctx context.Context, before time.Time) (int, error) {
	var n int64
	err := s.write(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM key_pairs WHERE refresh_expires_at <= $1`, before)
		n = tag.RowsAffected()
		return err
	})
	if err != nil {
		return 0, err
	}
	return int(n), nil
}
