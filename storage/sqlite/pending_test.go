package sqlite_test

import (
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/storage/sqlite"
)

// TestPendingMigrations: a migration whose record is removed behind the
// store's back is reported pending, by name; a closed store fails.
func TestPendingMigrations(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "pending.db")
	s, err := sqlite.Open(t.Context(), path)
	require.NoError(t, err)
	pending, err := s.PendingMigrations(t.Context())
	require.NoError(t, err)
	assert.Empty(t, pending)

	db, err := sql.Open("sqlite", path)
	require.NoError(t, err)
	defer db.Close()
	var name string
	require.NoError(t, db.QueryRow(`SELECT name FROM schema_migrations ORDER BY version DESC LIMIT 1`).Scan(&name))
	_, err = db.Exec(`DELETE FROM schema_migrations WHERE name = ?`, name)
	require.NoError(t, err)
	pending, err = s.PendingMigrations(t.Context())
	require.NoError(t, err)
	assert.Equal(t, []string{name}, pending)

	require.NoError(t, s.Close())
	_, err = s.PendingMigrations(t.Context())
	assert.Error(t, err, "a closed store cannot say")
}
