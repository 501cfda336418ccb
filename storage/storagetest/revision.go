package storagetest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/refdata"
)

// revisionOf reads the reference-data revision of s.
func revisionOf(t *testing.T, s refdata.Store) uint64 {
	t.Helper()
	rev, err := s.RefDataRevision(t.Context())
	require.NoError(t, err)
	return rev
}

// refWrites are reference-data writes of each kind, each one that changes
// the stored data and one that changes nothing (the same records again),
// on the default dataset and the test records.
func refWrites(ctx context.Context, s refdata.Store) []struct {
	name  string
	write func() error
} {
	cities := func(cs []refdata.City) func() error {
		return func() error { _, err := s.UpsertCities(ctx, cs); return err }
	}
	return []struct {
		name  string
		write func() error
	}{
		{"new cities", cities(testCities)},
		{"the same cities again", cities(testCities)},
		{"new currencies", func() error { return s.UpsertCurrencies(ctx, testCurrencies) }},
		{"the same currencies again", func() error { return s.UpsertCurrencies(ctx, testCurrencies) }},
		{"new countries", func() error { return s.UpsertCountries(ctx, testCountries) }},
		{"the same countries again", func() error { return s.UpsertCountries(ctx, testCountries) }},
	}
}

// testRevisionCountsWrites checks the rule refdata.Service relies on to
// see every write: every Upsert that returns nil advances RefDataRevision
// by exactly one, in its own transaction, also one that changes nothing
// (a write that left the revision alone would leave every instance's
// snapshot, and the adapter's ETags, as they were).
func testRevisionCountsWrites(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	for _, w := range refWrites(t.Context(), s) {
		before := revisionOf(t, s)
		require.NoError(t, w.write(), w.name)
		assert.Equal(t, before+1, revisionOf(t, s), "%s: the revision advances by one", w.name)
	}
}

// testNoOpWriteAfterAWriteElsewhere writes, after a Service read its
// snapshot, something that changes nothing (cities, currencies or
// countries already stored) right after another instance's write (a city
// written to the store directly): the Service must not take that write's
// revision for its own, and its lists must show the other instance's
// city. The last case is a re-import of stored cities in two batches with
// the other instance's write between them. (The index wrote through
// itself; the Service does not write but imports, so both writes go to
// the store: the assertions are those of the index.)
func testNoOpWriteAfterAWriteElsewhere(t *testing.T, newStore NewStore) {
	for _, tc := range []struct {
		name string
		// before runs before the other instance's write, after after it;
		// both change nothing.
		before, after func(ctx context.Context, s refdata.Store, stored refdata.City) error
	}{
		{"cities", nil, func(ctx context.Context, s refdata.Store, stored refdata.City) error {
			_, err := s.UpsertCities(ctx, []refdata.City{stored})
			return err
		}},
		{"currencies", nil, func(ctx context.Context, s refdata.Store, _ refdata.City) error {
			return s.UpsertCurrencies(ctx, testCurrencies)
		}},
		{"countries", nil, func(ctx context.Context, s refdata.Store, _ refdata.City) error {
			return s.UpsertCountries(ctx, testCountries)
		}},
		{"between two batches of an import", func(ctx context.Context, s refdata.Store, stored refdata.City) error {
			_, err := s.UpsertCities(ctx, []refdata.City{stored})
			return err
		}, func(ctx context.Context, s refdata.Store, stored refdata.City) error {
			_, err := s.UpsertCities(ctx, []refdata.City{stored})
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := open(t, newStore)
			ctx := t.Context()
			require.NoError(t, s.UpsertCurrencies(ctx, testCurrencies)) // stored: writing them again changes nothing
			require.NoError(t, s.UpsertCountries(ctx, testCountries))
			svc := refdata.NewService(s)
			t.Cleanup(svc.Close)
			require.NoError(t, svc.Ready(ctx))
			first, err := svc.ListCities(ctx, refdata.CityQuery{})
			require.NoError(t, err)
			require.NotEmpty(t, first.Items)
			stored := first.Items[0]
			if tc.before != nil {
				require.NoError(t, tc.before(ctx, s, stored))
			}
			elsewhere := refdata.City{CountryCode: "XA", StateCode: "AA", Name: "Elsewhereville"}
			_, err = s.UpsertCities(ctx, []refdata.City{elsewhere}) // another instance's write
			require.NoError(t, err)
			require.NoError(t, tc.after(ctx, s, stored))

			got, err := svc.ListCities(ctx, refdata.CityQuery{Name: refPtr("elsewhereville")})
			require.NoError(t, err)
			assert.Equal(t, []refdata.City{elsewhere}, got.Items, "the other instance's city is listed")
			assert.Equal(t, 1, got.TotalItems)
			all := refdata.CityQuery{SortDataField: refPtr("name"), Page: refdata.Paging{Size: refdata.MaxPageSize}}
			fresh := refdata.NewService(s) // a snapshot read whole now
			t.Cleanup(fresh.Close)
			want, err := fresh.ListCities(ctx, all)
			require.NoError(t, err)
			got, err = svc.ListCities(ctx, all)
			require.NoError(t, err)
			assert.Equal(t, want, got, "the patched snapshot answers as one read whole")
		})
	}
}

