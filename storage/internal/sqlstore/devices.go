package sqlstore

// auth.DeviceStore on the core: the devices a user is signed in on, ending
// one's sessions, and the last access of each.

import (
	"context"
	"github.com/brandbase/brandbase/outbox"
	"time"

	"github.com/brandbase/brandbase/auth"
)

// DeviceByID implements auth.DeviceStore: auth.ErrDeviceNotFound if the
// user has no device with that ID.
func (c *Core) DeviceByID(ctx context.Context, userID, deviceID string) (auth.Device, error) {
	return queryOne(ctx, c, c.r, c.scanDevice, auth.ErrDeviceNotFound,
		`SELECT `+DeviceColumns+` FROM devices WHERE id = ? AND user_id = ?`, deviceID, userID)
}

// SignedInDevices implements auth.DeviceStore: the user's devices that are
// neither revoked nor ended and hold a live key pair at now (found through
// the key_pairs_device index), in order of creation.
func (c *Core) SignedInDevices(ctx context.Context, userID string, now time.Time) ([]auth.Device, error) {
	return QueryAll(ctx, c, c.r, c.scanDevice,
		`SELECT `+DeviceColumns+` FROM devices d
		  WHERE d.user_id = ? AND d.revoked_at IS NULL AND d.ended_at IS NULL
		    AND EXISTS (SELECT 1 FROM key_pairs k WHERE k.device_id = d.id AND k.revoked_at IS NULL
		                AND k.refresh_expires_at > ?)
		  ORDER BY d.created_at, d.seq`, userID, c.d.Time(now))
}

// EndDevice implements auth.DeviceStore: the device's row is locked
// (ForUpdate) while it is marked ended and its keys are revoked.
// auth.ErrDeviceNotFound if the user has no such device. It notifies
// ChangeUser.
func (c *Core) EndDevice(ctx context.Context, userID, deviceID string, at time.Time, out ...outbox.Item) (auth.Device, error) {
	return c.closeDevice(ctx, userID, deviceID, at, out, func(d *auth.Device) string {
		if d.Revoked() || !d.EndedAt.IsZero() {
			return ""
		}
		d.EndedAt = asStored(at)
		return "ended_at"
	})
}

// closeDevice is RevokeDevice and EndDevice: in one transaction it locks
// the device of userID with that ID (ForUpdate; auth.ErrDeviceNotFound if
// the user has none), lets mark change it and name the time column to set
// to at ("" for none), revokes every key pair issued on it and notifies
// ChangeUser. It returns the device as mark left it.
func (c *Core) closeDevice(ctx context.Context, userID, deviceID string, at time.Time, out []outbox.Item, mark func(*auth.Device) string) (auth.Device, error) {
	var d auth.Device
	err := c.write(ctx, func(tx DB) error {
		var err error
		d, err = queryOne(ctx, c, tx, c.scanDevice, auth.ErrDeviceNotFound,
			`SELECT `+DeviceColumns+` FROM devices WHERE id = ? AND user_id = ?`+c.d.ForUpdate(), deviceID, userID)
		if err != nil {
			return err
		}
		if col := mark(&d); col != "" {
			if _, err := c.exec(ctx, tx, nil, nil, `UPDATE devices SET `+col+` = ? WHERE id = ?`, c.d.Time(at), deviceID); err != nil {
				return err
			}
			if err := c.enqueue(ctx, tx, out); err != nil {
				return err
			}
		}
		if _, err := c.revokeKeys(ctx, tx, auth.KeySelector{DeviceID: deviceID}, at); err != nil {
			return err
		}
		return c.changed(ctx, tx, ChangeUser, userID)
	})
	if err != nil {
		return auth.Device{}, err
	}
	return d, nil
}

// TouchDevice implements auth.DeviceStore: one UPDATE whose condition
// leaves the row alone when its last access is after since, so that
// instances writing the same device within the interval change it once.
func (c *Core) TouchDevice(ctx context.Context, deviceID string, at, since time.Time) error {
	return c.write(ctx, func(tx DB) error {
		_, err := c.exec(ctx, tx, nil, nil,
			`UPDATE devices SET last_access_at = ? WHERE id = ? AND (last_access_at IS NULL OR last_access_at <= ?)`,
			c.d.Time(at), deviceID, c.d.Time(since))
		return err
	})
}
