package storagetest

import (
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
)

// testKeyPairCreateAndFind checks that a created pair is found by its auth
// hash and its refresh hash, and by no other bytes.
func testKeyPairCreateAndFind(t *testing.T, newStore NewStore) {
	s, _, u := openWithUser(t, newStore, "kim")
	ctx := t.Context()
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
	_, err = s.KeyPairByRefreshHash(ctx, []byte("short"))
	assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err))
}

// testKeyPairCreateErrors checks that a taken auth hash, refresh hash or ID
// is KindConflict and stores nothing, and that the user must exist.
func testKeyPairCreateErrors(t *testing.T, newStore NewStore) {
	s, _, u := openWithUser(t, newStore, "leo")
	ctx := t.Context()
	k := testKey(u, "", "")
	require.NoError(t, s.CreateKeyPair(ctx, k))

	dupAuth := testKey(u, "", "")
	dupAuth.AuthHash = k.AuthHash
	assert.Equal(t, envelope.KindConflict, envelope.KindOf(s.CreateKeyPair(ctx, dupAuth)))
	_, err := s.KeyPairByRefreshHash(ctx, dupAuth.RefreshHash)
	assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err), "a refused create stores nothing")
	dupRefresh := testKey(u, "", "")
	dupRefresh.RefreshHash = k.RefreshHash
	assert.Equal(t, envelope.KindConflict, envelope.KindOf(s.CreateKeyPair(ctx, dupRefresh)))
	dupID := testKey(u, "", "")
	dupID.ID = k.ID
	assert.Equal(t, envelope.KindConflict, envelope.KindOf(s.CreateKeyPair(ctx, dupID)))

	ghost := u
	ghost.ID = uuid.NewString()
	assert.Equal(t, envelope.KindNotFound, envelope.KindOf(s.CreateKeyPair(ctx, testKey(ghost, "", ""))))
}

// testKeyPairRotate checks that a rotation revokes the old pair, names its
// successor and stores it, and that a revoked or unknown pair cannot
// rotate.
func testKeyPairRotate(t *testing.T, newStore NewStore) {
	s, _, u := openWithUser(t, newStore, "mia")
	ctx := t.Context()
	old := testKey(u, "", "")
	require.NoError(t, s.CreateKeyPair(ctx, old))
	at := t0.Add(time.Minute)
	next := testKey(u, old.FamilyID, "")
	require.NoError(t, s.RotateKeyPair(ctx, old.ID, at, next))

	got, err := s.KeyPairByRefreshHash(ctx, old.RefreshHash)
	require.NoError(t, err)
	assert.True(t, got.RevokedAt.Equal(at))
	assert.Equal(t, next.ID, got.ReplacedBy)
	got, err = s.KeyPairByAuthHash(ctx, old.AuthHash)
	require.NoError(t, err)
	assert.True(t, got.RevokedAt.Equal(at), "by either hash")
	got, err = s.KeyPairByAuthHash(ctx, next.AuthHash)
	require.NoError(t, err)
	assert.Equal(t, next, got)
	got, err = s.KeyPairByRefreshHash(ctx, next.RefreshHash)
	require.NoError(t, err)
	assert.Equal(t, next, got, "the successor by either hash")

	again := testKey(u, old.FamilyID, "")
	assert.Equal(t, envelope.KindConflict, envelope.KindOf(s.RotateKeyPair(ctx, old.ID, at, again)),
		"a revoked pair cannot rotate")
	_, err = s.KeyPairByAuthHash(ctx, again.AuthHash)
	assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err), "a refused rotation stores nothing")
	assert.Equal(t, envelope.KindNotFound, envelope.KindOf(s.RotateKeyPair(ctx, uuid.NewString(), at, again)))
}

// testKeyPairConcurrentRotationsOneWins checks that of concurrent rotations
// of one pair exactly one succeeds.
func testKeyPairConcurrentRotationsOneWins(t *testing.T, newStore NewStore) {
	s, _, u := openWithUser(t, newStore, "nina")
	ctx := t.Context()
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
	ok, conflicts := countOutcomes(t, errs)
	assert.Equal(t, 1, ok)
	assert.Equal(t, n-1, conflicts)
	got, err := s.KeyPairByAuthHash(ctx, old.AuthHash)
	require.NoError(t, err)
	assert.NotEmpty(t, got.ReplacedBy, "the old pair names the winner")
}

// testKeyPairRevoke checks that RevokeKeyPairs revokes by ID, family, user
// and device (fields combined with AND), counts only pairs it revokes,
// keeps the first revocation time and refuses an empty selector.
func testKeyPairRevoke(t *testing.T, newStore NewStore) {
	s, _, u := openWithUser(t, newStore, "omar")
	ctx := t.Context()
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

	n, err = s.RevokeKeyPairs(ctx, auth.KeySelector{ID: uuid.NewString()}, at2)
	require.NoError(t, err, "an unknown pair is no error")
	assert.Zero(t, n)

	_, err = s.RevokeKeyPairs(ctx, auth.KeySelector{}, at2)
	assert.Equal(t, envelope.KindInvalid, envelope.KindOf(err), "an empty selector revokes nothing")
	assert.True(t, revoked(c1).IsZero())
}

// testKeyPairDeleteExpired checks that DeleteKeyPairs deletes the pairs
// whose refresh key expired by the cutoff, and only those.
func testKeyPairDeleteExpired(t *testing.T, newStore NewStore) {
	s, _, u := openWithUser(t, newStore, "quinn")
	ctx := t.Context()
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
	_, err = s.KeyPairByRefreshHash(ctx, fresh.RefreshHash)
	assert.NoError(t, err, "a pair that has not expired stays")
	n, err = s.DeleteKeyPairs(ctx, old.RefreshExpiresAt)
	require.NoError(t, err)
	assert.Zero(t, n, "deleting again deletes nothing")
	assert.Equal(t, envelope.KindNotFound, envelope.KindOf(s.RotateKeyPair(ctx, old.ID, t0, testKey(u, old.FamilyID, ""))),
		"a deleted pair cannot rotate")
}
