package sqlite

import (
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/envelope"
)

// TestBusyIsUnavailable: a write that waited past busy_timeout for a lock
// another connection holds (a real SQLITE_BUSY from the driver) is
// envelope.Unavailable, not an internal error; Ping answers.
func TestBusyIsUnavailable(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "busy.db")
	s, err := Open(ctx, path)
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.Ping(ctx))

	holder, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(0)")
	require.NoError(t, err)
	defer holder.Close()
	hc, err := holder.Conn(ctx)
	require.NoError(t, err)
	defer hc.Close()
	_, err = hc.ExecContext(ctx, `BEGIN IMMEDIATE`)
	require.NoError(t, err)
	defer hc.ExecContext(ctx, `ROLLBACK`) //nolint:errcheck // the test's end

	writer, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(10)")
	require.NoError(t, err)
	defer writer.Close()
	_, err = writer.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES ('busy', 'x')`)
	require.Error(t, err)
	mapped := storeError(err)
	assert.True(t, envelope.IsUnavailable(mapped), "busy past busy_timeout: %v", mapped)
	assert.ErrorIs(t, mapped, err)
	assert.Equal(t, envelope.KindInternal, envelope.KindOf(storeError(sql.ErrConnDone)), "other failures stay internal")
}
