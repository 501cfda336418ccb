package storagetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
)

// testDeviceUpsertAndFind checks that UpsertDevice creates a device, then
// updates it in place by its exact code, and that the user must exist.
func testDeviceUpsertAndFind(t *testing.T, newStore NewStore) {
	s, _, u := openWithUser(t, newStore, "rita")
	ctx := t.Context()
	d := testDevice(u, "ABC-1", t0)
	got, created, err := s.UpsertDevice(ctx, d)
	require.NoError(t, err)
	assert.True(t, created)
	assert.Equal(t, d, got)

	later := t0.Add(time.Hour)
	upd := testDevice(u, "ABC-1", later)
	upd.Token, upd.Name, upd.AppVersion, upd.OS = "tok2", "Tablet", "2.0", "Android"
	got, created, err = s.UpsertDevice(ctx, upd)
	require.NoError(t, err)
	assert.False(t, created)
	want := d
	want.Token, want.Name, want.AppVersion, want.OS, want.LastSeenAt = "tok2", "Tablet", "2.0", "Android", later
	assert.Equal(t, want, got, "a known device keeps its ID and CreatedAt")
	stored, err := s.DeviceByCode(ctx, u.ID, "ABC-1")
	require.NoError(t, err)
	assert.Equal(t, want, stored)
	list, err := s.ListDevices(ctx, u.ID)
	require.NoError(t, err)
	assert.Equal(t, []auth.Device{want}, list, "an upsert of a known code adds no device")

	_, err = s.DeviceByCode(ctx, u.ID, "abc-1")
	assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err), "codes compare exactly")
	_, err = s.DeviceByCode(ctx, uuid.NewString(), "ABC-1")
	assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err), "a device is found for its own user only")
	_, _, err = s.UpsertDevice(ctx, testDevice(auth.UserRecord{User: auth.User{ID: uuid.NewString()}}, "X", t0))
	assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err), "the user must exist")
}

// testDeviceListInCreationOrder checks that ListDevices lists a user's
// devices, only, in creation order.
func testDeviceListInCreationOrder(t *testing.T, newStore NewStore) {
	s, _, u := openWithUser(t, newStore, "sam")
	_, other := seedUser(t, s, "tess")
	seedDevice(t, s, other, "D0")
	var want []string
	for i := range 4 {
		want = append(want, seedDevice(t, s, u, fmt.Sprintf("D%d", i)).ID)
	}
	assertListedInOrder(t, s.ListDevices, u.ID, want, func(r auth.Device) string { return r.ID })
}

// testDeviceRevoke checks that RevokeDevice revokes a user's own device and
// its key pairs, keeps the first time, and that an upsert cannot revive it.
func testDeviceRevoke(t *testing.T, newStore NewStore) {
	s, _, u := openWithUser(t, newStore, "uma")
	ctx := t.Context()
	_, other := seedUser(t, s, "vic")
	d := seedDevice(t, s, u, "PHONE")
	onDevice := testKey(u, "", d.ID)
	elsewhere := testKey(u, "", "")
	require.NoError(t, s.CreateKeyPair(ctx, onDevice))
	require.NoError(t, s.CreateKeyPair(ctx, elsewhere))

	_, err := s.RevokeDevice(ctx, other.ID, d.ID, t0)
	assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err), "another user's device")
	at := t0.Add(time.Minute)
	got, err := s.RevokeDevice(ctx, u.ID, d.ID, at)
	require.NoError(t, err)
	assert.True(t, got.RevokedAt.Equal(at))
	k, err := s.KeyPairByAuthHash(ctx, onDevice.AuthHash)
	require.NoError(t, err)
	assert.True(t, k.RevokedAt.Equal(at), "the device's keys are revoked with it")
	k, err = s.KeyPairByAuthHash(ctx, elsewhere.AuthHash)
	require.NoError(t, err)
	assert.True(t, k.RevokedAt.IsZero())

	read, err := s.DeviceByCode(ctx, u.ID, "PHONE")
	require.NoError(t, err)
	assert.True(t, read.RevokedAt.Equal(at), "a revoked device reads back revoked")

	got, err = s.RevokeDevice(ctx, u.ID, d.ID, at.Add(time.Hour))
	require.NoError(t, err)
	assert.True(t, got.RevokedAt.Equal(at), "revoking again keeps the first time")

	again := testDevice(u, "PHONE", at.Add(time.Hour))
	again.Token = "stolen"
	stored, created, err := s.UpsertDevice(ctx, again)
	require.NoError(t, err)
	assert.False(t, created)
	assert.True(t, stored.Revoked(), "a revoked device stays revoked")
	assert.Equal(t, "tok", stored.Token, "and unchanged")
	_, err = s.RevokeDevice(ctx, u.ID, uuid.NewString(), at)
	assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err))
}
