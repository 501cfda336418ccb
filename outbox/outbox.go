// Package outbox is the one durable queue of everything brandbase sends: the
// mail of its sign-in flows and the events it emits, carried out as signed
// webhooks.
//
// An [Item] is written by the store in the transaction of the change that
// causes it (a reset token and its mail, a user and its user.created event),
// so that a change is never stored without what it sends, nor the reverse.
// A [Dispatcher] running on every instance claims due items, one instance
// at a time per item (a claim expires, so an instance killed mid-send loses
// nothing), hands each to the [Handler] of its channel, and records the
// outcome: delivered, retried later with exponential backoff and jitter, or
// failed after [DefaultRetryBound]. Delivery is at least once: a receiver
// tells a repeat by the item's ID, which every attempt carries.
//
// The package holds the queue's rules and record types only; the stores
// (storage/...) keep the rows, and the packages that send (mail, webhooks)
// provide the handlers.
package outbox

import (
	"context"
	"time"
)

// Channel says how an item leaves the service.
type Channel string

// The channels of the outbox.
const (
	// ChannelEvent is an event the service emitted. Its handler fans it
	// out: one ChannelWebhook item per enabled endpoint of the brand that
	// takes its Topic (none is not an error).
	ChannelEvent Channel = "event"
	// ChannelWebhook is one event's delivery to one webhook endpoint
	// (Target is the endpoint's ID; ID is the event's, the same for every
	// endpoint and every attempt: Standard Webhooks' webhook-id).
	ChannelWebhook Channel = "webhook"
	// ChannelMail is one mail message to one address.
	ChannelMail Channel = "mail"
)

// Status is where an item stands.
type Status string

// The statuses of an item.
const (
	// StatusPending: waiting for its NextAt, or claimed and in flight.
	StatusPending Status = "pending"
	// StatusDelivered: its handler succeeded (for a webhook, a 2xx).
	StatusDelivered Status = "delivered"
	// StatusFailed: it was refused for good, or still failing after the
	// retry bound; LastError says why.
	StatusFailed Status = "failed"
)

// Item is one thing to send and where its delivery stands.
type Item struct {
	// ID names the item: unique among the items of its Channel and Target.
	// For an event and each of its webhook deliveries, the event's ID.
	ID string `json:"id"`
	// BrandID is the brand it is sent for: the unit of fairness.
	BrandID string `json:"brandId"`
	// Channel says how it leaves.
	Channel Channel `json:"channel"`
	// Topic is the event type (user.created) or the message kind
	// (password_reset).
	Topic string `json:"topic"`
	// Target is the webhook endpoint's ID (ChannelWebhook); empty otherwise.
	Target string `json:"target,omitempty"`
	// SubjectID names what the item is about (a user's ID), for ordering
	// and for lists.
	SubjectID string `json:"subjectId,omitempty"`
	// Payload is the handler's input, JSON: an event's versioned payload,
	// or a mail message to render. It never holds a password; a mail
	// payload may hold a single-use link, so stores clear it once the item
	// is delivered or failed.
	Payload []byte `json:"payload,omitempty"`
	// Seq is the store's insertion order, set when the item is written
	// (0 before): increasing within a store, the order events happened.
	Seq int64 `json:"seq"`
	// CreatedAt is when the change that caused it happened.
	CreatedAt time.Time `json:"createdAt"`

	// Status, Attempts, NextAt, LastCode, LastError and DeliveredAt are the
	// delivery's state, kept by the store (zero when enqueued).
	Status   Status    `json:"status"`
	Attempts int       `json:"attempts"`
	NextAt   time.Time `json:"nextAt"`
	// LastCode is the last attempt's HTTP status (webhooks) or SMTP reply
	// code (mail); 0 when there was no answer.
	LastCode int `json:"lastCode,omitempty"`
	// LastError is the last attempt's error, at most 1 KB of it.
	LastError   string    `json:"lastError,omitempty"`
	DeliveredAt time.Time `json:"deliveredAt,omitzero"`
}

// Result is a handler's report of one attempt.
type Result struct {
	// Code is the answer's status (HTTP or SMTP), 0 for none.
	Code int
	// Err is nil when the item was delivered. Otherwise the attempt
	// failed and is retried, unless Permanent.
	Err error
	// Permanent marks a failure no retry can mend (no endpoint any more, a
	// refused address): the item is marked failed at once.
	Permanent bool
	// FanOut, when Err is nil, are the items the attempt produced (the
	// ChannelWebhook deliveries of a ChannelEvent item): the dispatcher
	// settles the item as delivered and enqueues them in one transaction
	// (Store.FanOut), so an event is never marked delivered without its
	// deliveries, nor the reverse.
	FanOut []Item
}

// Handler delivers the items of one channel. Deliver is called with a
// context that ends at the item's claim expiry or sooner; it must return by
// then, and must be safe for concurrent use.
type Handler interface {
	Deliver(ctx context.Context, it Item) Result
}

// HandlerFunc adapts a function to [Handler].
type HandlerFunc func(ctx context.Context, it Item) Result

// Deliver calls f.
func (f HandlerFunc) Deliver(ctx context.Context, it Item) Result { return f(ctx, it) }

// Delivery bounds.
const (
	// DefaultRetryBound is how long an item is retried, from its creation,
	// before it is marked failed.
	DefaultRetryBound = 24 * time.Hour
	// DefaultClaimTTL is how long a claim lasts: an instance that stops
	// mid-send leaves its items to another after it.
	DefaultClaimTTL = time.Minute
)

// Mail is the payload of a [ChannelMail] item: which message to send to
// whom. The mail handler renders it with the brand's template of Kind in
// Language (the brand's default when empty) and sends it through the
// brand's default SMTP integration, else the host's sender.
type Mail struct {
	// Kind is the message kind (password_reset, and the kinds later
	// sign-in methods add).
	Kind string `json:"kind"`
	// To is the addressee's email address.
	To string `json:"to"`
	// UserID names the addressee, when a user.
	UserID string `json:"userId,omitempty"`
	// Language is the addressee's language (BCP 47), when known.
	Language string `json:"language,omitempty"`
	// Data are the template's placeholders by name (link, code, expiresAt,
	// userName, brandName, ...). A link or code is a secret: the store
	// clears the payload once the item is delivered or failed.
	Data map[string]string `json:"data"`
}
