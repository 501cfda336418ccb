package storagetest

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
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

// seedUser stores a brand and a user in it.
func seedUser(t *testing.T, s storage.Storage, username string) (auth.Brand, auth.UserRecord) {
	t.Helper()
	b := testBrand(username + ".example.com")
	require.NoError(t, s.CreateBrand(t.Context(), b))
	u := testUser(b.ID, username, username+"@example.com", auth.PermAnalyticsWrite)
	require.NoError(t, s.CreateUser(t.Context(), u))
	return b, u
}

func runAuth(t *testing.T, newStore NewStore) {
	t.Run("Users", func(t *testing.T) { runUsers(t, newStore) })
	t.Run("KeyPairs", func(t *testing.T) { runKeyPairs(t, newStore) })
	t.Run("Devices", func(t *testing.T) { runDevices(t, newStore) })
}

func runUsers(t *testing.T, newStore NewStore) {
	t.Run("CreateAndFind", func(t *testing.T) {
		t.Parallel()
		s := open(t, newStore)
		ctx := t.Context()
		b, u := seedUser(t, s, "Alice")

		got, err := s.UserByID(ctx, u.ID)
		require.NoError(t, err)
		assert.Equal(t, u, got)
		got, err = s.UserByUsername(ctx, b.ID, "alice")
		require.NoError(t, err)
		assert.Equal(t, u, got)
		got, err = s.UserByEmail(ctx, b.ID, "alice@example.com")
		require.NoError(t, err)
		assert.Equal(t, u, got)

		noPerms := testUser(b.ID, "bob", "")
		require.NoError(t, s.CreateUser(ctx, noPerms))
		got, err = s.UserByID(ctx, noPerms.ID)
		require.NoError(t, err)
		assert.Nil(t, got.Permissions, "no permissions round-trip as nil")
		assert.Empty(t, got.EmailKey)

		got.Permissions = append(got.Permissions, auth.PermAll)
		again, err := s.UserByID(ctx, noPerms.ID)
		require.NoError(t, err)
		assert.Nil(t, again.Permissions, "a returned record is the caller's copy")
	})

	t.Run("NotFound", func(t *testing.T) {
		t.Parallel()
		s := open(t, newStore)
		ctx := t.Context()
		b, _ := seedUser(t, s, "carol")
		other := testBrand("elsewhere.example.com")
		require.NoError(t, s.CreateBrand(ctx, other))
		noEmail := testUser(b.ID, "dave", "")
		require.NoError(t, s.CreateUser(ctx, noEmail))

		_, err := s.UserByID(ctx, uuid.NewString())
		assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err))
		_, err = s.UserByUsername(ctx, other.ID, "carol")
		assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err), "a user is found in its own brand only")
		_, err = s.UserByEmail(ctx, other.ID, "carol@example.com")
		assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err))
		_, err = s.UserByEmail(ctx, b.ID, "")
		assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err), "an empty email key never matches")
		_, err = s.UpdateUser(ctx, uuid.NewString(), func(*auth.UserRecord) error { return nil })
		assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err))
		err = s.CreateUser(ctx, testUser(uuid.NewString(), "eve", ""))
		assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err), "the brand must exist")
	})

	t.Run("Conflicts", func(t *testing.T) {
		t.Parallel()
		s := open(t, newStore)
		ctx := t.Context()
		b, u := seedUser(t, s, "frank")
		other := testBrand("other.example.com")
		require.NoError(t, s.CreateBrand(ctx, other))

		sameName := testUser(b.ID, "FRANK", "")
		assert.Equal(t, envelope.KindConflict, envelope.KindOf(s.CreateUser(ctx, sameName)))
		sameEmail := testUser(b.ID, "frank2", "Frank@Example.com")
		assert.Equal(t, envelope.KindConflict, envelope.KindOf(s.CreateUser(ctx, sameEmail)))
		sameID := testUser(b.ID, "frank3", "")
		sameID.ID = u.ID
		assert.Equal(t, envelope.KindConflict, envelope.KindOf(s.CreateUser(ctx, sameID)))

		require.NoError(t, s.CreateUser(ctx, testUser(other.ID, "frank", "frank@example.com")),
			"names are unique per brand")
		require.NoError(t, s.CreateUser(ctx, testUser(b.ID, "noemail1", "")))
		require.NoError(t, s.CreateUser(ctx, testUser(b.ID, "noemail2", "")), "empty emails do not collide")

		list, err := s.ListUsers(ctx, b.ID)
		require.NoError(t, err)
		assert.Len(t, list, 3)
	})

	t.Run("Update", func(t *testing.T) {
		t.Parallel()
		s := open(t, newStore)
		ctx := t.Context()
		b, u := seedUser(t, s, "grace")
		taken := testUser(b.ID, "heidi", "heidi@example.com")
		require.NoError(t, s.CreateUser(ctx, taken))
		later := t0.Add(time.Hour)

		got, err := s.UpdateUser(ctx, u.ID, func(r *auth.UserRecord) error {
			r.Username, r.UsernameKey = "Grace2", "grace2"
			r.EmailAddress, r.EmailKey = "", ""
			r.Permissions = []auth.Permission{auth.PermAll}
			r.Status = auth.StatusInactive
			r.PasswordHash = "new"
			r.UpdatedAt = later
			r.ID, r.BrandID, r.CreatedAt = "hijack", "hijack", later
			return nil
		})
		require.NoError(t, err)
		assert.Equal(t, u.ID, got.ID, "the ID cannot change")
		assert.Equal(t, b.ID, got.BrandID)
		assert.True(t, got.CreatedAt.Equal(t0))
		stored, err := s.UserByID(ctx, u.ID)
		require.NoError(t, err)
		assert.Equal(t, got, stored)
		assert.Equal(t, "new", stored.PasswordHash)
		assert.True(t, stored.UpdatedAt.Equal(later))
		_, err = s.UserByUsername(ctx, b.ID, "grace")
		assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err), "the old name is free")
		_, err = s.UserByUsername(ctx, b.ID, "grace2")
		assert.NoError(t, err)

		_, err = s.UpdateUser(ctx, u.ID, func(r *auth.UserRecord) error {
			r.EmailAddress, r.EmailKey = "heidi@example.com", "heidi@example.com"
			return nil
		})
		assert.Equal(t, envelope.KindConflict, envelope.KindOf(err))
		boom := errors.New("boom")
		_, err = s.UpdateUser(ctx, u.ID, func(r *auth.UserRecord) error {
			r.PasswordHash = "lost"
			return boom
		})
		assert.ErrorIs(t, err, boom, "fn's error is returned as is")
		stored, err = s.UserByID(ctx, u.ID)
		require.NoError(t, err)
		assert.Equal(t, got, stored, "a refused update changes nothing")
	})

	t.Run("ConcurrentUpdatesAreAtomic", func(t *testing.T) {
		t.Parallel()
		s := open(t, newStore)
		ctx := t.Context()
		_, u := seedUser(t, s, "ivan")
		const n = 20
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				_, err := s.UpdateUser(ctx, u.ID, func(r *auth.UserRecord) error {
					r.Permissions = append(r.Permissions, auth.Permission(fmt.Sprintf("p%02d", i)))
					return nil
				})
				assert.NoError(t, err)
			})
		}
		wg.Wait()
		got, err := s.UserByID(ctx, u.ID)
		require.NoError(t, err)
		assert.Len(t, got.Permissions, n+1, "no update is lost")
	})

	t.Run("ListInCreationOrder", func(t *testing.T) {
		t.Parallel()
		s := open(t, newStore)
		ctx := t.Context()
		b := testBrand("list.example.com")
		require.NoError(t, s.CreateBrand(ctx, b))
		other := testBrand("list-other.example.com")
		require.NoError(t, s.CreateBrand(ctx, other))
		require.NoError(t, s.CreateUser(ctx, testUser(other.ID, "stranger", "")))
		var want []string
		for i := range 5 {
			u := testUser(b.ID, fmt.Sprintf("user%d", i), "")
			require.NoError(t, s.CreateUser(ctx, u))
			want = append(want, u.ID)
		}
		list, err := s.ListUsers(ctx, b.ID)
		require.NoError(t, err)
		got := codesOf(list, func(r auth.UserRecord) string { return r.ID })
		assert.Equal(t, want, got)
		list, err = s.ListUsers(ctx, uuid.NewString())
		require.NoError(t, err)
		assert.Empty(t, list)
	})

	t.Run("CancelledContext", func(t *testing.T) {
		t.Parallel()
		s := open(t, newStore)
		b := testBrand("cancel-user.example.com")
		require.NoError(t, s.CreateBrand(t.Context(), b))
		ctx, cancel := contextCancelled(t)
		defer cancel()
		u := testUser(b.ID, "judy", "")
		assert.Error(t, s.CreateUser(ctx, u))
		_, err := s.UserByID(t.Context(), u.ID)
		assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err), "a cancelled write stores nothing")
	})
}

