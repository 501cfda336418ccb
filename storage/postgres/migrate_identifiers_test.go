package postgres_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/internal/testkit/legacyusers"
	"github.com/brandbase/brandbase/internal/testkit/pgtest"
	"github.com/brandbase/brandbase/storage/postgres"
)

// TestMigrationIdentifiers opens a schema as it was before migration 0013
// holding users whose identifiers collide under today's rules
// (legacyusers): the migration rekeys what it can, every user still logs in
// as before, the collisions are reported, and no new write takes a key
// another user holds.
func TestMigrationIdentifiers(t *testing.T) {
	t.Parallel()
	url := pgtest.Schema(t)
	legacyusers.SeedPostgres(t, url)
	s, err := postgres.Open(t.Context(), url)
	require.NoError(t, err)
	defer s.Close()
	legacyusers.Check(t, s)
}
