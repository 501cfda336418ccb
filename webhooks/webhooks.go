// Package webhooks carries the service's events out to the endpoints each
// brand registers, signed as Standard Webhooks 1.0 says.
//
// # Endpoints
//
// An [Endpoint] belongs to one brand: a URL (https; plain http only to a
// loopback host), the event types it takes ("*" for all), whether it is
// enabled, and a signing secret (whsec_ and the base64 of 24 random bytes)
// shown once, when it is made ([Service.Create]) or rotated
// ([Service.RotateSecret]), and sealed at rest with the integrations key
// ring. After a rotation the old secret keeps signing beside the new one
// for [DefaultSecretOverlap], so a receiver can switch without losing a
// delivery.
//
// # Deliveries
//
// The outbox carries events ([outbox.ChannelEvent] items). The handler of
// [Service.EventHandler] fans each out into one [outbox.ChannelWebhook]
// item per enabled endpoint of its brand that takes its type; the handler
// of [Service.DeliveryHandler] POSTs each, with the headers webhook-id (the
// event's ID, the same on every retry and for every endpoint),
// webhook-timestamp (this attempt's Unix seconds) and webhook-signature
// (v1,<base64 HMAC-SHA256 of "id.timestamp.body">). A 2xx is delivered;
// any other answer, a redirect or no answer within [DeliveryTimeout] is
// retried by the outbox's schedule. An endpoint whose deliveries fail
// without a success for [DefaultAutoDisable] is disabled, and a
// webhook.disabled event says so.
//
// # Addresses
//
// Every connection is checked by the host's [netguard.Policy] on the
// address it connects to, after the name resolved: loopback, private and
// link-local addresses are refused unless the host allows them.
package webhooks

import (
	"context"
	"time"

	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/outbox"
)

// Endpoint is a webhook endpoint as its brand's users see it: never its
// secret.
type Endpoint struct {
	// ID names the endpoint.
	ID string `json:"id"`
	// URL is where deliveries are POSTed.
	URL string `json:"url"`
	// EventTypes are the event types it takes ("user.created"); "*" takes
	// every type.
	EventTypes []string `json:"eventTypes"`
	// Enabled says whether events are delivered to it.
	Enabled bool `json:"enabled"`
	// Description is free text for the brand's users.
	Description string `json:"description"`
	// DisabledReason says why the service disabled it (its deliveries
	// failed for too long); empty when enabled or disabled by a user.
	DisabledReason string `json:"disabledReason,omitempty"`
	// SecretOverlapUntil, after a rotation, is when the old secret stops
	// signing beside the new one; absent otherwise.
	SecretOverlapUntil string `json:"secretOverlapUntil,omitempty"`
	// CreatedDate and UpdatedDate are when it was created and last changed
	// (RFC 3339 in UTC with a numeric offset, integrations.DateLayout).
	CreatedDate string `json:"createdDate"`
	UpdatedDate string `json:"updatedDate"`
}

// EndpointWithSecret is the answer of a create and of a secret rotation:
// the endpoint and its new secret, shown this once.
type EndpointWithSecret struct {
	Endpoint
	// Secret is the signing secret: whsec_ and the base64 of its key.
	Secret string `json:"secret"`
}

// Input is what a user sends to create or replace an endpoint.
type Input struct {
	// URL is required: https, or http to a loopback host.
	URL string `json:"url"`
	// EventTypes are the event types it takes; at least one ("*" for all).
	EventTypes []string `json:"eventTypes"`
	// Enabled, when absent, is true.
	Enabled *bool `json:"enabled"`
	// Description is optional, at most 500 characters.
	Description string `json:"description"`
}

// Record is an endpoint as the store keeps it.
type Record struct {
	ID         string
	BrandID    string
	URL        string
	EventTypes []string
	Enabled    bool
	// Description and DisabledReason are as in [Endpoint].
	Description    string
	DisabledReason string
	// Secret is the signing secret's key, sealed by the key ring.
	Secret []byte
	// OldSecret, after a rotation, is the previous key, sealed; it signs
	// beside Secret until OldSecretUntil. Nil when none.
	OldSecret      []byte
	OldSecretUntil time.Time
	// FailingSince is the time of the first failed delivery since the last
	// success (zero while the endpoint succeeds).
	FailingSince time.Time
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// Store keeps the endpoints. Every method is atomic and safe for
// concurrent use.
type Store interface {
	// CreateWebhook stores r. ErrEndpointExists if its ID is taken;
	// auth's brand-not-found (envelope.ErrStoreNotFound kind) if r.BrandID
	// names no brand.
	CreateWebhook(ctx context.Context, r Record) error
	// Webhook returns the endpoint id of brandID; ErrEndpointNotFound.
	Webhook(ctx context.Context, brandID, id string) (Record, error)
	// Webhooks returns the endpoints of brandID, oldest first (then ID).
	Webhooks(ctx context.Context, brandID string) ([]Record, error)
	// UpdateWebhook applies fn to the endpoint id of brandID under a lock
	// of its row and writes the result (ID, BrandID and CreatedAt stay),
	// with out enqueued in the same transaction. ErrEndpointNotFound, or
	// fn's error (nothing written).
	UpdateWebhook(ctx context.Context, brandID, id string, fn func(*Record) error, out ...outbox.Item) (Record, error)
	// DeleteWebhook deletes the endpoint id of brandID;
	// ErrEndpointNotFound.
	DeleteWebhook(ctx context.Context, brandID, id string) error
	// WebhooksAfter returns at most limit endpoints of every brand whose ID
	// is above after, in ID order (a key rotation's pages).
	WebhooksAfter(ctx context.Context, after string, limit int) ([]Record, error)
}

// The package's error codes and sentinel errors.
const (
	// CodeAccessDenied: the caller lacks webhooks.read or webhooks.write.
	CodeAccessDenied = "access_denied"
)

var (
	// ErrEndpointNotFound: no endpoint with that ID in the brand.
	ErrEndpointNotFound = envelope.NotFound("The webhook endpoint does not exist.")
	// ErrEndpointExists: an endpoint with that ID is stored.
	ErrEndpointExists = envelope.New(envelope.KindConflict, "webhook_exists", "The webhook endpoint exists.")
	// ErrAccessDenied: the caller lacks the permission.
	ErrAccessDenied = envelope.New(envelope.KindForbidden, CodeAccessDenied, "The caller lacks the permission to manage webhooks.")
	// ErrDeliveryNotFound: no delivery with that ID to the endpoint.
	ErrDeliveryNotFound = envelope.NotFound("The webhook delivery does not exist.")
	// ErrNoQueue: the service was built without an outbox store, so it has
	// no deliveries to list or replay.
	ErrNoQueue = envelope.New(envelope.KindUnavailable, "unavailable", "The webhook deliveries are not available on this service.")
)