func runKeyPairs(t *testing.T, newStore NewStore) {
	t.Run("CreateAndFind", func(t *testing.T) {
		t.Parallel()
		s := open(t, newStore)
		ctx := t.Context()
		_, u := seedUser(t, s, "kim")
		k := testKey(u, "", "")
		require.NoError(t, s.CreateKeyPair(ctx, k))

		got, err := s.KeyPairByAuthHash(ctx, k.AuthHash)
		require.NoError(t, err)
		assert.Equal(t, k, got)
		got, err = s.KeyPairByRefreshHash(ctx, k.RefreshHash)
		require.NoError(t, err)
		assert.Equal(t, k, got)
		assert.True(t, got.RevokedAt.IsZero())

		_, err = s.KeyPairByAuthHash(ctx, k.RefreshHash)
		assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err), "a refresh hash is no auth hash")
		_, err = s.KeyPairByRefreshHash(ctx, k.AuthHash)
		assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err))
		_, err = s.KeyPairByAuthHash(ctx, []byte("short"))
		assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err))
	})

	t.Run("CreateErrors", func(t *testing.T) {
		t.Parallel()
		s := open(t, newStore)
		ctx := t.Context()
		_, u := seedUser(t, s, "leo")
		k := testKey(u, "", "")
		require.NoError(t, s.CreateKeyPair(ctx, k))

		dupAuth := testKey(u, "", "")
		dupAuth.AuthHash = k.AuthHash
		assert.Equal(t, envelope.KindConflict, envelope.KindOf(s.CreateKeyPair(ctx, dupAuth)))
		dupRefresh := testKey(u, "", "")
		dupRefresh.RefreshHash = k.RefreshHash
		assert.Equal(t, envelope.KindConflict, envelope.KindOf(s.CreateKeyPair(ctx, dupRefresh)))
		dupID := testKey(u, "", "")
		dupID.ID = k.ID
		assert.Equal(t, envelope.KindConflict, envelope.KindOf(s.CreateKeyPair(ctx, dupID)))

		ghost := u
		ghost.ID = uuid.NewString()
		assert.Equal(t, envelope.KindNotFound, envelope.KindOf(s.CreateKeyPair(ctx, testKey(ghost, "", ""))))
	})

	t.Run("Rotate", func(t *testing.T) {
		t.Parallel()
		s := open(t, newStore)
		ctx := t.Context()
		_, u := seedUser(t, s, "mia")
		old := testKey(u, "", "")
		require.NoError(t, s.CreateKeyPair(ctx, old))
		at := t0.Add(time.Minute)
		next := testKey(u, old.FamilyID, "")
		require.NoError(t, s.RotateKeyPair(ctx, old.ID, at, next))

		got, err := s.KeyPairByRefreshHash(ctx, old.RefreshHash)
		require.NoError(t, err)
		assert.True(t, got.RevokedAt.Equal(at))
		assert.Equal(t, next.ID, got.ReplacedBy)
		got, err = s.KeyPairByAuthHash(ctx, next.AuthHash)
		require.NoError(t, err)
		assert.Equal(t, next, got)

		again := testKey(u, old.FamilyID, "")
		assert.Equal(t, envelope.KindConflict, envelope.KindOf(s.RotateKeyPair(ctx, old.ID, at, again)),
			"a revoked pair cannot rotate")
		_, err = s.KeyPairByAuthHash(ctx, again.AuthHash)
		assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err), "a refused rotation stores nothing")
		assert.Equal(t, envelope.KindNotFound, envelope.KindOf(s.RotateKeyPair(ctx, uuid.NewString(), at, again)))
	})

	t.Run("ConcurrentRotationsOneWins", func(t *testing.T) {
		t.Parallel()
		s := open(t, newStore)
		ctx := t.Context()
		_, u := seedUser(t, s, "nina")
		old := testKey(u, "", "")
		require.NoError(t, s.CreateKeyPair(ctx, old))
		const n = 10
		errs := make(chan error, n)
		var wg sync.WaitGroup
		for range n {
			wg.Go(func() { errs <- s.RotateKeyPair(ctx, old.ID, t0, testKey(u, old.FamilyID, "")) })
		}
		wg.Wait()
		close(errs)
		var ok, conflicts int
		for err := range errs {
			switch envelope.KindOf(err) {
			case "":
				ok++
			case envelope.KindConflict:
				conflicts++
			default:
				t.Errorf("unexpected error: %v", err)
			}
		}
		assert.Equal(t, 1, ok)
		assert.Equal(t, n-1, conflicts)
	})

	t.Run("Revoke", func(t *testing.T) {
		t.Parallel()
		s := open(t, newStore)
		ctx := t.Context()
		_, u := seedUser(t, s, "omar")
		_, other := seedUser(t, s, "pia")
		a1 := testKey(u, "", "dev-1")
		a2 := testKey(u, a1.FamilyID, "")
		b1 := testKey(u, "", "")
		c1 := testKey(other, "", "dev-1")
		for _, k := range []auth.KeyPair{a1, a2, b1, c1} {
			require.NoError(t, s.CreateKeyPair(ctx, k))
		}
		revoked := func(k auth.KeyPair) time.Time {
			got, err := s.KeyPairByAuthHash(ctx, k.AuthHash)
			require.NoError(t, err)
			return got.RevokedAt
		}
		at1, at2 := t0.Add(time.Minute), t0.Add(2*time.Minute)

		n, err := s.RevokeKeyPairs(ctx, auth.KeySelector{ID: a2.ID}, at1)
		require.NoError(t, err)
		assert.Equal(t, 1, n)
		assert.True(t, revoked(a2).Equal(at1))
		assert.True(t, revoked(a1).IsZero())

		n, err = s.RevokeKeyPairs(ctx, auth.KeySelector{FamilyID: a1.FamilyID}, at2)
		require.NoError(t, err)
		assert.Equal(t, 1, n, "already revoked pairs are not counted")
		assert.True(t, revoked(a2).Equal(at1), "the first revocation time stays")
		assert.True(t, revoked(a1).Equal(at2))

		n, err = s.RevokeKeyPairs(ctx, auth.KeySelector{UserID: u.ID, DeviceID: "dev-1"}, at2)
		require.NoError(t, err)
		assert.Equal(t, 0, n, "fields combine with AND")
		assert.True(t, revoked(c1).IsZero(), "another user's pair on a same-named device stays")

		n, err = s.RevokeKeyPairs(ctx, auth.KeySelector{UserID: u.ID}, at2)
		require.NoError(t, err)
		assert.Equal(t, 1, n)
		assert.False(t, revoked(b1).IsZero())
		assert.True(t, revoked(c1).IsZero())

		_, err = s.RevokeKeyPairs(ctx, auth.KeySelector{}, at2)
		assert.Equal(t, envelope.KindInvalid, envelope.KindOf(err), "an empty selector revokes nothing")
		assert.True(t, revoked(c1).IsZero())
	})

	t.Run("DeleteExpired", func(t *testing.T) {
		t.Parallel()
		s := open(t, newStore)
		ctx := t.Context()
		_, u := seedUser(t, s, "quinn")
		old := testKey(u, "", "")
		fresh := testKey(u, "", "")
		fresh.RefreshExpiresAt = old.RefreshExpiresAt.Add(time.Hour)
		require.NoError(t, s.CreateKeyPair(ctx, old))
		require.NoError(t, s.CreateKeyPair(ctx, fresh))

		n, err := s.DeleteKeyPairs(ctx, old.RefreshExpiresAt)
		require.NoError(t, err)
		assert.Equal(t, 1, n)
		_, err = s.KeyPairByAuthHash(ctx, old.AuthHash)
		assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err))
		_, err = s.KeyPairByRefreshHash(ctx, old.RefreshHash)
		assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err))
		_, err = s.KeyPairByAuthHash(ctx, fresh.AuthHash)
		assert.NoError(t, err)
	})
}

