// Package storecalls wraps the store the domain services receive so that
// each call records a span and a duration (see internal/telemetry's
// StoreCalls): one decorator for the auth, integrations and reference-data
// store interfaces and the outbox's queue, whatever the backend. The wrapper is only for the
// services: capabilities a host or brandbase.New looks for by type
// assertion (a change feed, a shared limiter, health reports) are looked
// for on the store itself, which the wrapper does not hide.
package storecalls

import (
	"context"
	"time"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/internal/telemetry"
	"github.com/brandbase/brandbase/outbox"
	"github.com/brandbase/brandbase/refdata"
)

// Backend is what the services receive: every domain store interface and
// the outbox's queue.
type Backend interface {
	refdata.Store
	auth.Store
	integrations.Store
	outbox.Store
}

// store records every call to the Backend it wraps. Build it with [Wrap].
type store struct {
	b   Backend
	rec *telemetry.StoreCalls
}

// Wrap returns b recording its calls with rec, or b itself when rec is nil
// (telemetry off: no wrapper, no cost).
func Wrap(b Backend, rec *telemetry.StoreCalls) Backend {
	if rec == nil {
		return b
	}
	return &store{b: b, rec: rec}
}

func call[T any](ctx context.Context, rec *telemetry.StoreCalls, op string, f func(context.Context) (T, error)) (T, error) {
	ctx, c := rec.Start(ctx, op)
	v, err := f(ctx)
	c.End(ctx, err)
	return v, err
}

func call0(ctx context.Context, rec *telemetry.StoreCalls, op string, f func(context.Context) error) error {
	ctx, c := rec.Start(ctx, op)
	err := f(ctx)
	c.End(ctx, err)
	return err
}

// refdata.Store

func (s *store) ReadRefData(ctx context.Context) (refdata.RefData, error) {
	return call(ctx, s.rec, "ReadRefData", s.b.ReadRefData)
}

func (s *store) RefDataChangesSince(ctx context.Context, rev uint64, limit int) (refdata.RefData, error) {
	return call(ctx, s.rec, "RefDataChangesSince", func(ctx context.Context) (refdata.RefData, error) {
		return s.b.RefDataChangesSince(ctx, rev, limit)
	})
}

func (s *store) RefDataGeneration(ctx context.Context) (string, uint64, error) {
	ctx, c := s.rec.Start(ctx, "RefDataGeneration")
	gen, rev, err := s.b.RefDataGeneration(ctx)
	c.End(ctx, err)
	return gen, rev, err
}

// RefDataWritten reads nothing: no span.
func (s *store) RefDataWritten() uint64 { return s.b.RefDataWritten() }

func (s *store) UpsertCurrencies(ctx context.Context, cs []refdata.Currency) error {
	return call0(ctx, s.rec, "UpsertCurrencies", func(ctx context.Context) error { return s.b.UpsertCurrencies(ctx, cs) })
}

func (s *store) UpsertCountries(ctx context.Context, cs []refdata.Country) error {
	return call0(ctx, s.rec, "UpsertCountries", func(ctx context.Context) error { return s.b.UpsertCountries(ctx, cs) })
}

func (s *store) UpsertCities(ctx context.Context, cs []refdata.City) (int, error) {
	return call(ctx, s.rec, "UpsertCities", func(ctx context.Context) (int, error) { return s.b.UpsertCities(ctx, cs) })
}

func (s *store) DatasetVersion(ctx context.Context) (string, error) {
	return call(ctx, s.rec, "DatasetVersion", s.b.DatasetVersion)
}

func (s *store) SetDatasetVersion(ctx context.Context, version string) error {
	return call0(ctx, s.rec, "SetDatasetVersion", func(ctx context.Context) error { return s.b.SetDatasetVersion(ctx, version) })
}

func (s *store) RefDataRevision(ctx context.Context) (uint64, error) {
	return call(ctx, s.rec, "RefDataRevision", s.b.RefDataRevision)
}

// auth.Store

func (s *store) CreateBrand(ctx context.Context, b auth.Brand, out ...outbox.Item) error {
	return call0(ctx, s.rec, "CreateBrand", func(ctx context.Context) error { return s.b.CreateBrand(ctx, b, out...) })
}

func (s *store) UpdateBrand(ctx context.Context, b auth.Brand, out ...outbox.Item) error {
	return call0(ctx, s.rec, "UpdateBrand", func(ctx context.Context) error { return s.b.UpdateBrand(ctx, b, out...) })
}

