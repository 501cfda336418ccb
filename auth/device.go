package auth

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/events"
	"github.com/brandbase/brandbase/outbox"
)

// Device is a device a user logged in from, registered from the X-Device-*
// headers of a login and identified by its code per user.
type Device struct {
	// ID is the device's identifier, assigned at registration.
	ID string `json:"id"`
	// BrandID and UserID name the device's user.
	BrandID string `json:"brandId"`
	UserID  string `json:"userId"`
	// Code is the X-Device-Code: the device's own identifier, unique per
	// user and compared exactly.
	Code string `json:"code"`
	// Token is the push-notification token (X-Device-Token).
	Token string `json:"token"`
	// Name is the device's name or model (X-Device-Name).
	Name string `json:"name"`
	// AppVersion is the application version (X-App-Version-Number).
	AppVersion string `json:"appVersion"`
	// OS is the device's operating system (X-Os-Device).
	OS string `json:"os"`
	// CreatedAt is when the device was first registered.
	CreatedAt time.Time `json:"createdAt"`
	// LastSeenAt is the time of the latest login from the device.
	LastSeenAt time.Time `json:"lastSeenAt"`
	// RevokedAt is when the device was revoked; zero while it is not.
	RevokedAt time.Time `json:"revokedAt"`
	// LastAccessAt is when the device was last used: its latest login,
	// refresh or authenticated request, as the store holds it (written at
	// most once a minute per device; see [Service.UserDevices]). Zero
	// when never written.
	LastAccessAt time.Time `json:"lastAccessAt"`
	// EndedAt is when the device's sessions were ended ([Service.EndDevice],
	// or the brand's device cap); zero while they were not. A later login
	// from the device clears it.
	EndedAt time.Time `json:"endedAt"`
	// FromUserAgent reports a device the server made for a login without
	// X-Device-Code: its Code is random and its Name and OS are read from
	// the login's User-Agent.
	FromUserAgent bool `json:"fromUserAgent"`
}

// Revoked reports whether the device was revoked.
func (d Device) Revoked() bool { return !d.RevokedAt.IsZero() }

// DeviceInfo is what a login says about its device: its X-Device-*
// headers and User-Agent. Without a Code, the login is a device of its
// own: the server makes a random code (returned in [Session.Device]) and
// names the device from UserAgent.
type DeviceInfo struct {
	Code       string // X-Device-Code, at most 200 bytes
	Token      string // X-Device-Token, at most 4096 bytes
	Name       string // X-Device-Name, at most 200 bytes
	AppVersion string // X-App-Version-Number, at most 64 bytes
	OS         string // X-Os-Device, at most 64 bytes
	// UserAgent is the login's User-Agent header, read only when Code is
	// empty; never refused (only its first 512 bytes are read).
	UserAgent string
}

// Limits of the device fields, in bytes.
const (
	maxDeviceCode  = 200
	maxDeviceToken = 4096
	maxDeviceText  = 200
	maxDeviceShort = 64
)

// validate trims d's fields and records a field error, named after its
// header, for each one that is too long, not UTF-8 or holds a NUL.
func (d *DeviceInfo) validate(v *envelope.Validation) {
	for _, f := range []struct {
		val    *string
		header string
		max    int
	}{
		{&d.Code, "X-Device-Code", maxDeviceCode},
		{&d.Token, "X-Device-Token", maxDeviceToken},
		{&d.Name, "X-Device-Name", maxDeviceText},
		{&d.AppVersion, "X-App-Version-Number", maxDeviceShort},
		{&d.OS, "X-Os-Device", maxDeviceShort},
	} {
		var ok bool
		if *f.val, ok = trimHeader(*f.val, f.max); !ok {
			v.Add(f.header, "too_long", f.header+" must be UTF-8 text of at most "+strconv.Itoa(f.max)+" bytes.")
		} else {
			v.Text(f.header, *f.val)
		}
	}
}

func errDeviceRevoked() error {
	return envelope.New(envelope.KindForbidden, CodeDeviceRevoked, "This device has been revoked.")
}

// registerDevice stores (or refreshes) the device of a login. A revoked
// device stays revoked and fails the login with device_revoked.
func (s *Service) registerDevice(ctx context.Context, user UserRecord, info DeviceInfo, now time.Time) (Device, bool, error) {
	fromUA := info.Code == ""
	if fromUA {
		code, err := s.newKey()
		if err != nil {
			return Device{}, false, err
		}
		name, os := deviceNameFromUserAgent(info.UserAgent)
		info = DeviceInfo{Code: code, Name: name, OS: os}
	}
	d, created, err := s.store.UpsertDevice(ctx, Device{
		ID: uuid.Must(uuid.NewV7()).String(), BrandID: user.BrandID, UserID: user.ID,
		Code: info.Code, Token: info.Token, Name: info.Name, AppVersion: info.AppVersion, OS: info.OS,
		CreatedAt: now, LastSeenAt: now, LastAccessAt: now, FromUserAgent: fromUA,
	})
	if err != nil {
		return Device{}, false, err
	}
	if d.Revoked() {
		return Device{}, false, errDeviceRevoked()
	}
	return d, created, nil
}

