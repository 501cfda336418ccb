package sqlite

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/refdata"
)

// tableScan matches a query-plan line that reads the cities table, or one
// of its indexes, from end to end.
var tableScan = regexp.MustCompile(`^SCAN (c|cities)\b`)

// TestCityQueryPlans checks, with EXPLAIN QUERY PLAN, that no filtered city
// query reads the whole cities table: every count and page query of every
// filter (short and long names, accented and non-Latin, codes, Keywords,
// their combinations) in every sort order, for a few and for most cities
// matching. The one scan allowed is the walk of a sort field's index for a
// Name that many names hold (planCities): it must follow that index, so
// that LIMIT ends it, and never sort.
func TestCityQueryPlans(t *testing.T) {
	t.Parallel()
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "plans.db"))
	require.NoError(t, err)
	defer s.Close()
	explain := func(query string, args []any) []string {
		t.Helper()
		rows, err := s.r.QueryContext(t.Context(), "EXPLAIN QUERY PLAN "+query, args...)
		require.NoError(t, err, query)
		defer rows.Close()
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			require.NoError(t, rows.Scan(&id, &parent, &unused, &detail))
			plan = append(plan, detail)
		}
		require.NoError(t, rows.Err())
		return plan
	}
	sortIndex := map[refdata.Field]string{
		refdata.FieldName: "cities_name", refdata.FieldCountryCode: "cities_country",
		refdata.FieldStateCode: "cities_state", refdata.FieldTags: "cities_tags",
	}
	p := func(s string) *string { return &s }
	queries := []refdata.CityQuery{
		{Name: p("zü")}, {Name: p("Ü")}, {Name: p("東")}, {Name: p("東京")}, {Name: p("o ")},
		{Name: p("burg")}, {Name: p("São Pau")}, {Name: p("a\x00b")}, {Name: p("\x00")},
		{CountryCode: p("BR")}, {StateCode: p("AA")}, {CountryCode: p("US"), StateCode: p("CA")},
		{CountryCode: p("BR"), Name: p("zü")}, {CountryCode: p("BR"), Name: p("burg")},
		{StateCode: p("AA"), Name: p("r")}, {StateCode: p("AA"), Name: p("burg")},
		{CountryCode: p("US"), StateCode: p("CA"), Name: p("an")},
		{Keywords: p("san jo")}, {Keywords: p("s")}, {Keywords: p("port"), CountryCode: p("FR")},
		{Keywords: p("port"), Name: p("z")}, {Keywords: p("port"), Name: p("burg")},
		{Keywords: p("port"), CountryCode: p("FR"), Name: p("zü")},
		{Keywords: p("port"), StateCode: p("AA"), Name: p("burg")},
	}
	const cities = 150_000
	for _, q := range queries {
		for _, sortBy := range []string{"id", "name", "countryCode", "stateCode", "tags"} {
			for _, order := range []string{"asc", "desc"} {
				q.SortDataField, q.SortOrder = &sortBy, &order
				for _, number := range []int{0, 40} {
					q.Page = refdata.Paging{Number: number, Size: 200}
					f, err := q.Filter()
					require.NoError(t, err)
					plan := planCities(f)
					name := fmt.Sprintf("%+v", f)
					for _, line := range explain(plan.count, plan.countArgs) {
						assert.NotRegexp(t, tableScan, line, "count of %s", name)
					}
					for _, total := range []int{1, 1000, 100_000} {
						query, args := plan.page(total, cities)
						lines := explain(query, args)
						if testing.Verbose() && number == 0 && order == "asc" { // the plans, to read
							t.Logf("%s %d: %s", name, total, strings.Join(lines, " / "))
						}
						walk := strings.Contains(query, "FROM cities c WHERE instr(")
						if walk {
							assert.True(t, walkCheaper(f, total, cities), "page of %s, %d matches: walks", name, total)
						}
						for _, line := range lines {
							if walk && tableScan.MatchString(line) {
								assert.Regexp(t, `^SCAN c USING (COVERING )?INDEX `+sortIndex[f.Sort]+`$`, line,
									"page of %s, %d matches: walks the sort index", name, total)
								assert.NotContains(t, lines, "USE TEMP B-TREE FOR ORDER BY", "page of %s: a walk never sorts", name)
								continue
							}
							assert.NotRegexp(t, tableScan, line, "page of %s, %d matches", name, total)
						}
					}
				}
			}
		}
	}
}

