package main_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/internal/testkit/legacyusers"
)

// TestUserCollisions runs brandbase user collisions on a database whose
// users were stored before usernames and email addresses shared one
// namespace (legacyusers): it names every collision and exits 1; on a
// database without any it says so and exits 0.
func TestUserCollisions(t *testing.T) {
	t.Parallel()
	for name, newDB := range stores(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			db := newDB(t, dir)
			if name == "sqlite" {
				legacyusers.SeedSQLite(t, db)
			} else {
				legacyusers.SeedPostgres(t, db)
			}
			env := []string{"BRANDBASE_DATABASE_URL=" + db}
			ok(t, dir, env, "", "migrate", "up")

			r := bb(t, dir, env, "", "user", "collisions", "--json")
			require.Equal(t, 1, r.code, r.stderr)
			var got []struct {
				BrandURL string
				Reason   string
				Key      string
				User     struct{ ID string }
				Other    struct{ ID string }
			}
			require.NoError(t, json.Unmarshal([]byte(r.stdout), &got), r.stdout)
			var rows [][4]string
			for _, c := range got {
				assert.Equal(t, legacyusers.BrandURL, c.BrandURL)
				rows = append(rows, [4]string{c.User.ID, c.Reason, c.Key, c.Other.ID})
			}
			assert.Equal(t, legacyusers.WantCollisions, rows)

			failsWith(t, dir, env, "", 1, "4 collisions of usernames and email addresses", "user", "collisions", "--brand", legacyusers.BrandURL)
			table := bb(t, dir, env, "", "user", "collisions", "--brand", legacyusers.BrandURL).stdout
			for _, want := range []string{"username_taken", "username_is_address", "not_own_address", "ADMIN@legacy.example.com"} {
				assert.Contains(t, table, want)
			}
		})
	}
	t.Run("none", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		env := []string{"BRANDBASE_DATABASE_URL=" + filepath.Join(dir, "clean.db")}
		ok(t, dir, env, "", "migrate", "up")
		out := ok(t, dir, env, "", "user", "collisions")
		assert.True(t, strings.HasPrefix(out, "no collisions"), out)
	})
}
