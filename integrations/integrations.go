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
// The package declares the [Store] it needs; storage/memory and
// storage/sqlite implement it. Every failure is an *envelope.Error.
package integrations

import (
	"context"
)

// Store is what the integrations service needs from storage: reads, and
// transactions in which the service reads and writes. Every method is safe
// for concurrent use. Failures are *envelope.Error values: KindNotFound when
// a record (or, on insert, the brand or app integration it names) does not
// exist, KindConflict when a unique key is taken (an ID, a second default
// per brand and kind, a second revision of one version), KindInternal for
// anything else; a cancelled context fails the call with the context's
// error and writes nothing.
type Store interface {
	Reader
	// IntegrationsTx runs fn in one transaction: everything fn writes
	// through tx is committed when fn returns nil, and nothing is when fn
	// returns an error (which IntegrationsTx returns as is) or ctx is
	// cancelled. Transactions are serialised: fn sees the writes of every
	// transaction committed before it and of no other. fn must use only tx
	// (not the Store) and must not keep tx after it returns.
	IntegrationsTx(ctx context.Context, fn func(tx Tx) error) error
}

// Reader reads integration records. Lists are ordered by creation time,
// then ID.
type Reader interface {
	// AppIntegrationByID returns the app integration of brandID with that
	// ID, or KindNotFound (also for an ID of another brand).
	AppIntegrationByID(ctx context.Context, brandID, id string) (AppIntegration, error)
	// ListAppIntegrations returns the app integrations f selects.
	ListAppIntegrations(ctx context.Context, f AppIntegrationFilter) ([]AppIntegration, error)
	// AnalyticsByID returns the analytics configuration of brandID with
	// that ID, or KindNotFound (also for an ID of another brand).
	AnalyticsByID(ctx context.Context, brandID, id string) (AnalyticsRecord, error)
	// ListAnalytics returns the analytics configurations f selects.
	ListAnalytics(ctx context.Context, f ConfigFilter) ([]AnalyticsRecord, error)
	// PaymentGatewayByID returns the payment-gateway configuration of
	// brandID with that ID, or KindNotFound (also for an ID of another
	// brand).
	PaymentGatewayByID(ctx context.Context, brandID, id string) (PaymentGatewayRecord, error)
	// ListPaymentGateways returns the payment-gateway configurations f
	// selects.
	ListPaymentGateways(ctx context.Context, f ConfigFilter) ([]PaymentGatewayRecord, error)
	// ListRevisions returns the revisions f selects, in the order they were
	// written.
	ListRevisions(ctx context.Context, f RevisionFilter) ([]Revision, error)
}

// Tx reads and writes inside one Store transaction.
type Tx interface {
	Reader
	// InsertAppIntegration stores a new app integration. KindNotFound if
	// its brand does not exist; KindConflict if its ID is taken.
	InsertAppIntegration(ctx context.Context, a AppIntegration) error
	// UpdateAppIntegration replaces the app integration with a.ID in
	// a.BrandID (its Type and CreatedAt stay). KindNotFound if absent.
	UpdateAppIntegration(ctx context.Context, a AppIntegration) error
	// InsertAnalytics stores a new analytics configuration. KindNotFound if
	// its brand or app integration does not exist; KindConflict if its ID
	// is taken or it is a second default of its brand.
	InsertAnalytics(ctx context.Context, r AnalyticsRecord) error
	// UpdateAnalytics replaces the analytics configuration with r.ID in
	// r.BrandID (its CreatedAt stays). KindNotFound if absent (or its app
	// integration is); KindConflict if it would be a second default.
	UpdateAnalytics(ctx context.Context, r AnalyticsRecord) error
	// InsertPaymentGateway stores a new payment-gateway configuration, with
	// the errors of InsertAnalytics.
	InsertPaymentGateway(ctx context.Context, r PaymentGatewayRecord) error
	// UpdatePaymentGateway replaces a payment-gateway configuration, with
	// the errors of UpdateAnalytics.
	UpdatePaymentGateway(ctx context.Context, r PaymentGatewayRecord) error
	// InsertRevision stores a revision. KindConflict if its ID is taken or
	// the record already has a revision of rev.Version.
	InsertRevision(ctx context.Context, rev Revision) error
}

// AppIntegrationFilter selects app integrations.
type AppIntegrationFilter struct {
	// BrandID selects one brand's records; empty selects every brand's
	// (only the key rotation needs that).
	BrandID string
	// Type, when not nil, selects that type only.
	Type *Type
}

// ConfigFilter selects analytics or payment-gateway configurations.
type ConfigFilter struct {
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
