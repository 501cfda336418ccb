// Package events is the catalogue of the events brandbase emits: their
// types, the versioned JSON payload of each, and the builder of the outbox
// item that carries one out ([New]).
//
// # Payload
//
// Every event is written as Standard Webhooks shape it, plus what names it:
//
//	{
//	  "id": "evt_0193...",
//	  "type": "user.updated",
//	  "version": 1,
//	  "timestamp": "2026-11-29T02:40:00.123456Z",
//	  "brandId": "b1",
//	  "subjectId": "0193...",
//	  "data": {"userId": "0193...", "changed": ["emailAddress"]}
//	}
//
// data names what changed (field names), never a value that is a secret
// or a password. A webhook delivery adds "sequence", the event's place in
// the store's order (docs/webhooks.md). [Version] is the payload's version:
// a change that would break a reader of version 1 gets a new version.
//
// # Where events come from
//
// The auth and integrations services build each event of a change with
// [New] and pass it to the store write that makes the change, so the event
// is written in the change's transaction: no change without its event, no
// event without its change. Their in-process hooks (auth.WithEventHook,
// integrations' OnIntegrationUpdated) fire as before, after the commit.
package events

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/brandbase/brandbase/outbox"
)

// Type names what happened: an event's "type", its outbox item's Topic.
type Type string

// The event types of the catalogue (docs/webhooks.md gives a payload of
// each). A later feature adds its types here.
const (
	// UserCreated: a user was created (data [User]).
	UserCreated Type = "user.created"
	// UserUpdated: a user's profile, permissions or status changed (data
	// [User] with Changed).
	UserUpdated Type = "user.updated"
	// UserDeleted: a user was deleted (data [User]).
	UserDeleted Type = "user.deleted"
	// UserPasswordChanged: a user's password was set (data [User]).
	UserPasswordChanged Type = "user.password_changed"
	// UserPasswordReset: a user set a new password with a reset link (data
	// [User]).
	UserPasswordReset Type = "user.password_reset"
	// UserAuthenticated: a user logged in with a password and got a key
	// pair (data [Authenticated]).
	UserAuthenticated Type = "user.authenticated"
	// DeviceRegistered: a login registered a new device or refreshed a
	// known one (data [Device]).
	DeviceRegistered Type = "device.registered"
	// DeviceEnded: a device was signed out (ended) or revoked (data
	// [Device] with Reason).
	DeviceEnded Type = "device.ended"
	// IntegrationCreated: an app integration or a configuration was
	// created (data [Integration]).
	IntegrationCreated Type = "integration.created"
	// IntegrationUpdated: an app integration or a configuration changed
	// (data [Integration] with Changed).
	IntegrationUpdated Type = "integration.updated"
	// IntegrationDeleted: a configuration was deleted (data
	// [Integration]).
	IntegrationDeleted Type = "integration.deleted"
	// BrandUpdated: a brand or its settings changed (data [Brand]).
	BrandUpdated Type = "brand.updated"
	// WebhookDisabled: a webhook endpoint was disabled after failing for
	// too long (data [Webhook]).
	WebhookDisabled Type = "webhook.disabled"
)

// Types lists every type of the catalogue, in the order of the docs.
func Types() []Type {
	return []Type{UserCreated, UserUpdated, UserDeleted, UserPasswordChanged, UserPasswordReset,
		UserAuthenticated, DeviceRegistered, DeviceEnded, IntegrationCreated, IntegrationUpdated,
		IntegrationDeleted, BrandUpdated, WebhookDisabled}
}

// Version is the version of the payloads this package writes.
const Version = 1

// IDPrefix starts every event's ID.
const IDPrefix = "evt_"

// Payload is an event as written: the body a webhook receives (without
// the "sequence" its delivery adds).
type Payload struct {
	// ID names the event: the outbox item's ID and the webhook-id of
	// every delivery of it.
	ID string `json:"id"`
	// Type says what happened.
	Type Type `json:"type"`
	// Version is the payload's version ([Version]).
	Version int `json:"version"`
	// Timestamp is when it happened, RFC 3339 in UTC.
	Timestamp time.Time `json:"timestamp"`
	// BrandID names the brand it happened in.
	BrandID string `json:"brandId"`
	// SubjectID names what it is about: a user, an integration, a brand.
	SubjectID string `json:"subjectId"`
	// Data says what happened, by type.
	Data json.RawMessage `json:"data"`
}

