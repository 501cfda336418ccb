package refindex_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/refdata/refdatatest"
	"github.com/brandbase/brandbase/refdata/refindex"
	"github.com/brandbase/brandbase/storage/memory"
)

// spy is a refdata.Store that is not in memory (it hides the memory store's
// InMemory capability) and counts the list calls that reach it: the reads
// of a build (pages larger than any query's) apart from queries.
type spy struct {
	refdata.Store
	queries, reads atomic.Int64
	// onRead, when set, runs before each city read of a build, with the
	// build's context; an error fails the read.
	onRead func(ctx context.Context) error
}

func (s *spy) count(p refdata.Paging) {
	if p.Size > refdata.MaxPageSize {
		s.reads.Add(1)
		return
	}
	s.queries.Add(1)
}

func (s *spy) ListCurrencies(ctx context.Context, f refdata.CurrencyFilter) ([]refdata.Currency, int, error) {
	s.count(f.Page)
	return s.Store.ListCurrencies(ctx, f)
}

func (s *spy) ListCountries(ctx context.Context, f refdata.CountryFilter) ([]refdata.Country, int, error) {
	s.count(f.Page)
	return s.Store.ListCountries(ctx, f)
}

func (s *spy) ListCities(ctx context.Context, f refdata.CityFilter) ([]refdata.City, int, error) {
	s.count(f.Page)
	if f.Page.Size > refdata.MaxPageSize && s.onRead != nil {
		if err := s.onRead(ctx); err != nil {
			return nil, 0, err
		}
	}
	return s.Store.ListCities(ctx, f)
}

