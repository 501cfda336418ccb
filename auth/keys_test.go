package auth_test

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
)

// assertRefused checks that err is the one answer of a refused key.
func assertRefused(t *testing.T, err error, msgAndArgs ...any) {
	t.Helper()
	assert.Equal(t, envelope.KindUnauthenticated, envelope.KindOf(err), msgAndArgs...)
	assert.Equal(t, auth.CodeUnauthenticated, envelope.CodeOf(err), msgAndArgs...)
}

func TestAuthenticate(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		s := e.login(t)
		for i := range 2 { // cold, then from the cache
			p, err := e.svc.Authenticate(ctx, e.brand, s.AuthKey)
			require.NoError(t, err, "attempt %d", i)
			assert.Equal(t, auth.Principal{UserID: e.admin.ID, BrandID: e.brand.ID, Username: "Admin",
				Permissions: []auth.Permission{auth.PermAll}, KeyID: s.KeyID, DeviceID: s.Device.ID, ExpiresAt: s.ExpiresAt}, p)
			assert.NotEmpty(t, p.DeviceID, "every login is a device")
			assert.True(t, p.Can(auth.PermAnalyticsWrite))
			p.Permissions[0] = "tampered"
		}

		_, err := e.svc.Authenticate(ctx, e.other, s.AuthKey)
		assertRefused(t, err, "a key works only in its brand")
		for _, key := range []string{"", "nonsense", s.RefreshAuthKey, s.AuthKey + "x", string(make([]byte, 10000))} {
			_, err := e.svc.Authenticate(ctx, e.brand, key)
			assertRefused(t, err, "key %.20q", key)
		}

		// The other brand's key does not work here either, even when
		// its user has the same name.
		so, err := e.svc.Login(ctx, e.other, auth.LoginRequest{Username: "admin", Password: strayPassword})
		require.NoError(t, err)
		_, err = e.svc.Authenticate(ctx, e.other, so.AuthKey)
		require.NoError(t, err)
		_, err = e.svc.Authenticate(ctx, e.brand, so.AuthKey)
		assertRefused(t, err, "cross-brand, warm cache")
	})
}

func TestKeyExpiry(t *testing.T) {
	t.Parallel()
	for name, newStore := range stores {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// A cache TTL longer than the key's life: the entry must still
			// expire with the key.
			e := newEnv(t, newStore, auth.WithKeyLifetimes(time.Hour, 2*time.Hour), auth.WithKeyCache(24*time.Hour, 100))
			ctx := t.Context()
			s := e.login(t)
			_, err := e.svc.Authenticate(ctx, e.brand, s.AuthKey)
			require.NoError(t, err)
			e.clock.Add(time.Hour - time.Microsecond)
			_, err = e.svc.Authenticate(ctx, e.brand, s.AuthKey)
			require.NoError(t, err, "valid until its expiry")
			e.clock.Add(time.Microsecond)
			_, err = e.svc.Authenticate(ctx, e.brand, s.AuthKey)
			assertRefused(t, err, "expired at expiresIn")

			r, err := e.svc.Refresh(ctx, e.brand, auth.RefreshRequest{RefreshAuthKey: s.RefreshAuthKey})
			require.NoError(t, err, "the refresh key outlives the auth key")
			e.clock.Add(2 * time.Hour)
			_, err = e.svc.Refresh(ctx, e.brand, auth.RefreshRequest{RefreshAuthKey: r.RefreshAuthKey})
			assertRefused(t, err, "an expired refresh key")

			n, err := e.svc.DeleteExpiredKeys(ctx)
			require.NoError(t, err)
			assert.Equal(t, 2, n, "both pairs' refresh keys have expired")
		})
	}
}

