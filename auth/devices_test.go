package auth_test

import (
	"context"
	"github.com/brandbase/brandbase/outbox"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/storage"
)

// countingStore is a real store that counts the writes made through it
// (every auth.Store method that may change a row), and the TouchDevice
// calls apart.
type countingStore struct {
	storage.Storage
	writes, touches atomic.Int64
}

func (c *countingStore) TouchDevice(ctx context.Context, id string, at, since time.Time) error {
	c.writes.Add(1)
	c.touches.Add(1)
	return c.Storage.TouchDevice(ctx, id, at, since)
}

func (c *countingStore) UpsertDevice(ctx context.Context, d auth.Device, out ...outbox.Item) (auth.Device, bool, error) {
	c.writes.Add(1)
	return c.Storage.UpsertDevice(ctx, d, out...)
}

func (c *countingStore) CreateKeyPair(ctx context.Context, k auth.KeyPair, out ...outbox.Item) error {
	c.writes.Add(1)
	return c.Storage.CreateKeyPair(ctx, k, out...)
}

func (c *countingStore) RotateKeyPair(ctx context.Context, oldID string, at time.Time, next auth.KeyPair) error {
	c.writes.Add(1)
	return c.Storage.RotateKeyPair(ctx, oldID, at, next)
}

func (c *countingStore) RevokeKeyPairs(ctx context.Context, sel auth.KeySelector, at time.Time) (int, error) {
	c.writes.Add(1)
	return c.Storage.RevokeKeyPairs(ctx, sel, at)
}

func (c *countingStore) UpdateUser(ctx context.Context, id string, fn func(*auth.UserRecord) error, out ...outbox.Item) (auth.UserRecord, error) {
	c.writes.Add(1)
	return c.Storage.UpdateUser(ctx, id, fn, out...)
}

func (c *countingStore) EndDevice(ctx context.Context, userID, deviceID string, at time.Time, out ...outbox.Item) (auth.Device, error) {
	c.writes.Add(1)
	return c.Storage.EndDevice(ctx, userID, deviceID, at, out...)
}

func (c *countingStore) RevokeDevice(ctx context.Context, userID, deviceID string, at time.Time, out ...outbox.Item) (auth.Device, error) {
	c.writes.Add(1)
	return c.Storage.RevokeDevice(ctx, userID, deviceID, at, out...)
}

// countingEnv is an env whose service writes through a countingStore.
func countingEnv(t testing.TB, newStore func(t testing.TB) storage.Storage, opts ...auth.Option) (*env, *countingStore) {
	t.Helper()
	var cs *countingStore
	e := newEnv(t, func(t testing.TB) storage.Storage {
		cs = &countingStore{Storage: newStore(t)}
		return cs
	}, opts...)
	return e, cs
}

func browserUA(r *auth.LoginRequest) {
	r.Device = auth.DeviceInfo{UserAgent: "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 Version/17.5 Safari/605.1.15"}
}

