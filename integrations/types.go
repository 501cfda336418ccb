package integrations

import (
	"slices"
	"strconv"
	"strings"
	"time"
)

// Type is the type of an app integration.
type Type string

// The app integration types.
const (
	TypeAnalytics      Type = "Analytics"
	TypePaymentGateway Type = "PaymentGateway"
	TypeSMTP           Type = "SMTP"
)

// RecordKind names a kind of record that revisions and events are about.
type RecordKind string

// The kinds of records.
const (
	KindAppIntegration RecordKind = "AppIntegration"
	KindAnalytics      RecordKind = "Analytics"
	KindPaymentGateway RecordKind = "PaymentGateway"
	KindSMTP           RecordKind = "SMTP"
)

// DateLayout is how createdDate and updatedDate are written: RFC 3339 in UTC
// with a numeric offset ("2026-01-02T03:04:05.123456+00:00").
const DateLayout = "2006-01-02T15:04:05.999999-07:00"

// formatDate writes t in DateLayout, in UTC.
func formatDate(t time.Time) string { return t.UTC().Format(DateLayout) }

// AppIntegration is an integration instance of a brand. Its JSON
// form is the appIntegration object nested in configuration answers.
type AppIntegration struct {
	// Type is Analytics, PaymentGateway or SMTP; it never changes.
	Type Type `json:"type"`
	// Name is the display name.
	Name string `json:"name"`
	// Domain is the integration's absolute http(s) URL.
	Domain string `json:"domain"`
	// Description is free text, possibly empty.
	Description string `json:"description"`
	// LogoURL is an absolute http(s) URL, or nil.
	LogoURL *string `json:"logoURL"`
	// Status is Active or Inactive.
	Status Status `json:"status"`
	// ID is assigned at creation.
	ID string `json:"id"`

	// BrandID is the brand the app integration belongs to.
	BrandID string `json:"-"`
	// Version starts at 1 and grows by one with every change.
	Version int64 `json:"-"`
	// CreatedAt is when the record was created.
	CreatedAt time.Time `json:"-"`
	// UpdatedAt is when the record last changed.
	UpdatedAt time.Time `json:"-"`
}

// ConfigHeader holds what every configuration record (analytics and payment
// gateway) has.
type ConfigHeader struct {
	// ID is assigned at creation.
	ID string
	// BrandID is the brand the record belongs to.
	BrandID string
	// AppIntegrationID names an app integration of the matching type in the
	// same brand.
	AppIntegrationID string
	// IsDefault marks the brand's default configuration of this kind (at
	// most one per brand and kind, and never an Inactive one).
	IsDefault bool
	// Status is Active or Inactive.
	Status Status
	// Version starts at 1 and grows by one with every change.
	Version int64
	// CreatedAt is when the record was created.
	CreatedAt time.Time
	// UpdatedAt is when the record last changed.
	UpdatedAt time.Time
}

// ConfigRecord is a configuration of any kind as a [Store] keeps it: the
// header every kind has, the kind's own non-secret fields as a JSON object,
// and its secrets as ciphertexts sealed by a [KeyRing], never plaintext.
type ConfigRecord struct {
	// Kind is the kind of configuration (KindAnalytics, KindPaymentGateway,
	// ...); a store keeps every kind alike.
	Kind RecordKind
	ConfigHeader
	// Body is the JSON object of the kind's non-secret fields.
	Body []byte
	// Secrets maps a secret field's name to its ciphertext; a secret that
	// is not set has no entry. Nil when there is none.
	Secrets map[string][]byte
}

// Clone returns a deep copy of r, sharing no memory with it; an empty
// Secrets map becomes nil.
func (r ConfigRecord) Clone() ConfigRecord {
	r.Body = slices.Clone(r.Body)
	if len(r.Secrets) == 0 {
		r.Secrets = nil
		return r
	}
	m := make(map[string][]byte, len(r.Secrets))
	for k, v := range r.Secrets {
		m[k] = slices.Clone(v)
	}
	r.Secrets = m
	return r
}

// AnalyticsRecord is an analytics configuration in typed form, as the
// service reads it from a [ConfigRecord]: its secrets are ciphertexts
// sealed by a [KeyRing], never plaintext. Its JSON form is the record's
// Body.
type AnalyticsRecord struct {
	ConfigHeader `json:"-"`
	// TrackingID identifies the analytics property or project.
	TrackingID string `json:"trackingId"`
	// APIKey is the sealed API key; never empty.
	APIKey []byte `json:"-"`
	// APISecret is the sealed API secret, or nil.
	APISecret []byte `json:"-"`
	// Metadata is free text, or nil.
	Metadata *string `json:"metadata"`
	// AccountConfigNotes is free text, or nil.
	AccountConfigNotes *string `json:"accountConfigNotes"`
}

