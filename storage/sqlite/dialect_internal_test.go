package sqlite

import (
	"database/sql"
	"errors"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/envelope"
)

// TestStoreErrorFallbacks: a unique violation no call names a sentinel for,
// and a missing row, come out of storeError as the contract's fallback
// sentinels (their kind and text, not the driver's), carrying the driver
// error as their cause for logs.
func TestStoreErrorFallbacks(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "fallback.db"))
	require.NoError(t, err)
	defer db.Close()
	_, err = db.ExecContext(ctx, `CREATE TABLE t (k TEXT PRIMARY KEY)`)
	require.NoError(t, err)

	tx, err := db.BeginTx(ctx, nil)
	require.NoError(t, err)
	defer tx.Rollback() //nolint:errcheck // the test's end
	_, err = tx.ExecContext(ctx, `INSERT INTO t (k) VALUES ('a')`)
	require.NoError(t, err)
	_, err = tx.ExecContext(ctx, `INSERT INTO t (k) VALUES ('a')`)
	err = storeError(err)
	require.ErrorIs(t, err, envelope.ErrStoreConflict)
	assert.Equal(t, envelope.KindConflict, envelope.KindOf(err))
	assert.Equal(t, envelope.ErrStoreConflict.Message, envelope.As(err).Message, "the client reads the sentinel's text")
	assert.True(t, isUnique(errors.Unwrap(err)), "the driver's error is the cause")

	var k string
	err = storeError(tx.QueryRowContext(ctx, `SELECT k FROM t WHERE k = 'none'`).Scan(&k))
	require.ErrorIs(t, err, envelope.ErrStoreNotFound)
	assert.ErrorIs(t, err, sql.ErrNoRows)
	assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err))
}
