package storagetest

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/storage"
)

// The reuse of a rotated refresh key within the reuse interval
// (auth.WithRefreshReuseInterval): Store.ReissueKeyPair decides it and
// stores the new pair in one transaction. The times passed to the store
// are the service's clock: rotatedAfter is the time of the reuse less the
// interval.

// reuseInterval is the interval these scenarios judge reuses by.
const reuseInterval = 10 * time.Second

// rotated stores a pair of u (on deviceID, "" for none), rotates it at
// at into a successor, and returns both.
func rotated(t *testing.T, s storage.Storage, u auth.UserRecord, deviceID string, at time.Time) (old, next auth.KeyPair) {
	t.Helper()
	old = testKey(u, "", deviceID)
	require.NoError(t, s.CreateKeyPair(t.Context(), old))
	next = testKey(u, old.FamilyID, deviceID)
	require.NoError(t, s.RotateKeyPair(t.Context(), old.ID, at, next))
	return old, next
}

// live reports whether the pair k is stored and not revoked.
func live(t *testing.T, s storage.Storage, k auth.KeyPair) bool {
	t.Helper()
	got, err := s.KeyPairByRefreshHash(t.Context(), k.RefreshHash)
	require.NoError(t, err)
	return got.RevokedAt.IsZero()
}

// testKeyPairReissueWithinInterval checks that a rotated pair reused
// within the interval gets a sibling stored in its family, unrevoked,
// that the pair its rotation made stays unrevoked, and that the rotated
// pair is left as it was.
func testKeyPairReissueWithinInterval(t *testing.T, newStore NewStore) {
	s, _, u := openWithUser(t, newStore, "rhea")
	ctx := t.Context()
	at := t0.Add(time.Minute)
	old, next := rotated(t, s, u, "", at)

	for i, reuse := range []time.Duration{0, reuseInterval / 2, reuseInterval - time.Microsecond} {
		sib := testKey(u, old.FamilyID, "")
		require.NoError(t, s.ReissueKeyPair(ctx, old.ID, at.Add(reuse).Add(-reuseInterval), sib), "reuse %d, %v after the rotation", i, reuse)
		got, err := s.KeyPairByAuthHash(ctx, sib.AuthHash)
		require.NoError(t, err)
		assert.Equal(t, sib, got, "the sibling is stored as given, by either hash")
		got, err = s.KeyPairByRefreshHash(ctx, sib.RefreshHash)
		require.NoError(t, err)
		assert.Equal(t, sib, got)
	}
	assert.True(t, live(t, s, next), "the rotation's pair keeps working")
	got, err := s.KeyPairByRefreshHash(ctx, old.RefreshHash)
	require.NoError(t, err)
	assert.True(t, got.RevokedAt.Equal(at), "the rotated pair is left as it was")
	assert.True(t, got.RotatedAt().Equal(at))
	assert.Equal(t, next.ID, got.ReplacedBy)
}