func newSpy(t *testing.T) (*spy, *memory.Store) {
	t.Helper()
	m, err := memory.New(t.Context())
	require.NoError(t, err)
	return &spy{Store: m}, m
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func cityFilter(t *testing.T, q refdata.CityQuery) refdata.CityFilter {
	t.Helper()
	f, err := q.Filter()
	require.NoError(t, err)
	return f
}

func ptr[T any](v T) *T { return &v }

// cityQueries are queries over the default dataset and a few generated
// cities, each kind of filter and sort.
var cityQueries = []refdata.CityQuery{
	{},
	{Name: ptr("burg")},
	{Name: ptr("ü"), SortDataField: ptr("name"), SortOrder: ptr("desc")},
	{Keywords: ptr("san jo")},
	{CountryCode: ptr("BR"), Name: ptr("sa"), SortDataField: ptr("stateCode")},
	{CountryCode: ptr("US"), Page: refdata.Paging{Number: 3, Size: 7}},
	{SortDataField: ptr("tags"), Page: refdata.Paging{Number: 40, Size: 50}},
}

// TestListsFromSnapshot checks that once Ready, lists are answered from
// the snapshot (no query reaches the store) with the store's answers.
func TestListsFromSnapshot(t *testing.T) {
	t.Parallel()
	sp, m := newSpy(t)
	ctx := t.Context()
	_, err := m.UpsertCities(ctx, refdatatest.Cities(3000, 3))
	require.NoError(t, err)
	ix := refindex.New(sp, refindex.Options{Logger: quiet})
	require.NoError(t, ix.Ready(ctx))
	require.Positive(t, sp.reads.Load(), "the build read the store")
	reads := sp.reads.Load()
	for _, q := range cityQueries {
		f := cityFilter(t, q)
		assertSameAnswer(t, m.ListCities, ix.ListCities, f)
	}
	cf, err := refdata.CurrencyQuery{Name: ptr("dollar"), SortDataField: ptr("name"), DefaultCurrency: "USD"}.Filter()
	require.NoError(t, err)
	assertSameAnswer(t, m.ListCurrencies, ix.ListCurrencies, cf)
	kf, err := refdata.CountryQuery{Region: ptr("europe"), SortDataField: ptr("capital")}.Filter()
	require.NoError(t, err)
	assertSameAnswer(t, m.ListCountries, ix.ListCountries, kf)
	assert.Zero(t, sp.queries.Load(), "no query reached the store")
	assert.Equal(t, reads, sp.reads.Load(), "no second build")
}

// assertSameAnswer checks that got answers f as want does.
func assertSameAnswer[F, T any](t *testing.T, want, got func(context.Context, F) ([]T, int, error), f F) {
	t.Helper()
	wantItems, wantTotal, err := want(t.Context(), f)
	require.NoError(t, err)
	gotItems, total, err := got(t.Context(), f)
	require.NoError(t, err)
	assert.Equal(t, wantItems, gotItems, "%+v", f)
	assert.Equal(t, wantTotal, total, "%+v", f)
}

// TestWritesAnsweredAtOnce checks that a write through the Store, and one
// made to the wrapped store directly (another instance: seen through the
// revision), are in the next answer, before and after the next build.
func TestWritesAnsweredAtOnce(t *testing.T) {
	t.Parallel()
	for _, wait := range []bool{false, true} {
		sp, m := newSpy(t)
		ctx := t.Context()
		ix := refindex.New(sp, refindex.Options{Wait: wait, Logger: quiet})
		require.NoError(t, ix.Ready(ctx))
		for i, write := range []refdata.Store{ix, m} {
			name := []string{"Zetaqueville", "Zetaquetown"}[i]
			_, err := write.UpsertCities(ctx, []refdata.City{{CountryCode: "XA", StateCode: "ZZ", Name: name}})
			require.NoError(t, err)
			f := cityFilter(t, refdata.CityQuery{Name: ptr("zetaque")})
			got, total, err := ix.ListCities(ctx, f)
			require.NoError(t, err)
			assert.Equal(t, i+1, total, "wait=%v, write %d, first answer", wait, i)
			assert.Equal(t, name, got[len(got)-1].Name)
			require.NoError(t, ix.Ready(ctx))
			queries := sp.queries.Load()
			_, total, err = ix.ListCities(ctx, f)
			require.NoError(t, err)
			assert.Equal(t, i+1, total, "wait=%v, write %d, from the new snapshot", wait, i)
			assert.Equal(t, queries, sp.queries.Load(), "answered from the snapshot")
		}
	}
}

// TestBuildRacingAWriteIsDiscarded writes to the store while a build
// reads it: that build's snapshot must not answer.
func TestBuildRacingAWriteIsDiscarded(t *testing.T) {
	t.Parallel()
	sp, m := newSpy(t)
	ctx := t.Context()
	var once sync.Once
	sp.onRead = func(context.Context) error {
		once.Do(func() {
			_, err := m.UpsertCities(ctx, []refdata.City{{CountryCode: "XA", StateCode: "ZZ", Name: "Racetown"}})
			assert.NoError(t, err)
		})
		return nil
	}
	ix := refindex.New(sp, refindex.Options{Logger: quiet})
	require.NoError(t, ix.Ready(ctx))
	assert.Equal(t, int64(2), countBuilds(sp), "the first build was discarded, a second one made")
	_, total, err := ix.ListCities(ctx, cityFilter(t, refdata.CityQuery{Name: ptr("racetown")}))
	require.NoError(t, err)
	assert.Equal(t, 1, total)
	assert.Zero(t, sp.queries.Load())
}

// countBuilds returns how many builds read the cities (one read each: the
// default dataset fits one page).
func countBuilds(sp *spy) int64 { return sp.reads.Load() / 3 }

// TestFailedBuild checks that lists are answered by the store while builds
// fail, that no build is retried before RetryDelay, and one is after.
func TestFailedBuild(t *testing.T) {
	t.Parallel()
	sp, _ := newSpy(t)
	ctx := t.Context()
	boom := errors.New("boom")
	var failing atomic.Bool
	failing.Store(true)
	sp.onRead = func(context.Context) error {
		if failing.Load() {
			return boom
		}
		return nil
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var clock atomic.Pointer[time.Time]
	clock.Store(&now)
	ix := refindex.New(sp, refindex.Options{Wait: true, Logger: quiet, Clock: func() time.Time { return *clock.Load() }})
	require.ErrorIs(t, ix.Ready(ctx), boom)
	f := cityFilter(t, refdata.CityQuery{Name: ptr("paris")})
	want, _, err := sp.Store.ListCities(ctx, f)
	require.NoError(t, err)
	for range 3 {
		got, _, err := ix.ListCities(ctx, f)
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
	assert.Equal(t, int64(3), sp.reads.Load(), "one build (currencies, countries, the failed cities), not retried within the delay")
	failing.Store(false)
	later := now.Add(refindex.DefaultRetryDelay)
	clock.Store(&later)
	queries := sp.queries.Load()
	got, _, err := ix.ListCities(ctx, f)
	require.NoError(t, err)
	assert.Equal(t, want, got)
	assert.Equal(t, queries, sp.queries.Load(), "retried after the delay, answered from the snapshot")
}

// TestMaxCities checks that a store with more cities than MaxCities is not
// indexed and answers its lists itself, without a build per call.
func TestMaxCities(t *testing.T) {
	t.Parallel()
	sp, _ := newSpy(t)
	ctx := t.Context()
	ix := refindex.New(sp, refindex.Options{MaxCities: 10, Logger: quiet})
	require.ErrorIs(t, ix.Ready(ctx), refindex.ErrTooManyCities)
	reads := sp.reads.Load()
	f := cityFilter(t, refdata.CityQuery{Name: ptr("paris")})
	for range 3 {
		_, total, err := ix.ListCities(ctx, f)
		require.NoError(t, err)
		assert.Positive(t, total)
	}
	assert.Equal(t, int64(3), sp.queries.Load(), "the store answered")
	assert.Equal(t, reads, sp.reads.Load(), "no build per call")
}

// TestSingleFlight checks that concurrent calls that find no snapshot
// share one build (Wait) and are all answered from it.
func TestSingleFlight(t *testing.T) {
	t.Parallel()
	sp, _ := newSpy(t)
	ctx := t.Context()
	ix := refindex.New(sp, refindex.Options{Wait: true, Logger: quiet})
	f := cityFilter(t, refdata.CityQuery{Keywords: ptr("san")})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			_, total, err := ix.ListCities(ctx, f)
			assert.NoError(t, err)
			assert.Positive(t, total)
		})
	}
	wg.Wait()
	assert.Equal(t, int64(1), countBuilds(sp))
	assert.Zero(t, sp.queries.Load())
}

