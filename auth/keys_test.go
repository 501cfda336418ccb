package auth_test

import (
	"crypto/sha256"
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

		// A thief replays the first refresh key, past the reuse interval
		// of its rotation: the whole family dies.
		e.clock.Add(auth.DefaultRefreshReuseInterval)
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

// refreshAtOnce sends n refreshes of key at once and returns the pairs
// answered; every refused refresh is a 401 unauthenticated.
func refreshAtOnce(t *testing.T, e *env, key string, n int) []auth.Session {
	t.Helper()
	var wg sync.WaitGroup
	wins := make(chan auth.Session, n)
	for range n {
		wg.Go(func() {
			r, err := e.svc.Refresh(t.Context(), e.brand, auth.RefreshRequest{RefreshAuthKey: key})
			if err == nil {
				wins <- r
				return
			}
			assertRefused(t, err)
		})
	}
	wg.Wait()
	close(wins)
	var out []auth.Session
	for r := range wins {
		out = append(out, r)
	}
	return out
}

// TestConcurrentRefreshesAllWork: refreshes of one key sent at once (the
// tabs of an app refreshing together) are within the reuse interval of
// the rotation the first of them makes: each gets a pair of its own, every
// pair works and refreshes, and none is revoked.
func TestConcurrentRefreshesAllWork(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		s := e.login(t)
		const n = 30
		pairs := refreshAtOnce(t, e, s.RefreshAuthKey, n)
		require.Len(t, pairs, n, "every refresh gets a pair")
		seen := map[string]bool{}
		for _, r := range pairs {
			seen[r.AuthKey], seen[r.RefreshAuthKey] = true, true
			assert.Equal(t, e.admin, r.User)
		}
		assert.Len(t, seen, 2*n, "each a pair of its own")
		for i, r := range pairs {
			_, err := e.svc.Authenticate(ctx, e.brand, r.AuthKey)
			require.NoError(t, err, "pair %d works", i)
		}
		for i, r := range pairs {
			next, err := e.svc.Refresh(ctx, e.brand, auth.RefreshRequest{RefreshAuthKey: r.RefreshAuthKey})
			require.NoError(t, err, "pair %d refreshes", i)
			_, err = e.svc.Authenticate(ctx, e.brand, next.AuthKey)
			require.NoError(t, err, "pair %d's successor works", i)
		}
	})
}

// TestConcurrentRefreshWithoutIntervalIsAReuse: with the reuse interval
// off, refreshes of one key sent at once are a reuse: exactly one wins,
// and the losers' reuse revokes the winner's pair.
func TestConcurrentRefreshWithoutIntervalIsAReuse(t *testing.T) {
	t.Parallel()
	for name, newStore := range stores {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, newStore, auth.WithRefreshReuseInterval(0))
			s := e.login(t)
			wins := refreshAtOnce(t, e, s.RefreshAuthKey, 8)
			require.Len(t, wins, 1, "exactly one refresh wins the race")
			_, err := e.svc.Authenticate(t.Context(), e.brand, wins[0].AuthKey)
			assertRefused(t, err, "the losers' reuse revoked the winner's pair")
		})
	}
}

