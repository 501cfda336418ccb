package sqlite_test

import (
	"bytes"
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/storage/sqlite"
)

// oldDatabase makes the database at path as the migrations named (the
// first ones, in order) left it, and returns it open on one connection.
func oldDatabase(t *testing.T, path string, migrations []string) *sql.DB {
	t.Helper()
	ctx := t.Context()
	old, err := sql.Open("sqlite", path+"?_pragma=foreign_keys(1)")
	require.NoError(t, err)
	old.SetMaxOpenConns(1)
	_, err = old.ExecContext(ctx, `CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL) STRICT`)
	require.NoError(t, err)
	for i, name := range migrations {
		body, err := os.ReadFile(filepath.Join("migrations", name))
		require.NoError(t, err)
		_, err = old.ExecContext(ctx, string(body))
		require.NoError(t, err, name)
		_, err = old.ExecContext(ctx, `INSERT INTO schema_migrations (version, name) VALUES (?, ?)`, i+1, name)
		require.NoError(t, err)
	}
	return old
}

// TestMigrationEndsSessionsOfRevokedDevices opens a database at the schema
// before session epochs (0006), holding a live pair on a revoked device (a
// login that lost the race with the revocation), and checks that the
// migration revokes that pair with its device, keeps the others, and that
// users and pairs start at session epoch 0.
func TestMigrationEndsSessionsOfRevokedDevices(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "old.db")
	old := oldDatabase(t, path, slices.Concat(oldMigrations, []string{"0005_integration_configs.sql"}))
	var err error
	hash := func(b byte) []byte { return bytes.Repeat([]byte{b}, 32) }
	for _, q := range []struct {
		query string
		args  []any
	}{
		{`INSERT INTO brands VALUES ('b1', 'shop.example.com', 'Shop', 'Active', 'USD', 1, 1)`, nil},
		{`INSERT INTO users VALUES ('u1', 'b1', 'ann', 'ann', '', NULL, '', 'x', '', 'Active', 1, 1, 1)`, nil},
		{`INSERT INTO devices VALUES ('d1', 'b1', 'u1', 'PHONE', '', '', '', '', 1, 1, 500, 1)`, nil},
		{`INSERT INTO key_pairs VALUES ('k1', 'k1', 'b1', 'u1', 'd1', ?, ?, 600, 9e15, 9e15, NULL, '')`,
			[]any{hash(1), hash(2)}},
		{`INSERT INTO key_pairs VALUES ('k2', 'k2', 'b1', 'u1', '', ?, ?, 600, 9e15, 9e15, NULL, '')`,
			[]any{hash(3), hash(4)}},
	} {
		_, err = old.ExecContext(ctx, q.query, q.args...)
		require.NoError(t, err, q.query)
	}
	require.NoError(t, old.Close())

	s, err := sqlite.Open(ctx, path)
	require.NoError(t, err)
	defer s.Close()
	u, err := s.UserByID(ctx, "u1")
	require.NoError(t, err)
	assert.Equal(t, int64(0), u.SessionEpoch)
	onDevice, err := s.KeyPairByAuthHash(ctx, hash(1))
	require.NoError(t, err)
	assert.Equal(t, int64(500), onDevice.RevokedAt.UnixMicro(), "revoked with its device")
	plain, err := s.KeyPairByAuthHash(ctx, hash(3))
	require.NoError(t, err)
	assert.True(t, plain.RevokedAt.IsZero(), "a pair of no device is kept")
	assert.Equal(t, int64(0), plain.SessionEpoch)

	next := plain
	next.ID, next.AuthHash, next.RefreshHash = "k3", hash(5), hash(6)
	assert.NoError(t, s.CreateKeyPair(ctx, next), "a pair of epoch 0 is stored for a migrated user")
	next.ID, next.AuthHash, next.RefreshHash, next.DeviceID = "k4", hash(7), hash(8), "d1"
	assert.ErrorIs(t, s.CreateKeyPair(ctx, next), auth.ErrDeviceRevoked)
}

// TestNewDatabaseFilesArePrivate checks that a database Open creates, and
// its -wal and -shm files, are readable by their owner only, and that an
// existing file keeps its mode.
func TestNewDatabaseFilesArePrivate(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dir := t.TempDir()
	path := filepath.Join(dir, "new.db")
	s, err := sqlite.Open(ctx, path)
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.CreateBrand(ctx, auth.Brand{ID: "b1", URL: "shop.example.com", Name: "Shop",
		Status: auth.StatusActive, DefaultCurrency: "USD"}), "a write, so that the WAL exists")
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(p)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), p)
	}

	host := filepath.Join(dir, "host.db")
	require.NoError(t, os.WriteFile(host, nil, 0o640))
	h, err := sqlite.Open(ctx, host)
	require.NoError(t, err)
	defer h.Close()
	fi, err := os.Stat(host)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o640), fi.Mode().Perm(), "an existing file keeps its mode")
}
