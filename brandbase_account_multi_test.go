package brandbase_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/auth"
)

// awaitChange subscribes to the changes in hears of kind, and returns a
// function that waits (at most staleness) until one of id was heard:
// then in's auth service, subscribed before, has forgotten what that
// change made stale, and a notification still on its way cannot undo
// what a test makes in cache next.
func awaitChange(t *testing.T, in *instance, kind auth.ChangeKind) func(id string) {
	t.Helper()
	feed, ok := in.app.Store.(brandbase.ChangeFeed)
	require.True(t, ok, "a PostgreSQL store reports its changes")
	heard := make(chan string, 64)
	unsubscribe := feed.OnAuthChange(func(c auth.Change) {
		if c.Kind == kind {
			select {
			case heard <- c.ID:
			default:
			}
		}
	})
	t.Cleanup(unsubscribe)
	return func(id string) {
		t.Helper()
		timeout := time.After(staleness)
		for {
			select {
			case got := <-heard:
				if got == id {
					return
				}
			case <-timeout:
				t.Fatalf("the %s change of %s not heard on %s within %v", kind, id, in.name, staleness)
			}
		}
	}
}

// TestSeveralInstancesAccount checks the account's changes across
// instances on one PostgreSQL database: what one instance changes, the
// others see within staleness, though they cached the old answer.
func TestSeveralInstancesAccount(t *testing.T) {
	t.Parallel()
	nodes := cluster(t, 2)
	a, b := nodes[0], nodes[1]
	ctx := t.Context()
	created := awaitChange(t, b, auth.ChangeBrand)
	brand, err := a.app.Auth.CreateBrand(ctx, auth.NewBrand{URL: "account.example.com", Name: "Account"})
	require.NoError(t, err)
	created(brand.ID) // so that B's caches hold what the tests read next

	t.Run("brand settings set on A are seen on B", func(t *testing.T) {
		bs, err := b.app.Auth.BrandSettings(ctx, brand.ID)
		require.NoError(t, err)
		require.False(t, bs.RegistrationOpen, "B caches the defaults")
		start := time.Now()
		require.NoError(t, a.app.Auth.SetBrandSettings(ctx, brand.ID, auth.BrandSettings{RegistrationOpen: true,
			MaxDevicesPerUser: 2, ResetLinkOrigins: []string{"http://localhost:5173"}}))
		within(t, start, "settings, seen on B", func() bool {
			bs, err := b.app.Auth.BrandSettings(ctx, brand.ID)
			require.NoError(t, err)
			return bs.RegistrationOpen && bs.MaxDevicesPerUser == 2 && len(bs.ResetLinkOrigins) == 1
		})
	})
}
