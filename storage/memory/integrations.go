package memory

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strconv"
	"time"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/integrations"
)

// integrationsData holds the integration records; Store.mu guards it.
type integrationsData struct {
	apps      map[string]integrations.AppIntegration // by ID
	configs   map[string]integrations.ConfigRecord   // configurations of every kind, by ID
	revisions []integrations.Revision                // in the order written
	revKeys   map[string]bool                        // revision IDs and kind/record/version keys
}

func newIntegrationsData() integrationsData {
	return integrationsData{
		apps:    map[string]integrations.AppIntegration{},
		configs: map[string]integrations.ConfigRecord{},
		revKeys: map[string]bool{},
	}
}

// byCreation orders records by creation time, then ID.
func byCreation(at1 time.Time, id1 string, at2 time.Time, id2 string) int {
	return cmp.Or(at1.Compare(at2), cmp.Compare(id1, id2))
}

// --- reads, with s.mu held (read or write) ---

func (s *Store) appByID(brandID, id string) (integrations.AppIntegration, error) {
	a, ok := s.integ.apps[id]
	if !ok || a.BrandID != brandID {
		return integrations.AppIntegration{}, integrations.ErrAppIntegrationNotFound
	}
	return a.Clone(), nil
}

func (s *Store) configByID(kind integrations.RecordKind, brandID, id string) (integrations.ConfigRecord, error) {
	r, ok := s.integ.configs[id]
	if !ok || r.BrandID != brandID || r.Kind != kind {
		return integrations.ConfigRecord{}, integrations.ErrConfigNotFound
	}
	return r.Clone(), nil
}

// selectSorted returns the values of m that keep selects, cloned, ordered
// by creation.
func selectSorted[V any](m map[string]V, keep func(V) bool, clone func(V) V, created func(V) (time.Time, string)) []V {
	var out []V
	for _, v := range m {
		if keep(v) {
			out = append(out, clone(v))
		}
	}
	slices.SortFunc(out, func(a, b V) int {
		at, aid := created(a)
		bt, bid := created(b)
		return byCreation(at, aid, bt, bid)
	})
	return out
}

// integReader reads the integration records: for the Store under its read
// lock, for a transaction under the write lock it holds. enter takes the
// lock (or checks the transaction is open) and returns its release.
type integReader struct {
	s     *Store
	enter func(ctx context.Context) (release func(), err error)
}

// read runs fn between r.enter and its release.
func read[T any](ctx context.Context, r integReader, fn func() (T, error)) (T, error) {
	release, err := r.enter(ctx)
	if err != nil {
		var zero T
		return zero, err
	}
	defer release()
	return fn()
}

// AppIntegrationByID implements integrations.Reader.
func (r integReader) AppIntegrationByID(ctx context.Context, brandID, id string) (integrations.AppIntegration, error) {
	return read(ctx, r, func() (integrations.AppIntegration, error) { return r.s.appByID(brandID, id) })
}

// ListAppIntegrations implements integrations.Reader.
func (r integReader) ListAppIntegrations(ctx context.Context, f integrations.AppIntegrationFilter) ([]integrations.AppIntegration, error) {
	return read(ctx, r, func() ([]integrations.AppIntegration, error) {
		return selectSorted(r.s.integ.apps, f.Matches, integrations.AppIntegration.Clone,
			func(a integrations.AppIntegration) (time.Time, string) { return a.CreatedAt, a.ID }), nil
	})
}

// ConfigByID implements integrations.Reader.
func (r integReader) ConfigByID(ctx context.Context, kind integrations.RecordKind, brandID, id string) (integrations.ConfigRecord, error) {
	return read(ctx, r, func() (integrations.ConfigRecord, error) { return r.s.configByID(kind, brandID, id) })
}

