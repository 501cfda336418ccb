package webhooks

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/internal/netguard"
	"github.com/brandbase/brandbase/outbox"
)

// Bounds of the service.
const (
	// DefaultSecretOverlap is how long, after [Service.RotateSecret], the
	// old secret keeps signing beside the new one.
	DefaultSecretOverlap = 24 * time.Hour
	// DefaultAutoDisable is how long an endpoint's deliveries may fail
	// without a success before the endpoint is disabled.
	DefaultAutoDisable = 5 * 24 * time.Hour
	// DeliveryTimeout bounds one delivery: connecting, sending and the
	// answer's headers and first KB.
	DeliveryTimeout = 15 * time.Second
	// MaxAnswerKept is how much of an answer's body is read and kept in a
	// failed delivery's error.
	MaxAnswerKept = 1024
)

// AddressPolicy says which addresses outside the public internet the
// deliveries may connect to. The zero value allows public addresses only.
type AddressPolicy struct {
	// AllowLoopback allows 127.0.0.0/8 and ::1 (development; the demo
	// server sets it).
	AllowLoopback bool
	// AllowPrivate allows private, shared and link-local addresses (the
	// host's own network).
	AllowPrivate bool
}

// Service manages a brand's webhook endpoints and delivers their events.
// It is safe for concurrent use.
//
// The management methods take the acting principal and work in its brand:
// reads need auth.PermWebhooksRead (or webhooks.write, or *), changes
// auth.PermWebhooksWrite, else they fail with [ErrAccessDenied]. An ID of
// another brand is [ErrEndpointNotFound].
type Service struct {
	store       Store
	queue       outbox.Store
	keys        *integrations.KeyRing
	now         func() time.Time
	policy      netguard.Policy
	overlap     time.Duration
	autoDisable time.Duration
	client      *http.Client
	log         *slog.Logger
}

// Option configures a Service.
type Option func(*Service)

// WithQueue sets the outbox store the deliveries are listed, replayed and
// fanned out through. Without it [Service.Deliveries] and [Service.Replay]
// fail with [ErrNoQueue].
func WithQueue(q outbox.Store) Option { return func(s *Service) { s.queue = q } }

// WithKeyRing sets the key ring that seals the signing secrets; an
// ephemeral one (secrets lost at restart) when nil or not given.
func WithKeyRing(k *integrations.KeyRing) Option {
	return func(s *Service) {
		if k != nil {
			s.keys = k
		}
	}
}

// WithClock sets the clock (time.Now by default).
func WithClock(now func() time.Time) Option {
	return func(s *Service) {
		if now != nil {
			s.now = now
		}
	}
}

// WithAddressPolicy sets which non-public addresses the deliveries may
// reach (none by default).
func WithAddressPolicy(p AddressPolicy) Option {
	return func(s *Service) {
		s.policy = netguard.Policy{AllowLoopback: p.AllowLoopback, AllowPrivate: p.AllowPrivate}
	}
}

// WithSecretOverlap sets how long an old secret signs after a rotation
// ([DefaultSecretOverlap] when d <= 0).
func WithSecretOverlap(d time.Duration) Option {
	return func(s *Service) {
		if d > 0 {
			s.overlap = d
		}
	}
}

// WithAutoDisable sets how long an endpoint may fail without a success
// before it is disabled ([DefaultAutoDisable] when d <= 0).
func WithAutoDisable(d time.Duration) Option {
	return func(s *Service) {
		if d > 0 {
			s.autoDisable = d
		}
	}
}

// WithLogger sets the logger of failures that are no delivery's own (an
// endpoint that could not be marked failing); slog.Default() by default.
func WithLogger(l *slog.Logger) Option {
	return func(s *Service) {
		if l != nil {
			s.log = l
		}
	}
}

// NewService returns a Service on store.
func NewService(store Store, opts ...Option) *Service {
	s := &Service{store: store, now: time.Now, overlap: DefaultSecretOverlap,
		autoDisable: DefaultAutoDisable, log: slog.Default()}
	for _, o := range opts {
		o(s)
	}
	if s.keys == nil {
		s.keys = integrations.EphemeralKeyRing()
	}
	s.client = newClient(s.policy)
	return s
}

// Queued reports whether the service has the outbox's queue (WithQueue):
// deliveries to list and replay.
func (s *Service) Queued() bool { return s.queue != nil }

// newClient returns the HTTP client of deliveries: every connection
// checked by p, no proxy (a proxy would connect for us, past the check),
// no redirect followed, DeliveryTimeout in all.
func newClient(p netguard.Policy) *http.Client {
	tr := &http.Transport{
		DialContext:           p.DialContext(DeliveryTimeout),
		TLSHandshakeTimeout:   DeliveryTimeout,
		ResponseHeaderTimeout: DeliveryTimeout,
		// A dispatcher runs up to outbox.DefaultConcurrency deliveries at
		// once, and many endpoints may share a host: keep as many idle
		// connections to it, or every burst dials (and handshakes) anew.
		MaxIdleConnsPerHost: outbox.DefaultConcurrency,
		IdleConnTimeout:     90 * time.Second,
		ForceAttemptHTTP2:   true,
	}
	return &http.Client{
		Transport:     tr,
		Timeout:       DeliveryTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// newID returns a new endpoint ID.
func newID() string { return uuid.Must(uuid.NewV7()).String() }

// can fails with ErrAccessDenied unless p holds perm (write implies read).
func can(p auth.Principal, perm auth.Permission) error {
	if p.Can(perm) || (perm == auth.PermWebhooksRead && p.Can(auth.PermWebhooksWrite)) {
		return nil
	}
	return ErrAccessDenied
}

// aad returns the associated data a secret of the endpoint is sealed with.
func aad(brandID, id, field string) []byte {
	return []byte("webhook\x00" + brandID + "\x00" + id + "\x00" + field)
}

// seal seals key as the field ("secret" or "old") of the endpoint.
func (s *Service) seal(brandID, id, field string, key []byte) []byte {
	return s.keys.Seal(key, aad(brandID, id, field))
}

// open opens the field of r.
func (s *Service) open(r Record, field string, ct []byte) ([]byte, error) {
	return s.keys.Open(ct, aad(r.BrandID, r.ID, field))
}

// public returns the endpoint as users see it.
func public(r Record, now time.Time) Endpoint {
	e := Endpoint{ID: r.ID, URL: r.URL, EventTypes: r.EventTypes, Enabled: r.Enabled, Description: r.Description,
		DisabledReason: r.DisabledReason, CreatedDate: formatDate(r.CreatedAt), UpdatedDate: formatDate(r.UpdatedAt)}
	if e.EventTypes == nil {
		e.EventTypes = []string{}
	}
	if len(r.OldSecret) > 0 && now.Before(r.OldSecretUntil) {
		e.SecretOverlapUntil = formatDate(r.OldSecretUntil)
	}
	return e
}

// formatDate writes t as every answer's dates are written; "" for the
// zero time.
func formatDate(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(integrations.DateLayout)
}