func (s *store) BrandByID(ctx context.Context, id string) (auth.Brand, error) {
	return call(ctx, s.rec, "BrandByID", func(ctx context.Context) (auth.Brand, error) { return s.b.BrandByID(ctx, id) })
}

func (s *store) BrandByURL(ctx context.Context, url string) (auth.Brand, error) {
	return call(ctx, s.rec, "BrandByURL", func(ctx context.Context) (auth.Brand, error) { return s.b.BrandByURL(ctx, url) })
}

func (s *store) ListBrands(ctx context.Context) ([]auth.Brand, error) {
	return call(ctx, s.rec, "ListBrands", s.b.ListBrands)
}

func (s *store) CreateUser(ctx context.Context, u auth.UserRecord, out ...outbox.Item) error {
	return call0(ctx, s.rec, "CreateUser", func(ctx context.Context) error { return s.b.CreateUser(ctx, u, out...) })
}

func (s *store) UpdateUser(ctx context.Context, id string, fn func(*auth.UserRecord) error, out ...outbox.Item) (auth.UserRecord, error) {
	return call(ctx, s.rec, "UpdateUser", func(ctx context.Context) (auth.UserRecord, error) { return s.b.UpdateUser(ctx, id, fn, out...) })
}

func (s *store) UserByID(ctx context.Context, id string) (auth.UserRecord, error) {
	return call(ctx, s.rec, "UserByID", func(ctx context.Context) (auth.UserRecord, error) { return s.b.UserByID(ctx, id) })
}

func (s *store) UserByUsername(ctx context.Context, brandID, key string) (auth.UserRecord, error) {
	return call(ctx, s.rec, "UserByUsername", func(ctx context.Context) (auth.UserRecord, error) {
		return s.b.UserByUsername(ctx, brandID, key)
	})
}

func (s *store) UserByEmail(ctx context.Context, brandID, key string) (auth.UserRecord, error) {
	return call(ctx, s.rec, "UserByEmail", func(ctx context.Context) (auth.UserRecord, error) {
		return s.b.UserByEmail(ctx, brandID, key)
	})
}

func (s *store) ListUsers(ctx context.Context, brandID string) ([]auth.UserRecord, error) {
	return call(ctx, s.rec, "ListUsers", func(ctx context.Context) ([]auth.UserRecord, error) { return s.b.ListUsers(ctx, brandID) })
}

func (s *store) CreateKeyPair(ctx context.Context, k auth.KeyPair, out ...outbox.Item) error {
	return call0(ctx, s.rec, "CreateKeyPair", func(ctx context.Context) error { return s.b.CreateKeyPair(ctx, k, out...) })
}

func (s *store) KeyPairByAuthHash(ctx context.Context, hash []byte) (auth.KeyPair, error) {
	return call(ctx, s.rec, "KeyPairByAuthHash", func(ctx context.Context) (auth.KeyPair, error) { return s.b.KeyPairByAuthHash(ctx, hash) })
}

func (s *store) KeyPairByRefreshHash(ctx context.Context, hash []byte) (auth.KeyPair, error) {
	return call(ctx, s.rec, "KeyPairByRefreshHash", func(ctx context.Context) (auth.KeyPair, error) {
		return s.b.KeyPairByRefreshHash(ctx, hash)
	})
}

func (s *store) RotateKeyPair(ctx context.Context, oldID string, at time.Time, next auth.KeyPair) error {
	return call0(ctx, s.rec, "RotateKeyPair", func(ctx context.Context) error { return s.b.RotateKeyPair(ctx, oldID, at, next) })
}

func (s *store) ReissueKeyPair(ctx context.Context, oldID string, rotatedAfter time.Time, next auth.KeyPair) error {
	return call0(ctx, s.rec, "ReissueKeyPair", func(ctx context.Context) error {
		return s.b.ReissueKeyPair(ctx, oldID, rotatedAfter, next)
	})
}

func (s *store) RevokeKeyPairs(ctx context.Context, sel auth.KeySelector, at time.Time) (int, error) {
	return call(ctx, s.rec, "RevokeKeyPairs", func(ctx context.Context) (int, error) { return s.b.RevokeKeyPairs(ctx, sel, at) })
}

