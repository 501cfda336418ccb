package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/internal/testkit/pgtest"
	"github.com/brandbase/brandbase/storage/postgres"
)

// TestMigrationAdministration opens a schema as it was before migration
// 0018 holding a user: the migration writes the user's search words, so a
// keyword search finds it, and a list sorted by username orders byte by
// byte.
func TestMigrationAdministration(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	url := pgtest.Schema(t)
	s, err := postgres.Open(ctx, url)
	require.NoError(t, err)
	b := auth.Brand{ID: "b1", URL: "old.example.com", Name: "Old", Status: auth.StatusActive, DefaultCurrency: "USD", CreatedAt: time.Now()}
	require.NoError(t, s.CreateBrand(ctx, b))
	require.NoError(t, s.Close())

	conn, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	for _, q := range []string{`DROP TABLE user_words`, `DROP INDEX users_brand_id`, `DROP INDEX users_brand_status`,
		`ALTER TABLE users ALTER COLUMN username_key TYPE text COLLATE "default"`,
		`DELETE FROM schema_migrations WHERE version = 18`,
		`INSERT INTO users (id, brand_id, username, username_key, email_address, email_key, phone_number, password_hash,
			permissions, status, created_at, updated_at, first_name, last_name)
			VALUES ('u1', 'b1', 'olduser', 'olduser', 'old@example.com', 'old@example.com', '', 'x', '{}', 'Active', now(), now(), 'Jérôme', 'Ancien'),
			       ('u2', 'b1', 'Zed', 'zed', '', NULL, '', 'x', '{}', 'Active', now(), now(), '', ''),
			       ('u3', 'b1', '_under', '_under', '', NULL, '', 'x', '{}', 'Active', now(), now(), '', '')`} {
		_, err := conn.Exec(ctx, q)
		require.NoError(t, err, q)
	}
	require.NoError(t, conn.Close(context.WithoutCancel(ctx)))

	s, err = postgres.Open(ctx, url)
	require.NoError(t, err)
	defer s.Close()
	for _, term := range []string{"jerome", "ancien", "old", "example"} {
		recs, total, err := s.ListUserPage(ctx, "b1", auth.UserFilter{Terms: []string{term}, Limit: 10})
		require.NoError(t, err)
		assert.Equal(t, 1, total, term)
		require.Len(t, recs, 1, term)
		assert.Equal(t, "u1", recs[0].ID)
	}
	recs, _, err := s.ListUserPage(ctx, "b1", auth.UserFilter{Sort: auth.UserSortUsername, Limit: 10})
	require.NoError(t, err)
	var keys []string
	for _, r := range recs {
		keys = append(keys, r.UsernameKey)
	}
	assert.Equal(t, []string{"_under", "olduser", "zed"}, keys, "byte order: _ (0x5F) before the letters")
}