// TestRefreshReuseInterval: a refresh key used again within the reuse
// interval of its rotation gets a new working pair of its family, and the
// pair the rotation made keeps working; used again at the interval's end
// or after, it revokes the family; the other reasons to refuse a refresh
// hold within the interval.
func TestRefreshReuseInterval(t *testing.T) {
	t.Parallel()
	const interval = auth.DefaultRefreshReuseInterval
	family := func(t *testing.T, e *env, s auth.Session) string {
		h := sha256.Sum256([]byte(s.AuthKey))
		k, err := e.store.KeyPairByAuthHash(t.Context(), h[:])
		require.NoError(t, err)
		return k.FamilyID
	}
	tests := []struct {
		name string
		opts []auth.Option
		// lead moves the clock between the login and the first refresh,
		// wait between the first refresh and the reuse.
		lead, wait time.Duration
		// before runs after the first refresh (w) and before the clock
		// moves by wait; it returns the other pairs of the family that
		// must fare as w does.
		before func(t *testing.T, e *env, first, w auth.Session) []auth.Session
		// want is the reuse's error code, "" for a working pair.
		want string
		// familyWorks: w (and before's pairs) still work after the reuse.
		familyWorks bool
	}{
		{name: "at once (a second tab)", familyWorks: true},
		{name: "just before the interval's end (a retry)", wait: interval - time.Microsecond, familyWorks: true},
		{name: "again and again within it", wait: interval / 2, familyWorks: true,
			before: func(t *testing.T, e *env, first, _ auth.Session) []auth.Session {
				var out []auth.Session
				for range 3 {
					r, err := e.svc.Refresh(t.Context(), e.brand, auth.RefreshRequest{RefreshAuthKey: first.RefreshAuthKey})
					require.NoError(t, err)
					out = append(out, r)
				}
				return out
			}},
		{name: "at the interval's end", wait: interval, want: auth.CodeUnauthenticated},
		{name: "an hour after, with pairs made within", wait: time.Hour, want: auth.CodeUnauthenticated,
			before: func(t *testing.T, e *env, first, _ auth.Session) []auth.Session {
				r, err := e.svc.Refresh(t.Context(), e.brand, auth.RefreshRequest{RefreshAuthKey: first.RefreshAuthKey})
				require.NoError(t, err)
				return []auth.Session{r}
			}},
		{name: "interval off", opts: []auth.Option{auth.WithRefreshReuseInterval(0)}, want: auth.CodeUnauthenticated},
		{name: "a minute's interval, within", opts: []auth.Option{auth.WithRefreshReuseInterval(time.Minute)},
			wait: time.Minute - time.Second, familyWorks: true},
		{name: "a minute's interval, after", opts: []auth.Option{auth.WithRefreshReuseInterval(time.Minute)},
			wait: time.Minute, want: auth.CodeUnauthenticated},
		{name: "family revoked", want: auth.CodeUnauthenticated,
			before: func(t *testing.T, e *env, _, w auth.Session) []auth.Session {
				_, err := e.store.RevokeKeyPairs(t.Context(), auth.KeySelector{FamilyID: family(t, e, w)}, e.clock.Now())
				require.NoError(t, err)
				return nil
			}},
		{name: "the rotation's pair logged out", want: auth.CodeUnauthenticated,
			before: func(t *testing.T, e *env, _, w auth.Session) []auth.Session {
				require.NoError(t, e.svc.RevokeKeyPair(t.Context(), w.KeyID))
				return nil
			}},
		{name: "password changed", want: auth.CodeUnauthenticated,
			before: func(t *testing.T, e *env, _, _ auth.Session) []auth.Session {
				require.NoError(t, e.svc.SetPassword(t.Context(), e.admin.ID, "a brand new password"))
				return nil
			}},
		{name: "user deactivated", want: auth.CodeUnauthenticated,
			before: func(t *testing.T, e *env, _, _ auth.Session) []auth.Session {
				_, err := e.svc.SetUserStatus(t.Context(), e.admin.ID, auth.StatusInactive)
				require.NoError(t, err)
				return nil
			}},
		{name: "device revoked", want: auth.CodeDeviceRevoked,
			before: func(t *testing.T, e *env, first, _ auth.Session) []auth.Session {
				_, err := e.svc.RevokeDevice(t.Context(), e.admin.ID, first.Device.ID)
				require.NoError(t, err)
				return nil
			}},
		{name: "refresh key expired", opts: []auth.Option{auth.WithKeyLifetimes(time.Hour, 2*time.Hour)},
			lead: 2*time.Hour - time.Second, wait: time.Second, want: auth.CodeUnauthenticated, familyWorks: true},
	}
	for name, newStore := range stores {
		for _, tt := range tests {
			t.Run(name+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				e := newEnv(t, newStore, tt.opts...)
				ctx := t.Context()
				first := e.login(t)
				e.clock.Add(tt.lead)
				w, err := e.svc.Refresh(ctx, e.brand, auth.RefreshRequest{RefreshAuthKey: first.RefreshAuthKey})
				require.NoError(t, err)
				family := []auth.Session{w}
				if tt.before != nil {
					family = append(family, tt.before(t, e, first, w)...)
				}
				e.clock.Add(tt.wait)

				r, err := e.svc.Refresh(ctx, e.brand, auth.RefreshRequest{RefreshAuthKey: first.RefreshAuthKey})
				if tt.want == "" {
					require.NoError(t, err, "a reuse within the interval")
					assert.Equal(t, e.admin, r.User)
					assert.Equal(t, e.clock.Now().Add(auth.DefaultAuthKeyTTL), r.ExpiresAt, "fresh lifetimes")
					for _, f := range family {
						assert.NotEqual(t, f.AuthKey, r.AuthKey, "a pair of its own")
						assert.NotEqual(t, f.RefreshAuthKey, r.RefreshAuthKey)
					}
					_, err = e.svc.Authenticate(ctx, e.brand, r.AuthKey)
					require.NoError(t, err, "the reuse's pair works")
					_, err = e.svc.Authenticate(ctx, e.brand, first.AuthKey)
					assertRefused(t, err, "the rotated pair's own auth key stays revoked")
					next, err := e.svc.Refresh(ctx, e.brand, auth.RefreshRequest{RefreshAuthKey: r.RefreshAuthKey})
					require.NoError(t, err, "and refreshes")
					_, err = e.svc.Authenticate(ctx, e.brand, next.AuthKey)
					require.NoError(t, err)
				} else {
					assert.Equal(t, tt.want, envelope.CodeOf(err), "the reuse is refused: %v", err)
				}
				for i, f := range family {
					_, err := e.svc.Authenticate(ctx, e.brand, f.AuthKey)
					if tt.familyWorks {
						assert.NoError(t, err, "pair %d of the family keeps working", i)
					} else {
						assertRefused(t, err, "pair %d of the family is refused", i)
					}
				}
			})
		}
	}
}