func (s *store) DeleteKeyPairs(ctx context.Context, before time.Time) (int, error) {
	return call(ctx, s.rec, "DeleteKeyPairs", func(ctx context.Context) (int, error) { return s.b.DeleteKeyPairs(ctx, before) })
}

func (s *store) UpsertDevice(ctx context.Context, d auth.Device, out ...outbox.Item) (auth.Device, bool, error) {
	ctx, c := s.rec.Start(ctx, "UpsertDevice")
	stored, created, err := s.b.UpsertDevice(ctx, d, out...)
	c.End(ctx, err)
	return stored, created, err
}

func (s *store) DeviceByCode(ctx context.Context, userID, code string) (auth.Device, error) {
	return call(ctx, s.rec, "DeviceByCode", func(ctx context.Context) (auth.Device, error) { return s.b.DeviceByCode(ctx, userID, code) })
}

func (s *store) ListDevices(ctx context.Context, userID string) ([]auth.Device, error) {
	return call(ctx, s.rec, "ListDevices", func(ctx context.Context) ([]auth.Device, error) { return s.b.ListDevices(ctx, userID) })
}

func (s *store) RevokeDevice(ctx context.Context, userID, deviceID string, at time.Time, out ...outbox.Item) (auth.Device, error) {
	return call(ctx, s.rec, "RevokeDevice", func(ctx context.Context) (auth.Device, error) {
		return s.b.RevokeDevice(ctx, userID, deviceID, at, out...)
	})
}

// integrations.Store

func (s *store) AppIntegrationByID(ctx context.Context, brandID, id string) (integrations.AppIntegration, error) {
	return appIntegrationByID(ctx, s.rec, s.b, brandID, id)
}

func (s *store) ListAppIntegrations(ctx context.Context, f integrations.AppIntegrationFilter) ([]integrations.AppIntegration, error) {
	return listAppIntegrations(ctx, s.rec, s.b, f)
}

func (s *store) ConfigByID(ctx context.Context, kind integrations.RecordKind, brandID, id string) (integrations.ConfigRecord, error) {
	return configByID(ctx, s.rec, s.b, kind, brandID, id)
}

func (s *store) ListConfigs(ctx context.Context, f integrations.ConfigFilter) ([]integrations.ConfigRecord, error) {
	return listConfigs(ctx, s.rec, s.b, f)
}

func (s *store) ListRevisions(ctx context.Context, f integrations.RevisionFilter) ([]integrations.Revision, error) {
	return listRevisions(ctx, s.rec, s.b, f)
}

// IntegrationsTx records the transaction as one call, and each call fn
// makes through its tx as a child of it.
func (s *store) IntegrationsTx(ctx context.Context, fn func(tx integrations.Tx) error) error {
	return call0(ctx, s.rec, "IntegrationsTx", func(ctx context.Context) error {
		return s.b.IntegrationsTx(ctx, func(tx integrations.Tx) error { return fn(&txCalls{tx: tx, rec: s.rec}) })
	})
}

func (s *store) SealedSecrets(ctx context.Context, afterBrand string, brands int) ([]integrations.SealedSecrets, error) {
	return call(ctx, s.rec, "SealedSecrets", func(ctx context.Context) ([]integrations.SealedSecrets, error) {
		return s.b.SealedSecrets(ctx, afterBrand, brands)
	})
}

// txCalls records the calls made through one integrations transaction.
type txCalls struct {
	tx  integrations.Tx
	rec *telemetry.StoreCalls
}

func (t *txCalls) AppIntegrationByID(ctx context.Context, brandID, id string) (integrations.AppIntegration, error) {
	return appIntegrationByID(ctx, t.rec, t.tx, brandID, id)
}

func (t *txCalls) ListAppIntegrations(ctx context.Context, f integrations.AppIntegrationFilter) ([]integrations.AppIntegration, error) {
	return listAppIntegrations(ctx, t.rec, t.tx, f)
}

func (t *txCalls) ConfigByID(ctx context.Context, kind integrations.RecordKind, brandID, id string) (integrations.ConfigRecord, error) {
	return configByID(ctx, t.rec, t.tx, kind, brandID, id)
}

func (t *txCalls) ListConfigs(ctx context.Context, f integrations.ConfigFilter) ([]integrations.ConfigRecord, error) {
	return listConfigs(ctx, t.rec, t.tx, f)
}

func (t *txCalls) ListRevisions(ctx context.Context, f integrations.RevisionFilter) ([]integrations.Revision, error) {
	return listRevisions(ctx, t.rec, t.tx, f)
}