// ListConfigs implements integrations.Reader.
func (r integReader) ListConfigs(ctx context.Context, f integrations.ConfigFilter) ([]integrations.ConfigRecord, error) {
	return read(ctx, r, func() ([]integrations.ConfigRecord, error) {
		return selectSorted(r.s.integ.configs, f.Matches, integrations.ConfigRecord.Clone,
			func(c integrations.ConfigRecord) (time.Time, string) { return c.CreatedAt, c.ID }), nil
	})
}

// ListRevisions implements integrations.Reader.
func (r integReader) ListRevisions(ctx context.Context, f integrations.RevisionFilter) ([]integrations.Revision, error) {
	return read(ctx, r, func() ([]integrations.Revision, error) {
		var out []integrations.Revision
		for _, rev := range r.s.integ.revisions {
			if f.Matches(rev) {
				out = append(out, rev.Clone())
			}
		}
		return out, nil
	})
}

// reader returns the Store's reader, which takes the read lock.
func (s *Store) reader() integReader {
	return integReader{s: s, enter: func(ctx context.Context) (func(), error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		s.mu.RLock()
		return s.mu.RUnlock, nil
	}}
}

// AppIntegrationByID implements integrations.Reader.
func (s *Store) AppIntegrationByID(ctx context.Context, brandID, id string) (integrations.AppIntegration, error) {
	return s.reader().AppIntegrationByID(ctx, brandID, id)
}

// ListAppIntegrations implements integrations.Reader.
func (s *Store) ListAppIntegrations(ctx context.Context, f integrations.AppIntegrationFilter) ([]integrations.AppIntegration, error) {
	return s.reader().ListAppIntegrations(ctx, f)
}

// ConfigByID implements integrations.Reader.
func (s *Store) ConfigByID(ctx context.Context, kind integrations.RecordKind, brandID, id string) (integrations.ConfigRecord, error) {
	return s.reader().ConfigByID(ctx, kind, brandID, id)
}

// ListConfigs implements integrations.Reader.
func (s *Store) ListConfigs(ctx context.Context, f integrations.ConfigFilter) ([]integrations.ConfigRecord, error) {
	return s.reader().ListConfigs(ctx, f)
}

// ListRevisions implements integrations.Reader.
func (s *Store) ListRevisions(ctx context.Context, f integrations.RevisionFilter) ([]integrations.Revision, error) {
	return s.reader().ListRevisions(ctx, f)
}