// PaymentGatewayRecord is a payment-gateway configuration in typed form,
// as the service reads it from a [ConfigRecord]: its private key is a
// ciphertext sealed by a [KeyRing], never plaintext. Its JSON form is the
// record's Body.
type PaymentGatewayRecord struct {
	ConfigHeader `json:"-"`
	// Name is the gateway integration's name; never empty.
	Name string `json:"name"`
	// IPNListenerLink receives the gateway's payment notifications.
	IPNListenerLink *string `json:"ipnListenerLink"`
	// CancelLinkWithoutLogin is where an unauthenticated user lands after
	// cancelling.
	CancelLinkWithoutLogin *string `json:"cancelLinkWithoutLogin"`
	// CancelLink is where a user lands after cancelling a payment.
	CancelLink *string `json:"cancelLink"`
	// ReturnLink is where a user lands after a successful payment.
	ReturnLink *string `json:"returnLink"`
	// PublicKey is the gateway's public (client) key.
	PublicKey *string `json:"publicKey"`
	// PrivateKey is the sealed private key, or nil.
	PrivateKey []byte `json:"-"`
	// Description is free text, or nil.
	Description *string `json:"description"`
	// Notes is free text, or nil.
	Notes *string `json:"notes"`
	// TestMode selects the provider's sandbox.
	TestMode bool `json:"testMode"`
}

// Revision records one change of a record: who made it, when, and the names
// of the fields it changed (JSON names; never a secret value).
type Revision struct {
	// ID is assigned when the revision is written.
	ID string `json:"id"`
	// BrandID is the brand of the changed record.
	BrandID string `json:"brandId"`
	// Kind is the kind of the changed record.
	Kind RecordKind `json:"kind"`
	// RecordID is the changed record's ID.
	RecordID string `json:"recordId"`
	// Version is the record's version after the change.
	Version int64 `json:"version"`
	// ActorUserID is the user who made the change; "" when the system
	// did (ActorSystem).
	ActorUserID string `json:"actorUserId"`
	// ActorSystem reports that the host itself made the change, acting as
	// auth.SystemPrincipal, not a user. Stores keep ActorUserID only;
	// Service.Revisions sets it from an empty ActorUserID (every user change
	// names its user).
	ActorSystem bool `json:"actorSystem"`
	// At is when the change was made.
	At time.Time `json:"at"`
	// Fields are the names of the changed fields, sorted; empty when the
	// update changed nothing.
	Fields []string `json:"fields"`
}

// Analytics is an analytics configuration as answered over HTTP: secrets
// masked, dates in [DateLayout].
type Analytics struct {
	// AppIntegration is the app integration the configuration belongs to.
	AppIntegration AppIntegration `json:"appIntegration"`
	// TrackingID identifies the analytics property or project.
	TrackingID string `json:"trackingId"`
	// APIKey is the API key, masked (see [Mask]); nil only when it does not
	// decrypt (SecretsUnreadable). Every secret field is a *string alike:
	// nil when there is none to show.
	APIKey *string `json:"apiKey"`
	// APISecret is the API secret, masked, or nil.
	APISecret *string `json:"apiSecret"`
	// Metadata is free text, or nil.
	Metadata *string `json:"metadata"`
	// AccountConfigNotes is free text, or nil.
	AccountConfigNotes *string `json:"accountConfigNotes"`
	// IsDefault marks the brand's default analytics configuration.
	IsDefault bool `json:"isDefault"`
	// Status is Active or Inactive.
	Status Status `json:"status"`
	// ID is the configuration's ID.
	ID string `json:"id"`
	// CreatedDate is CreatedAt in DateLayout.
	CreatedDate string `json:"createdDate"`
	// UpdatedDate is UpdatedAt in DateLayout.
	UpdatedDate string `json:"updatedDate"`

	// BrandID is the brand the configuration belongs to.
	BrandID string `json:"-"`
	// Version is the record's version.
	Version int64 `json:"-"`
	// CreatedAt is when the configuration was created.
	CreatedAt time.Time `json:"-"`
	// UpdatedAt is when it last changed.
	UpdatedAt time.Time `json:"-"`
	// SecretsUnreadable reports, in a list (Service.ListAnalytics), that a
	// secret does not decrypt with the key ring: APIKey or APISecret is
	// then nil for the one that does not (see ErrSecretUnreadable,
	// which a read of this one record fails with). Never sent to clients.
	SecretsUnreadable bool `json:"-"`
}

// ETag returns the strong entity tag of a, which changes whenever its
// answer does (the configuration or its app integration changes).
func (a Analytics) ETag() string { return etag(a.Version, a.AppIntegration.Version) }

