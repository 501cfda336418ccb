package storagetest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/refdata/refindex"
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

// testRevisionCountsWrites checks the rule the reference-data index
// relies on to adopt a revision: every Upsert that returns nil advances
// RefDataRevision by exactly one, in its own transaction, also one that
// changes nothing. A store that skipped the bump of a write that changed
// nothing would let an index take another instance's write for its own
// (see refindex.Store).
func testRevisionCountsWrites(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	for _, w := range refWrites(t.Context(), s) {
		before := revisionOf(t, s)
		require.NoError(t, w.write(), w.name)
		assert.Equal(t, before+1, revisionOf(t, s), "%s: the revision advances by one", w.name)
	}
}

// testNoOpWriteAfterAWriteElsewhere writes, through a warm index that lists
// have read, something that changes nothing (cities, currencies or
// countries already stored) right after another
// instance's write (a city written to the store directly): the index must
// not take that write's revision for its own, and its lists must show the
// other instance's city. The last case is a re-import of stored cities in
// two batches with the other instance's write between them.
func testNoOpWriteAfterAWriteElsewhere(t *testing.T, newStore NewStore) {
	for _, tc := range []struct {
		name string
		// before runs before the other instance's write, after after it;
		// both write through the index, changing nothing.
		before, after func(ctx context.Context, ix *refindex.Store, stored refdata.City) error
	}{
		{"cities", nil, func(ctx context.Context, ix *refindex.Store, stored refdata.City) error {
			_, err := ix.UpsertCities(ctx, []refdata.City{stored})
			return err
		}},
		{"currencies", nil, func(ctx context.Context, ix *refindex.Store, _ refdata.City) error {
			return ix.UpsertCurrencies(ctx, testCurrencies)
		}},
		{"countries", nil, func(ctx context.Context, ix *refindex.Store, _ refdata.City) error {
			return ix.UpsertCountries(ctx, testCountries)
		}},
		{"between two batches of an import", func(ctx context.Context, ix *refindex.Store, stored refdata.City) error {
			_, err := ix.UpsertCities(ctx, []refdata.City{stored})
			return err
		}, func(ctx context.Context, ix *refindex.Store, stored refdata.City) error {
			_, err := ix.UpsertCities(ctx, []refdata.City{stored})
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := open(t, newStore)
			ctx := t.Context()
			require.NoError(t, s.UpsertCurrencies(ctx, testCurrencies)) // stored: writing them again changes nothing
			require.NoError(t, s.UpsertCountries(ctx, testCountries))
			ix := refindex.New(s, refindex.Options{Wait: true})
			t.Cleanup(func() { ix.Close() })
			require.NoError(t, ix.Ready(ctx))
			first, _, err := ix.ListCities(ctx, cityFilter(t, refdata.CityQuery{})) // listed: worth patching
			require.NoError(t, err)
			require.NotEmpty(t, first)
			stored := first[0]
			if tc.before != nil {
				require.NoError(t, tc.before(ctx, ix, stored))
			}
			elsewhere := refdata.City{CountryCode: "XA", StateCode: "AA", Name: "Elsewhereville"}
			_, err = s.UpsertCities(ctx, []refdata.City{elsewhere}) // another instance's write
			require.NoError(t, err)
			require.NoError(t, tc.after(ctx, ix, stored))

			f := cityFilter(t, refdata.CityQuery{Name: refPtr("elsewhereville")})
			got, total, err := ix.ListCities(ctx, f)
			require.NoError(t, err)
			assert.Equal(t, []refdata.City{elsewhere}, got, "the other instance's city is listed")
			assert.Equal(t, 1, total)
			all := cityFilter(t, refdata.CityQuery{SortDataField: refPtr("name"), Page: refdata.Paging{Size: refdata.MaxPageSize}})
			want, wantTotal, err := s.ListCities(ctx, all)
			require.NoError(t, err)
			got, total, err = ix.ListCities(ctx, all)
			require.NoError(t, err)
			assert.Equal(t, want, got, "the index answers as the store")
			assert.Equal(t, wantTotal, total)
		})
	}
}
