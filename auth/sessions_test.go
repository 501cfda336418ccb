package auth_test

import (
	"context"
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

func (s *racyStore) CreateKeyPair(ctx context.Context, k auth.KeyPair) error {
	s.race(ctx, k)
	return s.Storage.CreateKeyPair(ctx, k)
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
// no session, and that nothing is stored for it (issue 15).
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
