package postgres

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/internal/pgtest"
	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/refdata/refdatatest"
	"github.com/brandbase/brandbase/storage/internal/sqlstore"

	"github.com/brandbase/brandbase/internal/textfold"
)

// TestCityQueryPlans checks, with EXPLAIN after ANALYZE over the default
// dataset and the 150,000 generated cities of refdatatest.Large, that no
// filtered city query reads the whole cities table (no Seq Scan on it):
// every count and page query of every filter (short and long names,
// accented and non-Latin, codes, Keywords, their combinations) in every
// sort order, on the first and a far page. Loading takes a few seconds
// (COPY); the whole test well under a minute.
func TestCityQueryPlans(t *testing.T) {
	t.Parallel()
	s, err := Open(t.Context(), pgtest.Schema(t))
	require.NoError(t, err)
	defer s.Close()
	ctx := t.Context()
	start := time.Now()
	cities := refdatatest.Large()
	for i := 0; i < len(cities); i += 25_000 {
		_, err := s.UpsertCities(ctx, cities[i:min(i+25_000, len(cities))])
		require.NoError(t, err)
	}
	_, err = s.pool.Exec(ctx, `ANALYZE cities`)
	require.NoError(t, err)
	t.Logf("loaded and analysed %d cities in %v", len(cities), time.Since(start).Round(time.Millisecond))

	explain := func(begin, query string, args []any) string {
		t.Helper()
		var lines []string
		err := s.inTx(ctx, pgx.TxOptions{BeginQuery: begin}, func(tx pgx.Tx) error {
			var err error
			lines, err = queryAll(ctx, tx, sqlstore.ScanColumn[string], "EXPLAIN "+query, args...)
			return err
		})
		require.NoError(t, err, query)
		return strings.Join(lines, "\n")
	}
	p := func(s string) *string { return &s }
	queries := []refdata.CityQuery{
		{Name: p("zü")}, {Name: p("Ü")}, {Name: p("東")}, {Name: p("東京")}, {Name: p("o ")}, {Name: p("a")},
		{Name: p("burg")}, {Name: p("São Pau")}, {Name: p("a-b")}, {Name: p("o z")}, {Name: p("'-'")},
		{CountryCode: p("BR")}, {StateCode: p("AA")}, {CountryCode: p("US"), StateCode: p("CA")},
		{CountryCode: p("BR"), Name: p("zü")}, {CountryCode: p("BR"), Name: p("burg")},
		{StateCode: p("AA"), Name: p("r")}, {StateCode: p("AA"), Name: p("burg")},
		{CountryCode: p("US"), StateCode: p("CA"), Name: p("an")},
		{Keywords: p("san jo")}, {Keywords: p("s")}, {Keywords: p("port"), CountryCode: p("FR")},
		{Keywords: p("port"), Name: p("z")}, {Keywords: p("port"), Name: p("burg")},
		{Keywords: p("port"), CountryCode: p("FR"), Name: p("zü")},
		{Keywords: p("port"), StateCode: p("AA"), Name: p("burg")},
	}
	for _, q := range queries {
		for _, sortBy := range []string{"id", "name", "countryCode", "stateCode", "tags"} {
			for _, order := range []string{"asc", "desc"} {
				q.SortDataField, q.SortOrder = &sortBy, &order
				for _, number := range []int{0, 40} {
					q.Page = refdata.Paging{Number: number, Size: 200}
					f, err := q.Filter()
					require.NoError(t, err)
					plan, nothing := planCities(f)
					require.False(t, nothing)
					name := fmt.Sprintf("%+v", f)
					for _, sq := range []struct {
						what  string
						query string
						args  []any
					}{{"count", plan.count, plan.countArgs}, {"page", plan.page, plan.pageArgs}} {
						lines := explain(plan.begin, sq.query, sq.args)
						if testing.Verbose() && number == 0 && order == "asc" && sortBy == "id" {
							t.Logf("%s of %s:\n%s", sq.what, name, lines)
						}
						assert.NotContains(t, lines, "Seq Scan on cities", "%s of %s", sq.what, name)
					}
				}
			}
		}
	}
	rev, err := s.RefDataRevision(ctx)
	require.NoError(t, err)
	changed := changedSince(rev, refdata.Paging{Size: 200})
	for _, sq := range []struct {
		query string
		args  []any
	}{{changed.count, changed.countArgs}, {changed.page, changed.pageArgs}} {
		assert.NotContains(t, explain(readTx, sq.query, sq.args), "Seq Scan on cities", "CitiesChangedSince: %s", sq.query)
	}
}

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
	err = s.inTx(ctx, pgx.TxOptions{}, func(tx pgx.Tx) error {
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
		lines, err := queryAll(ctx, tx, sqlstore.ScanColumn[string], "EXPLAIN "+storedTagsSQL, pgx.QueryExecModeExec, cc, sc, folds)
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
