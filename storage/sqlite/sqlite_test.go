package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/storage"
	"github.com/brandbase/brandbase/storage/sqlite"
	"github.com/brandbase/brandbase/storage/storagetest"
)

func TestConformanceFile(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T) storage.Storage {
		s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "test.db"))
		require.NoError(t, err)
		return s
	})
}

func TestConformanceMemory(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T) storage.Storage {
		s, err := sqlite.Open(t.Context(), ":memory:")
		require.NoError(t, err)
		return s
	})
}

func TestReopenKeepsData(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "reopen.db")
	ctx := t.Context()

	s, err := sqlite.Open(ctx, path)
	require.NoError(t, err)
	svc := auth.NewService(s)
	b, err := svc.CreateBrand(ctx, auth.NewBrand{URL: "https://Persist.Example.com/", Name: "Persist"})
	require.NoError(t, err)
	require.NoError(t, s.Close())

	s, err = sqlite.Open(ctx, path)
	require.NoError(t, err, "reopening migrates nothing twice and reloads nothing")
	defer s.Close()
	got, err := s.BrandByURL(ctx, "persist.example.com")
	require.NoError(t, err)
	assert.Equal(t, b, got)
}

func TestOpenRejectsBadPath(t *testing.T) {
	t.Parallel()
	for _, p := range []string{"", "x.db?mode=ro", "a#b"} {
		_, err := sqlite.Open(t.Context(), p)
		assert.Error(t, err, p)
	}
}
