package postgres_test

import (
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/internal/testkit/pgtest"
)

// TestPendingMigrations: a migration whose record is removed behind the
// store's back is reported pending, by name.
func TestPendingMigrations(t *testing.T) {
	t.Parallel()
	url := pgtest.Schema(t)
	s := open(t, url)
	ctx := t.Context()
	pending, err := s.PendingMigrations(ctx)
	require.NoError(t, err)
	assert.Empty(t, pending)

	conn, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	defer conn.Close(ctx)
	var name string
	require.NoError(t, conn.QueryRow(ctx, `DELETE FROM schema_migrations WHERE version = (SELECT max(version) FROM schema_migrations) RETURNING name`).Scan(&name))
	pending, err = s.PendingMigrations(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{name}, pending)
}
