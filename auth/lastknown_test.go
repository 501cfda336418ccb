package auth_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/storage"
)

// frozenBrands is a store whose look-ups of a brand by URL wait, while it
// is frozen, until it is thawed or their context ends, as on a database
// that does not answer; held counts the look-ups waiting.
type frozenBrands struct {
	storage.Storage
	thaw atomic.Pointer[chan struct{}]
	held atomic.Int64
}

func (s *frozenBrands) BrandByURL(ctx context.Context, url string) (auth.Brand, error) {
	if p := s.thaw.Load(); p != nil {
		s.held.Add(1)
		defer s.held.Add(-1)
		select {
		case <-*p:
		case <-ctx.Done():
			return auth.Brand{}, ctx.Err()
		}
	}
	return s.Storage.BrandByURL(ctx, url)
}

// TestLastKnownBrandDoesNotWaitOnTheStore: once the caches are dropped
// (as when the PostgreSQL listener drops), the look-up of the lists
// (ResolveBrandOrLastKnown) answers at once from the brand's last known
// record while the store does not answer, reading the brand again beside
// it; what that read finds (the brand deactivated elsewhere, unheard) is
// answered once the store answers. The strict look-up waits for the
// store, and a brand never read has no record to answer from.
func TestLastKnownBrandDoesNotWaitOnTheStore(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		store := &frozenBrands{Storage: e.store}
		svc := auth.NewService(store, auth.WithClock(e.clock.Now), auth.WithArgon2Params(fastArgon2))
		_, err := svc.ResolveBrandOrLastKnown(ctx, e.brand.URL)
		require.NoError(t, err)
		// Another instance deactivates the brand; no change is heard.
		_, err = e.svc.SetBrandStatus(ctx, e.brand.ID, auth.StatusInactive)
		require.NoError(t, err)

		thaw := make(chan struct{})
		store.thaw.Store(&thaw)
		svc.Forget(auth.Change{Kind: auth.ChangeAll})
		for i := range 3 {
			// A look-up that waited for the store would fail at this
			// bound, far past what an answer from memory takes.
			bounded, cancel := context.WithTimeout(ctx, 5*time.Second)
			b, err := svc.ResolveBrandOrLastKnown(bounded, e.brand.URL)
			cancel()
			require.NoError(t, err, "look-up %d: the last known record, at once", i)
			assert.Equal(t, e.brand.ID, b.ID)
		}
		require.Eventually(t, func() bool { return store.held.Load() == 1 }, 10*time.Second, time.Millisecond,
			"one read of the brand again, beside the look-ups, waiting on the store")
		bounded, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		_, err = svc.ResolveBrand(bounded, e.brand.URL)
		cancel()
		assert.Error(t, err, "the strict look-up waits on the store")
		bounded, cancel = context.WithTimeout(ctx, 50*time.Millisecond)
		_, err = svc.ResolveBrandOrLastKnown(bounded, "never.example.com")
		cancel()
		assert.Error(t, err, "a brand never read waits on the store")

		store.thaw.Store(nil)
		close(thaw)
		require.Eventually(t, func() bool {
			_, err := svc.ResolveBrandOrLastKnown(ctx, e.brand.URL)
			return envelope.KindOf(err) == envelope.KindForbidden
		}, 10*time.Second, time.Millisecond, "the read beside the look-ups found the brand inactive")
	})
}
