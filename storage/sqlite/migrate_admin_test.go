package sqlite_test

import (
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/storage/sqlite"
)

// TestMigrationAdministration opens a database under the schema before
// migration 0018 holding a user: the migration writes the user's search
// words, so a keyword search finds it.
func TestMigrationAdministration(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "before0018.db")
	s, err := sqlite.Open(ctx, path)
	require.NoError(t, err)
	b := auth.Brand{ID: "b1", URL: "old.example.com", Name: "Old", Status: auth.StatusActive, DefaultCurrency: "USD", CreatedAt: time.Now()}
	require.NoError(t, s.CreateBrand(ctx, b))
	require.NoError(t, s.Close())

	db, err := sql.Open("sqlite", path)
	require.NoError(t, err)
	for _, q := range []string{`DROP TABLE user_words`, `DROP INDEX users_brand_id`, `DROP INDEX users_brand_status`,
		`DELETE FROM schema_migrations WHERE version = 18`,
		`INSERT INTO users (id, brand_id, username, username_key, email_address, email_key, phone_number, password_hash,
			permissions, status, created_at, updated_at, seq, first_name, last_name)
			VALUES ('u1', 'b1', 'olduser', 'olduser', 'old@example.com', 'old@example.com', '', 'x', '', 'Active', 1, 1, 1, 'Jérôme', 'Ancien')`} {
		_, err := db.ExecContext(ctx, q)
		require.NoError(t, err, q)
	}
	require.NoError(t, db.Close())

	s, err = sqlite.Open(ctx, path)
	require.NoError(t, err)
	defer s.Close()
	for _, term := range []string{"jerome", "ancien", "old", "example"} {
		recs, total, err := s.ListUserPage(ctx, "b1", auth.UserFilter{Terms: []string{term}, Limit: 10})
		require.NoError(t, err)
		assert.Equal(t, 1, total, term)
		require.Len(t, recs, 1, term)
		assert.Equal(t, "u1", recs[0].ID)
	}
}