func TestRevocationIsSeenAtOnce(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		revoke func(t *testing.T, e *env, s auth.Session)
	}{
		{"logout", func(t *testing.T, e *env, s auth.Session) {
			p, err := e.svc.Authenticate(t.Context(), e.brand, s.AuthKey)
			require.NoError(t, err)
			require.NoError(t, e.svc.Logout(t.Context(), p))
		}},
		{"revoke key pair", func(t *testing.T, e *env, s auth.Session) {
			require.NoError(t, e.svc.RevokeKeyPair(t.Context(), s.KeyID))
		}},
		{"revoke user keys", func(t *testing.T, e *env, s auth.Session) {
			n, err := e.svc.RevokeUserKeys(t.Context(), e.admin.ID)
			require.NoError(t, err)
			assert.Equal(t, 2, n, "both sessions of the user")
		}},
		{"deactivate user", func(t *testing.T, e *env, s auth.Session) {
			_, err := e.svc.SetUserStatus(t.Context(), e.admin.ID, auth.StatusInactive)
			require.NoError(t, err)
		}},
		{"refresh", func(t *testing.T, e *env, s auth.Session) {
			_, err := e.svc.Refresh(t.Context(), e.brand, auth.RefreshRequest{RefreshAuthKey: s.RefreshAuthKey})
			require.NoError(t, err)
		}},
	}
	for name, newStore := range stores {
		for _, tt := range tests {
			t.Run(name+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				e := newEnv(t, newStore)
				s := e.login(t)
				other := e.login(t)
				_, err := e.svc.Authenticate(t.Context(), e.brand, s.AuthKey)
				require.NoError(t, err, "the cache is warm")
				tt.revoke(t, e, s)
				_, err = e.svc.Authenticate(t.Context(), e.brand, s.AuthKey)
				assertRefused(t, err)
				if tt.name != "revoke user keys" && tt.name != "deactivate user" {
					_, err = e.svc.Authenticate(t.Context(), e.brand, other.AuthKey)
					assert.NoError(t, err, "another session of the user is untouched")
				}
			})
		}
	}
}

func TestReactivatedUserKeysWorkAgain(t *testing.T) {
	t.Parallel()
	e := newEnv(t, stores["memory"])
	ctx := t.Context()
	s := e.login(t)
	_, err := e.svc.SetUserStatus(ctx, e.admin.ID, auth.StatusInactive)
	require.NoError(t, err)
	_, err = e.svc.Authenticate(ctx, e.brand, s.AuthKey)
	assertRefused(t, err)
	_, err = e.svc.SetUserStatus(ctx, e.admin.ID, auth.StatusActive)
	require.NoError(t, err)
	_, err = e.svc.Authenticate(ctx, e.brand, s.AuthKey)
	assert.NoError(t, err)
}

func TestPermissionChangeIsSeenAtOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t, stores["sqlite"])
	ctx := t.Context()
	s, err := e.svc.Login(ctx, e.brand, auth.LoginRequest{Username: "viewer", Password: "viewer password"})
	require.NoError(t, err)
	p, err := e.svc.Authenticate(ctx, e.brand, s.AuthKey)
	require.NoError(t, err)
	assert.False(t, p.Can(auth.PermAnalyticsWrite))

	_, err = e.svc.Grant(ctx, e.viewer.ID, auth.PermAnalyticsWrite)
	require.NoError(t, err)
	p, err = e.svc.Authenticate(ctx, e.brand, s.AuthKey)
	require.NoError(t, err)
	assert.True(t, p.Can(auth.PermAnalyticsWrite))
	assert.False(t, p.Can(auth.PermPaymentGatewayWrite))

	_, err = e.svc.Revoke(ctx, e.viewer.ID, auth.PermAnalyticsWrite)
	require.NoError(t, err)
	p, err = e.svc.Authenticate(ctx, e.brand, s.AuthKey)
	require.NoError(t, err)
	assert.False(t, p.Can(auth.PermAnalyticsWrite))
}

// TestRevocationByAnotherProcess documents the limit of the cache: a
// revocation made through another Service sharing the store (another
// process on the same SQLite file) is seen when the cached answer expires.
func TestRevocationByAnotherProcess(t *testing.T) {
	t.Parallel()
	e := newEnv(t, stores["sqlite"], auth.WithKeyCache(10*time.Second, 100))
	ctx := t.Context()
	s := e.login(t)
	_, err := e.svc.Authenticate(ctx, e.brand, s.AuthKey)
	require.NoError(t, err)

	elsewhere := auth.NewService(e.store, auth.WithClock(e.clock.Now))
	require.NoError(t, elsewhere.RevokeKeyPair(ctx, s.KeyID))
	_, err = elsewhere.Authenticate(ctx, e.brand, s.AuthKey)
	assertRefused(t, err, "the revoking service sees it at once")

	_, err = e.svc.Authenticate(ctx, e.brand, s.AuthKey)
	assert.NoError(t, err, "the other service trusts its cache until the TTL")
	e.clock.Add(10 * time.Second)
	_, err = e.svc.Authenticate(ctx, e.brand, s.AuthKey)
	assertRefused(t, err, "and sees the revocation after it")

	nocache := auth.NewService(e.store, auth.WithClock(e.clock.Now), auth.WithKeyCache(0, 1))
	s2 := e.login(t)
	_, err = nocache.Authenticate(ctx, e.brand, s2.AuthKey)
	require.NoError(t, err)
	require.NoError(t, elsewhere.RevokeKeyPair(ctx, s2.KeyID))
	_, err = nocache.Authenticate(ctx, e.brand, s2.AuthKey)
	assertRefused(t, err, "without a cache every check reads the store")
}

