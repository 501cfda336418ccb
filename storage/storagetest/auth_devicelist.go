package storagetest

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
)

// The auth.DeviceStore scenarios: the devices a user is signed in on,
// ending one, and the last access of each.

// testDeviceSignedIn checks that SignedInDevices lists the user's devices
// holding a live key pair, in creation order, and none that is revoked,
// ended, or whose pairs are all revoked or expired; and that DeviceByID
// finds a device of its own user only.
func testDeviceSignedIn(t *testing.T, newStore NewStore) {
	s, _, u := openWithUser(t, newStore, "wes")
	ctx := t.Context()
	_, other := seedUser(t, s, "xia")
	now := t0.Add(time.Hour)
	devices := map[string]auth.Device{}
	for _, code := range []string{"LIVE", "NOKEY", "REVOKEDKEY", "EXPIRED", "REVOKED", "ENDED", "LIVE2"} {
		devices[code] = seedDevice(t, s, u, code)
		if code == "NOKEY" {
			continue
		}
		k := testKey(u, "", devices[code].ID)
		if code == "EXPIRED" {
			k.RefreshExpiresAt = now
		}
		require.NoError(t, s.CreateKeyPair(ctx, k))
		if code == "REVOKEDKEY" {
			_, err := s.RevokeKeyPairs(ctx, auth.KeySelector{ID: k.ID}, t0)
			require.NoError(t, err)
		}
	}
	otherDevice := seedDevice(t, s, other, "LIVE")
	require.NoError(t, s.CreateKeyPair(ctx, testKey(other, "", otherDevice.ID)))
	_, err := s.RevokeDevice(ctx, u.ID, devices["REVOKED"].ID, t0)
	require.NoError(t, err)
	_, err = s.EndDevice(ctx, u.ID, devices["ENDED"].ID, t0)
	require.NoError(t, err)
	// A pair stored on the ended device after it ended (no login does
	// that: a login clears EndedAt) does not sign it in again.
	require.NoError(t, s.CreateKeyPair(ctx, testKey(u, "", devices["ENDED"].ID)))

	list, err := s.SignedInDevices(ctx, u.ID, now)
	require.NoError(t, err)
	var codes []string
	for _, d := range list {
		codes = append(codes, d.Code)
	}
	assert.Equal(t, []string{"LIVE", "LIVE2"}, codes)
	assert.Equal(t, devices["LIVE"], list[0], "read back as stored")
	none, err := s.SignedInDevices(ctx, uuid.NewString(), now)
	require.NoError(t, err)
	assert.Empty(t, none)

	got, err := s.DeviceByID(ctx, u.ID, devices["LIVE"].ID)
	require.NoError(t, err)
	assert.Equal(t, devices["LIVE"], got)
	_, err = s.DeviceByID(ctx, other.ID, devices["LIVE"].ID)
	assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err), "another user's device")
	_, err = s.DeviceByID(ctx, u.ID, uuid.NewString())
	assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err))
}

// testDeviceEnd checks that EndDevice marks a user's own device ended and
// revokes its pairs only, keeps the first time, leaves a revoked device as
// it is, and that a login's upsert signs an ended device in again.
func testDeviceEnd(t *testing.T, newStore NewStore) {
	s, _, u := openWithUser(t, newStore, "yan")
	ctx := t.Context()
	_, other := seedUser(t, s, "zoe")
	d := seedDevice(t, s, u, "PHONE")
	onDevice, elsewhere := testKey(u, "", d.ID), testKey(u, "", "")
	require.NoError(t, s.CreateKeyPair(ctx, onDevice))
	require.NoError(t, s.CreateKeyPair(ctx, elsewhere))

	_, err := s.EndDevice(ctx, other.ID, d.ID, t0)
	assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err), "another user's device")
	_, err = s.EndDevice(ctx, u.ID, uuid.NewString(), t0)
	assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err))

	at := t0.Add(time.Minute)
	got, err := s.EndDevice(ctx, u.ID, d.ID, at)
	require.NoError(t, err)
	assert.True(t, got.EndedAt.Equal(at))
	assert.False(t, got.Revoked(), "ended is not revoked")
	k, err := s.KeyPairByAuthHash(ctx, onDevice.AuthHash)
	require.NoError(t, err)
	assert.True(t, k.RevokedAt.Equal(at), "the device's pairs are revoked")
	k, err = s.KeyPairByAuthHash(ctx, elsewhere.AuthHash)
	require.NoError(t, err)
	assert.True(t, k.RevokedAt.IsZero(), "and no other")
	got, err = s.EndDevice(ctx, u.ID, d.ID, at.Add(time.Hour))
	require.NoError(t, err)
	assert.True(t, got.EndedAt.Equal(at), "ending again keeps the first time")

	login := testDevice(u, "PHONE", at.Add(time.Hour))
	login.LastAccessAt = at.Add(time.Hour)
	stored, created, err := s.UpsertDevice(ctx, login)
	require.NoError(t, err)
	assert.False(t, created)
	assert.True(t, stored.EndedAt.IsZero(), "a login signs an ended device in again")
	assert.True(t, stored.LastAccessAt.Equal(login.LastAccessAt), "and is its last access")
	read, err := s.DeviceByCode(ctx, u.ID, "PHONE")
	require.NoError(t, err)
	assert.Equal(t, stored, read)

	r := seedDevice(t, s, u, "REVOKED")
	_, err = s.RevokeDevice(ctx, u.ID, r.ID, t0)
	require.NoError(t, err)
	got, err = s.EndDevice(ctx, u.ID, r.ID, at)
	require.NoError(t, err)
	assert.True(t, got.EndedAt.IsZero(), "a revoked device is left as it is")

	ua := testDevice(u, "server-made", t0)
	ua.FromUserAgent = true
	stored, _, err = s.UpsertDevice(ctx, ua)
	require.NoError(t, err)
	read, err = s.DeviceByCode(ctx, u.ID, "server-made")
	require.NoError(t, err)
	assert.True(t, read.FromUserAgent, "FromUserAgent is stored")
	assert.Equal(t, stored, read)
}

// testDeviceTouch checks that TouchDevice writes a device's last access
// when it is unset or not after since, and leaves it otherwise, and that
// an unknown device is no error.
func testDeviceTouch(t *testing.T, newStore NewStore) {
	s, _, u := openWithUser(t, newStore, "abe")
	ctx := t.Context()
	d := seedDevice(t, s, u, "PHONE")
	require.True(t, d.LastAccessAt.IsZero())
	read := func() time.Time {
		got, err := s.DeviceByCode(ctx, u.ID, "PHONE")
		require.NoError(t, err)
		return got.LastAccessAt
	}
	at := t0.Add(time.Hour)
	require.NoError(t, s.TouchDevice(ctx, d.ID, at, at.Add(-time.Minute)))
	assert.True(t, read().Equal(at), "unset: written")
	require.NoError(t, s.TouchDevice(ctx, d.ID, at.Add(30*time.Second), at.Add(-30*time.Second)))
	assert.True(t, read().Equal(at), "written within the interval: left")
	require.NoError(t, s.TouchDevice(ctx, d.ID, at.Add(time.Minute), at))
	assert.True(t, read().Equal(at.Add(time.Minute)), "not after since: written")
	assert.NoError(t, s.TouchDevice(ctx, uuid.NewString(), at, at))
}
