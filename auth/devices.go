package auth

// Devices as the sessions a user sees (docs/authentication.md, "Devices"):
// every login is a device, a user lists the devices signed in and ends
// one, a brand may cap them, and the last access of each is kept in memory
// and written at most once a minute.

import (
	"cmp"
	"context"
	"errors"
	"github.com/brandbase/brandbase/outbox"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/brandbase/brandbase/envelope"
)

// DeviceStore is the part of [Store] that lists and ends the devices a
// user is signed in on and records their last access. Its methods follow
// the rules of Store.
type DeviceStore interface {
	// DeviceByID returns the device of userID with that ID, or
	// [ErrDeviceNotFound].
	DeviceByID(ctx context.Context, userID, deviceID string) (Device, error)
	// SignedInDevices returns the devices of userID that are signed in at
	// now, oldest first: neither revoked nor ended, and holding a key pair
	// that is not revoked and whose refresh key has not expired at now.
	// Empty for an unknown user.
	SignedInDevices(ctx context.Context, userID string, now time.Time) ([]Device, error)
	// EndDevice, in one transaction, marks the device of userID with that
	// ID ended at time at (keeping an earlier EndedAt; a revoked device is
	// left as it is) and revokes every key pair issued on it.
	// [ErrDeviceNotFound] if the user has no such device.
	EndDevice(ctx context.Context, userID, deviceID string, at time.Time, out ...outbox.Item) (Device, error)
	// TouchDevice sets the LastAccessAt of the device with that ID to at
	// when it is zero or not after since, and writes nothing otherwise
	// (so that several instances writing one device within the interval
	// change it once); an unknown device is not an error.
	TouchDevice(ctx context.Context, deviceID string, at, since time.Time) error
}

// AccessWriteInterval is how often, at most, a device's LastAccessAt is
// written to the store: a request within this long of the last write
// writes nothing.
const AccessWriteInterval = time.Minute

// OnlineWindow is how long after its last access a device counts as
// online ([Device.Online]).
const OnlineWindow = 5 * time.Minute

// accessWriteTimeout bounds one background write of a LastAccessAt.
const accessWriteTimeout = 10 * time.Second

// Online reports whether d was used within OnlineWindow before now.
func (d Device) Online(now time.Time) bool {
	return !d.LastAccessAt.IsZero() && now.Sub(d.LastAccessAt) < OnlineWindow
}

// IsMobileApp reports whether d was registered from the X-Device-* headers,
// which the apps of the spec's origin send, rather than named from a
// browser's User-Agent.
func (d Device) IsMobileApp() bool { return !d.FromUserAgent }

// accessTracker keeps, per device, when it was last used and when this
// process last wrote that to the store; at most max devices, so that its
// memory is bounded. It is safe for concurrent use; a use of a device it
// holds takes only a read lock and two atomic operations, so the warm
// request path does not serialise on it.
type accessTracker struct {
	max int

	mu sync.RWMutex
	m  map[string]*accessEntry
	// writes counts the background writes in flight (WaitAccessWrites).
	writes sync.WaitGroup
}

// accessEntry is one device's last use and last write, in Unix
// nanoseconds.
type accessEntry struct{ seen, written atomic.Int64 }

func newAccessTracker(max int) *accessTracker {
	return &accessTracker{max: max, m: make(map[string]*accessEntry)}
}

// note records a use of device id at now and reports whether its
// LastAccessAt is due to be written: never written by this process, or
// last written AccessWriteInterval or more before now. Of concurrent uses,
// one at most finds a write due; it is recorded as done at now.
func (t *accessTracker) note(id string, now time.Time) bool {
	at := now.UnixNano()
	t.mu.RLock()
	e, ok := t.m[id]
	t.mu.RUnlock()
	if !ok {
		t.mu.Lock()
		if e, ok = t.m[id]; !ok {
			t.makeRoom(now)
			e = &accessEntry{}
			t.m[id] = e
		}
		t.mu.Unlock()
	}
	for old := e.seen.Load(); old < at && !e.seen.CompareAndSwap(old, at); old = e.seen.Load() {
	}
	old := e.written.Load()
	return (old == 0 || at-old >= int64(AccessWriteInterval)) && e.written.CompareAndSwap(old, at)
}

// written records that the store's LastAccessAt of device id is now (a
// login wrote it).
func (t *accessTracker) written(id string, now time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.m[id]; !ok {
		t.makeRoom(now)
	}
	e := &accessEntry{}
	e.seen.Store(now.UnixNano())
	e.written.Store(now.UnixNano())
	t.m[id] = e
}

