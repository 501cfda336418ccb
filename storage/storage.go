// Package storage names what a brandbase backend provides: one [Storage]
// that implements the store interface of every domain package.
//
// Implementations: storage/memory (a private SQLite database in memory,
// through storage/sqlite: for tests and ephemeral use), storage/sqlite (a
// file or :memory:, on the pure-Go modernc.org/sqlite) and storage/postgres (PostgreSQL through pgx, which
// several instances of a host share). A new backend must pass
// storage/storagetest.
package storage

import (
	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/messages"
	"github.com/brandbase/brandbase/outbox"
	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/webhooks"
)

// Storage is a complete brandbase backend: the domain stores and the
// outbox's queue. Implementations are safe for concurrent use; Close
// releases them and must be called once.
type Storage interface {
	refdata.Store
	auth.Store
	integrations.Store
	webhooks.Store
	messages.Store
	outbox.Store
	Close() error
}
