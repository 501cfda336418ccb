package storagetest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/storage"
)

// runSessions runs the auth.Store scenarios that end sessions: a pair is
// never stored on a revoked device, nor after its user's session epoch
// moved on (docs/security.md, Sessions end when they should).
func runSessions(t *testing.T, newStore NewStore) {
	runScenarios(t, newStore, []scenario{
		{"SessionEpochRoundTrips", testSessionEpochRoundTrips},
		{"CreateRefusedOnRevokedDevice", testSessionCreateRefusedOnRevokedDevice},
		{"RotateRefusedOnRevokedDevice", testSessionRotateRefusedOnRevokedDevice},
		{"CreateRefusedAfterEpoch", testSessionCreateRefusedAfterEpoch},
		{"RotateRefusedAfterEpoch", testSessionRotateRefusedAfterEpoch},
		{"RefusedForInactiveUser", testSessionRefusedForInactiveUser},
	})
}

// epochKey returns testKey(u, familyID, deviceID) of u's session epoch, as
// a login that read u issues it.
func epochKey(u auth.UserRecord, familyID, deviceID string) auth.KeyPair {
	k := testKey(u, familyID, deviceID)
	k.SessionEpoch = u.SessionEpoch
	return k
}

// assertNotStored checks that no pair has k's auth hash.
func assertNotStored(t *testing.T, s storage.Storage, k auth.KeyPair, msg string) {
	t.Helper()
	_, err := s.KeyPairByAuthHash(t.Context(), k.AuthHash)
	assert.ErrorIs(t, err, auth.ErrKeyPairNotFound, msg)
}

// bumpEpoch increments the session epoch of u in s and returns the user.
func bumpEpoch(t *testing.T, s storage.Storage, u auth.UserRecord) auth.UserRecord {
	t.Helper()
	got, err := s.UpdateUser(t.Context(), u.ID, func(r *auth.UserRecord) error {
		r.SessionEpoch++
		return nil
	})
	require.NoError(t, err)
	return got
}

// testSessionEpochRoundTrips checks that a user's and a pair's
// SessionEpoch are stored and read back, and that UpdateUser changes the
// user's.
func testSessionEpochRoundTrips(t *testing.T, newStore NewStore) {
	s := newStore(t)
	ctx := t.Context()
	b := seedBrand(t, s, "epoch.example.com")
	u := testUser(b.ID, "uma", "")
	u.SessionEpoch = 7
	require.NoError(t, s.CreateUser(ctx, u))
	got, err := s.UserByID(ctx, u.ID)
	require.NoError(t, err)
	assert.Equal(t, int64(7), got.SessionEpoch)
	got = bumpEpoch(t, s, u)
	assert.Equal(t, int64(8), got.SessionEpoch)
	got, err = s.UserByUsername(ctx, b.ID, u.UsernameKey)
	require.NoError(t, err)
	assert.Equal(t, int64(8), got.SessionEpoch, "UpdateUser stores the new epoch")

	k := epochKey(got, "", "")
	require.NoError(t, s.CreateKeyPair(ctx, k))
	stored, err := s.KeyPairByAuthHash(ctx, k.AuthHash)
	require.NoError(t, err)
	assert.Equal(t, k, stored, "the pair's epoch is stored")
}

// testSessionCreateRefusedOnRevokedDevice checks that CreateKeyPair refuses,
// storing nothing, a pair on a revoked device, and stores one on a live
// device or on an ID that names no device.
func testSessionCreateRefusedOnRevokedDevice(t *testing.T, newStore NewStore) {
	s, _, u := openWithUser(t, newStore, "vic")
	ctx := t.Context()
	live := seedDevice(t, s, u, "LIVE")
	gone := seedDevice(t, s, u, "GONE")
	_, err := s.RevokeDevice(ctx, u.ID, gone.ID, t0.Add(time.Minute))
	require.NoError(t, err)

	k := epochKey(u, "", gone.ID)
	assert.ErrorIs(t, s.CreateKeyPair(ctx, k), auth.ErrDeviceRevoked)
	assertNotStored(t, s, k, "a pair on a revoked device is not stored")
	assert.NoError(t, s.CreateKeyPair(ctx, epochKey(u, "", live.ID)), "a live device")
	assert.NoError(t, s.CreateKeyPair(ctx, epochKey(u, "", "no-such-device")), "an unknown device ID")
}

