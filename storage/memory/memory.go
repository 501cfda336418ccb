// Package memory is the in-memory store: a storage.Storage whose data lives
// in the process's memory and is gone with it (or when the Store is
// closed). Nothing is written to disk.
//
// A Store is a private SQLite database in memory, opened through
// storage/sqlite: every store rule (auth, devices, brands, integrations,
// reference data) is the same code as the SQLite and PostgreSQL stores',
// so the memory store behaves as they do by construction. Each New opens a
// database of its own (two Stores never share data), as a copy of a
// template database that holds the default dataset, built once per
// process: opening takes about a millisecond after the first. A
// Store is safe for concurrent use; its writes are serialised, each in one
// transaction.
package memory

import (
	"context"
	"fmt"
	"runtime"

	"github.com/brandbase/brandbase/storage"
	"github.com/brandbase/brandbase/storage/sqlite"
)

var _ storage.Storage = (*Store)(nil)

// backend is what a Store offers of the SQLite store it holds: the store
// interfaces and Ping. The SQLite store's other methods (its migrations,
// its integrity check) concern a database file and stay hidden, so
// readiness checks treat a Store as a store without migrations.
type backend interface {
	storage.Storage
	Ping(ctx context.Context) error
}

// Store is a storage.Storage in memory: a private SQLite database in
// memory, with the methods of the store interfaces of auth, integrations
// and refdata, Ping (nil while the Store is open) and Ephemeral. Close
// releases its memory (about a megabyte with the default dataset); a
// Store that is never closed releases it once it is garbage.
type Store struct {
	backend
	cleanup runtime.Cleanup
}

// New opens an empty Store holding the embedded default dataset, sharing
// no data with any other Store.
func New(ctx context.Context) (*Store, error) {
	d, err := sqlite.Open(ctx, ":memory:")
	if err != nil {
		return nil, fmt.Errorf("memory: %w", err)
	}
	s := &Store{backend: d}
	// Only s reaches d: once s is garbage, nobody can read d's data.
	s.cleanup = runtime.AddCleanup(s, func(d *sqlite.Store) { d.Close() }, d)
	return s, nil
}

// Close releases the Store's database; its data is gone.
func (s *Store) Close() error {
	s.cleanup.Stop()
	return s.backend.Close()
}

// Ephemeral reports true: the Store's data ends with the process (so that
// brandbase.New lets it seal integration secrets under a per-process key,
// and reads its reference data before it returns).
func (s *Store) Ephemeral() bool { return true }

// DBSystem returns "memory", the db.system.name of the store's calls.
func (s *Store) DBSystem() string { return "memory" }
