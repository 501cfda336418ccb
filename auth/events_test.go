package auth_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/events"
	"github.com/brandbase/brandbase/outbox"
)

// outboxItems lists the outbox items of brandID on channel, oldest first,
// through the store's outbox.Store Items.
func outboxItems(t *testing.T, store any, brandID string, ch outbox.Channel) []outbox.Item {
	t.Helper()
	lister, ok := store.(interface {
		Items(ctx context.Context, f outbox.Filter) ([]outbox.Item, error)
	})
	require.True(t, ok, "the store lists its outbox items")
	items, err := lister.Items(t.Context(), outbox.Filter{BrandID: brandID, Channel: ch, Limit: 1000})
	require.NoError(t, err)
	slices.Reverse(items)
	return items
}

// written is an event as the outbox holds it, its payload decoded.
type written struct {
	item    outbox.Item
	payload events.Payload
	data    map[string]any
}

// eventsOf returns the events of brandID written to the outbox, oldest
// first.
func eventsOf(t *testing.T, e *env, brandID string) []written {
	t.Helper()
	var out []written
	for _, it := range outboxItems(t, e.store, brandID, outbox.ChannelEvent) {
		p, err := events.Decode(it.Payload)
		require.NoError(t, err)
		var data map[string]any
		require.NoError(t, json.Unmarshal(p.Data, &data))
		out = append(out, written{item: it, payload: p, data: data})
	}
	return out
}

// TestEventsWrittenWithTheirChange: every change of the auth service writes
// its event, in the catalogue's payload, to the outbox with the change; a
// change that fails writes none.
func TestEventsWrittenWithTheirChange(t *testing.T) {
	t.Parallel()
	type want struct {
		typ     auth.EventType
		subject func(e *env) string
		data    map[string]any // keys that must be in data, with their values
	}
	admin := func(e *env) string { return e.admin.ID }
	cases := []struct {
		name   string
		brand  func(e *env) auth.Brand
		change func(t *testing.T, e *env) error
		want   []want
	}{
		{"user.created", nil, func(t *testing.T, e *env) error {
			_, err := e.svc.CreateUser(t.Context(), e.brand.ID, auth.NewUser{Username: "newbie", Password: "newbie's password"})
			return err
		}, []want{{auth.EventUserCreated, nil, map[string]any{"username": "newbie"}}}},
		{"user.updated names the fields", nil, func(t *testing.T, e *env) error {
			email, phone := "new@shop.example.com", "+1 555 0100"
			_, err := e.svc.UpdateUser(t.Context(), e.admin.ID, auth.UserUpdate{EmailAddress: &email, PhoneNumber: &phone})
			return err
		}, []want{{auth.EventUserUpdated, admin, map[string]any{"userId": "", "changed": []any{"emailAddress"}}}}},
		{"user.deleted names the user by its ID only", nil, func(t *testing.T, e *env) error {
			return e.svc.DeleteUser(t.Context(), auth.SystemPrincipal(e.brand.ID), e.viewer.ID)
		}, []want{{auth.EventType("user.deleted"), func(e *env) string { return e.viewer.ID }, map[string]any{"username": nil}}}},
		{"user.updated by status", nil, func(t *testing.T, e *env) error {
			_, err := e.svc.SetUserStatus(t.Context(), e.admin.ID, auth.StatusInactive)
			return err
		}, []want{{auth.EventUserUpdated, admin, map[string]any{"changed": []any{"status"}}}}},
		{"user.updated by permissions", nil, func(t *testing.T, e *env) error {
			_, err := e.svc.Grant(t.Context(), e.viewer.ID, "users.read")
			return err
		}, []want{{auth.EventUserUpdated, func(e *env) string { return e.viewer.ID }, map[string]any{"changed": []any{"permissions"}}}}},
		{"user.password_changed by SetPassword", nil, func(t *testing.T, e *env) error {
			return e.svc.SetPassword(t.Context(), e.admin.ID, "a brand new password")
		}, []want{{auth.EventUserPasswordChanged, admin, nil}}},
		{"user.password_changed by the user", nil, func(t *testing.T, e *env) error {
			s := e.login(t)
			p, err := e.svc.Authenticate(t.Context(), e.brand, s.AuthKey)
			require.NoError(t, err)
			_, err = e.svc.ChangePassword(t.Context(), p, auth.PasswordChange{OldPassword: adminPassword,
				NewPassword: "a brand new password", ConfirmPassword: "a brand new password"})
			return err
		}, []want{{auth.EventDeviceRegistered, admin, nil}, {auth.EventUserAuthenticated, admin, nil},
			{auth.EventUserPasswordChanged, admin, nil}}},
		{"a login", nil, func(t *testing.T, e *env) error {
			e.login(t, phone("DEV-1"))
			return nil
		}, []want{{auth.EventDeviceRegistered, admin, map[string]any{"new": true, "name": "Pixel"}},
			{auth.EventUserAuthenticated, admin, map[string]any{"username": "Admin"}}}},
		{"device.ended", nil, func(t *testing.T, e *env) error {
			s := e.login(t, phone("DEV-1"))
			_, err := e.svc.EndDevice(t.Context(), e.admin.ID, s.Device.ID)
			return err
		}, []want{{auth.EventDeviceRegistered, admin, nil}, {auth.EventUserAuthenticated, admin, nil},
			{auth.EventDeviceEnded, admin, map[string]any{"reason": "ended"}}}},
		{"device.ended by revocation", nil, func(t *testing.T, e *env) error {
			s := e.login(t, phone("DEV-1"))
			_, err := e.svc.RevokeDevice(t.Context(), e.admin.ID, s.Device.ID)
			return err
		}, []want{{auth.EventDeviceRegistered, admin, nil}, {auth.EventUserAuthenticated, admin, nil},
			{auth.EventDeviceEnded, admin, map[string]any{"reason": "revoked"}}}},
		{"brand.updated", nil, func(t *testing.T, e *env) error {
			name := "Shop Two"
			_, err := e.svc.UpdateBrand(t.Context(), e.brand.ID, auth.BrandUpdate{Name: &name})
			return err
		}, []want{{auth.EventBrandUpdated, func(e *env) string { return e.brand.ID }, map[string]any{"changed": []any{"name"}}}}},
		{"brand.updated by its status", nil, func(t *testing.T, e *env) error {
			_, err := e.svc.SetBrandStatus(t.Context(), e.brand.ID, auth.StatusInactive)
			return err
		}, []want{{auth.EventBrandUpdated, func(e *env) string { return e.brand.ID }, map[string]any{"changed": []any{"status"}}}}},
		{"brand.updated by its settings", nil, func(t *testing.T, e *env) error {
			return e.svc.SetBrandSettings(t.Context(), e.brand.ID, auth.BrandSettings{MaxDevicesPerUser: 3})
		}, []want{{auth.EventBrandUpdated, func(e *env) string { return e.brand.ID }, map[string]any{"changed": []any{"settings"}}}}},

		{"a failing create writes no event", nil, func(t *testing.T, e *env) error {
			_, err := e.svc.CreateUser(t.Context(), e.brand.ID, auth.NewUser{Username: "viewer", Password: "some password"})
			assert.Equal(t, envelope.KindConflict, envelope.KindOf(err))
			return nil
		}, nil},
		{"a failing update writes no event", nil, func(t *testing.T, e *env) error {
			taken := "viewer"
			_, err := e.svc.UpdateUser(t.Context(), e.admin.ID, auth.UserUpdate{Username: &taken})
			assert.Equal(t, envelope.KindConflict, envelope.KindOf(err))
			return nil
		}, nil},
		{"a failing brand update writes no event", nil, func(t *testing.T, e *env) error {
			taken := "other.example.com"
			_, err := e.svc.UpdateBrand(t.Context(), e.brand.ID, auth.BrandUpdate{URL: &taken})
			assert.Equal(t, envelope.KindConflict, envelope.KindOf(err))
			return nil
		}, nil},
		{"a failed login writes no event", nil, func(t *testing.T, e *env) error {
			_, err := e.svc.Login(t.Context(), e.brand, auth.LoginRequest{Username: "admin", Password: "wrong password"})
			assert.Equal(t, auth.CodeInvalidCredentials, envelope.CodeOf(err))
			return nil
		}, nil},
		{"a wrong old password writes no event", nil, func(t *testing.T, e *env) error {
			s := e.login(t)
			p, err := e.svc.Authenticate(t.Context(), e.brand, s.AuthKey)
			require.NoError(t, err)
			_, err = e.svc.ChangePassword(t.Context(), p, auth.PasswordChange{OldPassword: "not it at all",
				NewPassword: "a brand new password", ConfirmPassword: "a brand new password"})
			assert.Equal(t, envelope.KindInvalid, envelope.KindOf(err))
			return nil
		}, []want{{auth.EventDeviceRegistered, admin, nil}, {auth.EventUserAuthenticated, admin, nil}}},
	}
	for name, newStore := range stores {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					t.Parallel()
					e := newEnv(t, newStore)
					before := len(eventsOf(t, e, e.brand.ID))
					require.NoError(t, tc.change(t, e))
					got := eventsOf(t, e, e.brand.ID)[before:]
					require.Len(t, got, len(tc.want), "%v", got)
					for i, w := range tc.want {
						checkEvent(t, e, got[i], w.typ, w.subject, w.data)
					}
				})
			}
		})
	}
}