func TestUserDevicesListAndEnd(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		onPhone := e.login(t, phone("PHONE"))
		e.clock.Add(time.Minute)
		inBrowser := e.login(t, browserUA)

		list, err := e.svc.UserDevices(ctx, e.admin.ID)
		require.NoError(t, err)
		require.Len(t, list, 2)
		assert.Equal(t, []string{onPhone.Device.ID, inBrowser.Device.ID}, []string{list[0].ID, list[1].ID}, "oldest first")
		assert.Equal(t, "Safari on macOS", list[1].Name)
		assert.True(t, list[0].IsMobileApp())
		assert.False(t, list[1].IsMobileApp())
		assert.Equal(t, e.clock.Now(), list[1].LastAccessAt, "a login is an access")
		assert.True(t, list[1].Online(e.clock.Now()))
		assert.False(t, list[1].Online(e.clock.Now().Add(auth.OnlineWindow)))

		ended, err := e.svc.EndDevice(ctx, e.admin.ID, onPhone.Device.ID)
		require.NoError(t, err)
		assert.Equal(t, e.clock.Now(), ended.EndedAt)
		_, err = e.svc.Authenticate(ctx, e.brand, onPhone.AuthKey)
		assertRefused(t, err, "an ended device's keys are refused")
		_, err = e.svc.Refresh(ctx, e.brand, auth.RefreshRequest{RefreshAuthKey: onPhone.RefreshAuthKey})
		assertRefused(t, err, "and its refresh key")
		_, err = e.svc.Authenticate(ctx, e.brand, inBrowser.AuthKey)
		require.NoError(t, err, "the other device is untouched")
		list, err = e.svc.UserDevices(ctx, e.admin.ID)
		require.NoError(t, err)
		require.Len(t, list, 1, "an ended device leaves the list")
		assert.Equal(t, inBrowser.Device.ID, list[0].ID)
		_, err = e.svc.EndDevice(ctx, e.admin.ID, onPhone.Device.ID)
		require.NoError(t, err, "ending an ended device succeeds")

		again := e.login(t, phone("PHONE"))
		assert.Equal(t, onPhone.Device.ID, again.Device.ID, "an ended device may log in again")
		list, err = e.svc.UserDevices(ctx, e.admin.ID)
		require.NoError(t, err)
		assert.Len(t, list, 2, "and is listed again")

		require.NoError(t, e.svc.Logout(ctx, mustAuth(t, e, inBrowser.AuthKey)))
		list, err = e.svc.UserDevices(ctx, e.admin.ID)
		require.NoError(t, err)
		assert.Len(t, list, 1, "a device without a live key pair is not signed in")

		_, err = e.svc.EndDevice(ctx, e.viewer.ID, onPhone.Device.ID)
		assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err), "another user's device")
	})
}

func mustAuth(t *testing.T, e *env, key string) auth.Principal {
	t.Helper()
	p, err := e.svc.Authenticate(t.Context(), e.brand, key)
	require.NoError(t, err)
	return p
}

func TestDevicesOfRights(t *testing.T) {
	t.Parallel()
	e := newEnv(t, stores["memory"])
	ctx := t.Context()
	admin := mustAuth(t, e, e.login(t, phone("PHONE")).AuthKey)
	e.login(t, browserUA)
	viewerSess, err := e.svc.Login(ctx, e.brand, auth.LoginRequest{Username: "viewer", Password: "viewer password"})
	require.NoError(t, err)
	viewer := mustAuth(t, e, viewerSess.AuthKey)
	yes, no := true, false

	mine, err := e.svc.DevicesOf(ctx, viewer, e.viewer.ID, nil)
	require.NoError(t, err, "a user sees their own devices")
	assert.Len(t, mine, 1)
	_, err = e.svc.DevicesOf(ctx, viewer, e.admin.ID, nil)
	assert.Equal(t, auth.CodeAccessDenied, envelope.CodeOf(err), "not another user's without users.write")
	_, err = e.svc.DevicesOf(ctx, viewer, "no-such-user", nil)
	assert.Equal(t, auth.CodeAccessDenied, envelope.CodeOf(err), "nor learns who exists")
	_, err = e.svc.EndDeviceOf(ctx, viewer, e.admin.ID, admin.DeviceID)
	assert.Equal(t, auth.CodeAccessDenied, envelope.CodeOf(err))

	all, err := e.svc.DevicesOf(ctx, admin, e.admin.ID, nil)
	require.NoError(t, err)
	assert.Len(t, all, 2)
	apps, err := e.svc.DevicesOf(ctx, admin, e.admin.ID, &yes)
	require.NoError(t, err)
	require.Len(t, apps, 1)
	assert.Equal(t, "PHONE", apps[0].Code)
	browsers, err := e.svc.DevicesOf(ctx, admin, e.admin.ID, &no)
	require.NoError(t, err)
	require.Len(t, browsers, 1)
	assert.True(t, browsers[0].FromUserAgent)

	theirs, err := e.svc.DevicesOf(ctx, admin, e.viewer.ID, nil)
	require.NoError(t, err, "users.write sees the brand's users' devices")
	assert.Len(t, theirs, 1)
	_, err = e.svc.DevicesOf(ctx, admin, e.stray.ID, nil)
	assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err), "a user of another brand is not found")
	_, err = e.svc.EndDeviceOf(ctx, admin, e.viewer.ID, "\xff")
	assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err))
	_, err = e.svc.EndDeviceOf(ctx, admin, e.viewer.ID, viewer.DeviceID)
	require.NoError(t, err)
	_, err = e.svc.Authenticate(ctx, e.brand, viewerSess.AuthKey)
	assertRefused(t, err, "ended by an admin")

	cur, err := e.svc.CurrentDevice(ctx, admin)
	require.NoError(t, err)
	assert.Equal(t, "PHONE", cur.Code)
	_, err = e.svc.CurrentDevice(ctx, auth.Principal{UserID: e.admin.ID})
	assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err), "a key of no device")
}