// makeRoom frees a place when the tracker is full: first the devices
// whose write is due anyway (forgetting them loses nothing), else any one
// (its next use may then write again within the interval; the store's
// TouchDevice still changes its row at most once per interval). Called
// with mu held for writing.
func (t *accessTracker) makeRoom(now time.Time) {
	if len(t.m) < t.max {
		return
	}
	for id, e := range t.m {
		if now.UnixNano()-e.written.Load() >= int64(AccessWriteInterval) {
			delete(t.m, id)
		}
	}
	for id := range t.m {
		if len(t.m) < t.max {
			break
		}
		delete(t.m, id)
	}
}

// seen returns when this process last saw device id used; zero if it does
// not know.
func (t *accessTracker) seen(id string) time.Time {
	t.mu.RLock()
	e, ok := t.m[id]
	t.mu.RUnlock()
	if !ok || e.seen.Load() == 0 {
		return time.Time{}
	}
	return time.Unix(0, e.seen.Load())
}

// accessed records a use of device id (an authenticated request, a
// refresh) at now and, when its LastAccessAt is due (once per
// AccessWriteInterval), writes it in the background: a request never
// waits for that write, and a failed one is logged at DEBUG (the next due
// use writes again). An empty id is a key of no device.
func (s *Service) accessed(ctx context.Context, id string, now time.Time) {
	if id == "" || !s.access.note(id, now) {
		return
	}
	at := now.UTC().Truncate(time.Microsecond)
	s.access.writes.Add(1)
	go func() {
		defer s.access.writes.Done()
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), accessWriteTimeout)
		defer cancel()
		if err := s.store.TouchDevice(ctx, id, at, at.Add(-AccessWriteInterval)); err != nil {
			s.log.DebugContext(ctx, "auth: write a device's last access", "device", id, "error", err)
		}
	}()
}

// lastAccess returns d with LastAccessAt the later of the store's and
// the last use this Service saw.
func (s *Service) lastAccess(d Device) Device {
	if seen := s.access.seen(d.ID); seen.After(d.LastAccessAt) {
		d.LastAccessAt = seen.UTC().Truncate(time.Microsecond)
	}
	return d
}

// UserDevices returns the devices userID is signed in on, oldest first:
// those neither revoked nor ended that hold a key pair whose refresh key
// is valid. LastAccessAt is the latest use this Service saw, or the
// store's (written at most once per AccessWriteInterval, from any
// instance), whichever is later. Errors are the store's.
func (s *Service) UserDevices(ctx context.Context, userID string) ([]Device, error) {
	devices, err := s.store.SignedInDevices(ctx, userID, s.now().UTC().Truncate(time.Microsecond))
	if err != nil {
		return nil, err
	}
	for i := range devices {
		devices[i] = s.lastAccess(devices[i])
	}
	return devices, nil
}

// CurrentDevice returns the device whose key pair authenticated p, its
// LastAccessAt as in UserDevices. [ErrDeviceNotFound] when p's pair was
// issued on no device (a login from before every login was one) or the
// device is gone.
func (s *Service) CurrentDevice(ctx context.Context, p Principal) (Device, error) {
	if p.DeviceID == "" || p.UserID == "" {
		return Device{}, ErrDeviceNotFound
	}
	d, err := s.store.DeviceByID(ctx, p.UserID, p.DeviceID)
	if err != nil {
		return Device{}, err
	}
	return s.lastAccess(d), nil
}

// EndDevice ends the sessions of a device of a user: every key pair issued
// on it is revoked and it leaves the user's devices (UserDevices). Unlike
// [Service.RevokeDevice], its code may log in again (with the password),
// which makes it a signed-in device again. The next request with one of
// its keys is refused on this Service, and on the others sharing the store
// once they hear of the change ([Service.Forget]). [ErrDeviceNotFound] when
// the user has no device with that ID; ending an ended device succeeds and
// changes nothing.
func (s *Service) EndDevice(ctx context.Context, userID, deviceID string, out ...outbox.Item) (Device, error) {
	d, err := s.closeDevice(ctx, userID, deviceID, false, out)
	s.keys.invalidate(func(_ [32]byte, c cachedKey) bool { return c.DeviceID == deviceID })
	return d, err
}