func runDevices(t *testing.T, newStore NewStore) {
	newDevice := func(u auth.UserRecord, code string, at time.Time) auth.Device {
		return auth.Device{ID: uuid.NewString(), BrandID: u.BrandID, UserID: u.ID, Code: code,
			Token: "tok", Name: "Phone", AppVersion: "1.0", OS: "iOS", CreatedAt: at, LastSeenAt: at}
	}

	t.Run("UpsertAndFind", func(t *testing.T) {
		t.Parallel()
		s := open(t, newStore)
		ctx := t.Context()
		_, u := seedUser(t, s, "rita")
		d := newDevice(u, "ABC-1", t0)
		got, created, err := s.UpsertDevice(ctx, d)
		require.NoError(t, err)
		assert.True(t, created)
		assert.Equal(t, d, got)

		later := t0.Add(time.Hour)
		upd := newDevice(u, "ABC-1", later)
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

		_, err = s.DeviceByCode(ctx, u.ID, "abc-1")
		assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err), "codes compare exactly")
		_, _, err = s.UpsertDevice(ctx, newDevice(auth.UserRecord{User: auth.User{ID: uuid.NewString()}}, "X", t0))
		assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err), "the user must exist")
	})

	t.Run("ListInCreationOrder", func(t *testing.T) {
		t.Parallel()
		s := open(t, newStore)
		ctx := t.Context()
		_, u := seedUser(t, s, "sam")
		_, other := seedUser(t, s, "tess")
		_, _, err := s.UpsertDevice(ctx, newDevice(other, "D0", t0))
		require.NoError(t, err)
		var want []string
		for i := range 4 {
			d := newDevice(u, fmt.Sprintf("D%d", i), t0)
			_, _, err := s.UpsertDevice(ctx, d)
			require.NoError(t, err)
			want = append(want, d.ID)
		}
		list, err := s.ListDevices(ctx, u.ID)
		require.NoError(t, err)
		got := codesOf(list, func(r auth.Device) string { return r.ID })
		assert.Equal(t, want, got)
	})

	t.Run("Revoke", func(t *testing.T) {
		t.Parallel()
		s := open(t, newStore)
		ctx := t.Context()
		_, u := seedUser(t, s, "uma")
		_, other := seedUser(t, s, "vic")
		d, _, err := s.UpsertDevice(ctx, newDevice(u, "PHONE", t0))
		require.NoError(t, err)
		onDevice := testKey(u, "", d.ID)
		elsewhere := testKey(u, "", "")
		require.NoError(t, s.CreateKeyPair(ctx, onDevice))
		require.NoError(t, s.CreateKeyPair(ctx, elsewhere))

		_, err = s.RevokeDevice(ctx, other.ID, d.ID, t0)
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

		got, err = s.RevokeDevice(ctx, u.ID, d.ID, at.Add(time.Hour))
		require.NoError(t, err)
		assert.True(t, got.RevokedAt.Equal(at), "revoking again keeps the first time")

		again := newDevice(u, "PHONE", at.Add(time.Hour))
		again.Token = "stolen"
		stored, created, err := s.UpsertDevice(ctx, again)
		require.NoError(t, err)
		assert.False(t, created)
		assert.True(t, stored.Revoked(), "a revoked device stays revoked")
		assert.Equal(t, "tok", stored.Token, "and unchanged")
		_, err = s.RevokeDevice(ctx, u.ID, uuid.NewString(), at)
		assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err))
	})
}
