package sqlite

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/storage/internal/sqlstore"
)

// TestChangedSincePlan checks that the read of the cities changed since a
// revision (RefDataChangesSince) searches the index of revisions
// (cities_rev) rather than scanning the cities table: an instance catching
// up with another's writes reads the changed rows alone.
func TestChangedSincePlan(t *testing.T) {
	t.Parallel()
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "plans.db"))
	require.NoError(t, err)
	defer s.Close()
	rows, err := s.r.QueryContext(t.Context(), "EXPLAIN QUERY PLAN "+sqlstore.ChangedCitiesSQL("?"), 5)
	require.NoError(t, err)
	defer rows.Close()
	var details []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		require.NoError(t, rows.Scan(&id, &parent, &unused, &detail))
		details = append(details, detail)
	}
	require.NoError(t, rows.Err())
	require.NotEmpty(t, details)
	for _, d := range details {
		assert.NotContains(t, d, "SCAN cities", "the changed cities are searched, not scanned")
	}
	assert.Contains(t, details[0], "cities_rev")
}