// IntegrationsTx implements integrations.Store. The transaction holds the
// store's write lock; its writes apply at once and are undone when fn fails,
// panics, or ctx is cancelled.
func (s *Store) IntegrationsTx(ctx context.Context, fn func(tx integrations.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	tx := &memTx{}
	tx.integReader = integReader{s: s, enter: tx.use}
	committed := false
	defer func() { // also when fn panics
		tx.closed = true
		if !committed {
			for i := len(tx.undo) - 1; i >= 0; i-- {
				tx.undo[i]()
			}
		}
	}()
	err := fn(tx)
	if err == nil {
		err = ctx.Err()
	}
	committed = err == nil
	return err
}

// memTx is a transaction of the memory store: it runs with Store.mu held,
// reads through the embedded reader, and records how to undo each write.
type memTx struct {
	integReader
	undo   []func()
	closed bool
}

var _ integrations.Tx = (*memTx)(nil)

var errTxClosed = errors.New("memory: integrations transaction used after it ended")

// use fails once the transaction has ended; the lock is already held.
func (tx *memTx) use(ctx context.Context) (func(), error) {
	if tx.closed {
		return nil, envelope.Internal(errTxClosed)
	}
	return func() {}, ctx.Err()
}

// write runs fn after checking the transaction is open.
func (tx *memTx) write(ctx context.Context, fn func(d *integrationsData) error) error {
	if _, err := tx.use(ctx); err != nil {
		return err
	}
	return fn(&tx.s.integ)
}

// put sets m[key] = v, recording how to undo it.
func put[V any](tx *memTx, m map[string]V, key string, v V) {
	prev, existed := m[key]
	m[key] = v
	tx.undo = append(tx.undo, func() {
		if existed {
			m[key] = prev
		} else {
			delete(m, key)
		}
	})
}

// requireBrand fails with auth.ErrBrandNotFound unless brandID is stored.
func (tx *memTx) requireBrand(brandID string) error {
	if _, ok := tx.s.brands[brandID]; !ok {
		return auth.ErrBrandNotFound
	}
	return nil
}

// InsertAppIntegration implements integrations.Tx.
func (tx *memTx) InsertAppIntegration(ctx context.Context, a integrations.AppIntegration) error {
	return tx.write(ctx, func(d *integrationsData) error {
		if err := tx.requireBrand(a.BrandID); err != nil {
			return err
		}
		if _, ok := d.apps[a.ID]; ok {
			return integrations.ErrAppIntegrationExists
		}
		put(tx, d.apps, a.ID, a.Clone())
		return nil
	})
}

// UpdateAppIntegration implements integrations.Tx.
func (tx *memTx) UpdateAppIntegration(ctx context.Context, a integrations.AppIntegration) error {
	return tx.write(ctx, func(d *integrationsData) error {
		old, err := tx.s.appByID(a.BrandID, a.ID)
		if err != nil {
			return err
		}
		a = a.Clone()
		a.Type, a.CreatedAt = old.Type, old.CreatedAt
		put(tx, d.apps, a.ID, a)
		return nil
	})
}

// checkConfig checks the references and the default of r, about to be
// stored.
func (tx *memTx) checkConfig(r integrations.ConfigRecord) error {
	if err := tx.requireBrand(r.BrandID); err != nil {
		return err
	}
	if _, err := tx.s.appByID(r.BrandID, r.AppIntegrationID); err != nil {
		return err
	}
	if r.IsDefault {
		for id, o := range tx.s.integ.configs {
			if id != r.ID && o.Kind == r.Kind && o.BrandID == r.BrandID && o.IsDefault {
				return integrations.ErrDefaultTaken
			}
		}
	}
	return nil
}

// InsertConfig implements integrations.Tx.
func (tx *memTx) InsertConfig(ctx context.Context, r integrations.ConfigRecord) error {
	return tx.write(ctx, func(d *integrationsData) error {
		if _, ok := d.configs[r.ID]; ok {
			return integrations.ErrConfigExists
		}
		if err := tx.checkConfig(r); err != nil {
			return err
		}
		put(tx, d.configs, r.ID, r.Clone())
		return nil
	})
}

// UpdateConfig implements integrations.Tx.
func (tx *memTx) UpdateConfig(ctx context.Context, r integrations.ConfigRecord) error {
	return tx.write(ctx, func(d *integrationsData) error {
		old, err := tx.s.configByID(r.Kind, r.BrandID, r.ID)
		if err != nil {
			return err
		}
		if err := tx.checkConfig(r); err != nil {
			return err
		}
		r = r.Clone()
		r.CreatedAt = old.CreatedAt
		put(tx, d.configs, r.ID, r)
		return nil
	})
}

// InsertRevision implements integrations.Tx.
func (tx *memTx) InsertRevision(ctx context.Context, rev integrations.Revision) error {
	return tx.write(ctx, func(d *integrationsData) error {
		if err := tx.requireBrand(rev.BrandID); err != nil {
			return err
		}
		idKey := "id/" + rev.ID
		verKey := "v/" + string(rev.Kind) + "/" + rev.RecordID + "/" + strconv.FormatInt(rev.Version, 10)
		if d.revKeys[idKey] || d.revKeys[verKey] {
			return integrations.ErrRevisionExists
		}
		n := len(d.revisions)
		d.revisions = append(d.revisions, rev.Clone())
		d.revKeys[idKey], d.revKeys[verKey] = true, true
		tx.undo = append(tx.undo, func() {
			d.revisions = d.revisions[:n]
			delete(d.revKeys, idKey)
			delete(d.revKeys, verKey)
		})
		return nil
	})
}