// TestChangedSincePlans checks that the queries of CitiesChangedSince read
// the index of revisions, not the table.
func TestChangedSincePlans(t *testing.T) {
	t.Parallel()
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "plans.db"))
	require.NoError(t, err)
	defer s.Close()
	for _, q := range []struct {
		query string
		args  []any
	}{{changedCount, []any{5}}, {changedPage + ` LIMIT ? OFFSET ?`, []any{5, 200, 0}}} {
		rows, err := s.r.QueryContext(t.Context(), "EXPLAIN QUERY PLAN "+q.query, q.args...)
		require.NoError(t, err)
		for rows.Next() {
			var id, parent, unused int
			var detail string
			require.NoError(t, rows.Scan(&id, &parent, &unused, &detail))
			assert.NotRegexp(t, tableScan, detail, q.query)
			assert.NotContains(t, detail, "SCAN cities", q.query)
		}
		require.NoError(t, rows.Err())
		require.NoError(t, rows.Close())
	}
}

// TestWalkCheaper checks when a Name filter alone walks the sort index.
func TestWalkCheaper(t *testing.T) {
	t.Parallel()
	filter := func(sortBy string, number int) refdata.CityFilter {
		f, err := refdata.CityQuery{Name: new("a"), SortDataField: &sortBy,
			Page: refdata.Paging{Number: number, Size: 200}}.Filter()
		require.NoError(t, err)
		return f
	}
	scenarios := []struct {
		name          string
		f             refdata.CityFilter
		total, cities int
		walk          bool
	}{
		{"no match", filter("name", 0), 0, 150_000, false},
		{"most names, first page", filter("name", 0), 100_000, 150_000, true},
		{"few names: sort them", filter("name", 0), 1000, 150_000, false},
		{"a name index tested in place", filter("name", 0), 3000, 150_000, true},
		{"tags: every entry read", filter("tags", 0), 3000, 150_000, false},
		{"tags, most names", filter("tags", 0), 100_000, 150_000, true},
		{"deep page", filter("name", 400), 3000, 150_000, false},
		{"huge page number, no overflow", filter("name", 1<<30), 150_000, 150_000, false},
	}
	for _, sc := range scenarios {
		assert.Equal(t, sc.walk, walkCheaper(sc.f, sc.total, sc.cities), sc.name)
	}
}

// TestNameGrams checks the tokens of cities_grams and of a Name.
func TestNameGrams(t *testing.T) {
	t.Parallel()
	counts := map[string]int{}
	assert.Equal(t, "61 62 61x62 62x61", nameGrams("abab", counts))
	assert.Equal(t, "6771 4eac 6771x4eac", nameGrams("東京", counts))
	assert.Equal(t, "7a 75 7ax75 20 75x20 6f 20x6f", nameGrams("zu o", counts))
	assert.Equal(t, map[string]int{"61": 1, "61x62": 1, "62": 1, "62x61": 1, "6771": 1, "6771x4eac": 1, "4eac": 1,
		"7a": 1, "7ax75": 1, "75": 1, "75x20": 1, "20": 1, "20x6f": 1, "6f": 1}, counts, "each city counted once per token")
	assert.Empty(t, nameGrams("", counts))

	scenarios := []struct {
		needle, token string
		exact         bool
	}{
		{"", "", false},
		{"a", "61", true},
		{"zu", "7ax75", true},
		{"東", "6771", true},
		{"\x00", "0", true},
		{"abc", "61x62", false},
		{"\xff", "fffd", false},
		{"a\xff", "61xfffd", false},
	}
	for _, sc := range scenarios {
		token, exact := gramToken(sc.needle)
		assert.Equal(t, sc.token, token, "%q", sc.needle)
		assert.Equal(t, sc.exact, exact, "%q", sc.needle)
	}
}
