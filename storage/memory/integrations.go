package memory

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strconv"
	"time"

	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/integrations"
)

// integrationsData holds the integration records; Store.mu guards it.
type integrationsData struct {
	apps      map[string]integrations.AppIntegration       // by ID
	analytics map[string]integrations.AnalyticsRecord      // by ID
	gateways  map[string]integrations.PaymentGatewayRecord // by ID
	revisions []integrations.Revision                      // in the order written
	revKeys   map[string]bool                              // revision IDs and kind/record/version keys
}

func newIntegrationsData() integrationsData {
	return integrationsData{
		apps:      map[string]integrations.AppIntegration{},
		analytics: map[string]integrations.AnalyticsRecord{},
		gateways:  map[string]integrations.PaymentGatewayRecord{},
		revKeys:   map[string]bool{},
	}
}

func appNotFound() error { return envelope.NotFound("The app integration does not exist.") }

func configNotFound() error { return envelope.NotFound("The integration does not exist.") }

// byCreation orders records by creation time, then ID.
func byCreation(at1 time.Time, id1 string, at2 time.Time, id2 string) int {
	return cmp.Or(at1.Compare(at2), cmp.Compare(id1, id2))
}

// --- reads, with s.mu held (read or write) ---

func (s *Store) appByID(brandID, id string) (integrations.AppIntegration, error) {
	a, ok := s.integ.apps[id]
	if !ok || a.BrandID != brandID {
		return integrations.AppIntegration{}, appNotFound()
	}
	return a.Clone(), nil
}

func (s *Store) listApps(f integrations.AppIntegrationFilter) []integrations.AppIntegration {
	var out []integrations.AppIntegration
	for _, a := range s.integ.apps {
		if f.Matches(a) {
			out = append(out, a.Clone())
		}
	}
	slices.SortFunc(out, func(a, b integrations.AppIntegration) int {
		return byCreation(a.CreatedAt, a.ID, b.CreatedAt, b.ID)
	})
	return out
}

func (s *Store) analyticsByID(brandID, id string) (integrations.AnalyticsRecord, error) {
	r, ok := s.integ.analytics[id]
	if !ok || r.BrandID != brandID {
		return integrations.AnalyticsRecord{}, configNotFound()
	}
	return r.Clone(), nil
}

func (s *Store) gatewayByID(brandID, id string) (integrations.PaymentGatewayRecord, error) {
	r, ok := s.integ.gateways[id]
	if !ok || r.BrandID != brandID {
		return integrations.PaymentGatewayRecord{}, configNotFound()
	}
	return r.Clone(), nil
}

// listConfigs returns the records of m that f selects, cloned, ordered by
// creation.
func listConfigs[R interface{ Clone() R }](m map[string]R, header func(R) integrations.ConfigHeader, f integrations.ConfigFilter) []R {
	var out []R
	for _, r := range m {
		if f.Matches(header(r)) {
			out = append(out, r.Clone())
		}
	}
	slices.SortFunc(out, func(a, b R) int {
		ha, hb := header(a), header(b)
		return byCreation(ha.CreatedAt, ha.ID, hb.CreatedAt, hb.ID)
	})
	return out
}

func analyticsHeader(r integrations.AnalyticsRecord) integrations.ConfigHeader { return r.ConfigHeader }
func gatewayHeader(r integrations.PaymentGatewayRecord) integrations.ConfigHeader {
	return r.ConfigHeader
}

func (s *Store) listRevisions(f integrations.RevisionFilter) []integrations.Revision {
	var out []integrations.Revision
	for _, r := range s.integ.revisions {
		if f.Matches(r) {
			out = append(out, r.Clone())
		}
	}
	return out
}

