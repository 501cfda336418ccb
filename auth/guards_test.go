package auth_test

import (
	"context"
	"github.com/brandbase/brandbase/outbox"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
)

// A key of brand A that this service has never seen (not in its cache:
// another instance issued it) is refused at brand B on the uncached path,
// where the key is read from the store; then again from the cache; and it
// still works in its own brand.
func TestAuthenticateOtherBrandsUnseenKey(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		// Issued by another instance on the same store.
		issued, err := e.svc.Login(ctx, e.other, auth.LoginRequest{Username: "admin", Password: strayPassword})
		require.NoError(t, err)
		fresh := auth.NewService(e.store, auth.WithClock(e.clock.Now), auth.WithArgon2Params(fastArgon2))

		_, err = fresh.Authenticate(ctx, e.brand, issued.AuthKey)
		assertRefused(t, err, "brand A's key at brand B, never seen by this service: read from the store")
		_, err = fresh.Authenticate(ctx, e.brand, issued.AuthKey)
		assertRefused(t, err, "and again, now cached")
		p, err := fresh.Authenticate(ctx, e.other, issued.AuthKey)
		require.NoError(t, err, "the key still works in its own brand")
		assert.Equal(t, e.other.ID, p.BrandID)
	})
}

// epochLiftingStore is a real store in which RotateKeyPair does not hold
// the session-epoch rule: it lifts the new pair to its user's current
// epoch, so that the store accepts it whatever the old pair's epoch was,
// as a store without that rule would. It counts the rotations asked.
type epochLiftingStore struct {
	auth.Store
	rotations atomic.Int32
}

func (s *epochLiftingStore) RotateKeyPair(ctx context.Context, oldID string, at time.Time, next auth.KeyPair) error {
	s.rotations.Add(1)
	u, err := s.UserByID(ctx, next.UserID)
	if err != nil {
		return err
	}
	next.SessionEpoch = u.SessionEpoch
	return s.Store.RotateKeyPair(ctx, oldID, at, next)
}

// Refresh refuses a pair issued before its user's sessions were ended (its
// epoch below the user's) by itself, before asking the store to rotate it:
// here the revocation that follows an epoch bump never happened (the
// second write of RevokeUserKeys failed) and the store would rotate the
// pair, so only the service's own check stands.
func TestRefreshChecksTheEpochItself(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		s := e.login(t)
		_, err := e.store.UpdateUser(ctx, e.admin.ID, func(r *auth.UserRecord) error {
			r.SessionEpoch++ // every session ended; the pairs are not revoked
			return nil
		})
		require.NoError(t, err)

		lenient := &epochLiftingStore{Store: e.store}
		svc := auth.NewService(lenient, auth.WithClock(e.clock.Now), auth.WithArgon2Params(fastArgon2))
		_, err = svc.Refresh(ctx, e.brand, auth.RefreshRequest{RefreshAuthKey: s.RefreshAuthKey})
		assertRefused(t, err, "a pair of an ended session is not refreshed")
		assert.Zero(t, lenient.rotations.Load(), "refused by the service before the store was asked to rotate")

		// The store without the rule does rotate a current pair.
		fresh := e.login(t)
		_, err = svc.Refresh(ctx, e.brand, auth.RefreshRequest{RefreshAuthKey: fresh.RefreshAuthKey})
		require.NoError(t, err)
		assert.EqualValues(t, 1, lenient.rotations.Load())
	})
}

// stalledStore is a real store whose calls named in stall wait until their
// context ends, as calls waiting for a connection of a saturated pool do.
type stalledStore struct {
	auth.Store
	stall map[string]bool
}

func (s *stalledStore) wait(ctx context.Context, name string) error {
	if !s.stall[name] {
		return nil
	}
	<-ctx.Done()
	return ctx.Err()
}

func (s *stalledStore) UserByUsername(ctx context.Context, brandID, key string) (auth.UserRecord, error) {
	if err := s.wait(ctx, "UserByUsername"); err != nil {
		return auth.UserRecord{}, err
	}
	return s.Store.UserByUsername(ctx, brandID, key)
}

func (s *stalledStore) CreateKeyPair(ctx context.Context, k auth.KeyPair, out ...outbox.Item) error {
	if err := s.wait(ctx, "CreateKeyPair"); err != nil {
		return err
	}
	return s.Store.CreateKeyPair(ctx, k, out...)
}

// A login's whole time is bounded by the hash wait bound plus its one hash,
// whatever it waits on: a store call before the hash (the user's lookup)
// or after it (the new key pair) that does not answer is cut at the bound,
// and the login is refused as a busy hashing slot refuses it: 503
// unavailable with Retry-After, not a hang nor a 500.
func TestLoginIsBoundedWhole(t *testing.T) {
	t.Parallel()
	const bound = 300 * time.Millisecond
	for _, stall := range []string{"UserByUsername", "CreateKeyPair"} {
		t.Run(stall, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, stores["memory"])
			s := &stalledStore{Store: e.store, stall: map[string]bool{stall: true}}
			svc := auth.NewService(s, auth.WithArgon2Params(fastArgon2), auth.WithMaxHashWait(bound))
			// Without the bound the login would wait for its context,
			// which ends here after 5 s, and fail the assertion.
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
			defer cancel()
			start := time.Now()
			_, err := svc.Login(ctx, e.brand, auth.LoginRequest{Username: "admin", Password: adminPassword})
			took := time.Since(start)
			require.True(t, envelope.IsUnavailable(err), "%v", err)
			assert.Equal(t, 1, envelope.As(err).RetryAfter)
			assert.Less(t, took, bound+time.Second, "cut at the bound (plus the hash)")
		})
	}
}
