package storagetest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// migrationsReporter is the optional capability of a store that keeps its
// schema's migrations (the SQL stores): readiness checks ask it whether
// any is pending.
type migrationsReporter interface {
	PendingMigrations(ctx context.Context) ([]string, error)
}

// runMigrations checks, on a store with migrations, that none is pending
// once it is open (Open applies them all); a store without migrations
// skips.
func runMigrations(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	m, ok := s.(migrationsReporter)
	if !ok {
		t.Skip("the store keeps no migrations")
	}
	pending, err := m.PendingMigrations(t.Context())
	require.NoError(t, err)
	assert.Empty(t, pending, "an open store has applied every migration")
}