// User is the data of the user.* events.
type User struct {
	// UserID names the user.
	UserID string `json:"userId"`
	// Username is the user's username after the change.
	Username string `json:"username,omitempty"`
	// Changed names the fields that changed (user.updated), sorted.
	Changed []string `json:"changed,omitempty"`
}

// Authenticated is the data of user.authenticated.
type Authenticated struct {
	// UserID and Username name the user.
	UserID   string `json:"userId"`
	Username string `json:"username"`
	// KeyID names the key pair issued (not the key: its ID).
	KeyID string `json:"keyId"`
	// DeviceID names the device the login came from.
	DeviceID string `json:"deviceId,omitempty"`
}

// Device is the data of the device.* events.
type Device struct {
	// UserID names the device's user, DeviceID the device.
	UserID   string `json:"userId"`
	DeviceID string `json:"deviceId"`
	// Name and OS describe it, as the client gave them.
	Name string `json:"name,omitempty"`
	OS   string `json:"os,omitempty"`
	// New is true when device.registered registered it for the first
	// time.
	New bool `json:"new,omitempty"`
	// Reason is why device.ended ended it: "ended" (signed out) or
	// "revoked".
	Reason string `json:"reason,omitempty"`
}

// Integration is the data of the integration.* events.
type Integration struct {
	// Kind is the kind of record: AppIntegration, Analytics,
	// PaymentGateway, ...
	Kind string `json:"kind"`
	// ID names the record; Version is its version after the change.
	ID      string `json:"id"`
	Version int64  `json:"version"`
	// Changed names the fields that changed (integration.updated), sorted:
	// a secret's name, never its value.
	Changed []string `json:"changed,omitempty"`
	// ActorUserID names the user who made the change; empty when the host
	// made it.
	ActorUserID string `json:"actorUserId,omitempty"`
}

// Brand is the data of brand.updated.
type Brand struct {
	// BrandID names the brand.
	BrandID string `json:"brandId"`
	// Changed names what changed, sorted: brand fields (url, name,
	// status) or "settings".
	Changed []string `json:"changed"`
}

// Webhook is the data of webhook.disabled.
type Webhook struct {
	// WebhookID names the endpoint.
	WebhookID string `json:"webhookId"`
	// Reason says why it was disabled.
	Reason string `json:"reason"`
}

// NewID returns a new event ID: [IDPrefix] and a UUIDv7 in hex (time
// ordered, 122 bits of it random).
func NewID() string {
	u := uuid.Must(uuid.NewV7())
	return IDPrefix + hex.EncodeToString(u[:])
}

// New returns the outbox item of an event of type typ that happened at at
// in brandID, about subjectID, with data (one of this package's data
// types): Channel event, ID a new [NewID], Topic typ, the payload
// marshalled. It fails only if data cannot be marshalled.
func New(typ Type, brandID, subjectID string, at time.Time, data any) (outbox.Item, error) {
	raw, err := json.Marshal(data)
	if err != nil {
		return outbox.Item{}, fmt.Errorf("events: marshal the data of %s: %w", typ, err)
	}
	at = at.UTC()
	p := Payload{ID: NewID(), Type: typ, Version: Version, Timestamp: at, BrandID: brandID,
		SubjectID: subjectID, Data: raw}
	body, err := json.Marshal(p)
	if err != nil {
		return outbox.Item{}, fmt.Errorf("events: marshal %s: %w", typ, err)
	}
	return outbox.Item{ID: p.ID, BrandID: brandID, Channel: outbox.ChannelEvent, Topic: string(typ),
		SubjectID: subjectID, Payload: body, CreatedAt: at}, nil
}

// Must is [New] for data of this package's types, which always marshal.
func Must(typ Type, brandID, subjectID string, at time.Time, data any) outbox.Item {
	it, err := New(typ, brandID, subjectID, at, data)
	if err != nil {
		panic(err)
	}
	return it
}

// Decode reads an event's payload (a webhook body, an outbox item's
// Payload); Data stays raw for the reader to decode by Type.
func Decode(body []byte) (Payload, error) {
	var p Payload
	if err := json.Unmarshal(body, &p); err != nil {
		return Payload{}, fmt.Errorf("events: decode a payload: %w", err)
	}
	return p, nil
}
