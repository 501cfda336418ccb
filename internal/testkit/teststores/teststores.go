// Package teststores opens the backends that brandbase's domain and adapter
// tests run on, so that every test package runs its scenarios on the same
// stores. It is for tests only.
package teststores

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/internal/testkit/pgtest"
	"github.com/brandbase/brandbase/storage"
	"github.com/brandbase/brandbase/storage/memory"
	"github.com/brandbase/brandbase/storage/postgres"
	"github.com/brandbase/brandbase/storage/sqlite"
)

// All maps a backend's name to a function that opens a fresh, empty store
// of it (the default dataset loaded): the memory store, SQLite on a file in
// the test's temporary directory, and PostgreSQL on a schema of its own on
// the server BRANDBASE_TEST_POSTGRES names (the test skips without it; see
// internal/pgtest). The caller closes the store.
var All = map[string]func(t testing.TB) storage.Storage{
	"memory": func(t testing.TB) storage.Storage {
		s, err := memory.New(t.Context())
		require.NoError(t, err)
		return s
	},
	"sqlite": func(t testing.TB) storage.Storage {
		s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "test.db"))
		require.NoError(t, err)
		return s
	},
	"postgres": func(t testing.TB) storage.Storage {
		s, err := postgres.Open(t.Context(), pgtest.Schema(t))
		require.NoError(t, err)
		return s
	},
}
