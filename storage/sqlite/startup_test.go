package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/storage"
	"github.com/brandbase/brandbase/storage/sqlite"
	"github.com/brandbase/brandbase/storage/storagetest"
)

// BenchmarkIndexStartup times an instance's start on a SQLite file
// holding 150,000 cities: storagetest.BenchIndexStartup.
func BenchmarkIndexStartup(b *testing.B) {
	path := filepath.Join(b.TempDir(), "large.db")
	storagetest.BenchIndexStartup(b, func(b *testing.B) storage.Storage {
		s, err := sqlite.Open(b.Context(), path)
		require.NoError(b, err)
		return s
	})
}
