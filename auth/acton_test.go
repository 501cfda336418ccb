package auth_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/storage"
)

func TestHoldsEvery(t *testing.T) {
	t.Parallel()
	const host auth.Permission = "reports.read"
	for _, tc := range []struct {
		name       string
		have, need []auth.Permission
		want       bool
	}{
		{"none needed", nil, nil, true},
		{"none held", nil, []auth.Permission{auth.PermAnalyticsWrite}, false},
		{"the same", []auth.Permission{auth.PermUsersWrite, host}, []auth.Permission{host, auth.PermUsersWrite}, true},
		{"more", []auth.Permission{auth.PermUsersWrite, host}, []auth.Permission{host}, true},
		{"one missing", []auth.Permission{auth.PermUsersWrite}, []auth.Permission{auth.PermUsersWrite, host}, false},
		{"* holds every one", []auth.Permission{auth.PermAll}, []auth.Permission{host, auth.PermAll}, true},
		{"only * holds *", []auth.Permission{auth.PermUsersWrite, auth.PermAnalyticsWrite, auth.PermPaymentGatewayWrite},
			[]auth.Permission{auth.PermAll}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, auth.Principal{Permissions: tc.have}.HoldsEvery(tc.need))
		})
	}
}

// TestActingOnAnotherUserNeedsItsPermissions: a caller sets another user's
// password, lists or ends its devices only when it holds users.write and
// every permission that user holds; a holder of users.write alone cannot
// take over a "*" admin.
func TestActingOnAnotherUserNeedsItsPermissions(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		users := map[string]auth.User{"admin": e.admin, "viewer": e.viewer, "stray": e.stray}
		for name, perms := range map[string][]auth.Permission{
			"manager":        {auth.PermUsersWrite},
			"manager2":       {auth.PermUsersWrite},
			"analyst":        {auth.PermAnalyticsWrite},
			"analystManager": {auth.PermUsersWrite, auth.PermAnalyticsWrite},
			"admin2":         {auth.PermAll},
		} {
			u, err := e.svc.CreateUser(ctx, e.brand.ID, auth.NewUser{Username: name, Password: name + " password", Permissions: perms})
			require.NoError(t, err)
			users[name] = u
		}
		passwords := map[string]string{"admin": adminPassword, "viewer": "viewer password"}
		principal := func(name string) auth.Principal {
			pw, ok := passwords[name]
			if !ok {
				pw = name + " password"
			}
			return login(t, e, name, pw)
		}
		const ok, denied, notFound = "", auth.CodeAccessDenied, "not_found"
		for _, tc := range []struct{ actor, target, want string }{
			{"manager", "admin", denied},   // the take-over
			{"manager", "analyst", denied}, // a permission the manager lacks
			{"manager", "analystManager", denied},
			{"analystManager", "admin", denied},
			{"viewer", "analyst", denied}, // no users.write
			{"analyst", "viewer", denied},
			{"manager", "viewer", ok},
			{"manager", "manager2", ok},
			{"analystManager", "analyst", ok},
			{"analystManager", "manager", ok},
			{"admin2", "admin", ok},
			{"admin", "analystManager", ok},
			{"manager", "stray", notFound}, // of another brand
		} {
			t.Run(tc.actor+" on "+tc.target, func(t *testing.T) {
				actor, target := principal(tc.actor), users[tc.target]
				code := func(err error) string {
					if err == nil {
						return ok
					}
					return envelope.CodeOf(err)
				}
				_, err := e.svc.UserToActOn(ctx, actor, target.ID)
				assert.Equal(t, tc.want, code(err), "UserToActOn")
				_, err = e.svc.DevicesOf(ctx, actor, target.ID, nil)
				assert.Equal(t, tc.want, code(err), "DevicesOf")
				if tc.want != ok {
					_, err = e.svc.EndDeviceOf(ctx, actor, target.ID, actor.DeviceID)
					assert.Equal(t, tc.want, code(err), "EndDeviceOf")
					err = e.svc.SetUserPassword(ctx, actor, target.ID, "taken over by "+tc.actor, "")
					assert.Equal(t, tc.want, code(err), "SetUserPassword")
					if target.BrandID == e.brand.ID {
						principal(tc.target) // its password is unchanged
					}
					return
				}
				victim := principal(tc.target)
				_, err = e.svc.EndDeviceOf(ctx, actor, target.ID, victim.DeviceID)
				assert.NoError(t, err, "EndDeviceOf")
				passwords[tc.target] = "set by " + tc.actor
				require.NoError(t, e.svc.SetUserPassword(ctx, actor, target.ID, passwords[tc.target], ""))
				principal(tc.target)
			})
		}
	})
}

// staleUsers is a real store whose UserByID answers the user without its
// permissions, as a read made before a grant would.
type staleUsers struct{ storage.Storage }

func (s staleUsers) UserByID(ctx context.Context, id string) (auth.UserRecord, error) {
	u, err := s.Storage.UserByID(ctx, id)
	u.Permissions = nil
	return u, err
}

// TestSetUserPasswordChecksInItsWrite: the rule is checked again on the
// user as the write that sets its password reads it, so that a grant
// made between the check and the write does not let the caller through.
func TestSetUserPasswordChecksInItsWrite(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		_, err := e.svc.CreateUser(ctx, e.brand.ID, auth.NewUser{Username: "manager", Password: "manager password",
			Permissions: []auth.Permission{auth.PermUsersWrite}})
		require.NoError(t, err)
		manager := login(t, e, "manager", "manager password")
		svc := auth.NewService(staleUsers{e.store}, auth.WithClock(e.clock.Now), auth.WithArgon2Params(fastArgon2))
		err = svc.SetUserPassword(ctx, manager, e.admin.ID, "taken over by manager", "")
		assert.Equal(t, auth.CodeAccessDenied, envelope.CodeOf(err), "the admin's * is seen in the write")
		login(t, e, "admin", adminPassword)
	})
}

// TestSetUserPasswordRefusesSelf: the admin route never changes the
// caller's own password, even for a "*" admin: that is ChangePassword's,
// which checks the old password.
func TestSetUserPasswordRefusesSelf(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		admin := login(t, e, "admin", adminPassword)
		err := e.svc.SetUserPassword(t.Context(), admin, e.admin.ID, "set without the old one", "")
		require.Equal(t, auth.CodeAccessDenied, envelope.CodeOf(err))
		assert.Equal(t, envelope.KindForbidden, envelope.KindOf(err))
		assert.Contains(t, envelope.As(err).Message, "PUT users/change-password")
		login(t, e, "admin", adminPassword)
	})
}