// testKeyPairReissueRefused checks that ReissueKeyPair stores nothing, and
// says why, after the interval, for a pair that was not rotated, when the
// family holds no unrevoked pair, and when the pair's owner may not have
// it; and that an unknown pair is not found.
func testKeyPairReissueRefused(t *testing.T, newStore NewStore) {
	at := t0.Add(time.Minute)
	for _, tc := range []struct {
		name string
		// prepare returns the pair to reissue from and the time the reuse
		// happens at.
		prepare func(t *testing.T, s storage.Storage, u auth.UserRecord) (auth.KeyPair, time.Time)
		want    error
	}{
		{"at the interval's end", func(t *testing.T, s storage.Storage, u auth.UserRecord) (auth.KeyPair, time.Time) {
			old, _ := rotated(t, s, u, "", at)
			return old, at.Add(reuseInterval)
		}, auth.ErrKeyPairRevoked},
		{"after the interval", func(t *testing.T, s storage.Storage, u auth.UserRecord) (auth.KeyPair, time.Time) {
			old, _ := rotated(t, s, u, "", at)
			return old, at.Add(time.Hour)
		}, auth.ErrKeyPairRevoked},
		{"not rotated", func(t *testing.T, s storage.Storage, u auth.UserRecord) (auth.KeyPair, time.Time) {
			k := testKey(u, "", "")
			require.NoError(t, s.CreateKeyPair(t.Context(), k))
			return k, at
		}, auth.ErrKeyPairRevoked},
		{"revoked, not rotated", func(t *testing.T, s storage.Storage, u auth.UserRecord) (auth.KeyPair, time.Time) {
			k := testKey(u, "", "")
			require.NoError(t, s.CreateKeyPair(t.Context(), k))
			_, err := s.RevokeKeyPairs(t.Context(), auth.KeySelector{ID: k.ID}, at)
			require.NoError(t, err)
			return k, at
		}, auth.ErrKeyPairRevoked},
		{"family revoked", func(t *testing.T, s storage.Storage, u auth.UserRecord) (auth.KeyPair, time.Time) {
			old, _ := rotated(t, s, u, "", at)
			_, err := s.RevokeKeyPairs(t.Context(), auth.KeySelector{FamilyID: old.FamilyID}, at.Add(time.Second))
			require.NoError(t, err)
			return old, at.Add(2 * time.Second)
		}, auth.ErrKeyPairRevoked},
		{"the rotation's pair logged out", func(t *testing.T, s storage.Storage, u auth.UserRecord) (auth.KeyPair, time.Time) {
			old, next := rotated(t, s, u, "", at)
			_, err := s.RevokeKeyPairs(t.Context(), auth.KeySelector{ID: next.ID}, at.Add(time.Second))
			require.NoError(t, err)
			return old, at.Add(2 * time.Second)
		}, auth.ErrKeyPairRevoked},
		{"user's keys revoked", func(t *testing.T, s storage.Storage, u auth.UserRecord) (auth.KeyPair, time.Time) {
			old, _ := rotated(t, s, u, "", at)
			_, err := s.RevokeKeyPairs(t.Context(), auth.KeySelector{UserID: u.ID}, at.Add(time.Second))
			require.NoError(t, err)
			return old, at.Add(2 * time.Second)
		}, auth.ErrKeyPairRevoked},
		{"session epoch moved on", func(t *testing.T, s storage.Storage, u auth.UserRecord) (auth.KeyPair, time.Time) {
			old, _ := rotated(t, s, u, "", at)
			bumpEpoch(t, s, u)
			return old, at.Add(time.Second)
		}, auth.ErrKeysRevoked},
		{"user inactive", func(t *testing.T, s storage.Storage, u auth.UserRecord) (auth.KeyPair, time.Time) {
			old, _ := rotated(t, s, u, "", at)
			_, err := s.UpdateUser(t.Context(), u.ID, func(r *auth.UserRecord) error {
				r.Status = auth.StatusInactive
				return nil
			})
			require.NoError(t, err)
			return old, at.Add(time.Second)
		}, auth.ErrKeysRevoked},
		{"device revoked", func(t *testing.T, s storage.Storage, u auth.UserRecord) (auth.KeyPair, time.Time) {
			d := seedDevice(t, s, u, "DEV-R")
			old, _ := rotated(t, s, u, d.ID, at)
			_, err := s.RevokeDevice(t.Context(), u.ID, d.ID, at.Add(time.Second))
			require.NoError(t, err)
			return old, at.Add(2 * time.Second)
		}, nil}, // its keys are revoked with it: either error says no
		{"unknown pair", func(t *testing.T, s storage.Storage, u auth.UserRecord) (auth.KeyPair, time.Time) {
			k := testKey(u, "", "")
			k.ID = uuid.NewString()
			return k, at
		}, auth.ErrKeyPairNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, _, u := openWithUser(t, newStore, "sam")
			old, reuseAt := tc.prepare(t, s, u)
			sib := testKey(u, old.FamilyID, old.DeviceID)
			sib.SessionEpoch = old.SessionEpoch
			err := s.ReissueKeyPair(t.Context(), old.ID, reuseAt.Add(-reuseInterval), sib)
			if tc.want != nil {
				assert.ErrorIs(t, err, tc.want)
			} else {
				assert.True(t, errors.Is(err, auth.ErrKeyPairRevoked) || errors.Is(err, auth.ErrDeviceRevoked), "got %v", err)
			}
			assertNotStored(t, s, sib, "a refused reissue stores nothing")
		})
	}
}

// testKeyPairConcurrentReissues checks that reuses of one rotated pair
// racing each other within the interval all get their sibling stored, and
// that none revokes anything.
func testKeyPairConcurrentReissues(t *testing.T, newStore NewStore) {
	s, _, u := openWithUser(t, newStore, "tara")
	ctx := t.Context()
	at := t0.Add(time.Minute)
	old, next := rotated(t, s, u, "", at)
	const n = 10
	sibs := make([]auth.KeyPair, n)
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for i := range n {
		sibs[i] = testKey(u, old.FamilyID, "")
		wg.Go(func() { errs <- s.ReissueKeyPair(ctx, old.ID, at.Add(time.Second-reuseInterval), sibs[i]) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		assert.NoError(t, err)
	}
	for _, k := range append(sibs, next) {
		assert.True(t, live(t, s, k), "every pair of the family works")
	}
}

// testKeyPairReissueRacesFamilyRevocation checks that a revocation of a
// family racing reissues from it leaves no pair of the family unrevoked:
// each reissue either fails or has its pair revoked too.
func testKeyPairReissueRacesFamilyRevocation(t *testing.T, newStore NewStore) {
	s, _, u := openWithUser(t, newStore, "uma")
	ctx := t.Context()
	at := t0.Add(time.Minute)
	for round := range 5 {
		old, next := rotated(t, s, u, "", at)
		const n = 8
		sibs := make([]auth.KeyPair, n)
		errs := make(chan error, n+1)
		var wg sync.WaitGroup
		for i := range n {
			sibs[i] = testKey(u, old.FamilyID, "")
			wg.Go(func() { errs <- s.ReissueKeyPair(ctx, old.ID, at.Add(time.Second-reuseInterval), sibs[i]) })
			if i == n/2 {
				wg.Go(func() {
					_, err := s.RevokeKeyPairs(ctx, auth.KeySelector{FamilyID: old.FamilyID}, at.Add(time.Second))
					errs <- err
				})
			}
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				assert.ErrorIs(t, err, auth.ErrKeyPairRevoked, "round %d", round)
			}
		}
		for i, k := range append(sibs, next) {
			got, err := s.KeyPairByRefreshHash(ctx, k.RefreshHash)
			if err == nil {
				assert.False(t, got.RevokedAt.IsZero(), "round %d: pair %d of the family outlived its revocation", round, i)
			} else {
				assert.ErrorIs(t, err, auth.ErrKeyPairNotFound)
			}
		}
	}
}
