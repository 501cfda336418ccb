// Package memory is an in-memory implementation of storage.Storage. Data
// lives as long as the Store; it is safe for concurrent use.
package memory

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"

	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/storage"
)

var _ storage.Storage = (*Store)(nil)

// Store keeps every record in memory, guarded by one read-write lock.
type Store struct {
	mu sync.RWMutex

	brands     map[string]brandRecord // by ID
	brandByURL map[string]string      // URL -> ID
	brandSeq   int64
	ref        refData  // currencies, countries and cities (refdata.go)
	auth       authData // users, key pairs and devices (auth.go)

	integ integrationsData // app integrations and configurations (integrations.go)
}

// Ephemeral reports true: the Store's data ends with the process (so that
// brandbase.New lets it seal integration secrets under a per-process key).
func (s *Store) Ephemeral() bool { return true }

// New returns an empty Store with the embedded default dataset loaded.
func New(ctx context.Context) (*Store, error) {
	s := &Store{
		brands:     map[string]brandRecord{},
		brandByURL: map[string]string{},
		integ:      newIntegrationsData(),
		auth:       newAuthData(),
	}
	ref, err := defaultRefData()
	if err != nil {
		return nil, err
	}
	s.ref = ref // shared with other Stores until the first write
	if err := refdata.LoadDefault(ctx, s); err != nil {
		return nil, err
	}
	return s, nil
}

// Close releases nothing and always succeeds; it exists to satisfy
// storage.Storage.
func (s *Store) Close() error { return nil }

// Ping reports that the store can serve: always nil, unless ctx is done
// (its error then). For readiness checks.
func (s *Store) Ping(ctx context.Context) error { return ctx.Err() }

// created is a record that lists in creation order: by creation time, then
// by insertion order (a sequence number).
type created interface {
	createdAt() (time.Time, int64)
}

// createdAt implements created for each record kind.
func (r brandRecord) createdAt() (time.Time, int64)  { return r.CreatedAt, r.seq }
func (r userRecord) createdAt() (time.Time, int64)   { return r.CreatedAt, r.seq }
func (r deviceRecord) createdAt() (time.Time, int64) { return r.CreatedAt, r.seq }

// inCreationOrder sorts recs in creation order and returns out of each.
func inCreationOrder[R created, T any](recs []R, out func(R) T) []T {
	slices.SortFunc(recs, func(a, b R) int {
		at, aseq := a.createdAt()
		bt, bseq := b.createdAt()
		return cmp.Or(at.Compare(bt), cmp.Compare(aseq, bseq))
	})
	res := make([]T, len(recs))
	for i, r := range recs {
		res[i] = out(r)
	}
	return res
}