// PaymentGateway is a payment-gateway configuration as answered over HTTP:
// the private key masked, dates in [DateLayout].
type PaymentGateway struct {
	// AppIntegration is the app integration the configuration belongs to.
	AppIntegration AppIntegration `json:"appIntegration"`
	// Name is the gateway integration's name, or nil (null) for a record
	// stored without one; the service requires it on every create and
	// update, so it is nil only for a record a store holds from elsewhere.
	Name *string `json:"name"`
	// IPNListenerLink receives the gateway's payment notifications.
	IPNListenerLink *string `json:"ipnListenerLink"`
	// CancelLinkWithoutLogin is where an unauthenticated user lands after
	// cancelling.
	CancelLinkWithoutLogin *string `json:"cancelLinkWithoutLogin"`
	// CancelLink is where a user lands after cancelling a payment.
	CancelLink *string `json:"cancelLink"`
	// ReturnLink is where a user lands after a successful payment.
	ReturnLink *string `json:"returnLink"`
	// PublicKey is the gateway's public key (not a secret).
	PublicKey *string `json:"publicKey"`
	// PrivateKey is the private key, masked, or nil.
	PrivateKey *string `json:"privateKey"`
	// Description is free text, or nil.
	Description *string `json:"description"`
	// Notes is free text, or nil.
	Notes *string `json:"notes"`
	// TestMode selects the provider's sandbox.
	TestMode bool `json:"testMode"`
	// IsDefault marks the brand's default payment-gateway configuration.
	IsDefault bool `json:"isDefault"`
	// Status is Active or Inactive.
	Status Status `json:"status"`
	// ID is the configuration's ID.
	ID string `json:"id"`
	// CreatedDate is CreatedAt in DateLayout.
	CreatedDate string `json:"createdDate"`
	// UpdatedDate is UpdatedAt in DateLayout.
	UpdatedDate string `json:"updatedDate"`

	// BrandID is the brand the configuration belongs to.
	BrandID string `json:"-"`
	// Version is the record's version.
	Version int64 `json:"-"`
	// CreatedAt is when the configuration was created.
	CreatedAt time.Time `json:"-"`
	// UpdatedAt is when it last changed.
	UpdatedAt time.Time `json:"-"`
	// SecretsUnreadable reports, in a list (Service.ListPaymentGateways),
	// that the private key does not decrypt with the key ring; PrivateKey
	// is then nil (see ErrSecretUnreadable, which a read of this one
	// record fails with). Never sent to clients.
	SecretsUnreadable bool `json:"-"`
}

// ETag returns the strong entity tag of p, which changes whenever its
// answer does (the configuration or its app integration changes).
func (p PaymentGateway) ETag() string { return etag(p.Version, p.AppIntegration.Version) }

// etag is the entity tag of a configuration of version v whose app
// integration has version parent.
func etag(v, parent int64) string {
	return `"` + strconv.FormatInt(v, 10) + "." + strconv.FormatInt(parent, 10) + `"`
}

// AnalyticsSecrets are the plaintext secrets of an analytics configuration,
// for the host's own use in-process; they are never answered over HTTP.
// Like every secret field, each is a *string, nil when not set.
type AnalyticsSecrets struct {
	// APIKey is the API key; a stored configuration always has one.
	APIKey *string
	// APISecret is the API secret, or nil.
	APISecret *string
}

// PaymentGatewaySecrets are the plaintext secrets of a payment-gateway
// configuration, for the host's own use in-process; they are never answered
// over HTTP.
type PaymentGatewaySecrets struct {
	PrivateKey *string
}

// AppIntegrationInput is what [Service.CreateAppIntegration] and
// [Service.UpdateAppIntegration] take.
type AppIntegrationInput struct {
	// Type is required on create; on update it must be empty or the
	// current type.
	Type Type
	// Name is required, at most 200 characters.
	Name string
	// Domain is required: an absolute http(s) URL.
	Domain string
	// Description is optional, at most 4000 characters.
	Description string
	// LogoURL is optional: nil or an absolute http(s) URL.
	LogoURL *string
	// Status is Active or Inactive, case-insensitive; empty means Active on
	// create and unchanged on update.
	Status Status
}

