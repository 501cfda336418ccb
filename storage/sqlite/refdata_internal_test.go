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

// TestTemplateCopyReadsRefDataFromMemory: a database Open created from the
// template answers ReadRefData from memory exactly as the SQL read does
// (records, order, revision, its own generation), a copy the caller may
// change; once a city is written, from the database again. On a file and
// in memory; a file Open did not create is read by SQL.
func TestTemplateCopyReadsRefDataFromMemory(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	for _, path := range []string{filepath.Join(t.TempDir(), "copy.db"), ":memory:"} {
		s, err := Open(ctx, path)
		require.NoError(t, err)
		defer s.Close()
		require.NotEmpty(t, s.templateGen, "%s: created from the template", path)
		sql := func() refdata.RefData {
			d, err := s.core.ReadRefData(ctx)
			require.NoError(t, err)
			return d
		}
		got, err := s.ReadRefData(ctx)
		require.NoError(t, err)
		assert.True(t, got.Template, "%s: marked as a template's", path)
		got.Template = false
		assert.Equal(t, sql(), got, "%s: the template's records, as read", path)
		assert.NotEmpty(t, got.Generation)
		got.Cities[0].Name = "Changed by the caller"
		again, err := s.ReadRefData(ctx)
		require.NoError(t, err)
		again.Template = false
		assert.Equal(t, sql(), again, "%s: the caller's change is its own", path)

		_, err = s.UpsertCities(ctx, []refdata.City{{CountryCode: "XA", Name: "Written since"}})
		require.NoError(t, err)
		after, err := s.ReadRefData(ctx)
		require.NoError(t, err)
		assert.Equal(t, sql(), after, "%s: past the template's revision, the database's", path)
		assert.Greater(t, after.Revision, got.Revision)
		assert.Len(t, after.Cities, len(got.Cities)+1)

		if path != ":memory:" {
			other, err := Open(ctx, path)
			require.NoError(t, err)
			defer other.Close()
			assert.Empty(t, other.templateGen, "a file that exists is not a copy of this Open's")
		}
	}
}