// testGeneration checks the generation contract refdata.Service relies on
// to notice a restore: the generation is set once reference data are
// written (the default dataset is) and kept by later writes; ReadRefData,
// RefDataChangesSince and RefDataGeneration (uncached) agree on it and on
// the revision; RefDataWritten is the revision of this Store's last write.
func testGeneration(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	ctx := t.Context()
	gen, rev, err := s.RefDataGeneration(ctx)
	require.NoError(t, err)
	require.NotEmpty(t, gen, "the default dataset is written: a generation with it")
	assert.Equal(t, revisionOf(t, s), rev, "the revision, read uncached")
	for _, w := range refWrites(ctx, s) {
		require.NoError(t, w.write(), w.name)
		got, rev, err := s.RefDataGeneration(ctx)
		require.NoError(t, err)
		assert.Equal(t, gen, got, "%s: the generation stays", w.name)
		assert.Equal(t, revisionOf(t, s), rev, "%s: the revision, read uncached", w.name)
		assert.Equal(t, rev, s.RefDataWritten(), "%s: this Store's last write", w.name)
	}
	data, err := s.ReadRefData(ctx)
	require.NoError(t, err)
	assert.Equal(t, gen, data.Generation, "ReadRefData reads the generation")
	changes, err := s.RefDataChangesSince(ctx, data.Revision, 0)
	require.NoError(t, err)
	assert.Equal(t, gen, changes.Generation, "RefDataChangesSince reads the generation")
	assert.False(t, changes.Whole)

	other := open(t, newStore)
	otherGen, _, err := other.RefDataGeneration(ctx)
	require.NoError(t, err)
	assert.NotEqual(t, gen, otherGen, "another database: another generation")
}

// testChangesTooManyReadWhole checks RefDataChangesSince's limit: with no
// more changed cities than the limit, those; with more, every city (as
// ReadRefData reads them) and Whole, in the one call.
func testChangesTooManyReadWhole(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	ctx := t.Context()
	rev := revisionOf(t, s)
	cities := []refdata.City{
		{CountryCode: "XA", StateCode: "AA", Name: "Limitville"},
		{CountryCode: "XA", StateCode: "AA", Name: "Limitburg"},
		{CountryCode: "XA", StateCode: "AA", Name: "Limitton"},
	}
	_, err := s.UpsertCities(ctx, cities)
	require.NoError(t, err)
	for _, limit := range []int{0, 3, 4} {
		data, err := s.RefDataChangesSince(ctx, rev, limit)
		require.NoError(t, err)
		assert.False(t, data.Whole, "limit %d", limit)
		assert.Equal(t, cities, data.Cities, "limit %d: the changes", limit)
	}
	all, err := s.ReadRefData(ctx)
	require.NoError(t, err)
	for _, limit := range []int{1, 2} {
		data, err := s.RefDataChangesSince(ctx, rev, limit)
		require.NoError(t, err)
		assert.True(t, data.Whole, "limit %d: too many", limit)
		data.Whole = false
		assert.Equal(t, all, data, "limit %d: every city, as ReadRefData", limit)
	}
}
