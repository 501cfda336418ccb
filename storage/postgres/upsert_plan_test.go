package postgres

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/internal/testkit/pgtest"
	"github.com/brandbase/brandbase/internal/textfold"
	"github.com/brandbase/brandbase/refdata"
)

// TestStoredTagsLookupPlan: the look-up of stored tags before each batch of
// a city import, for a batch of one country and state into a state that
// holds many cities, is planned for its keys each time (never a cached
// generic plan, which found each key through the (country, state) index
// and filtered by name: every stored city of the state read once per key),
// and its plan finds the keys through the unique (country, state, name)
// index or hashes them, never through the (country, state) index.
func TestStoredTagsLookupPlan(t *testing.T) {
	t.Parallel()
	s, err := Open(t.Context(), pgtest.Schema(t))
	require.NoError(t, err)
	defer s.Close()
	ctx := t.Context()
	city := func(i int) refdata.City {
		return refdata.City{CountryCode: "US", StateCode: "TX", Name: fmt.Sprintf("Town %d", i), Tags: "x"}
	}
	var cs []refdata.City
	for i := range 6000 {
		cs = append(cs, city(i))
	}
	for i := 0; i < len(cs); i += 3000 {
		_, err := s.UpsertCities(ctx, cs[i:i+3000])
		require.NoError(t, err)
	}
	batch := make([]refdata.City, 1000)
	folds := make([]string, len(batch))
	cc, sc := make([]string, len(batch)), make([]string, len(batch))
	for i := range batch {
		batch[i] = city(5500 + i) // half stored, half new
		folds[i], cc[i], sc[i] = textfold.Fold(batch[i].Name), "US", "TX"
	}
	err = s.inTx(ctx, pgx.TxOptions{}, func(_ context.Context, tx pgx.Tx) error {
		for range 10 { // more than the five custom plans after which PostgreSQL may cache a generic one
			merged, err := withStoredTags(ctx, tx, batch, folds)
			require.NoError(t, err)
			require.Equal(t, "x", merged[0].Tags)
		}
		var cached int
		require.NoError(t, tx.QueryRow(ctx, `SELECT count(*) FROM pg_prepared_statements
			WHERE statement LIKE '%WITH ORDINALITY k(cc, sc, nf, i)%' AND statement NOT LIKE '%pg_prepared_statements%'
				AND generic_plans > 0`).Scan(&cached))
		assert.Zero(t, cached, "the look-up never runs on a generic plan")
		rows, err := tx.Query(ctx, "EXPLAIN "+storedTagsSQL, pgx.QueryExecModeExec, cc, sc, folds)
		require.NoError(t, err)
		lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
		require.NoError(t, err)
		plan := strings.Join(lines, "\n")
		t.Logf("look-up of %d keys among %d cities of one state:\n%s", len(batch), len(cs), plan)
		assert.NotContains(t, plan, "cities_country_state", "not through the (country, state) index")
		assert.True(t, strings.Contains(plan, "cities_key") || strings.Contains(plan, "Hash Join"),
			"through the unique index, or hashed")
		return nil
	})
	require.NoError(t, err)
}
