package storagetest

// The errors of the auth store contract: each failure a caller must tell
// apart is one of auth's sentinel errors, and reads the same (public
// message, kind and code) on every store.

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/storage"
)

// storeFailure is one call that must fail with want.
type storeFailure struct {
	name string
	want *envelope.Error
	call func(ctx context.Context) error
}

// errorFixture is what the failing calls act on: a brand with a user, a
// second user, a key pair of the first user (and a revoked one), and a
// device of the first user.
type errorFixture struct {
	brand, other auth.Brand
	user, second auth.UserRecord
	key, revoked auth.KeyPair
	device       auth.Device
}

// seedErrorFixture stores the records of an errorFixture.
func seedErrorFixture(t *testing.T, s storage.Storage) errorFixture {
	t.Helper()
	ctx := t.Context()
	var f errorFixture
	f.brand, f.user = seedUser(t, s, "erin")
	f.other = testBrand("other-errors.example.com")
	require.NoError(t, s.CreateBrand(ctx, f.other))
	f.second = testUser(f.brand.ID, "frank", "frank@example.com")
	require.NoError(t, s.CreateUser(ctx, f.second))
	f.key = testKey(f.user, "", "")
	require.NoError(t, s.CreateKeyPair(ctx, f.key))
	f.revoked = testKey(f.user, "", "")
	require.NoError(t, s.CreateKeyPair(ctx, f.revoked))
	_, err := s.RevokeKeyPairs(ctx, auth.KeySelector{ID: f.revoked.ID}, t0)
	require.NoError(t, err)
	f.device = auth.Device{ID: "device-errors", BrandID: f.brand.ID, UserID: f.user.ID, Code: "code-1", CreatedAt: t0, LastSeenAt: t0}
	_, _, err = s.UpsertDevice(ctx, f.device)
	require.NoError(t, err)
	return f
}

// brandFailures are the failing calls of the brand methods.
func brandFailures(s storage.Storage, f errorFixture) []storeFailure {
	sameID, sameURL, moved, missing := testBrand("new-errors.example.com"), testBrand(f.brand.URL), f.other, testBrand("missing.example.com")
	sameID.ID = f.brand.ID
	moved.URL = f.brand.URL
	return []storeFailure{
		{"BrandByID missing", auth.ErrBrandNotFound, func(ctx context.Context) error { _, err := s.BrandByID(ctx, "missing"); return err }},
		{"BrandByURL missing", auth.ErrBrandNotFound, func(ctx context.Context) error { _, err := s.BrandByURL(ctx, missing.URL); return err }},
		{"UpdateBrand missing", auth.ErrBrandNotFound, func(ctx context.Context) error { return s.UpdateBrand(ctx, missing) }},
		{"CreateBrand same ID", auth.ErrBrandExists, func(ctx context.Context) error { return s.CreateBrand(ctx, sameID) }},
		{"CreateBrand same URL", auth.ErrBrandExists, func(ctx context.Context) error { return s.CreateBrand(ctx, sameURL) }},
		{"UpdateBrand to a taken URL", auth.ErrBrandExists, func(ctx context.Context) error { return s.UpdateBrand(ctx, moved) }},
	}
}

