package postgres_test

import (
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/internal/testkit/pgtest"
	"github.com/brandbase/brandbase/storage/postgres"
)

// TestMigrationOldNumbering makes schemas as the versions of this package
// that numbered PostgreSQL's migrations apart from SQLite's left them
// (0005_sessions, 0006_created_order, 0007_city_revisions; no
// integration_configs migration), holding a user, and opens them: Open
// records the versions as the embedded files number them (the same as
// SQLite's), applies only what the schema lacked (a second ALTER TABLE of
// 0006_sessions would fail), and keeps the rows.
func TestMigrationOldNumbering(t *testing.T) {
	t.Parallel()
	// want is every migration as the embedded files number them.
	want := map[int]string{1: "0001_core.sql", 2: "0002_refdata.sql", 3: "0003_auth.sql", 4: "0004_integrations.sql",
		5: "0005_integration_configs.sql", 6: "0006_sessions.sql", 7: "0007_created_order.sql", 8: "0008_city_revisions.sql",
		9: "0009_list_engine.sql", 11: "0011_account.sql", 12: "0012_device_sessions.sql",
		13: "0013_user_identifiers.sql", 14: "0014_outbox.sql", 15: "0015_webhooks.sql", 16: "0016_message_templates.sql",
		18: "0018_administration.sql"}
	tests := []struct {
		name string
		upTo int            // the embedded migrations applied
		old  map[int]string // then recorded from version 5 on, as the old numbers had them
	}{
		{"every old migration", 8, map[int]string{5: "0005_sessions.sql", 6: "0006_created_order.sql", 7: "0007_city_revisions.sql"}},
		{"up to the old 0005_sessions", 6, map[int]string{5: "0005_sessions.sql"}},
		{"before the sessions", 4, map[int]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			url := pgtest.Schema(t)
			ctx := t.Context()
			conn, err := pgx.Connect(ctx, url)
			require.NoError(t, err)
			defer conn.Close(ctx)
			require.NoError(t, postgres.MigrateTo(ctx, conn, tt.upTo))
			_, err = conn.Exec(ctx, `DELETE FROM schema_migrations WHERE version >= 5`)
			require.NoError(t, err)
			for v, name := range tt.old {
				_, err := conn.Exec(ctx, `INSERT INTO schema_migrations (version, name) VALUES ($1, $2)`, v, name)
				require.NoError(t, err)
			}
			created := time.Date(2025, 1, 2, 3, 4, 5, 6000, time.UTC)
			_, err = conn.Exec(ctx, `INSERT INTO brands (id, url, name, status, default_currency, created_at)
				VALUES ('b1', 'old.example.com', 'Old', 'Active', 'EUR', $1)`, created)
			require.NoError(t, err)
			_, err = conn.Exec(ctx, `INSERT INTO users (id, brand_id, username, username_key, email_address, phone_number,
				password_hash, permissions, status, created_at, updated_at) VALUES ('u1', 'b1', 'ann', 'ann', '', '', '', '{}',
				'Active', $1, $1)`, created)
			require.NoError(t, err)

			s, err := postgres.Open(ctx, url)
			require.NoError(t, err)
			recorded := map[int]string{}
			rows, err := conn.Query(ctx, `SELECT version, name FROM schema_migrations`)
			require.NoError(t, err)
			var v int
			var name string
			_, err = pgx.ForEachRow(rows, []any{&v, &name}, func() error { recorded[v] = name; return nil })
			require.NoError(t, err)
			assert.Equal(t, want, recorded)
			pending, err := s.PendingMigrations(ctx)
			require.NoError(t, err)
			assert.Empty(t, pending)
			u, err := s.UserByID(ctx, "u1")
			require.NoError(t, err, "the user is kept")
			assert.Equal(t, int64(0), u.SessionEpoch)
			require.NoError(t, s.Close())
			open(t, url) // a second Open finds nothing to do
		})
	}
}
