package auth_test

import (
	"bytes"
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
)

func phone(code string) func(*auth.LoginRequest) {
	return func(r *auth.LoginRequest) {
		r.Device = auth.DeviceInfo{Code: code, Token: "push-1", Name: "Pixel", AppVersion: "1.2.3", OS: "Android"}
	}
}

func TestDeviceRegistration(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		s := e.login(t, phone(" DEV-1 "))
		d := s.Device
		assert.NotEmpty(t, d.ID)
		assert.Equal(t, auth.Device{ID: d.ID, BrandID: e.brand.ID, UserID: e.admin.ID, Code: "DEV-1", Token: "push-1",
			Name: "Pixel", AppVersion: "1.2.3", OS: "Android", CreatedAt: e.clock.Now(), LastSeenAt: e.clock.Now(),
			LastAccessAt: e.clock.Now()}, d)
		p, err := e.svc.Authenticate(ctx, e.brand, s.AuthKey)
		require.NoError(t, err)
		assert.Equal(t, d.ID, p.DeviceID)

		e.clock.Add(time.Hour)
		again := e.login(t, func(r *auth.LoginRequest) {
			r.Device = auth.DeviceInfo{Code: "DEV-1", Token: "push-2", Name: "Pixel 9", AppVersion: "1.3", OS: "Android"}
		})
		assert.Equal(t, d.ID, again.Device.ID, "the same code is the same device")
		assert.Equal(t, "push-2", again.Device.Token)
		assert.Equal(t, e.clock.Now(), again.Device.LastSeenAt)
		assert.Equal(t, d.CreatedAt, again.Device.CreatedAt)

		// A login without X-Device-Code is a device of its
		// own (it used to register none), named from its User-Agent.
		browser := e.login(t, func(r *auth.LoginRequest) {
			r.Device = auth.DeviceInfo{Token: "ignored", UserAgent: "Mozilla/5.0 (X11; Linux x86_64) Chrome/126.0 Safari/537.36"}
		})
		bd := browser.Device
		assert.NotEmpty(t, bd.ID, "no code, a device of its own")
		assert.Len(t, bd.Code, 43, "a server-made code: 256 random bits, base64url")
		assert.Equal(t, "Chrome on Linux", bd.Name)
		assert.Equal(t, "Linux", bd.OS)
		assert.Empty(t, bd.Token, "the other device headers go with the code")
		assert.True(t, bd.FromUserAgent)
		assert.False(t, bd.IsMobileApp())
		again = e.login(t, func(r *auth.LoginRequest) { r.Device = auth.DeviceInfo{Code: bd.Code} })
		assert.Equal(t, bd.ID, again.Device.ID, "the code the server made logs in from the same device")
		other := e.login(t)
		assert.NotEqual(t, bd.ID, other.Device.ID, "each login without a code is a device of its own")
		assert.Equal(t, "Unknown device", other.Device.Name)
		e.login(t, phone("DEV-2"))

		list, err := e.svc.Devices(ctx, e.admin.ID)
		require.NoError(t, err)
		require.Len(t, list, 4)
		assert.Equal(t, []string{"DEV-1", bd.Code, other.Device.Code, "DEV-2"},
			[]string{list[0].Code, list[1].Code, list[2].Code, list[3].Code})
	})
}