// AnalyticsInput is the body of an analytics create or update.
// A nil field is one the request did not send.
//
// An update replaces the configuration: an optional field not sent becomes
// null (isDefault false), except that a secret sent back masked (and
// apiSecret not sent) keeps its stored value, and a status not sent keeps
// the stored status. An empty apiSecret clears it.
type AnalyticsInput struct {
	// AppIntegrationID is required: an Analytics app integration of the
	// same brand.
	AppIntegrationID *string `json:"appIntegrationId"`
	// TrackingID is required, at least one character.
	TrackingID *string `json:"trackingId"`
	// APIKey is required on create and on every update, at least
	// one character; on update the masked value a read answered keeps the
	// stored key.
	APIKey *string `json:"apiKey"`
	// APISecret is optional; empty clears it.
	APISecret *string `json:"apiSecret"`
	// Metadata is optional free text.
	Metadata *string `json:"metadata"`
	// AccountConfigNotes is optional free text.
	AccountConfigNotes *string `json:"accountConfigNotes"`
	// IsDefault is false when not sent.
	IsDefault *bool `json:"isDefault"`
	// Status is Active or Inactive, case-insensitive.
	Status *Status `json:"status"`
}

// PaymentGatewayInput is the body of a payment-gateway create or update.
// A nil field is one the request did not send; an update
// replaces the configuration as [AnalyticsInput] describes (privateKey is
// the secret).
type PaymentGatewayInput struct {
	// AppIntegrationID is required: a PaymentGateway app integration of the
	// same brand.
	AppIntegrationID *string `json:"appIntegrationId"`
	// Name is required, at most 200 characters.
	Name *string `json:"name"`
	// IPNListenerLink is optional: an absolute http(s) URL (https unless
	// TestMode or the host is localhost); the other links likewise.
	IPNListenerLink *string `json:"ipnListenerLink"`
	// CancelLinkWithoutLogin is optional, a link.
	CancelLinkWithoutLogin *string `json:"cancelLinkWithoutLogin"`
	// CancelLink is optional, a link.
	CancelLink *string `json:"cancelLink"`
	// ReturnLink is optional, a link.
	ReturnLink *string `json:"returnLink"`
	// PublicKey is optional.
	PublicKey *string `json:"publicKey"`
	// PrivateKey is optional; empty clears it.
	PrivateKey *string `json:"privateKey"`
	// Description is optional free text.
	Description *string `json:"description"`
	// Notes is optional free text.
	Notes *string `json:"notes"`
	// TestMode is false when not sent.
	TestMode *bool `json:"testMode"`
	// IsDefault is false when not sent.
	IsDefault *bool `json:"isDefault"`
	// Status is Active or Inactive, case-insensitive.
	Status *Status `json:"status"`
}

// Matches reports whether a is selected by f. Stores that filter in Go use
// it.
func (f AppIntegrationFilter) Matches(a AppIntegration) bool {
	return (f.BrandID == "" || f.BrandID == a.BrandID) && (f.Type == nil || *f.Type == a.Type)
}

// Matches reports whether the configuration r is selected by f. Stores that
// filter in Go use it.
func (f ConfigFilter) Matches(r ConfigRecord) bool {
	h := r.ConfigHeader
	return (f.Kind == "" || f.Kind == r.Kind) && (f.BrandID == "" || f.BrandID == h.BrandID) &&
		(f.AppIntegrationID == nil || *f.AppIntegrationID == h.AppIntegrationID) &&
		(f.IsDefault == nil || *f.IsDefault == h.IsDefault)
}

// Matches reports whether rev is selected by f. Stores that filter in Go use
// it.
func (f RevisionFilter) Matches(rev Revision) bool {
	return f.BrandID == rev.BrandID && (f.Kind == "" || f.Kind == rev.Kind) &&
		(f.RecordID == "" || f.RecordID == rev.RecordID)
}

// Clone returns a deep copy of a, sharing no memory with it.
func (a AppIntegration) Clone() AppIntegration {
	a.LogoURL = cloneStr(a.LogoURL)
	return a
}

// Clone returns a deep copy of rev, sharing no memory with it.
func (rev Revision) Clone() Revision {
	rev.Fields = slices.Clone(rev.Fields)
	return rev
}

func cloneStr(p *string) *string {
	if p == nil {
		return nil
	}
	s := *p
	return &s
}

// Status is the status of an app integration or a configuration: the
// common status enum of integrations, Active or Inactive. It is the
// integrations' own type, apart from the status of brands and users
// (Status), so that either may gain a value without the other.
type Status string

// The statuses of app integrations and configurations.
const (
	StatusActive   Status = "Active"
	StatusInactive Status = "Inactive"
)

// ParseStatus returns the canonical status for s, matched
// case-insensitively (surrounding spaces ignored), and whether s is one.
func ParseStatus(s string) (Status, bool) {
	s = strings.TrimSpace(s)
	for _, st := range []Status{StatusActive, StatusInactive} {
		if strings.EqualFold(s, string(st)) {
			return st, true
		}
	}
	return "", false
}
