package sqlite

// The reference-data revision (refdata.Store.RefDataRevision): a counter
// in meta that every write of reference data bumps in its transaction,
// and its cache in the Store.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/brandbase/brandbase/storage/internal/sqlstore"
)

const (
	// metaRefDataRevision is the meta key of the revision.
	metaRefDataRevision = "refdata.revision"
	// revisionTTL is how long RefDataRevision trusts its cached value when
	// this process has not written: writes by another process sharing the
	// file are seen after at most this long.
	revisionTTL = time.Second
)

// refState is the reference-data state a Store keeps in memory.
type refState struct {
	revision atomic.Pointer[cachedRevision]
	// writes counts the writes of reference data this Store has
	// committed: a revision cached before the last of them is stale.
	writes atomic.Uint64
	// revisionRead, when set (by tests), runs in RefDataRevision between
	// reading the revision and caching it.
	revisionRead func()
}

// cachedRevision is a revision read from the database, and when.
type cachedRevision struct {
	n      uint64
	at     time.Time
	writes uint64 // refState.writes before n was read
}

// nextRevision returns, inside a write transaction of writeRefData, the
// revision that bumpRevision will bump to (writes are serialised).
func nextRevision(ctx context.Context, tx *sql.Tx) (int64, error) {
	v, err := sqlstore.ScanColumn[string](tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, metaRefDataRevision))
	if errors.Is(err, sql.ErrNoRows) {
		return 1, nil
	}
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("sqlite: reference-data revision %q: %w", v, err)
	}
	return n + 1, nil
}

// bumpRevision advances the revision by one inside a write transaction of
// writeRefData. Every write of reference data calls it, also one that
// changed nothing: the reference-data service (refdata) takes a revision one
// above its snapshot's, read after its own write, as that write's alone,
// which would be wrong if a write that changed nothing left the revision
// to another instance's write (docs/several-instances.md).
func (s *Store) bumpRevision(ctx context.Context, tx *sql.Tx) error {
	_, err := exec(ctx, tx, nil, `INSERT INTO meta (key, value) VALUES (?, '1')
		ON CONFLICT (key) DO UPDATE SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT)`, metaRefDataRevision)
	return err
}

// writeRefData runs fn in a write transaction (s.write) that may change
// reference data and, once it has committed, counts the write, so that
// RefDataRevision trusts no revision it read before the commit.
func (s *Store) writeRefData(ctx context.Context, fn func(tx *sql.Tx) error) error {
	err := s.write(ctx, fn)
	if err == nil {
		s.ref.writes.Add(1)
	}
	return err
}

// RefDataRevision implements refdata.Store. A revision read from the
// database is trusted for revisionTTL, unless this Store has committed a
// write of reference data since: the count of writes is taken before the
// read, so a read that raced with a write (and may have seen the database
// before its commit) is not trusted once the write has returned, however
// the two interleave.
func (s *Store) RefDataRevision(ctx context.Context) (uint64, error) {
	writes := s.ref.writes.Load()
	if c := s.ref.revision.Load(); c != nil && c.writes == writes && time.Since(c.at) < revisionTTL {
		return c.n, nil
	}
	v, err := s.getMeta(ctx, metaRefDataRevision)
	if err != nil {
		return 0, err
	}
	n, _ := strconv.ParseUint(v, 10, 64)
	if s.ref.revisionRead != nil {
		s.ref.revisionRead()
	}
	s.ref.revision.Store(&cachedRevision{n: n, at: time.Now(), writes: writes})
	return n, nil
}
