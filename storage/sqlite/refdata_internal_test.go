package sqlite

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/refdata"
)

// TestRevisionReadDuringWrite orders a RefDataRevision around a write that
// changes reference data: the revision is read before the write commits,
// and cached after the write has returned. The next RefDataRevision must
// give the new revision, not the one cached (which the HTTP list cache
// would trust for revisionTTL, serving lists from before the write).
func TestRevisionReadDuringWrite(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "revision.db"))
	require.NoError(t, err)
	defer s.Close()
	before, err := s.RefDataRevision(ctx)
	require.NoError(t, err)

	s.ref.revision.Store(nil) // the next call reads the database
	s.ref.revisionRead = func() {
		s.ref.revisionRead = nil
		added, err := s.UpsertCities(ctx, []refdata.City{{CountryCode: "XA", Name: "Written meanwhile"}})
		require.NoError(t, err)
		require.Equal(t, 1, added)
	}
	during, err := s.RefDataRevision(ctx)
	require.NoError(t, err)
	assert.Equal(t, before, during, "read before the write committed")
	after, err := s.RefDataRevision(ctx)
	require.NoError(t, err)
	assert.NotEqual(t, before, after, "a write that returned is seen by the next call")
}
