// Package storeurl opens the brandbase store that a path or URL names: the
// in-memory store for ":memory:", PostgreSQL for a postgres:// URL, else
// an SQLite file. It imports every store, and so links both SQL drivers
// (modernc.org/sqlite and pgx): a host that knows its store imports that
// store's package alone (storage/sqlite, storage/postgres, storage/memory)
// and passes it to brandbase.New; the brandbase command and the example
// programs, which take any store, use this package.
package storeurl

import (
	"context"
	"log/slog"
	"net/url"
	"strings"

	"go.opentelemetry.io/otel/metric"

	"github.com/brandbase/brandbase/storage"
	"github.com/brandbase/brandbase/storage/memory"
	"github.com/brandbase/brandbase/storage/postgres"
	"github.com/brandbase/brandbase/storage/sqlite"
)

// MemoryPath is the path Open reads as "the in-memory store".
const MemoryPath = ":memory:"

// Options are the settings Open passes to the store that takes them (the
// PostgreSQL store; the others have no logger or telemetry of their own).
// The zero value is usable.
type Options struct {
	// MeterProvider receives the PostgreSQL store's pool and listener
	// metrics; none when nil. (Store calls are traced and timed by the
	// services' one recorder, brandbase.Config's providers.)
	MeterProvider metric.MeterProvider
	// Logger receives the PostgreSQL store's own lines (outages, its
	// listener); slog.Default() when nil.
	Logger *slog.Logger
}

// Open opens the store path names: the in-memory store (storage/memory)
// for MemoryPath, the PostgreSQL database (storage/postgres) for a
// postgres:// or postgresql:// URL, else the SQLite file at path
// (storage/sqlite), created if needed. Each is migrated and holds the
// default reference dataset; close it when done. It fails with the
// store's error: a path that cannot be opened, a database that cannot be
// reached or migrated.
func Open(ctx context.Context, path string, o Options) (storage.Storage, error) {
	switch {
	case path == MemoryPath:
		return memory.New(ctx)
	case IsPostgresURL(path):
		opts := []postgres.Option{postgres.WithMeterProvider(o.MeterProvider)}
		if o.Logger != nil {
			opts = append(opts, postgres.WithLogger(o.Logger))
		}
		return postgres.Open(ctx, path, opts...)
	}
	return sqlite.Open(ctx, path)
}

// Schema returns the status of the schema of the database path names
// (see storage.SchemaStatus), without opening its store: nothing is
// migrated or created. The in-memory store has no schema to read: every
// migration is pending until it opens. It fails when the database cannot
// be reached or read.
func Schema(ctx context.Context, path string) (storage.SchemaStatus, error) {
	if IsPostgresURL(path) {
		return postgres.Schema(ctx, path)
	}
	return sqlite.Schema(ctx, path)
}

// IsPostgresURL reports whether Open reads path as a PostgreSQL database
// URL: it starts with postgres:// or postgresql:// (in any case).
func IsPostgresURL(path string) bool {
	p := strings.ToLower(path)
	return strings.HasPrefix(p, "postgres://") || strings.HasPrefix(p, "postgresql://")
}

// Redact returns path fit for a log: a database URL without its password;
// any other path as it is.
func Redact(path string) string {
	if !IsPostgresURL(path) {
		return path
	}
	u, err := url.Parse(path)
	if err != nil {
		return "postgres://(unreadable URL)"
	}
	return u.Redacted()
}