// TestCancelledContext checks that a List call with an ended context fails
// even when the snapshot could answer.
func TestCancelledContext(t *testing.T) {
	t.Parallel()
	sp, _ := newSpy(t)
	ix := refindex.New(sp, refindex.Options{Logger: quiet})
	require.NoError(t, ix.Ready(t.Context()))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, _, err := ix.ListCities(ctx, refdata.CityFilter{Sort: refdata.FieldID})
	assert.ErrorIs(t, err, context.Canceled)
	_, _, err = ix.ListCurrencies(ctx, refdata.CurrencyFilter{Sort: refdata.FieldID})
	assert.ErrorIs(t, err, context.Canceled)
	_, _, err = ix.ListCountries(ctx, refdata.CountryFilter{Sort: refdata.FieldID})
	assert.ErrorIs(t, err, context.Canceled)
}

// TestWrap checks that a store already in memory, or already wrapped, is
// returned as it is.
func TestWrap(t *testing.T) {
	t.Parallel()
	sp, m := newSpy(t)
	assert.Same(t, m, refindex.Wrap(m, refindex.Options{}))
	ix, ok := refindex.Wrap(sp, refindex.Options{}).(*refindex.Store)
	require.True(t, ok, "a store not in memory is wrapped")
	assert.Same(t, ix, refindex.Wrap(ix, refindex.Options{}))
}

