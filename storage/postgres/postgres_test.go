package postgres_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/internal/pgtest"
	"github.com/brandbase/brandbase/storage"
	"github.com/brandbase/brandbase/storage/postgres"
	"github.com/brandbase/brandbase/storage/storagetest"
)

// TestConformance runs the storage conformance suite, each store on a
// schema of its own. It skips without BRANDBASE_TEST_POSTGRES.
func TestConformance(t *testing.T) {
	pgtest.URL(t)
	storagetest.Run(t, func(t *testing.T) storage.Storage {
		s, err := postgres.Open(t.Context(), pgtest.Schema(t))
		require.NoError(t, err)
		return s
	})
}
