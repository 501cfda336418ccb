package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// MigrateTo applies the embedded migrations up to version on conn, as an
// older version of this package would have left the schema.
func MigrateTo(ctx context.Context, conn *pgx.Conn, version int) error {
	return migrate(ctx, conn, version)
}

// ParseChange exposes parseChange to the tests.
var ParseChange = parseChange
