package auth_test

import (
	"context"
	"crypto/sha256"
	"github.com/brandbase/brandbase/outbox"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/storage"
)

// racyStore runs a hook once, just before the next key pair is stored
// (CreateKeyPair, RotateKeyPair): another request's write landing between
// a login's or refresh's checks and its store write. It records the pair.
type racyStore struct {
	storage.Storage
	mu     sync.Mutex
	before func(ctx context.Context, k auth.KeyPair)
	last   auth.KeyPair
}

func (s *racyStore) race(ctx context.Context, k auth.KeyPair) {
	s.mu.Lock()
	hook := s.before
	s.before, s.last = nil, k
	s.mu.Unlock()
	if hook != nil {
		hook(ctx, k)
	}
}

func (s *racyStore) CreateKeyPair(ctx context.Context, k auth.KeyPair, out ...outbox.Item) error {
	s.race(ctx, k)
	return s.Storage.CreateKeyPair(ctx, k, out...)
}

func (s *racyStore) RotateKeyPair(ctx context.Context, oldID string, at time.Time, next auth.KeyPair) error {
	s.race(ctx, next)
	return s.Storage.RotateKeyPair(ctx, oldID, at, next)
}

// newRacyEnv is newEnv on a racyStore over newStore.
func newRacyEnv(t *testing.T, newStore func(testing.TB) storage.Storage) (*env, *racyStore) {
	var racy *racyStore
	e := newEnv(t, func(t testing.TB) storage.Storage {
		racy = &racyStore{Storage: newStore(t)}
		return racy
	})
	return e, racy
}

// TestLoginLosesTheRaceWithARevocation checks that a login whose device,
// password or keys are revoked between its checks and its store write gets
// no session, and that nothing is stored for it (docs/security.md).
func TestLoginLosesTheRaceWithARevocation(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		revoke   func(ctx context.Context, e *env, k auth.KeyPair) error
		wantKind envelope.Kind
		wantCode string
	}{
		{"RevokeDevice", func(ctx context.Context, e *env, k auth.KeyPair) error {
			_, err := e.svc.RevokeDevice(ctx, k.UserID, k.DeviceID)
			return err
		}, envelope.KindForbidden, auth.CodeDeviceRevoked},
		{"SetPassword", func(ctx context.Context, e *env, k auth.KeyPair) error {
			return e.svc.SetPassword(ctx, k.UserID, "a brand new password")
		}, envelope.KindUnauthenticated, auth.CodeInvalidCredentials},
		{"RevokeUserKeys", func(ctx context.Context, e *env, k auth.KeyPair) error {
			_, err := e.svc.RevokeUserKeys(ctx, k.UserID)
			return err
		}, envelope.KindUnauthenticated, auth.CodeInvalidCredentials},
		{"Deactivate", func(ctx context.Context, e *env, k auth.KeyPair) error {
			_, err := e.svc.SetUserStatus(ctx, k.UserID, auth.StatusInactive)
			return err
		}, envelope.KindUnauthenticated, auth.CodeInvalidCredentials},
	} {
		for name, newStore := range stores {
			t.Run(tc.name+"/"+name, func(t *testing.T) {
				t.Parallel()
				e, racy := newRacyEnv(t, newStore)
				ctx := t.Context()
				racy.before = func(ctx context.Context, k auth.KeyPair) { require.NoError(t, tc.revoke(ctx, e, k)) }

				_, err := e.svc.Login(ctx, e.brand, auth.LoginRequest{Username: "admin", Password: adminPassword,
					Device: auth.DeviceInfo{Code: "PHONE"}})
				assert.Equal(t, tc.wantKind, envelope.KindOf(err))
				assert.Equal(t, tc.wantCode, envelope.CodeOf(err))
				_, err = e.store.KeyPairByAuthHash(ctx, racy.last.AuthHash)
				assert.ErrorIs(t, err, auth.ErrKeyPairNotFound, "the losing login stores no pair")
			})
		}
	}
}

