package refindex_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/refdata/refindex"
)

// unreachable is a spy whose every read fails with down, when set, as a
// store whose database is away fails (the PostgreSQL store, stopped, in
// the tests of package brandbase).
type unreachable struct {
	*spy
	down atomic.Pointer[error]
}

func (u *unreachable) fail() error {
	if p := u.down.Load(); p != nil {
		return *p
	}
	return nil
}

func (u *unreachable) RefDataRevision(ctx context.Context) (uint64, error) {
	if err := u.fail(); err != nil {
		return 0, err
	}
	return u.spy.RefDataRevision(ctx)
}

func (u *unreachable) ListCountries(ctx context.Context, f refdata.CountryFilter) ([]refdata.Country, int, error) {
	if err := u.fail(); err != nil {
		return nil, 0, err
	}
	return u.spy.ListCountries(ctx, f)
}

func (u *unreachable) ListCities(ctx context.Context, f refdata.CityFilter) ([]refdata.City, int, error) {
	if err := u.fail(); err != nil {
		return nil, 0, err
	}
	return u.spy.ListCities(ctx, f)
}

// TestHeldSnapshotWhileUnavailable: while the store is unavailable, lists
// are answered from the snapshot the index holds, the same answers as
// before; another failure is not hidden; an index that holds nothing
// fails as the store does; and once the store answers again lists follow
// it.
func TestHeldSnapshotWhileUnavailable(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	sp, _ := newSpy(t)
	u := &unreachable{spy: sp}
	ix := refindex.New(u, refindex.Options{Logger: quiet})
	cold := refindex.New(u, refindex.Options{Logger: quiet})
	require.NoError(t, ix.Ready(ctx))
	cities := cityFilter(t, refdata.CityQuery{Name: ptr("paris")})
	countries := refdata.CountryFilter{Sort: refdata.FieldName, Page: refdata.Paging{Size: 20}}
	wantCities, wantTotal, err := ix.ListCities(ctx, cities)
	require.NoError(t, err)
	wantCountries, _, err := ix.ListCountries(ctx, countries)
	require.NoError(t, err)

	unavailable := error(envelope.Unavailable(errors.New("connection refused"), 2))
	u.down.Store(&unavailable)
	for range 3 {
		got, total, err := ix.ListCities(ctx, cities)
		require.NoError(t, err, "answered from the held snapshot")
		assert.Equal(t, wantCities, got)
		assert.Equal(t, wantTotal, total)
		gotCountries, _, err := ix.ListCountries(ctx, countries)
		require.NoError(t, err)
		assert.Equal(t, wantCountries, gotCountries)
	}
	warm, err := ix.Warm(ctx)
	assert.False(t, warm, "not warm while the revision cannot be read")
	assert.True(t, envelope.IsUnavailable(err))

	_, _, err = cold.ListCities(ctx, cities)
	assert.True(t, envelope.IsUnavailable(err), "nothing held: the store's error, %v", err)

	ended, cancel := context.WithCancel(ctx)
	cancel()
	_, _, err = ix.ListCities(ended, cities)
	assert.Error(t, err, "an ended request is not answered")

	internal := error(envelope.Internal(errors.New("relation does not exist")))
	u.down.Store(&internal)
	_, _, err = ix.ListCities(ctx, cities)
	assert.Equal(t, envelope.KindInternal, envelope.KindOf(err), "only unavailability is answered from the held snapshot")

	u.down.Store(nil)
	_, err = u.UpsertCities(ctx, []refdata.City{{Name: "Paris", CountryCode: "US", StateCode: "TX"}})
	require.NoError(t, err, "a write elsewhere while the index looked away")
	got, total, err := ix.ListCities(ctx, cities)
	require.NoError(t, err)
	assert.Equal(t, wantTotal+1, total, "back: the store's current data, %v", got)
}

// TestWarm: Warm reports false and starts a build when the index holds no
// current snapshot, true once it does; ErrTooManyCities for a store over
// MaxCities; ErrClosed after Close.
func TestWarm(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	sp, _ := newSpy(t)
	ix := refindex.New(sp, refindex.Options{Logger: quiet})
	warm, err := ix.Warm(ctx)
	require.NoError(t, err)
	assert.False(t, warm, "cold")
	require.Eventually(t, func() bool {
		warm, err := ix.Warm(ctx)
		return err == nil && warm
	}, 10*time.Second, 10*time.Millisecond, "the build Warm started ends")
	assert.Equal(t, int64(1), countBuilds(sp), "one build, started by the first Warm")
	assert.Zero(t, sp.queries.Load(), "Warm lists nothing")

	small := refindex.New(sp, refindex.Options{MaxCities: 10, Logger: quiet})
	require.ErrorIs(t, small.Ready(ctx), refindex.ErrTooManyCities)
	_, err = small.Warm(ctx)
	assert.ErrorIs(t, err, refindex.ErrTooManyCities)

	require.NoError(t, ix.Close())
	_, err = ix.Warm(ctx)
	assert.ErrorIs(t, err, refindex.ErrClosed)
}
