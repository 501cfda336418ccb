package memory_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/storage"
	"github.com/brandbase/brandbase/storage/memory"
	"github.com/brandbase/brandbase/storage/storagetest"
)

func TestConformance(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T) storage.Storage {
		s, err := memory.New(t.Context())
		require.NoError(t, err)
		return s
	})
}