// deviceKey is the key of the device cache.
type deviceKey struct{ userID, code string }

// CheckDevice applies the Device-Code rule to an authenticated request: it
// fails with KindForbidden (code device_revoked) when code names a revoked
// device of p's user. An empty code, or one that names no device of the
// user, passes. Answers are cached like those of [Service.Authenticate], and
// a revocation through this Service is seen at once.
func (s *Service) CheckDevice(ctx context.Context, p Principal, code string) error {
	return s.checkDevice(ctx, p.UserID, code)
}

func (s *Service) checkDevice(ctx context.Context, userID, code string) error {
	code, ok := trimHeader(code, maxDeviceCode)
	if code == "" || !ok {
		return nil // no device can have this code
	}
	k := deviceKey{userID, code}
	now := s.now()
	revoked, hit := s.devices.get(k, now)
	if !hit {
		gen := s.devices.generation()
		d, err := s.store.DeviceByCode(ctx, userID, code)
		if err != nil && !errors.Is(err, ErrDeviceNotFound) {
			return err
		}
		revoked = d.Revoked()
		s.devices.put(k, revoked, now, now.Add(s.cacheTTL), gen)
	}
	if revoked {
		return errDeviceRevoked()
	}
	return nil
}

// keyDeviceRevoked reports whether k was issued on a device that is now
// revoked. The store revokes a device's pairs with it and refuses new
// pairs on it, so this only catches a pair stored before that rule (a
// database of an older version). A device that is gone is not revoked.
func (s *Service) keyDeviceRevoked(ctx context.Context, k KeyPair) (bool, error) {
	if k.DeviceID == "" {
		return false, nil
	}
	d, err := s.store.DeviceByID(ctx, k.UserID, k.DeviceID)
	if errors.Is(err, ErrDeviceNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return d.Revoked(), nil
}

// Devices returns the devices of a user, oldest first.
func (s *Service) Devices(ctx context.Context, userID string) ([]Device, error) {
	return s.store.ListDevices(ctx, userID)
}

// RevokeDevice revokes a device of a user and every key pair issued on it.
// From then on a login from it, and a request carrying its Device-Code,
// fail with 403 device_revoked, and its keys with 401; this is seen by the
// next request. [ErrDeviceNotFound] when the user has no device with that
// ID.
// Revoking a revoked device succeeds and changes nothing.
func (s *Service) RevokeDevice(ctx context.Context, userID, deviceID string) (Device, error) {
	d, err := s.closeDevice(ctx, userID, deviceID, true, nil)
	s.devices.invalidate(func(k deviceKey, _ bool) bool { return k.userID == userID })
	s.keys.invalidate(func(_ [32]byte, c cachedKey) bool { return c.DeviceID == deviceID })
	return d, err
}

// closeDevice revokes (revoke) or ends a device of userID, writing its
// device.ended event and out in the change's transaction (the store writes
// them only when it changes the device), and calls the hooks when it did.
// [ErrDeviceNotFound] when the user has no such device.
func (s *Service) closeDevice(ctx context.Context, userID, deviceID string, revoke bool, out []outbox.Item) (Device, error) {
	cur, err := s.store.DeviceByID(ctx, userID, deviceID)
	if err != nil {
		return Device{}, err
	}
	now := s.now().UTC().Truncate(time.Microsecond)
	data := events.Device{UserID: userID, DeviceID: deviceID, Name: cur.Name, OS: cur.OS, Reason: "ended"}
	if revoke {
		data.Reason = "revoked"
	}
	out = append([]outbox.Item{event(EventDeviceEnded, cur.BrandID, userID, now, data)}, out...)
	var d Device
	if revoke {
		d, err = s.store.RevokeDevice(ctx, userID, deviceID, now, out...)
	} else {
		d, err = s.store.EndDevice(ctx, userID, deviceID, now, out...)
	}
	if err != nil {
		return d, err
	}
	if at := d.EndedAt; revoke && d.RevokedAt.Equal(now) || !revoke && at.Equal(now) {
		s.emit(ctx, Event{Type: EventDeviceEnded, At: now, BrandID: d.BrandID, UserID: userID, Device: d})
	}
	return d, nil
}
