package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/storage/internal/sqlstore"
)

// deviceDest returns the scan destinations of sqlstore.DeviceColumns, then extra.
func deviceDest(d *auth.Device, revoked *pgtype.Timestamptz, extra ...any) []any {
	return append([]any{&d.ID, &d.BrandID, &d.UserID, &d.Code, &d.Token, &d.Name, &d.AppVersion, &d.OS,
		&d.CreatedAt, &d.LastSeenAt, revoked}, extra...)
}

func scanDevice(row scanner) (auth.Device, error) {
	var d auth.Device
	var revoked pgtype.Timestamptz
	if err := row.Scan(deviceDest(&d, &revoked)...); err != nil {
		return auth.Device{}, err
	}
	utcDevice(&d, revoked)
	return d, nil
}

// utcDevice decodes the times of a device scanned with deviceDest.
func utcDevice(d *auth.Device, revoked pgtype.Timestamptz) {
	d.CreatedAt, d.LastSeenAt, d.RevokedAt = fromTime(d.CreatedAt), fromTime(d.LastSeenAt), fromNullTime(revoked)
}

// UpsertDevice implements auth.Store, in one statement (INSERT ... ON
// CONFLICT DO UPDATE of an unrevoked device), so that concurrent
// registrations of one device store one row. auth.ErrUserNotFound if
// d.UserID names no user; auth.ErrDeviceExists if d.ID is another
// device's.
func (s *Store) UpsertDevice(ctx context.Context, d auth.Device) (auth.Device, bool, error) {
	var stored auth.Device
	var revoked pgtype.Timestamptz
	var created bool
	err := s.write(ctx, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, `INSERT INTO devices (`+sqlstore.DeviceColumns+`)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
			ON CONFLICT (user_id, code) DO UPDATE SET token = excluded.token, name = excluded.name,
				app_version = excluded.app_version, os = excluded.os, last_seen_at = excluded.last_seen_at
			WHERE devices.revoked_at IS NULL
			RETURNING `+sqlstore.DeviceColumns+`, xmax = 0`, // xmax is 0 in a row just inserted
			d.ID, d.BrandID, d.UserID, d.Code, d.Token, d.Name, d.AppVersion, d.OS,
			d.CreatedAt, d.LastSeenAt, nullTime(d.RevokedAt)).Scan(deviceDest(&stored, &revoked, &created)...)
		switch {
		case err == nil:
			utcDevice(&stored, revoked)
			return nil
		case !errors.Is(err, pgx.ErrNoRows):
			return constraintError(ctx, err, auth.ErrDeviceExists, auth.ErrUserNotFound)
		}
		// A revoked device: left unchanged.
		stored, err = queryOne(ctx, tx, scanDevice, auth.ErrDeviceNotFound,
			`SELECT `+sqlstore.DeviceColumns+` FROM devices WHERE user_id = $1 AND code = $2`, d.UserID, d.Code)
		return err
	})
	if err != nil {
		return auth.Device{}, false, err
	}
	return stored, created, nil
}

// DeviceByCode implements auth.Store: auth.ErrDeviceNotFound if absent.
func (s *Store) DeviceByCode(ctx context.Context, userID, code string) (auth.Device, error) {
	return queryOne(ctx, s.db, scanDevice, auth.ErrDeviceNotFound,
		`SELECT `+sqlstore.DeviceColumns+` FROM devices WHERE user_id = $1 AND code = $2`, userID, code)
}

// ListDevices implements auth.Store.
func (s *Store) ListDevices(ctx context.Context, userID string) ([]auth.Device, error) {
	return queryAll(ctx, s.db, scanDevice,
		`SELECT `+sqlstore.DeviceColumns+` FROM devices WHERE user_id = $1 ORDER BY created_at, seq`, userID)
}

// RevokeDevice implements auth.Store: the device's row is locked while its
// keys are revoked. auth.ErrDeviceNotFound if the user has no such device.
// It notifies ChangeUser.
func (s *Store) RevokeDevice(ctx context.Context, userID, deviceID string, at time.Time) (auth.Device, error) {
	var d auth.Device
	err := s.write(ctx, func(tx pgx.Tx) error {
		var err error
		d, err = queryOne(ctx, tx, scanDevice, auth.ErrDeviceNotFound,
			`SELECT `+sqlstore.DeviceColumns+` FROM devices WHERE id = $1 AND user_id = $2 FOR UPDATE`, deviceID, userID)
		if err != nil {
			return err
		}
		if !d.Revoked() {
			d.RevokedAt = at.UTC().Truncate(time.Microsecond)
			if _, err := tx.Exec(ctx, `UPDATE devices SET revoked_at = $1 WHERE id = $2`, at, deviceID); err != nil {
				return err
			}
		}
		if _, err := s.revokeKeys(ctx, tx, auth.KeySelector{DeviceID: deviceID}, at); err != nil {
			return err
		}
		return s.notify(ctx, tx, Change{Kind: ChangeUser, ID: userID})
	})
	if err != nil {
		return auth.Device{}, err
	}
	return d, nil
}