// TestRefreshLosesTheRaceWithADeactivation checks that a refresh whose user
// is deactivated between its checks and the rotation issues nothing, and
// that the old pair works again once the user is reactivated.
func TestRefreshLosesTheRaceWithADeactivation(t *testing.T) {
	t.Parallel()
	for name, newStore := range stores {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e, racy := newRacyEnv(t, newStore)
			ctx := t.Context()
			s := e.login(t)
			racy.before = func(ctx context.Context, k auth.KeyPair) {
				_, err := e.svc.SetUserStatus(ctx, k.UserID, auth.StatusInactive)
				require.NoError(t, err)
			}
			_, err := e.svc.Refresh(ctx, e.brand, auth.RefreshRequest{RefreshAuthKey: s.RefreshAuthKey})
			assertRefused(t, err)
			_, err = e.store.KeyPairByAuthHash(ctx, racy.last.AuthHash)
			assert.ErrorIs(t, err, auth.ErrKeyPairNotFound, "the losing refresh stores no pair")

			_, err = e.svc.SetUserStatus(ctx, e.admin.ID, auth.StatusActive)
			require.NoError(t, err)
			_, err = e.svc.Refresh(ctx, e.brand, auth.RefreshRequest{RefreshAuthKey: s.RefreshAuthKey})
			assert.NoError(t, err, "the refused rotation left the old pair as it was")
		})
	}
}

// unrevokedStore reads every key pair as unrevoked: the state a database
// of an older version may hold, a live pair on a revoked device.
type unrevokedStore struct{ storage.Storage }

func unrevoked(k auth.KeyPair, err error) (auth.KeyPair, error) {
	k.RevokedAt = time.Time{}
	return k, err
}

func (s unrevokedStore) KeyPairByAuthHash(ctx context.Context, hash []byte) (auth.KeyPair, error) {
	return unrevoked(s.Storage.KeyPairByAuthHash(ctx, hash))
}

func (s unrevokedStore) KeyPairByRefreshHash(ctx context.Context, hash []byte) (auth.KeyPair, error) {
	return unrevoked(s.Storage.KeyPairByRefreshHash(ctx, hash))
}

// TestKeysOfARevokedDeviceAreRefused checks that Authenticate and Refresh
// look at the device a pair was issued on, whatever the pair's own state
// and without a Device-Code.
func TestKeysOfARevokedDeviceAreRefused(t *testing.T) {
	t.Parallel()
	for name, newStore := range stores {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, func(t testing.TB) storage.Storage { return unrevokedStore{newStore(t)} })
			ctx := t.Context()
			onPhone := e.login(t, phone("PHONE"))
			plain := e.login(t)
			_, err := e.svc.RevokeDevice(ctx, e.admin.ID, onPhone.Device.ID)
			require.NoError(t, err)

			_, err = e.svc.Authenticate(ctx, e.brand, onPhone.AuthKey)
			assertRefused(t, err, "a key of a revoked device")
			_, err = e.svc.Refresh(ctx, e.brand, auth.RefreshRequest{RefreshAuthKey: onPhone.RefreshAuthKey})
			assert.Equal(t, envelope.KindForbidden, envelope.KindOf(err))
			assert.Equal(t, auth.CodeDeviceRevoked, envelope.CodeOf(err), "a refresh without Device-Code")
			_, err = e.svc.Authenticate(ctx, e.brand, plain.AuthKey)
			assert.NoError(t, err, "a pair of no device")
		})
	}
}

// revocationFails is a real store whose RevokeKeyPairs runs with its
// context already cancelled, so that it fails as the second write of
// ending every session does when the request is cancelled (or the
// database goes away) between the two writes.
type revocationFails struct{ storage.Storage }

func (s revocationFails) RevokeKeyPairs(ctx context.Context, sel auth.KeySelector, at time.Time) (int, error) {
	ctx, cancel := context.WithCancel(ctx)
	cancel()
	return s.Storage.RevokeKeyPairs(ctx, sel, at)
}

