// Package memory is an in-memory implementation of storage.Storage. Data
// lives as long as the Store; it is safe for concurrent use.
package memory

import (
	"context"
	"sync"

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
