package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/internal/testkit/legacyusers"
	"github.com/brandbase/brandbase/storage/sqlite"
)

// TestMigrationIdentifiers opens a database under the schema before
// migration 0013 holding users whose identifiers collide under today's
// rules (legacyusers): the migration rekeys what it can, every user still
// logs in as before, the collisions are reported, and no new write takes a
// key another user holds.
func TestMigrationIdentifiers(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "legacy.db")
	legacyusers.SeedSQLite(t, path)
	s, err := sqlite.Open(t.Context(), path)
	require.NoError(t, err)
	defer s.Close()
	legacyusers.Check(t, s)
}