// userFailures are the failing calls of the user methods.
func userFailures(s storage.Storage, f errorFixture) []storeFailure {
	noBrand := testUser("missing", "gina", "")
	sameID := testUser(f.brand.ID, "hank", "")
	sameID.ID = f.user.ID
	sameName := testUser(f.brand.ID, f.user.Username, "")
	sameEmail := testUser(f.brand.ID, "ivan", f.user.EmailAddress)
	rename := func(u *auth.UserRecord) error {
		u.Username, u.UsernameKey = f.user.Username, f.user.UsernameKey
		return nil
	}
	return []storeFailure{
		{"CreateUser in a missing brand", auth.ErrBrandNotFound, func(ctx context.Context) error { return s.CreateUser(ctx, noBrand) }},
		{"CreateUser same ID", auth.ErrUserExists, func(ctx context.Context) error { return s.CreateUser(ctx, sameID) }},
		{"CreateUser same username", auth.ErrUserExists, func(ctx context.Context) error { return s.CreateUser(ctx, sameName) }},
		{"CreateUser same email", auth.ErrUserExists, func(ctx context.Context) error { return s.CreateUser(ctx, sameEmail) }},
		{"UpdateUser to a taken username", auth.ErrUserExists, func(ctx context.Context) error { _, err := s.UpdateUser(ctx, f.second.ID, rename); return err }},
		{"UpdateUser missing", auth.ErrUserNotFound, func(ctx context.Context) error { _, err := s.UpdateUser(ctx, "missing", rename); return err }},
		{"UserByID missing", auth.ErrUserNotFound, func(ctx context.Context) error { _, err := s.UserByID(ctx, "missing"); return err }},
		{"UserByUsername missing", auth.ErrUserNotFound, func(ctx context.Context) error { _, err := s.UserByUsername(ctx, f.brand.ID, "missing"); return err }},
		{"UserByEmail missing", auth.ErrUserNotFound, func(ctx context.Context) error {
			_, err := s.UserByEmail(ctx, f.brand.ID, "missing@example.com")
			return err
		}},
		{"UserByEmail empty", auth.ErrUserNotFound, func(ctx context.Context) error { _, err := s.UserByEmail(ctx, f.brand.ID, ""); return err }},
	}
}

// keyFailures are the failing calls of the key pair methods.
func keyFailures(s storage.Storage, f errorFixture) []storeFailure {
	noUser := testKey(auth.UserRecord{User: auth.User{ID: "missing", BrandID: f.brand.ID}}, "", "")
	short := testKey(f.user, "", "")
	short.AuthHash = short.AuthHash[:16]
	sameID, sameAuth, sameRefresh := testKey(f.user, "", ""), testKey(f.user, "", ""), testKey(f.user, "", "")
	sameID.ID = f.key.ID
	sameAuth.AuthHash = f.key.AuthHash
	sameRefresh.RefreshHash = f.key.RefreshHash
	missing := make([]byte, 32)
	return []storeFailure{
		{"CreateKeyPair of a missing user", auth.ErrUserNotFound, func(ctx context.Context) error { return s.CreateKeyPair(ctx, noUser) }},
		{"CreateKeyPair short hash", auth.ErrKeyHashSize, func(ctx context.Context) error { return s.CreateKeyPair(ctx, short) }},
		{"CreateKeyPair same ID", auth.ErrKeyPairExists, func(ctx context.Context) error { return s.CreateKeyPair(ctx, sameID) }},
		{"CreateKeyPair same auth hash", auth.ErrKeyPairExists, func(ctx context.Context) error { return s.CreateKeyPair(ctx, sameAuth) }},
		{"CreateKeyPair same refresh hash", auth.ErrKeyPairExists, func(ctx context.Context) error { return s.CreateKeyPair(ctx, sameRefresh) }},
		{"KeyPairByAuthHash missing", auth.ErrKeyPairNotFound, func(ctx context.Context) error { _, err := s.KeyPairByAuthHash(ctx, missing); return err }},
		{"KeyPairByRefreshHash missing", auth.ErrKeyPairNotFound, func(ctx context.Context) error { _, err := s.KeyPairByRefreshHash(ctx, missing); return err }},
		{"RotateKeyPair missing", auth.ErrKeyPairNotFound, func(ctx context.Context) error {
			return s.RotateKeyPair(ctx, "missing", t0, testKey(f.user, "", ""))
		}},
		{"RotateKeyPair revoked", auth.ErrKeyPairRevoked, func(ctx context.Context) error {
			return s.RotateKeyPair(ctx, f.revoked.ID, t0, testKey(f.user, f.revoked.FamilyID, ""))
		}},
		{"RotateKeyPair to a short hash", auth.ErrKeyHashSize, func(ctx context.Context) error { return s.RotateKeyPair(ctx, f.key.ID, t0, short) }},
		{"ReissueKeyPair missing", auth.ErrKeyPairNotFound, func(ctx context.Context) error {
			return s.ReissueKeyPair(ctx, "missing", t0.AddDate(0, 0, -1), testKey(f.user, "", ""))
		}},
		{"ReissueKeyPair not rotated", auth.ErrKeyPairRevoked, func(ctx context.Context) error {
			return s.ReissueKeyPair(ctx, f.key.ID, t0.AddDate(0, 0, -1), testKey(f.user, f.key.FamilyID, ""))
		}},
		{"ReissueKeyPair revoked, not rotated", auth.ErrKeyPairRevoked, func(ctx context.Context) error {
			return s.ReissueKeyPair(ctx, f.revoked.ID, t0.AddDate(0, 0, -1), testKey(f.user, f.revoked.FamilyID, ""))
		}},
		{"RevokeKeyPairs empty selector", auth.ErrEmptySelector, func(ctx context.Context) error {
			_, err := s.RevokeKeyPairs(ctx, auth.KeySelector{}, t0)
			return err
		}},
	}
}