// readLocked runs fn with the read lock held, after checking ctx.
func readLocked[T any](ctx context.Context, s *Store, fn func() (T, error)) (T, error) {
	if err := ctx.Err(); err != nil {
		var zero T
		return zero, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return fn()
}

// AppIntegrationByID implements integrations.Reader.
func (s *Store) AppIntegrationByID(ctx context.Context, brandID, id string) (integrations.AppIntegration, error) {
	return readLocked(ctx, s, func() (integrations.AppIntegration, error) { return s.appByID(brandID, id) })
}

// ListAppIntegrations implements integrations.Reader.
func (s *Store) ListAppIntegrations(ctx context.Context, f integrations.AppIntegrationFilter) ([]integrations.AppIntegration, error) {
	return readLocked(ctx, s, func() ([]integrations.AppIntegration, error) { return s.listApps(f), nil })
}

// AnalyticsByID implements integrations.Reader.
func (s *Store) AnalyticsByID(ctx context.Context, brandID, id string) (integrations.AnalyticsRecord, error) {
	return readLocked(ctx, s, func() (integrations.AnalyticsRecord, error) { return s.analyticsByID(brandID, id) })
}

// ListAnalytics implements integrations.Reader.
func (s *Store) ListAnalytics(ctx context.Context, f integrations.ConfigFilter) ([]integrations.AnalyticsRecord, error) {
	return readLocked(ctx, s, func() ([]integrations.AnalyticsRecord, error) {
		return listConfigs(s.integ.analytics, analyticsHeader, f), nil
	})
}

// PaymentGatewayByID implements integrations.Reader.
func (s *Store) PaymentGatewayByID(ctx context.Context, brandID, id string) (integrations.PaymentGatewayRecord, error) {
	return readLocked(ctx, s, func() (integrations.PaymentGatewayRecord, error) { return s.gatewayByID(brandID, id) })
}

// ListPaymentGateways implements integrations.Reader.
func (s *Store) ListPaymentGateways(ctx context.Context, f integrations.ConfigFilter) ([]integrations.PaymentGatewayRecord, error) {
	return readLocked(ctx, s, func() ([]integrations.PaymentGatewayRecord, error) {
		return listConfigs(s.integ.gateways, gatewayHeader, f), nil
	})
}

// ListRevisions implements integrations.Reader.
func (s *Store) ListRevisions(ctx context.Context, f integrations.RevisionFilter) ([]integrations.Revision, error) {
	return readLocked(ctx, s, func() ([]integrations.Revision, error) { return s.listRevisions(f), nil })
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
	tx := &memTx{s: s}
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

// memTx is a transaction of the memory store: it runs with Store.mu held
// and records how to undo each write.
type memTx struct {
	s      *Store
	undo   []func()
	closed bool
}

var _ integrations.Tx = (*memTx)(nil)

var errTxClosed = errors.New("memory: integrations transaction used after it ended")

// use fails once the transaction has ended.
func (tx *memTx) use(ctx context.Context) error {
	if tx.closed {
		return envelope.Internal(errTxClosed)
	}
	return ctx.Err()
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

func (tx *memTx) AppIntegrationByID(ctx context.Context, brandID, id string) (integrations.AppIntegration, error) {
	if err := tx.use(ctx); err != nil {
		return integrations.AppIntegration{}, err
	}
	return tx.s.appByID(brandID, id)
}

func (tx *memTx) ListAppIntegrations(ctx context.Context, f integrations.AppIntegrationFilter) ([]integrations.AppIntegration, error) {
	if err := tx.use(ctx); err != nil {
		return nil, err
	}
	return tx.s.listApps(f), nil
}

func (tx *memTx) AnalyticsByID(ctx context.Context, brandID, id string) (integrations.AnalyticsRecord, error) {
	if err := tx.use(ctx); err != nil {
		return integrations.AnalyticsRecord{}, err
	}
	return tx.s.analyticsByID(brandID, id)
}

func (tx *memTx) ListAnalytics(ctx context.Context, f integrations.ConfigFilter) ([]integrations.AnalyticsRecord, error) {
	if err := tx.use(ctx); err != nil {
		return nil, err
	}
	return listConfigs(tx.s.integ.analytics, analyticsHeader, f), nil
}

func (tx *memTx) PaymentGatewayByID(ctx context.Context, brandID, id string) (integrations.PaymentGatewayRecord, error) {
	if err := tx.use(ctx); err != nil {
		return integrations.PaymentGatewayRecord{}, err
	}
	return tx.s.gatewayByID(brandID, id)
}

func (tx *memTx) ListPaymentGateways(ctx context.Context, f integrations.ConfigFilter) ([]integrations.PaymentGatewayRecord, error) {
	if err := tx.use(ctx); err != nil {
		return nil, err
	}
	return listConfigs(tx.s.integ.gateways, gatewayHeader, f), nil
}

func (tx *memTx) ListRevisions(ctx context.Context, f integrations.RevisionFilter) ([]integrations.Revision, error) {
	if err := tx.use(ctx); err != nil {
		return nil, err
	}
	return tx.s.listRevisions(f), nil
}

func (tx *memTx) InsertAppIntegration(ctx context.Context, a integrations.AppIntegration) error {
	if err := tx.use(ctx); err != nil {
		return err
	}
	if _, ok := tx.s.brands[a.BrandID]; !ok {
		return brandNotFound()
	}
	if _, ok := tx.s.integ.apps[a.ID]; ok {
		return envelope.Conflict("An app integration with this ID exists.")
	}
	put(tx, tx.s.integ.apps, a.ID, a.Clone())
	return nil
}

func (tx *memTx) UpdateAppIntegration(ctx context.Context, a integrations.AppIntegration) error {
	if err := tx.use(ctx); err != nil {
		return err
	}
	old, err := tx.s.appByID(a.BrandID, a.ID)
	if err != nil {
		return err
	}
	a = a.Clone()
	a.Type, a.CreatedAt = old.Type, old.CreatedAt
	put(tx, tx.s.integ.apps, a.ID, a)
	return nil
}

// checkConfig checks the references and the default of a configuration
// about to be stored in m.
func checkConfig[R any](tx *memTx, m map[string]R, header func(R) integrations.ConfigHeader, h integrations.ConfigHeader) error {
	if _, ok := tx.s.brands[h.BrandID]; !ok {
		return brandNotFound()
	}
	if _, err := tx.s.appByID(h.BrandID, h.AppIntegrationID); err != nil {
		return err
	}
	if h.IsDefault {
		for id, r := range m {
			if o := header(r); id != h.ID && o.BrandID == h.BrandID && o.IsDefault {
				return envelope.Conflict("Another integration of this brand is the default.")
			}
		}
	}
	return nil
}

// insertConfig stores a new configuration r in m.
func insertConfig[R interface{ Clone() R }](ctx context.Context, tx *memTx, m map[string]R, header func(R) integrations.ConfigHeader, r R) error {
	if err := tx.use(ctx); err != nil {
		return err
	}
	h := header(r)
	if _, ok := m[h.ID]; ok {
		return envelope.Conflict("An integration with this ID exists.")
	}
	if err := checkConfig(tx, m, header, h); err != nil {
		return err
	}
	put(tx, m, h.ID, r.Clone())
	return nil
}

// updateConfig replaces the configuration r in m, keeping its CreatedAt.
func updateConfig[R interface{ Clone() R }](ctx context.Context, tx *memTx, m map[string]R, header func(R) integrations.ConfigHeader, setCreated func(*R, time.Time), r R) error {
	if err := tx.use(ctx); err != nil {
		return err
	}
	h := header(r)
	old, ok := m[h.ID]
	if !ok || header(old).BrandID != h.BrandID {
		return configNotFound()
	}
	if err := checkConfig(tx, m, header, h); err != nil {
		return err
	}
	r = r.Clone()
	setCreated(&r, header(old).CreatedAt)
	put(tx, m, h.ID, r)
	return nil
}

func (tx *memTx) InsertAnalytics(ctx context.Context, r integrations.AnalyticsRecord) error {
	return insertConfig(ctx, tx, tx.s.integ.analytics, analyticsHeader, r)
}

func (tx *memTx) UpdateAnalytics(ctx context.Context, r integrations.AnalyticsRecord) error {
	return updateConfig(ctx, tx, tx.s.integ.analytics, analyticsHeader,
		func(r *integrations.AnalyticsRecord, t time.Time) { r.CreatedAt = t }, r)
}

func (tx *memTx) InsertPaymentGateway(ctx context.Context, r integrations.PaymentGatewayRecord) error {
	return insertConfig(ctx, tx, tx.s.integ.gateways, gatewayHeader, r)
}

func (tx *memTx) UpdatePaymentGateway(ctx context.Context, r integrations.PaymentGatewayRecord) error {
	return updateConfig(ctx, tx, tx.s.integ.gateways, gatewayHeader,
		func(r *integrations.PaymentGatewayRecord, t time.Time) { r.CreatedAt = t }, r)
}

func (tx *memTx) InsertRevision(ctx context.Context, rev integrations.Revision) error {
	if err := tx.use(ctx); err != nil {
		return err
	}
	if _, ok := tx.s.brands[rev.BrandID]; !ok {
		return brandNotFound()
	}
	idKey := "id/" + rev.ID
	verKey := "v/" + string(rev.Kind) + "/" + rev.RecordID + "/" + strconv.FormatInt(rev.Version, 10)
	if tx.s.integ.revKeys[idKey] || tx.s.integ.revKeys[verKey] {
		return envelope.Conflict("This revision exists.")
	}
	d := &tx.s.integ
	n := len(d.revisions)
	d.revisions = append(d.revisions, rev.Clone())
	d.revKeys[idKey], d.revKeys[verKey] = true, true
	tx.undo = append(tx.undo, func() {
		d.revisions = d.revisions[:n]
		delete(d.revKeys, idKey)
		delete(d.revKeys, verKey)
	})
	return nil
}
