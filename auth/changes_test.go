package auth_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
)

// TestForget changes the store directly, as another process sharing it
// would: the service keeps answering from its cache until it is told to
// Forget the change, and answers from the store after.
func TestForget(t *testing.T) {
	t.Parallel()
	type check func(t *testing.T, e *env, s auth.Session) error
	authenticate := func(t *testing.T, e *env, s auth.Session) error {
		_, err := e.svc.Authenticate(t.Context(), e.brand, s.AuthKey)
		return err
	}
	canWrite := func(t *testing.T, e *env, s auth.Session) error {
		p, err := e.svc.Authenticate(t.Context(), e.brand, s.AuthKey)
		if err == nil && !p.Can(auth.PermAnalyticsWrite) {
			return envelope.New(envelope.KindForbidden, "denied", "no permission")
		}
		return err
	}
	resolve := func(t *testing.T, e *env, _ auth.Session) error {
		_, err := e.svc.ResolveBrand(t.Context(), "shop.example.com")
		return err
	}
	device := func(t *testing.T, e *env, s auth.Session) error {
		return e.svc.CheckDevice(t.Context(), auth.Principal{UserID: e.admin.ID}, "DEV-1")
	}
	at := time.Date(2026, 5, 6, 7, 8, 10, 0, time.UTC)
	setUser := func(fn func(*auth.UserRecord)) func(t *testing.T, e *env, s auth.Session) {
		return func(t *testing.T, e *env, _ auth.Session) {
			_, err := e.store.UpdateUser(t.Context(), e.admin.ID, func(r *auth.UserRecord) error { fn(r); return nil })
			require.NoError(t, err)
		}
	}
	for _, tc := range []struct {
		name   string
		check  check
		change func(t *testing.T, e *env, s auth.Session)
		forget func(e *env) auth.Change
		kind   envelope.Kind // of the answer after Forget
	}{
		{"key revoked", authenticate, func(t *testing.T, e *env, s auth.Session) {
			_, err := e.store.RevokeKeyPairs(t.Context(), auth.KeySelector{ID: s.KeyID}, at)
			require.NoError(t, err)
		}, func(e *env) auth.Change { return auth.Change{Kind: auth.ChangeUser, ID: e.admin.ID} }, envelope.KindUnauthenticated},
		{"user's keys revoked, all forgotten", authenticate, func(t *testing.T, e *env, _ auth.Session) {
			_, err := e.store.RevokeKeyPairs(t.Context(), auth.KeySelector{UserID: e.admin.ID}, at)
			require.NoError(t, err)
		}, func(*env) auth.Change { return auth.Change{Kind: auth.ChangeAll} }, envelope.KindUnauthenticated},
		{"user deactivated", authenticate, setUser(func(r *auth.UserRecord) { r.Status = auth.StatusInactive }),
			func(e *env) auth.Change { return auth.Change{Kind: auth.ChangeUser, ID: e.admin.ID} }, envelope.KindUnauthenticated},
		{"permissions revoked", canWrite, setUser(func(r *auth.UserRecord) { r.Permissions = nil }),
			func(e *env) auth.Change { return auth.Change{Kind: auth.ChangeUser, ID: e.admin.ID} }, envelope.KindForbidden},
		{"brand deactivated", resolve, func(t *testing.T, e *env, _ auth.Session) {
			b := e.brand
			b.Status = auth.StatusInactive
			require.NoError(t, e.store.UpdateBrand(t.Context(), b))
		}, func(e *env) auth.Change { return auth.Change{Kind: auth.ChangeBrand, ID: e.brand.ID} }, envelope.KindForbidden},
		{"brand deactivated, all forgotten", resolve, func(t *testing.T, e *env, _ auth.Session) {
			b := e.brand
			b.Status = auth.StatusInactive
			require.NoError(t, e.store.UpdateBrand(t.Context(), b))
		}, func(*env) auth.Change { return auth.Change{Kind: auth.ChangeAll} }, envelope.KindForbidden},
		{"device revoked", device, func(t *testing.T, e *env, s auth.Session) {
			_, err := e.store.RevokeDevice(t.Context(), e.admin.ID, s.Device.ID, at)
			require.NoError(t, err)
		}, func(e *env) auth.Change { return auth.Change{Kind: auth.ChangeUser, ID: e.admin.ID} }, envelope.KindForbidden},
	} {
		for name, newStore := range stores {
			t.Run(tc.name+"/"+name, func(t *testing.T) {
				t.Parallel()
				e := newEnv(t, newStore)
				s := e.login(t, func(r *auth.LoginRequest) { r.Device = auth.DeviceInfo{Code: "DEV-1"} })
				require.NoError(t, tc.check(t, e, s), "before the change (fills the cache)")
				tc.change(t, e, s)
				assert.NoError(t, tc.check(t, e, s), "cached until forgotten")

				unrelated := []auth.Change{
					{Kind: auth.ChangeUser, ID: e.viewer.ID},
					{Kind: auth.ChangeBrand, ID: e.other.ID},
					{Kind: "refdata"},
				}
				for _, c := range unrelated {
					e.svc.Forget(c)
					assert.NoError(t, tc.check(t, e, s), "after Forget(%v), which concerns something else", c)
				}

				e.svc.Forget(tc.forget(e))
				assert.Equal(t, tc.kind, envelope.KindOf(tc.check(t, e, s)), "after Forget")
			})
		}
	}
}

// TestForgetKeepsOtherAnswers checks that forgetting one user's changes
// drops that user's cached keys, all of them, and no one else's.
func TestForgetKeepsOtherAnswers(t *testing.T) {
	t.Parallel()
	e := newEnv(t, stores["memory"])
	ctx := t.Context()
	a, b := e.login(t), e.login(t)
	for _, s := range []auth.Session{a, b} {
		_, err := e.svc.Authenticate(ctx, e.brand, s.AuthKey)
		require.NoError(t, err)
	}
	// Both keys revoked in the store; only one user's change forgotten
	// for a user who holds neither: both stay cached.
	_, err := e.store.RevokeKeyPairs(ctx, auth.KeySelector{UserID: e.admin.ID}, e.clock.Now())
	require.NoError(t, err)
	e.svc.Forget(auth.Change{Kind: auth.ChangeUser, ID: e.stray.ID})
	for _, s := range []auth.Session{a, b} {
		_, err := e.svc.Authenticate(ctx, e.brand, s.AuthKey)
		assert.NoError(t, err)
	}
	e.svc.Forget(auth.Change{Kind: auth.ChangeUser, ID: e.admin.ID})
	for _, s := range []auth.Session{a, b} {
		_, err := e.svc.Authenticate(ctx, e.brand, s.AuthKey)
		assertRefused(t, err)
	}
}