func TestDeviceRevocation(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		onPhone := e.login(t, phone("PHONE"))
		onLaptop := e.login(t, phone("LAPTOP"))
		p, err := e.svc.Authenticate(ctx, e.brand, onLaptop.AuthKey)
		require.NoError(t, err)
		require.NoError(t, e.svc.CheckDevice(ctx, p, "PHONE"), "warm the device cache")
		_, err = e.svc.Authenticate(ctx, e.brand, onPhone.AuthKey)
		require.NoError(t, err, "warm the key cache")

		d, err := e.svc.RevokeDevice(ctx, e.admin.ID, onPhone.Device.ID)
		require.NoError(t, err)
		assert.True(t, d.Revoked())
		assert.Equal(t, e.clock.Now(), d.RevokedAt)

		err = e.svc.CheckDevice(ctx, p, "PHONE")
		assert.Equal(t, envelope.KindForbidden, envelope.KindOf(err))
		assert.Equal(t, auth.CodeDeviceRevoked, envelope.CodeOf(err), "seen at once")
		assert.NoError(t, e.svc.CheckDevice(ctx, p, "LAPTOP"))
		assert.NoError(t, e.svc.CheckDevice(ctx, p, "never-seen"))
		assert.NoError(t, e.svc.CheckDevice(ctx, p, ""))

		_, err = e.svc.Authenticate(ctx, e.brand, onPhone.AuthKey)
		assertRefused(t, err, "keys issued on the device are revoked with it")
		_, err = e.svc.Authenticate(ctx, e.brand, onLaptop.AuthKey)
		assert.NoError(t, err)

		_, err = e.svc.Login(ctx, e.brand, auth.LoginRequest{Username: "admin", Password: "wrong password",
			Device: auth.DeviceInfo{Code: "PHONE"}})
		assert.Equal(t, auth.CodeInvalidCredentials, envelope.CodeOf(err), "the password is checked first")
		_, err = e.svc.Login(ctx, e.brand, auth.LoginRequest{Username: "admin", Password: adminPassword,
			Device: auth.DeviceInfo{Code: "PHONE"}})
		assert.Equal(t, auth.CodeDeviceRevoked, envelope.CodeOf(err), "a revoked device cannot log in again")

		_, err = e.svc.Refresh(ctx, e.brand, auth.RefreshRequest{RefreshAuthKey: onLaptop.RefreshAuthKey, DeviceCode: "PHONE"})
		assert.Equal(t, auth.CodeDeviceRevoked, envelope.CodeOf(err), "refresh checks Device-Code")
		_, err = e.svc.Refresh(ctx, e.brand, auth.RefreshRequest{RefreshAuthKey: onLaptop.RefreshAuthKey, DeviceCode: "LAPTOP"})
		assert.NoError(t, err)

		viewer, err := e.svc.Login(ctx, e.brand, auth.LoginRequest{Username: "viewer", Password: "viewer password"})
		require.NoError(t, err)
		vp, err := e.svc.Authenticate(ctx, e.brand, viewer.AuthKey)
		require.NoError(t, err)
		assert.NoError(t, e.svc.CheckDevice(ctx, vp, "PHONE"), "devices are per user")

		_, err = e.svc.RevokeDevice(ctx, e.viewer.ID, onLaptop.Device.ID)
		assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err), "another user's device")
	})
}

func TestEventHooks(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got []auth.Event
	record := func(_ context.Context, ev auth.Event) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, ev)
	}
	logs := &bytes.Buffer{}
	e := newEnv(t, stores["memory"],
		auth.WithEventHook(func(context.Context, auth.Event) { panic("hook bug") }),
		auth.WithEventHook(record),
		auth.WithLogger(slog.New(slog.NewTextHandler(logs, nil))))
	mu.Lock()
	got = nil // the users newEnv created emitted user.created: this test is about logins
	mu.Unlock()

	s := e.login(t, phone("DEV-1"))
	e.login(t, phone("DEV-1"))
	e.login(t)
	_, _ = e.svc.Login(t.Context(), e.brand, auth.LoginRequest{Username: "admin", Password: "wrong password"})

	mu.Lock()
	defer mu.Unlock()
	var types []auth.EventType
	for _, ev := range got {
		types = append(types, ev.Type)
		assert.Equal(t, e.brand.ID, ev.BrandID)
		assert.Equal(t, e.admin.ID, ev.UserID)
		assert.Equal(t, e.clock.Now().UTC(), ev.At)
	}
	assert.Equal(t, []auth.EventType{
		auth.EventDeviceRegistered, auth.EventUserAuthenticated,
		auth.EventDeviceRegistered, auth.EventUserAuthenticated,
		auth.EventDeviceRegistered, auth.EventUserAuthenticated, // a login without a code is a device too
	}, types, "a failed login emits nothing")
	require.Len(t, got, 6)
	assert.True(t, got[0].NewDevice)
	assert.False(t, got[2].NewDevice)
	assert.Equal(t, s.Device.ID, got[0].Device.ID)
	assert.Equal(t, s.KeyID, got[1].KeyID)
	assert.Contains(t, logs.String(), "hook bug", "a panicking hook is logged, not raised")
}