// testSessionRotateRefusedOnRevokedDevice checks that RotateKeyPair refuses
// a successor on a revoked device and leaves the old pair as it was.
func testSessionRotateRefusedOnRevokedDevice(t *testing.T, newStore NewStore) {
	s, _, u := openWithUser(t, newStore, "wes")
	ctx := t.Context()
	gone := seedDevice(t, s, u, "GONE")
	old := epochKey(u, "", "")
	require.NoError(t, s.CreateKeyPair(ctx, old))
	_, err := s.RevokeDevice(ctx, u.ID, gone.ID, t0.Add(time.Minute))
	require.NoError(t, err)

	next := epochKey(u, old.FamilyID, gone.ID)
	assert.ErrorIs(t, s.RotateKeyPair(ctx, old.ID, t0.Add(time.Hour), next), auth.ErrDeviceRevoked)
	assertNotStored(t, s, next, "a refused rotation stores nothing")
	got, err := s.KeyPairByAuthHash(ctx, old.AuthHash)
	require.NoError(t, err)
	assert.Equal(t, old, got, "a refused rotation leaves the old pair as it was")
}

// testSessionCreateRefusedAfterEpoch checks that CreateKeyPair refuses a
// pair whose SessionEpoch is not its user's (older or newer).
func testSessionCreateRefusedAfterEpoch(t *testing.T, newStore NewStore) {
	s, _, u := openWithUser(t, newStore, "xia")
	ctx := t.Context()
	stale := epochKey(u, "", "") // read the user at epoch 0
	u = bumpEpoch(t, s, u)
	assert.ErrorIs(t, s.CreateKeyPair(ctx, stale), auth.ErrKeysRevoked)
	assertNotStored(t, s, stale, "a stale pair is not stored")
	ahead := epochKey(u, "", "")
	ahead.SessionEpoch = u.SessionEpoch + 1
	assert.ErrorIs(t, s.CreateKeyPair(ctx, ahead), auth.ErrKeysRevoked, "the epochs must be equal")
	assert.NoError(t, s.CreateKeyPair(ctx, epochKey(u, "", "")), "a pair of the current epoch")
}

// testSessionRotateRefusedAfterEpoch checks that RotateKeyPair refuses a
// successor of a stale epoch, leaving the old pair unrevoked, and that the
// old pair's own epoch does not matter.
func testSessionRotateRefusedAfterEpoch(t *testing.T, newStore NewStore) {
	s, _, u := openWithUser(t, newStore, "yan")
	ctx := t.Context()
	old := epochKey(u, "", "")
	require.NoError(t, s.CreateKeyPair(ctx, old))
	stale := epochKey(u, old.FamilyID, "")
	u = bumpEpoch(t, s, u)

	at := t0.Add(time.Hour)
	err := s.RotateKeyPair(ctx, old.ID, at, stale)
	assert.ErrorIs(t, err, auth.ErrKeysRevoked)
	assert.Equal(t, envelope.KindConflict, envelope.KindOf(err))
	assertNotStored(t, s, stale, "a refused rotation stores nothing")
	got, err := s.KeyPairByAuthHash(ctx, old.AuthHash)
	require.NoError(t, err)
	assert.True(t, got.RevokedAt.IsZero(), "a refused rotation leaves the old pair unrevoked")

	assert.NoError(t, s.RotateKeyPair(ctx, old.ID, at, epochKey(u, old.FamilyID, "")),
		"a pair of an older epoch rotates into one of the current epoch")
}

// testSessionRefusedForInactiveUser checks that CreateKeyPair and
// RotateKeyPair refuse a pair of a user who is not active
// (auth.ErrKeysRevoked), leaving the old pair as it was, and store it
// again once the user is active: deactivation leaves the session epoch
// alone, so this check is what keeps a login or refresh racing a
// deactivation from storing a pair.
func testSessionRefusedForInactiveUser(t *testing.T, newStore NewStore) {
	s, _, u := openWithUser(t, newStore, "zoe")
	ctx := t.Context()
	old := epochKey(u, "", "")
	require.NoError(t, s.CreateKeyPair(ctx, old))
	setStatus := func(st auth.Status) {
		t.Helper()
		_, err := s.UpdateUser(ctx, u.ID, func(r *auth.UserRecord) error {
			r.Status = st
			return nil
		})
		require.NoError(t, err)
	}
	setStatus(auth.StatusInactive)

	fresh := epochKey(u, "", "")
	assert.ErrorIs(t, s.CreateKeyPair(ctx, fresh), auth.ErrKeysRevoked, "a login's pair")
	assertNotStored(t, s, fresh, "a refused pair is not stored")
	next := epochKey(u, old.FamilyID, "")
	assert.ErrorIs(t, s.RotateKeyPair(ctx, old.ID, t0.Add(time.Hour), next), auth.ErrKeysRevoked, "a refresh's pair")
	assertNotStored(t, s, next, "a refused rotation stores nothing")
	got, err := s.KeyPairByAuthHash(ctx, old.AuthHash)
	require.NoError(t, err)
	assert.Equal(t, old, got, "a refused rotation leaves the old pair as it was")

	setStatus(auth.StatusActive)
	assert.NoError(t, s.CreateKeyPair(ctx, fresh), "active again")
	assert.NoError(t, s.RotateKeyPair(ctx, old.ID, t0.Add(time.Hour), next), "active again")
}