func TestRefresh(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		first := e.login(t)
		e.clock.Add(time.Hour)

		second, err := e.svc.Refresh(ctx, e.brand, auth.RefreshRequest{RefreshAuthKey: first.RefreshAuthKey})
		require.NoError(t, err)
		assert.NotEqual(t, first.AuthKey, second.AuthKey)
		assert.NotEqual(t, first.RefreshAuthKey, second.RefreshAuthKey)
		assert.Equal(t, e.clock.Now().Add(auth.DefaultAuthKeyTTL), second.ExpiresAt, "fresh lifetimes")
		assert.Equal(t, e.admin, second.User)
		_, err = e.svc.Authenticate(ctx, e.brand, second.AuthKey)
		require.NoError(t, err)
		_, err = e.svc.Authenticate(ctx, e.brand, first.AuthKey)
		assertRefused(t, err, "rotation revokes the old auth key")

		third, err := e.svc.Refresh(ctx, e.brand, auth.RefreshRequest{RefreshAuthKey: second.RefreshAuthKey})
		require.NoError(t, err)

		// A thief replays the first refresh key: the whole family dies.
		_, err = e.svc.Refresh(ctx, e.brand, auth.RefreshRequest{RefreshAuthKey: first.RefreshAuthKey})
		assertRefused(t, err)
		_, err = e.svc.Authenticate(ctx, e.brand, third.AuthKey)
		assertRefused(t, err, "reuse revokes the newest pair of the family")
		_, err = e.svc.Refresh(ctx, e.brand, auth.RefreshRequest{RefreshAuthKey: third.RefreshAuthKey})
		assertRefused(t, err)

		_, err = e.svc.Refresh(ctx, e.brand, auth.RefreshRequest{})
		assert.Equal(t, []string{"refreshAuthKey:required"}, fieldsOf(t, err))
		_, err = e.svc.Refresh(ctx, e.brand, auth.RefreshRequest{RefreshAuthKey: "nonsense"})
		assertRefused(t, err)
	})
}

func TestRefreshRules(t *testing.T) {
	t.Parallel()
	e := newEnv(t, stores["memory"])
	ctx := t.Context()

	s := e.login(t)
	other := e.login(t)
	_, err := e.svc.Refresh(ctx, e.other, auth.RefreshRequest{RefreshAuthKey: s.RefreshAuthKey})
	assertRefused(t, err, "a refresh key works only in its brand")
	_, err = e.svc.Refresh(ctx, e.brand, auth.RefreshRequest{RefreshAuthKey: s.AuthKey})
	assertRefused(t, err, "an auth key is no refresh key")

	p, err := e.svc.Authenticate(ctx, e.brand, s.AuthKey)
	require.NoError(t, err)
	require.NoError(t, e.svc.Logout(ctx, p))
	_, err = e.svc.Refresh(ctx, e.brand, auth.RefreshRequest{RefreshAuthKey: s.RefreshAuthKey})
	assertRefused(t, err, "logout revokes the refresh key too")
	_, err = e.svc.Authenticate(ctx, e.brand, other.AuthKey)
	assert.NoError(t, err, "a logged-out pair is not a reuse: other sessions live")

	_, err = e.svc.SetUserStatus(ctx, e.admin.ID, auth.StatusInactive)
	require.NoError(t, err)
	_, err = e.svc.Refresh(ctx, e.brand, auth.RefreshRequest{RefreshAuthKey: other.RefreshAuthKey})
	assertRefused(t, err, "an inactive user cannot refresh")
}

func TestConcurrentRefreshIsAReuse(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		s := e.login(t)
		const n = 8
		var wg sync.WaitGroup
		wins := make(chan auth.Session, n)
		for range n {
			wg.Go(func() {
				r, err := e.svc.Refresh(t.Context(), e.brand, auth.RefreshRequest{RefreshAuthKey: s.RefreshAuthKey})
				if err == nil {
					wins <- r
					return
				}
				assertRefused(t, err)
			})
		}
		wg.Wait()
		close(wins)
		require.Len(t, wins, 1, "exactly one refresh wins the race")
		w := <-wins
		_, err := e.svc.Authenticate(t.Context(), e.brand, w.AuthKey)
		assertRefused(t, err, "the losers' reuse revoked the winner's pair")
	})
}