// checkEvent checks one written event against the catalogue: its item,
// its payload's envelope, its data, and no secret in it.
func checkEvent(t *testing.T, e *env, w written, typ auth.EventType, subject func(*env) string, data map[string]any) {
	t.Helper()
	it, p := w.item, w.payload
	assert.Equal(t, outbox.ChannelEvent, it.Channel)
	assert.Equal(t, string(typ), it.Topic)
	assert.Equal(t, events.Type(typ), p.Type)
	assert.Equal(t, events.Version, p.Version)
	assert.True(t, strings.HasPrefix(it.ID, events.IDPrefix), it.ID)
	assert.Equal(t, it.ID, p.ID)
	assert.Equal(t, e.brand.ID, it.BrandID)
	assert.Equal(t, e.brand.ID, p.BrandID)
	assert.Equal(t, it.SubjectID, p.SubjectID)
	assert.True(t, e.clock.Now().Equal(p.Timestamp), "timestamp %v", p.Timestamp)
	assert.Equal(t, outbox.StatusPending, it.Status)
	if subject != nil {
		assert.Equal(t, subject(e), p.SubjectID)
		if _, ok := w.data["userId"]; ok {
			assert.Equal(t, subject(e), w.data["userId"])
		}
	}
	for k, v := range data {
		if k == "userId" {
			continue
		}
		assert.Equal(t, v, w.data[k], "data.%s of %s", k, typ)
	}
	body := string(it.Payload)
	for _, secret := range []string{adminPassword, "a brand new password", "newbie's password", "argon2"} {
		assert.NotContains(t, body, secret)
	}
}
