package sqlite

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCreatePrivateWithoutTemplate checks the path Open takes when the
// template copy is not made: the empty file createPrivate makes is a new
// database to SQLite, and it and its -wal and -shm files are 0600.
func TestCreatePrivateWithoutTemplate(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "plain.db")
	createPrivate(path)
	s, err := Open(ctx, path)
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.Check(ctx), "the empty file became a whole database")
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(p)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(dbFileMode), fi.Mode().Perm(), p)
	}
}