// deviceFailures are the failing calls of the device methods.
func deviceFailures(s storage.Storage, f errorFixture) []storeFailure {
	noUser := f.device
	noUser.UserID, noUser.ID = "missing", "device-no-user"
	sameID := f.device
	sameID.Code = "code-2"
	return []storeFailure{
		{"UpsertDevice of a missing user", auth.ErrUserNotFound, func(ctx context.Context) error { _, _, err := s.UpsertDevice(ctx, noUser); return err }},
		{"UpsertDevice new code, taken ID", auth.ErrDeviceExists, func(ctx context.Context) error { _, _, err := s.UpsertDevice(ctx, sameID); return err }},
		{"DeviceByCode missing", auth.ErrDeviceNotFound, func(ctx context.Context) error { _, err := s.DeviceByCode(ctx, f.user.ID, "missing"); return err }},
		{"RevokeDevice missing", auth.ErrDeviceNotFound, func(ctx context.Context) error { _, err := s.RevokeDevice(ctx, f.user.ID, "missing", t0); return err }},
		{"RevokeDevice of another user", auth.ErrDeviceNotFound, func(ctx context.Context) error {
			_, err := s.RevokeDevice(ctx, f.second.ID, f.device.ID, t0)
			return err
		}},
	}
}

// testErrorsReadTheSame provokes every failure of the auth store contract
// and checks that the store returns the sentinel error (errors.Is) and that
// it reads as the sentinel does: public message, kind and code. Two stores
// that pass read the same to every client.
func testErrorsReadTheSame(t *testing.T, newStore NewStore) {
	t.Parallel()
	s := open(t, newStore)
	f := seedErrorFixture(t, s)
	var failures []storeFailure
	for _, group := range []func(storage.Storage, errorFixture) []storeFailure{
		brandFailures, userFailures, keyFailures, deviceFailures,
	} {
		failures = append(failures, group(s, f)...)
	}
	for _, tc := range failures {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call(t.Context())
			require.Error(t, err)
			assert.ErrorIs(t, err, tc.want)
			got := envelope.As(err)
			assert.Equal(t, tc.want.Kind, got.Kind, "kind")
			assert.Equal(t, tc.want.Code, got.Code, "code")
			assert.Equal(t, tc.want.Message, got.Message, "public message")
			assert.Equal(t, tc.want.Items(), got.Items(), "envelope items")
		})
	}
	t.Run("NothingWritten", func(t *testing.T) { assertErrorFixtureIntact(t, s, f) })
}

// assertErrorFixtureIntact checks that the failed calls left the fixture as
// it was.
func assertErrorFixtureIntact(t *testing.T, s storage.Storage, f errorFixture) {
	ctx := t.Context()
	b, err := s.BrandByID(ctx, f.other.ID)
	require.NoError(t, err)
	assert.Equal(t, f.other, b)
	u, err := s.UserByID(ctx, f.second.ID)
	require.NoError(t, err)
	assert.Equal(t, f.second, u)
	k, err := s.KeyPairByAuthHash(ctx, f.key.AuthHash)
	require.NoError(t, err)
	assert.True(t, k.RevokedAt.IsZero(), "a failed rotation revokes nothing")
	d, err := s.DeviceByCode(ctx, f.user.ID, f.device.Code)
	require.NoError(t, err)
	assert.False(t, d.Revoked())
	_, err = s.DeviceByCode(ctx, f.user.ID, "code-2")
	assert.ErrorIs(t, err, auth.ErrDeviceNotFound, "the conflicting device was not stored")
}