// TestClose checks that Close cancels a build under way and waits for it
// (with no failure logged), that no build starts after it, and that lists
// are then answered by the store.
func TestClose(t *testing.T) {
	t.Parallel()
	sp, _ := newSpy(t)
	ctx := t.Context()
	started := make(chan struct{})
	var once sync.Once
	sp.onRead = func(ctx context.Context) error {
		once.Do(func() { close(started) })
		<-ctx.Done() // a read that lasts until the build is cancelled
		return ctx.Err()
	}
	var logs strings.Builder
	ix := refindex.New(sp, refindex.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	f := cityFilter(t, refdata.CityQuery{Name: ptr("paris")})
	want, _, err := sp.Store.ListCities(ctx, f)
	require.NoError(t, err)
	got, _, err := ix.ListCities(ctx, f) // starts a build
	require.NoError(t, err)
	assert.Equal(t, want, got)
	<-started
	closed := make(chan error)
	go func() { closed <- ix.Close() }()
	select {
	case err := <-closed:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not end the build under way")
	}
	assert.Empty(t, logs.String(), "a build cancelled by Close is not a failure")
	assert.ErrorIs(t, ix.Ready(ctx), refindex.ErrClosed)
	reads, queries := sp.reads.Load(), sp.queries.Load()
	got, _, err = ix.ListCities(ctx, f)
	require.NoError(t, err)
	assert.Equal(t, want, got)
	assert.Equal(t, queries+1, sp.queries.Load(), "answered by the store")
	assert.Equal(t, reads, sp.reads.Load(), "no build after Close")
	_, err = ix.UpsertCities(ctx, []refdata.City{{CountryCode: "XA", StateCode: "ZZ", Name: "Closedville"}})
	require.NoError(t, err)
	queries = sp.queries.Load()
	_, total, err := ix.ListCities(ctx, cityFilter(t, refdata.CityQuery{Name: ptr("closedville")}))
	require.NoError(t, err)
	assert.Equal(t, 1, total, "a write after Close reaches the store")
	assert.Equal(t, queries+1, sp.queries.Load(), "and is answered by it")
	assert.NoError(t, ix.Close(), "a second Close")
}

// TestWritesPatchTheSnapshot checks that writes through the Store patch
// a snapshot that lists read instead of dropping it (no build reads the
// cities again, and no list reaches the store), with the store's answers: new cities,
// tags merged into a city's and a name respelled, currencies and
// countries; and that a write of another instance between two of the
// Store's makes the next build read the store again, with its answers.
func TestWritesPatchTheSnapshot(t *testing.T) {
	t.Parallel()
	sp, m := newSpy(t)
	ctx := t.Context()
	ix := refindex.New(sp, refindex.Options{Logger: quiet})
	require.NoError(t, ix.Ready(ctx))
	reads := sp.reads.Load()
	batches := [][]refdata.City{
		refdatatest.Cities(2000, 21),
		{{CountryCode: "XA", StateCode: "ZZ", Name: "Patchville", Tags: "port"}},
		{{CountryCode: "XA", StateCode: "ZZ", Name: "PATCHVILLE", Tags: "coastal"}}, // the same city
	}
	listed := func() { // a list between writes: the snapshot is read, so worth patching
		t.Helper()
		_, _, err := ix.ListCities(ctx, cityFilter(t, refdata.CityQuery{}))
		require.NoError(t, err)
	}
	for _, b := range batches {
		listed()
		_, err := ix.UpsertCities(ctx, b)
		require.NoError(t, err)
	}
	usd := refdata.Currency{Code: "XPT", Name: "Patch dollar", NamePlural: "Patch dollars", Symbol: "P$", SymbolNative: "P$", DecimalDigits: 2}
	listed()
	require.NoError(t, ix.UpsertCurrencies(ctx, []refdata.Currency{usd}))
	queries := append(slices.Clone(cityQueries), refdata.CityQuery{Name: ptr("patchville")},
		refdata.CityQuery{Keywords: ptr("coastal port"), CountryCode: ptr("XA")})
	for _, q := range queries {
		assertSameAnswer(t, m.ListCities, ix.ListCities, cityFilter(t, q))
	}
	cf, err := refdata.CurrencyQuery{Name: ptr("patch"), DefaultCurrency: "USD"}.Filter()
	require.NoError(t, err)
	assertSameAnswer(t, m.ListCurrencies, ix.ListCurrencies, cf)
	assert.Zero(t, sp.queries.Load(), "no list reached the store")
	assert.Equal(t, reads, sp.reads.Load()-2, "no city read since the first build: only the currencies and countries, read again")

	// Another instance writes; the next write through ix cannot be
	// patched onto a snapshot that misses it.
	_, err = m.UpsertCities(ctx, []refdata.City{{CountryCode: "XA", StateCode: "ZZ", Name: "Elsewhereton"}})
	require.NoError(t, err)
	listed()
	_, err = ix.UpsertCities(ctx, []refdata.City{{CountryCode: "XA", StateCode: "ZZ", Name: "Afterton"}})
	require.NoError(t, err)
	require.NoError(t, ix.Ready(ctx))
	assert.Greater(t, sp.reads.Load(), reads+2, "a build read the store again")
	for _, q := range []refdata.CityQuery{{Name: ptr("elsewhereton")}, {Name: ptr("afterton")}, {CountryCode: ptr("XA")}} {
		assertSameAnswer(t, m.ListCities, ix.ListCities, cityFilter(t, q))
	}
}

// TestBuildStopsAtAWriteElsewhere checks that a build over several pages
// stops at the next page once another instance's write changes the
// store's revision, instead of reading every page to discard them.
func TestBuildStopsAtAWriteElsewhere(t *testing.T) {
	t.Parallel()
	sp, m := newSpy(t)
	ctx := t.Context()
	_, err := m.UpsertCities(ctx, refdatatest.Cities(45_000, 13)) // three pages with the default dataset
	require.NoError(t, err)
	var once sync.Once
	sp.onRead = func(context.Context) error {
		once.Do(func() {
			_, err := m.UpsertCities(ctx, []refdata.City{{CountryCode: "XA", StateCode: "ZZ", Name: "Elsewhereville"}})
			assert.NoError(t, err)
		})
		return nil
	}
	ix := refindex.New(sp, refindex.Options{Logger: quiet})
	require.NoError(t, ix.Ready(ctx))
	assert.Equal(t, int64(3+5), sp.reads.Load(), "a build stopped after its first page of cities (3 reads), then one read all three (5)")
	assert.Equal(t, uint64(1), ix.Builds())
	assertSameAnswer(t, m.ListCities, ix.ListCities, cityFilter(t, refdata.CityQuery{Name: ptr("elsewhereville")}))
}

// TestUnlistedWritesAreNotPatched checks that writes with no list between
// them (an import nobody lists) patch the snapshot at most once, then drop
// it: one build follows the import, not a patch a batch.
func TestUnlistedWritesAreNotPatched(t *testing.T) {
	t.Parallel()
	sp, m := newSpy(t)
	ctx := t.Context()
	ix := refindex.New(sp, refindex.Options{Wait: true, Logger: quiet})
	require.NoError(t, ix.Ready(ctx))
	cities := refdatatest.Cities(3000, 31)
	for i := 0; i < len(cities); i += 500 {
		_, err := ix.UpsertCities(ctx, cities[i:i+500])
		require.NoError(t, err)
	}
	assert.Equal(t, uint64(1), ix.Builds(), "nothing built during the import")
	assertSameAnswer(t, m.ListCities, ix.ListCities, cityFilter(t, refdata.CityQuery{SortDataField: ptr("name")}))
	assert.Equal(t, uint64(2), ix.Builds(), "one build after it, for the first list")
}
