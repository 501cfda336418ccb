// Package integrations holds app integrations and the analytics and
// payment-gateway configurations attached to them, with their rules: the
// status rule, one default per brand and kind, secrets encrypted at rest and
// masked in answers, optimistic concurrency (ETag / If-Match), and a
// revision for every update.
//
// # Records
//
// An [AppIntegration] (type Analytics or PaymentGateway) is an integration
// instance of a brand. An analytics configuration ([Analytics]) or a
// payment-gateway configuration ([PaymentGateway]) is attached to one app
// integration of the matching type in the same brand.
//
// # Rules
//
//   - Status: the stored status of a configuration is the one sent, except
//     that it is Inactive while its app integration is Inactive; making an
//     app integration Inactive makes its configurations Inactive in the same
//     transaction. An Inactive configuration is never the default.
//   - Default: at most one configuration per brand and kind is the default;
//     setting isDefault clears it on the others in the same transaction.
//   - Secrets (apiKey, apiSecret, privateKey) are sealed with
//     XChaCha20-Poly1305 under a [KeyRing] before any store sees them, and
//     masked in every answer (see [Mask]). Sending back the masked value, or
//     omitting a secret, on update keeps the stored one.
//   - Every update is atomic, checks its [Precondition] inside its
//     transaction, and writes a [Revision] (who, when, which fields; never a
//     secret value). Hooks registered with [Service.OnIntegrationUpdated] run
//     after the commit.
//
// The package declares the [Store] it needs, and the errors of its contract
// (errors.go); storage/memory and storage/sqlite implement it. A store keeps
// configurations of every kind alike, as a [ConfigRecord] (a kind, the
// shared header, a JSON body and sealed secrets); the service maps each
// kind's typed record to and from it, so a new kind of integration needs no
// new store method. Every failure is an *envelope.Error.
package integrations

import (
	"context"
	"github.com/brandbase/brandbase/outbox"
)

// Store is what the integrations service needs from storage: reads, and
// transactions in which the service reads and writes. Every method is safe
// for concurrent use. Configurations of every kind go through one set of
// methods ([Reader.ConfigByID], [Reader.ListConfigs], [Tx.InsertConfig],
// [Tx.UpdateConfig]) holding a [ConfigRecord], so that a new kind of
// integration needs no new store method. Failures are the sentinel errors
// of errors.go (ErrConfigNotFound, ErrDefaultTaken, ...; auth.ErrBrandNotFound
// for a brand that does not exist; envelope.ErrStoreConflict or
// envelope.ErrStoreNotFound for a collision or a missing record no
// sentinel of the contract names), or KindInternal for anything else; a
// cancelled context fails the call with the context's error and writes
// nothing.
type Store interface {
	Reader
	// IntegrationsTx runs fn in one transaction: everything fn writes
	// through tx is committed when fn returns nil, and nothing is when fn
	// returns an error (which IntegrationsTx returns as is) or ctx is
	// cancelled. Transactions are serialised: fn sees the writes of every
	// transaction committed before it and of no other. fn must use only tx
	// (not the Store) and must not keep tx after it returns.
	IntegrationsTx(ctx context.Context, fn func(tx Tx) error) error
	// SealedSecrets returns the sealed secrets of every configuration that
	// holds any, of the first brands brands (in ID order) after afterBrand
	// that have such configurations, ordered by brand, then ID: the key
	// rotation reads them page by page ("" starts at the first brand), in
	// no transaction.
	SealedSecrets(ctx context.Context, afterBrand string, brands int) ([]SealedSecrets, error)
}

// Reader reads integration records. Lists are ordered by creation time,
// then ID.
type Reader interface {
	// AppIntegrationByID returns the app integration of brandID with that
	// ID, or ErrAppIntegrationNotFound (also for an ID of another brand).
	AppIntegrationByID(ctx context.Context, brandID, id string) (AppIntegration, error)
	// ListAppIntegrations returns the app integrations f selects.
	ListAppIntegrations(ctx context.Context, f AppIntegrationFilter) ([]AppIntegration, error)
	// ConfigByID returns the configuration of that kind of brandID with
	// that ID, or ErrConfigNotFound (also for an ID of another brand or
	// kind).
	ConfigByID(ctx context.Context, kind RecordKind, brandID, id string) (ConfigRecord, error)
	// ListConfigs returns the configurations f selects.
	ListConfigs(ctx context.Context, f ConfigFilter) ([]ConfigRecord, error)
	// ListRevisions returns the revisions f selects, in the order they were
	// written.
	ListRevisions(ctx context.Context, f RevisionFilter) ([]Revision, error)
}