func (t *txCalls) InsertAppIntegration(ctx context.Context, a integrations.AppIntegration) error {
	return call0(ctx, t.rec, "InsertAppIntegration", func(ctx context.Context) error { return t.tx.InsertAppIntegration(ctx, a) })
}

func (t *txCalls) UpdateAppIntegration(ctx context.Context, a integrations.AppIntegration) error {
	return call0(ctx, t.rec, "UpdateAppIntegration", func(ctx context.Context) error { return t.tx.UpdateAppIntegration(ctx, a) })
}

func (t *txCalls) InsertConfig(ctx context.Context, r integrations.ConfigRecord) error {
	return call0(ctx, t.rec, "InsertConfig", func(ctx context.Context) error { return t.tx.InsertConfig(ctx, r) })
}

func (t *txCalls) UpdateConfig(ctx context.Context, r integrations.ConfigRecord) error {
	return call0(ctx, t.rec, "UpdateConfig", func(ctx context.Context) error { return t.tx.UpdateConfig(ctx, r) })
}

func (t *txCalls) DeleteConfig(ctx context.Context, kind integrations.RecordKind, brandID, id string) error {
	return call0(ctx, t.rec, "DeleteConfig", func(ctx context.Context) error { return t.tx.DeleteConfig(ctx, kind, brandID, id) })
}

func (t *txCalls) InsertRevision(ctx context.Context, rev integrations.Revision) error {
	return call0(ctx, t.rec, "InsertRevision", func(ctx context.Context) error { return t.tx.InsertRevision(ctx, rev) })
}

func (t *txCalls) LockSealedSecrets(ctx context.Context, refs []integrations.ConfigRef) ([]integrations.SealedSecrets, error) {
	return call(ctx, t.rec, "LockSealedSecrets", func(ctx context.Context) ([]integrations.SealedSecrets, error) {
		return t.tx.LockSealedSecrets(ctx, refs)
	})
}

func (t *txCalls) UpdateSecrets(ctx context.Context, ss []integrations.SealedSecrets) error {
	return call0(ctx, t.rec, "UpdateSecrets", func(ctx context.Context) error { return t.tx.UpdateSecrets(ctx, ss) })
}

func (t *txCalls) Enqueue(ctx context.Context, items ...outbox.Item) error {
	return call0(ctx, t.rec, "Enqueue", func(ctx context.Context) error { return t.tx.Enqueue(ctx, items...) })
}

// The reads shared by the Store and a transaction.

func appIntegrationByID(ctx context.Context, rec *telemetry.StoreCalls, r integrations.Reader, brandID, id string) (integrations.AppIntegration, error) {
	return call(ctx, rec, "AppIntegrationByID", func(ctx context.Context) (integrations.AppIntegration, error) {
		return r.AppIntegrationByID(ctx, brandID, id)
	})
}

func listAppIntegrations(ctx context.Context, rec *telemetry.StoreCalls, r integrations.Reader, f integrations.AppIntegrationFilter) ([]integrations.AppIntegration, error) {
	return call(ctx, rec, "ListAppIntegrations", func(ctx context.Context) ([]integrations.AppIntegration, error) {
		return r.ListAppIntegrations(ctx, f)
	})
}

func configByID(ctx context.Context, rec *telemetry.StoreCalls, r integrations.Reader, kind integrations.RecordKind, brandID, id string) (integrations.ConfigRecord, error) {
	return call(ctx, rec, "ConfigByID", func(ctx context.Context) (integrations.ConfigRecord, error) {
		return r.ConfigByID(ctx, kind, brandID, id)
	})
}

func listConfigs(ctx context.Context, rec *telemetry.StoreCalls, r integrations.Reader, f integrations.ConfigFilter) ([]integrations.ConfigRecord, error) {
	return call(ctx, rec, "ListConfigs", func(ctx context.Context) ([]integrations.ConfigRecord, error) { return r.ListConfigs(ctx, f) })
}

func listRevisions(ctx context.Context, rec *telemetry.StoreCalls, r integrations.Reader, f integrations.RevisionFilter) ([]integrations.Revision, error) {
	return call(ctx, rec, "ListRevisions", func(ctx context.Context) ([]integrations.Revision, error) { return r.ListRevisions(ctx, f) })
}

var (
	_ Backend         = (*store)(nil)
	_ integrations.Tx = (*txCalls)(nil)
)