// TestLastAccessWrittenOncePerMinute checks that authenticated requests
// write a device's lastAccessAt at most once per AccessWriteInterval: not
// within the minute of the login's own write, once after it, and that the
// list shows the latest access all the same.
func TestLastAccessWrittenOncePerMinute(t *testing.T) {
	t.Parallel()
	for name, newStore := range stores {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e, cs := countingEnv(t, newStore)
			ctx := t.Context()
			s := e.login(t, phone("PHONE"))
			loggedIn := e.clock.Now()
			for range 5 {
				e.clock.Add(10 * time.Second)
				mustAuth(t, e, s.AuthKey)
			}
			auth.WaitAccessWrites(e.svc)
			assert.Zero(t, cs.touches.Load(), "within the minute of the login's write: no write")
			list, err := e.svc.UserDevices(ctx, e.admin.ID)
			require.NoError(t, err)
			assert.Equal(t, e.clock.Now(), list[0].LastAccessAt, "the list shows the last access all the same")
			stored, err := e.store.DeviceByCode(ctx, e.admin.ID, "PHONE")
			require.NoError(t, err)
			assert.Equal(t, loggedIn, stored.LastAccessAt, "the store holds the login's")

			e.clock.Add(10 * time.Second) // a minute after the login
			mustAuth(t, e, s.AuthKey)
			mustAuth(t, e, s.AuthKey)
			auth.WaitAccessWrites(e.svc)
			assert.Equal(t, int64(1), cs.touches.Load(), "one write a minute")
			stored, err = e.store.DeviceByCode(ctx, e.admin.ID, "PHONE")
			require.NoError(t, err)
			assert.Equal(t, e.clock.Now(), stored.LastAccessAt)

			// Another instance on the same store: its first write within the
			// minute of the last one changes nothing.
			written := e.clock.Now()
			e.clock.Add(30 * time.Second)
			other := auth.NewService(e.store, auth.WithClock(e.clock.Now))
			_, err = other.Authenticate(ctx, e.brand, s.AuthKey)
			require.NoError(t, err)
			auth.WaitAccessWrites(other)
			stored, err = e.store.DeviceByCode(ctx, e.admin.ID, "PHONE")
			require.NoError(t, err)
			assert.Equal(t, written, stored.LastAccessAt, "a write within the minute changes nothing")
		})
	}
}

// TestDeviceCap checks that a login past the brand's cap ends the device
// used longest ago, and that a brand without a cap keeps every device.
func TestDeviceCap(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		for _, code := range []string{"A", "B", "C"} {
			e.login(t, phone(code))
			e.clock.Add(time.Minute)
		}
		list, err := e.svc.UserDevices(ctx, e.admin.ID)
		require.NoError(t, err)
		assert.Len(t, list, 3, "no cap by default")

		require.NoError(t, e.svc.SetBrandSettings(ctx, e.brand.ID, auth.BrandSettings{MaxDevicesPerUser: 2}))
		a := e.login(t, phone("A")) // A, B, C: B, used longest ago but for A, is ended
		e.clock.Add(2 * time.Minute)
		d := e.login(t, phone("D")) // A, C, D: C is ended
		list, err = e.svc.UserDevices(ctx, e.admin.ID)
		require.NoError(t, err)
		var codes []string
		for _, dv := range list {
			codes = append(codes, dv.Code)
		}
		assert.ElementsMatch(t, []string{"A", "D"}, codes, "the devices used longest ago (B, C) are ended")
		mustAuth(t, e, a.AuthKey)
		mustAuth(t, e, d.AuthKey)
		b, err := e.store.DeviceByCode(ctx, e.admin.ID, "B")
		require.NoError(t, err)
		assert.False(t, b.EndedAt.IsZero())

		viewer, err := e.svc.Login(ctx, e.brand, auth.LoginRequest{Username: "viewer", Password: "viewer password"})
		require.NoError(t, err)
		mustAuth(t, e, viewer.AuthKey)
		list, err = e.svc.UserDevices(ctx, e.admin.ID)
		require.NoError(t, err)
		assert.Len(t, list, 2, "the cap is per user")
	})
}

