package storagetest

import (
	"context"
	"crypto/sha256"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/storage"
)

// t0 is the time auth records are created at in these tests.
var t0 = time.Date(2026, 3, 4, 5, 6, 7, 8000, time.UTC)

// testUser returns a user record of brandID as the service would build it.
func testUser(brandID, username, email string, perms ...auth.Permission) auth.UserRecord {
	return auth.UserRecord{
		User: auth.User{
			ID: uuid.NewString(), BrandID: brandID, Username: username, EmailAddress: email,
			PhoneNumber: "+1 555 0100", Permissions: perms, Status: auth.StatusActive, CreatedAt: t0, UpdatedAt: t0,
		},
		UsernameKey: auth.FoldKey(username), EmailKey: auth.FoldKey(email),
		PasswordHash: "$argon2id$v=19$m=8,t=1,p=1$c2FsdHNhbHQ$a2V5a2V5a2V5a2V5a2V5aw",
	}
}

// testKey returns an unrevoked key pair of u with random hashes.
func testKey(u auth.UserRecord, familyID, deviceID string) auth.KeyPair {
	id := uuid.NewString()
	if familyID == "" {
		familyID = id
	}
	ah, rh := sha256.Sum256([]byte("auth"+id)), sha256.Sum256([]byte("refresh"+id))
	return auth.KeyPair{
		ID: id, FamilyID: familyID, BrandID: u.BrandID, UserID: u.ID, DeviceID: deviceID,
		AuthHash: ah[:], RefreshHash: rh[:], CreatedAt: t0,
		AuthExpiresAt: t0.Add(24 * time.Hour), RefreshExpiresAt: t0.Add(30 * 24 * time.Hour),
	}
}

// seedBrand stores a brand with the given URL.
func seedBrand(t *testing.T, s storage.Storage, url string) auth.Brand {
	t.Helper()
	b := testBrand(url)
	require.NoError(t, s.CreateBrand(t.Context(), b))
	return b
}

// seedUser stores a brand and a user in it.
func seedUser(t *testing.T, s storage.Storage, username string) (auth.Brand, auth.UserRecord) {
	t.Helper()
	b := seedBrand(t, s, username+".example.com")
	u := testUser(b.ID, username, username+"@example.com", auth.PermAnalyticsWrite)
	require.NoError(t, s.CreateUser(t.Context(), u))
	return b, u
}

// testDevice returns a device of u with the given code, created and last
// seen at at.
func testDevice(u auth.UserRecord, code string, at time.Time) auth.Device {
	return auth.Device{ID: uuid.NewString(), BrandID: u.BrandID, UserID: u.ID, Code: code,
		Token: "tok", Name: "Phone", AppVersion: "1.0", OS: "iOS", CreatedAt: at, LastSeenAt: at}
}

// openWithUser opens a fresh store holding a brand and a user of it
// (seedUser).
func openWithUser(t *testing.T, newStore NewStore, username string) (storage.Storage, auth.Brand, auth.UserRecord) {
	t.Helper()
	s := open(t, newStore)
	b, u := seedUser(t, s, username)
	return s, b, u
}

// seedDevice stores a device of u with the given code (testDevice).
func seedDevice(t *testing.T, s storage.Storage, u auth.UserRecord, code string) auth.Device {
	t.Helper()
	d, _, err := s.UpsertDevice(t.Context(), testDevice(u, code, t0))
	require.NoError(t, err)
	return d
}

// assertListedInOrder checks that list(owner) answers the records whose
// IDs are want, in that order, and that list of an unknown owner answers
// none.
func assertListedInOrder[T any](t *testing.T, list func(context.Context, string) ([]T, error), owner string,
	want []string, id func(T) string) {
	t.Helper()
	got, err := list(t.Context(), owner)
	require.NoError(t, err)
	assert.Equal(t, want, codesOf(got, id))
	got, err = list(t.Context(), uuid.NewString())
	require.NoError(t, err)
	assert.Empty(t, got, "an unknown owner has none")
}