// KnownLoginDevice reports whether code is the X-Device-Code of a device
// that userID has logged in from before (it was registered by a
// successful login) and that is not revoked: such a login gets a login
// allowance of its own (see docs/authentication.md, "The device
// allowance"). An empty or over-long code is not known. Errors are the
// store's but [ErrDeviceNotFound].
func (s *Service) KnownLoginDevice(ctx context.Context, userID, code string) (bool, error) {
	code, ok := trimHeader(code, maxDeviceCode)
	if userID == "" || code == "" || !ok {
		return false, nil
	}
	d, err := s.store.DeviceByCode(ctx, userID, code)
	if errors.Is(err, ErrDeviceNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return !d.Revoked(), nil
}

// capDevices applies the device cap of brand after a login of userID from
// device keep: while the user is signed in on more devices than the cap,
// the one used longest ago (never keep) is ended, as the spec's origin
// does. A failure is logged, not returned: the login has succeeded.
func (s *Service) capDevices(ctx context.Context, brand Brand, userID, keep string, now time.Time) {
	limit, err := s.deviceCap(ctx, brand.ID)
	if err != nil || limit <= 0 {
		if err != nil {
			s.log.WarnContext(ctx, "auth: read the brand's device cap", "brand", brand.ID, "error", err)
		}
		return
	}
	devices, err := s.UserDevices(ctx, userID)
	if err != nil {
		s.log.WarnContext(ctx, "auth: list devices for the device cap", "user", userID, "error", err)
		return
	}
	excess := len(devices) - limit
	if excess <= 0 {
		return
	}
	devices = slices.DeleteFunc(devices, func(d Device) bool { return d.ID == keep })
	slices.SortStableFunc(devices, func(a, b Device) int {
		return cmp.Or(a.LastAccessAt.Compare(b.LastAccessAt), a.CreatedAt.Compare(b.CreatedAt))
	})
	for _, d := range devices[:min(excess, len(devices))] {
		if _, err := s.EndDevice(ctx, userID, d.ID); err != nil {
			s.log.WarnContext(ctx, "auth: end a device past the brand's cap", "user", userID, "device", d.ID, "error", err)
		}
	}
}

// deviceCap returns the device cap of a brand (its MaxDevicesPerUser); 0
// for none.
func (s *Service) deviceCap(ctx context.Context, brandID string) (int, error) {
	bs, err := s.BrandSettings(ctx, brandID)
	return bs.MaxDevicesPerUser, err
}

// mayManageDevices checks that p may see and end the devices of userID:
// p is that user, or may act on it ([CanActOn]: users.write, the user of
// p's brand, and every permission the user holds). KindForbidden
// (access_denied) when p is another user without users.write, whether or
// not userID exists, or without one of the user's permissions;
// [ErrUserNotFound] when p holds users.write and no user of p's brand has
// that ID.
func (s *Service) mayManageDevices(ctx context.Context, p Principal, userID string) error {
	if userID != "" && p.UserID == userID {
		return nil
	}
	_, err := s.UserToActOn(ctx, p, userID)
	return err
}

// DevicesOf is UserDevices as p asks for it: p must be the user, or may
// act on the user ([CanActOn]). A non-nil mobile keeps only the
// devices whose IsMobileApp is *mobile. Errors: KindForbidden
// (access_denied), [ErrUserNotFound] (see mayManageDevices), the store's.
func (s *Service) DevicesOf(ctx context.Context, p Principal, userID string, mobile *bool) ([]Device, error) {
	if err := s.mayManageDevices(ctx, p, userID); err != nil {
		return nil, err
	}
	devices, err := s.UserDevices(ctx, userID)
	if err != nil || mobile == nil {
		return devices, err
	}
	return slices.DeleteFunc(devices, func(d Device) bool { return d.IsMobileApp() != *mobile }), nil
}

// EndDeviceOf is EndDevice as p asks for it, with the rights of
// DevicesOf. [ErrDeviceNotFound] when the user has no device with that
// ID.
func (s *Service) EndDeviceOf(ctx context.Context, p Principal, userID, deviceID string) (Device, error) {
	if err := s.mayManageDevices(ctx, p, userID); err != nil {
		return Device{}, err
	}
	if !plausibleID(deviceID) {
		return Device{}, ErrDeviceNotFound
	}
	return s.EndDevice(ctx, userID, deviceID)
}

func errAccessDenied(msg string) error {
	return envelope.New(envelope.KindForbidden, CodeAccessDenied, msg)
}

// plausibleID reports whether id could be an ID the library made (UUIDs):
// short UTF-8 text without NUL. Anything else names nothing, and is not
// sent to the store (PostgreSQL refuses text that is not UTF-8).
func plausibleID(id string) bool {
	return id != "" && len(id) <= 64 && utf8.ValidString(id) && !strings.ContainsRune(id, 0)
}