func TestKnownLoginDevice(t *testing.T) {
	t.Parallel()
	e := newEnv(t, stores["memory"])
	ctx := t.Context()
	s := e.login(t, phone("PHONE"))
	browser := e.login(t, browserUA)
	for _, tc := range []struct {
		name, user, code string
		want             bool
	}{
		{"its code", e.admin.ID, "PHONE", true},
		{"trimmed", e.admin.ID, " PHONE ", true},
		{"the code the server made", e.admin.ID, browser.Device.Code, true},
		{"unknown code", e.admin.ID, "LAPTOP", false},
		{"another user's", e.viewer.ID, "PHONE", false},
		{"empty", e.admin.ID, "", false},
		{"no user", "", "PHONE", false},
	} {
		known, err := e.svc.KnownLoginDevice(ctx, tc.user, tc.code)
		require.NoError(t, err, tc.name)
		assert.Equal(t, tc.want, known, tc.name)
	}
	_, err := e.svc.RevokeDevice(ctx, e.admin.ID, s.Device.ID)
	require.NoError(t, err)
	known, err := e.svc.KnownLoginDevice(ctx, e.admin.ID, "PHONE")
	require.NoError(t, err)
	assert.False(t, known, "a revoked device has no allowance")
}

// BenchmarkAuthenticateLastAccess measures an authenticated request's key
// check within the minute of its device's last write, warm (the key
// cached) and cold (every check reads the store), and reports the store
// writes per request: 0, lastAccessAt being kept in memory.
func BenchmarkAuthenticateLastAccess(b *testing.B) {
	for _, bc := range []struct {
		name string
		opts []auth.Option
	}{
		{"warm", nil},
		{"cold", []auth.Option{auth.WithKeyCache(0, 1)}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			e, cs := countingEnv(b, stores["memory"], bc.opts...)
			ctx := b.Context()
			s, err := e.svc.Login(ctx, e.brand, auth.LoginRequest{Username: "admin", Password: adminPassword})
			require.NoError(b, err)
			before := cs.writes.Load()
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, err := e.svc.Authenticate(ctx, e.brand, s.AuthKey); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			auth.WaitAccessWrites(e.svc)
			b.ReportMetric(float64(cs.writes.Load()-before)/float64(b.N), "writes/op")
		})
	}
}

// TestEndDeviceOfAnotherBrandsUser: a holder of users.write (or of every
// permission) neither lists nor ends the devices of a user of another
// brand, even one whose permissions it holds: not found, and the user's
// session stands.
func TestEndDeviceOfAnotherBrandsUser(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		_, err := e.svc.CreateUser(ctx, e.brand.ID, auth.NewUser{Username: "manager", Password: "manager password",
			Permissions: []auth.Permission{auth.PermUsersWrite}})
		require.NoError(t, err)
		strayed, err := e.svc.Login(ctx, e.other, auth.LoginRequest{Username: "admin", Password: strayPassword})
		require.NoError(t, err)
		stray, err := e.svc.Authenticate(ctx, e.other, strayed.AuthKey)
		require.NoError(t, err)
		require.NotEmpty(t, stray.DeviceID)
		for _, actor := range []auth.Principal{login(t, e, "manager", "manager password"), login(t, e, "admin", adminPassword)} {
			_, err = e.svc.EndDeviceOf(ctx, actor, e.stray.ID, stray.DeviceID)
			assert.ErrorIs(t, err, auth.ErrUserNotFound, "%s ends no device of another brand", actor.Username)
			_, err = e.svc.DevicesOf(ctx, actor, e.stray.ID, nil)
			assert.ErrorIs(t, err, auth.ErrUserNotFound, "%s lists none", actor.Username)
		}
		_, err = e.svc.Authenticate(ctx, e.other, strayed.AuthKey)
		assert.NoError(t, err, "the other brand's user's session stands")
		devices, err := e.svc.UserDevices(ctx, e.stray.ID)
		require.NoError(t, err)
		assert.Len(t, devices, 1)
	})
}