// TestTheEpochAloneEndsSessions checks that ending every session of a user
// does not depend on the revocation of the pairs, the second of its two
// writes: once the user's session epoch has moved on, the older authKey
// and refreshAuthKey are refused, though their pairs are not revoked
// (docs/authentication.md, Ending every session). Through the same
// Service the change is seen at once, cached keys included; a bump made
// elsewhere is seen once Forget hears of it, or once the cached answer
// expires.
func TestTheEpochAloneEndsSessions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		// end ends the sessions of the user, all but the revocation of the
		// pairs; through reports whether it went through e.svc (whose
		// cache then knows at once).
		end     func(t *testing.T, e *env) error
		through bool
	}{
		{"SetPassword", func(t *testing.T, e *env) error {
			return e.svc.SetPassword(t.Context(), e.admin.ID, "a brand new password")
		}, true},
		{"RevokeUserKeys", func(t *testing.T, e *env) error {
			_, err := e.svc.RevokeUserKeys(t.Context(), e.admin.ID)
			return err
		}, true},
		{"EpochBumpAlone", func(t *testing.T, e *env) error {
			// What a SetPassword or RevokeUserKeys whose second write failed
			// leaves in the store, written by another instance.
			_, err := e.store.UpdateUser(t.Context(), e.admin.ID, func(r *auth.UserRecord) error {
				r.SessionEpoch++
				return nil
			})
			return err
		}, false},
	} {
		for name, newStore := range stores {
			t.Run(tc.name+"/"+name, func(t *testing.T) {
				t.Parallel()
				e := newEnv(t, func(t testing.TB) storage.Storage { return revocationFails{newStore(t)} })
				ctx := t.Context()
				s := e.login(t)
				refreshed, err := e.svc.Refresh(ctx, e.brand, auth.RefreshRequest{RefreshAuthKey: s.RefreshAuthKey})
				require.NoError(t, err)
				_, err = e.svc.Authenticate(ctx, e.brand, refreshed.AuthKey) // cached
				require.NoError(t, err)

				err = tc.end(t, e)
				if tc.through {
					require.ErrorIs(t, err, context.Canceled, "the revocation failed")
				} else {
					require.NoError(t, err)
				}
				h := sha256.Sum256([]byte(refreshed.AuthKey))
				stored, err := e.store.KeyPairByAuthHash(ctx, h[:])
				require.NoError(t, err)
				require.True(t, stored.RevokedAt.IsZero(), "the pair was not revoked")

				if !tc.through {
					_, err = e.svc.Authenticate(ctx, e.brand, refreshed.AuthKey)
					assert.NoError(t, err, "cached: a change elsewhere is seen within the cache bound")
					e.svc.Forget(auth.Change{Kind: auth.ChangeUser, ID: e.admin.ID}) // as a store's change feed does
				}
				_, err = e.svc.Authenticate(ctx, e.brand, refreshed.AuthKey)
				assertRefused(t, err, "the authKey of an older epoch")
				_, err = e.svc.Refresh(ctx, e.brand, auth.RefreshRequest{RefreshAuthKey: refreshed.RefreshAuthKey})
				assertRefused(t, err, "the refreshAuthKey of an older epoch")
				stored, err = e.store.KeyPairByAuthHash(ctx, h[:])
				require.NoError(t, err)
				assert.True(t, stored.ReplacedBy == "", "no pair was issued from it")

				password := adminPassword
				if tc.name == "SetPassword" {
					password = "a brand new password"
				}
				again, err := e.svc.Login(ctx, e.brand, auth.LoginRequest{Username: "admin", Password: password})
				require.NoError(t, err, "a new login works")
				_, err = e.svc.Authenticate(ctx, e.brand, again.AuthKey)
				assert.NoError(t, err)
				next, err := e.svc.Refresh(ctx, e.brand, auth.RefreshRequest{RefreshAuthKey: again.RefreshAuthKey})
				require.NoError(t, err, "and refreshes")
				h = sha256.Sum256([]byte(next.AuthKey))
				stored, err = e.store.KeyPairByAuthHash(ctx, h[:])
				require.NoError(t, err)
				user, err := e.store.UserByID(ctx, e.admin.ID)
				require.NoError(t, err)
				assert.Equal(t, user.SessionEpoch, stored.SessionEpoch, "the refreshed pair keeps its epoch")
			})
		}
	}
}

// TestCachedKeyOfAnOlderEpochExpires checks the bound on a bump the
// Service does not hear of: the cached answer is trusted no longer than
// the key cache's TTL.
func TestCachedKeyOfAnOlderEpochExpires(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		s := e.login(t)
		_, err := e.svc.Authenticate(ctx, e.brand, s.AuthKey)
		require.NoError(t, err)
		_, err = e.store.UpdateUser(ctx, e.admin.ID, func(r *auth.UserRecord) error {
			r.SessionEpoch++
			return nil
		})
		require.NoError(t, err)
		e.clock.Add(auth.DefaultKeyCacheTTL)
		_, err = e.svc.Authenticate(ctx, e.brand, s.AuthKey)
		assertRefused(t, err, "past the cache bound")
	})
}