// Tx reads and writes inside one Store transaction.
type Tx interface {
	Reader
	// InsertAppIntegration stores a new app integration.
	// auth.ErrBrandNotFound if its brand does not exist;
	// ErrAppIntegrationExists if its ID is taken.
	InsertAppIntegration(ctx context.Context, a AppIntegration) error
	// UpdateAppIntegration replaces the app integration with a.ID in
	// a.BrandID (its Type and CreatedAt stay). ErrAppIntegrationNotFound if
	// absent.
	UpdateAppIntegration(ctx context.Context, a AppIntegration) error
	// InsertConfig stores a new configuration. ErrConfigExists if its ID is
	// taken (by a configuration of any kind); auth.ErrBrandNotFound or
	// ErrAppIntegrationNotFound if its brand, or its app integration in
	// that brand, does not exist; ErrDefaultTaken if it is the default and
	// another configuration of its brand and kind is.
	InsertConfig(ctx context.Context, r ConfigRecord) error
	// UpdateConfig replaces the configuration with r.Kind, r.ID and
	// r.BrandID (its CreatedAt stays). ErrConfigNotFound if absent; then
	// the errors of InsertConfig for its app integration and default.
	UpdateConfig(ctx context.Context, r ConfigRecord) error
	// DeleteConfig removes the configuration of kind with that ID in
	// brandID: its row, its sealed secrets and its default flag go with it
	// (its revisions stay). ErrConfigNotFound if absent.
	DeleteConfig(ctx context.Context, kind RecordKind, brandID, id string) error
	// InsertRevision stores a revision. auth.ErrBrandNotFound if its brand
	// does not exist; ErrRevisionExists if its ID is taken or the record
	// already has a revision of rev.Version.
	InsertRevision(ctx context.Context, rev Revision) error
	// LockSealedSecrets locks the brands of refs, in the order they come
	// first in refs, each against every other integration write until the
	// transaction ends (a store whose transactions run one at a time needs
	// no lock), then returns the sealed secrets of the configurations refs
	// names that exist and hold a secret, by ID.
	LockSealedSecrets(ctx context.Context, refs []ConfigRef) ([]SealedSecrets, error)
	// UpdateSecrets replaces the sealed secrets of each configuration of
	// ss (by Kind, BrandID and ID), and nothing else: not its version nor
	// its update time. A configuration that does not exist is skipped.
	UpdateSecrets(ctx context.Context, ss []SealedSecrets) error
	// Enqueue writes items to the outbox in this transaction (the events
	// of the change it makes). outbox.ErrItemExists if one's reference is
	// taken.
	Enqueue(ctx context.Context, items ...outbox.Item) error
}

// SealedSecrets are the sealed secrets of one configuration, as a store
// keeps them (ConfigRecord.Secrets): what the key rotation reads and
// writes.
type SealedSecrets struct {
	Kind    RecordKind
	BrandID string
	ID      string
	// Secrets maps each secret field's name to its ciphertext.
	Secrets map[string][]byte
}

// AppIntegrationFilter selects app integrations.
type AppIntegrationFilter struct {
	// BrandID selects one brand's records; empty selects every brand's
	// (only the key rotation needs that).
	BrandID string
	// Type, when not nil, selects that type only.
	Type *Type
}

// ConfigFilter selects configurations.
type ConfigFilter struct {
	// Kind selects the configurations of one kind; empty selects every
	// kind's.
	Kind RecordKind
	// BrandID selects one brand's records; empty selects every brand's
	// (only the key rotation needs that).
	BrandID string
	// AppIntegrationID, when not nil, selects the configurations of that
	// app integration.
	AppIntegrationID *string
	// IsDefault, when not nil, selects the configurations whose IsDefault
	// equals it.
	IsDefault *bool
}

// RevisionFilter selects revisions.
type RevisionFilter struct {
	// BrandID selects one brand's revisions; required.
	BrandID string
	// Kind, when not empty, selects revisions of that kind of record.
	Kind RecordKind
	// RecordID, when not empty, selects the revisions of that record.
	RecordID string
}
