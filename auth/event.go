package auth

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/brandbase/brandbase/events"
	"github.com/brandbase/brandbase/outbox"
)

// EventType names what happened.
type EventType string

// The events the auth service emits, named as the catalogue of package
// events names them. Each is also written to the outbox, in the
// transaction of its change, with the payload the catalogue gives it
// (docs/webhooks.md).
const (
	// EventUserAuthenticated: a user logged in with a password and got a
	// key pair. Event.KeyID names the pair; Event.Device is the device
	// the login registered, if any.
	EventUserAuthenticated = EventType(events.UserAuthenticated)
	// EventDeviceRegistered: a login carrying X-Device-Code registered a
	// new device or updated a known one (Event.NewDevice tells which).
	EventDeviceRegistered = EventType(events.DeviceRegistered)
	// EventUserCreated: a user was created.
	EventUserCreated = EventType(events.UserCreated)
	// EventUserUpdated: a user's profile, permissions or status changed;
	// Event.Changed names the fields.
	EventUserUpdated = EventType(events.UserUpdated)
	// EventUserPasswordChanged: a user's password was set (by the user or
	// an administrator).
	EventUserPasswordChanged = EventType(events.UserPasswordChanged)
	// EventUserPasswordReset: a user set a new password with a reset link.
	EventUserPasswordReset = EventType(events.UserPasswordReset)
	// EventDeviceEnded: a device was ended (signed out) or revoked;
	// Event.Device is the device as stored after it; Username is empty.
	EventDeviceEnded = EventType(events.DeviceEnded)
	// EventUserDeleted: a user was deleted, with everything that was
	// theirs; Username is empty (the user's personal data is gone).
	EventUserDeleted = EventType(events.UserDeleted)
	// EventBrandUpdated: a brand or its settings changed; Event.Changed
	// names the fields ("settings" for the settings). UserID is empty.
	EventBrandUpdated = EventType(events.BrandUpdated)
)

// Event is what a hook set with [WithEventHook] receives.
type Event struct {
	// Type says what happened.
	Type EventType
	// At is when it happened, by the service's clock.
	At time.Time
	// BrandID and UserID name the user concerned.
	BrandID string
	UserID  string
	// Username is the user's username at the time of the event.
	Username string
	// KeyID is the key pair issued (EventUserAuthenticated).
	KeyID string
	// Device is the device as stored after registration; its ID is empty
	// when the event concerns no device.
	Device Device
	// NewDevice is true when the device was registered for the first time.
	NewDevice bool
	// Changed names the fields that changed (EventUserUpdated,
	// EventBrandUpdated), sorted.
	Changed []string
}

// WithEventHook adds a hook that the service calls, in-process, after each
// change that emits an event: a user authenticated, a device was registered
// or ended, a user was created or updated, a password was changed or reset,
// a brand or its settings changed (the EventType constants). Hooks run synchronously, one
// after the other in the order given, after the change is stored and with
// no lock held: a request waits for the hook call itself and for nothing
// else, so a hook that does slow work should hand it off (to a channel or
// its own goroutine). A hook that panics is recovered, logged (see
// [WithLogger]) and does not fail the request or reach the caller.
func WithEventHook(hook func(ctx context.Context, e Event)) Option {
	return func(s *Service) {
		if hook != nil {
			s.hooks = append(s.hooks, hook)
		}
	}
}

// emit calls every hook with e.
func (s *Service) emit(ctx context.Context, e Event) {
	for _, h := range s.hooks {
		s.callHook(ctx, h, e)
	}
}

func (s *Service) callHook(ctx context.Context, h func(context.Context, Event), e Event) {
	defer func() {
		if v := recover(); v != nil {
			s.log.ErrorContext(ctx, "auth: event hook panicked", "event", string(e.Type), "panic", fmt.Sprint(v))
		}
	}()
	h(ctx, e)
}

// event returns the outbox item of an event (see package events): the
// catalogue's payloads always marshal.
func event(typ EventType, brandID, subjectID string, at time.Time, data any) outbox.Item {
	return events.Must(events.Type(typ), brandID, subjectID, at, data)
}

// userEvent returns the outbox item of a user.* event of u.
func userEvent(typ EventType, u UserRecord, at time.Time, changed []string) outbox.Item {
	return event(typ, u.BrandID, u.ID, at, events.User{UserID: u.ID, Username: u.Username, Changed: changed})
}

// emitUser calls the hooks with the user event typ of u.
func (s *Service) emitUser(ctx context.Context, typ EventType, u UserRecord, at time.Time, changed []string) {
	s.emit(ctx, Event{Type: typ, At: at, BrandID: u.BrandID, UserID: u.ID, Username: u.Username, Changed: changed})
}

// userChanges names the fields of a user's profile, permissions and status
// that differ between old and u, sorted (the password is an event of its
// own).
func userChanges(old, u UserRecord) []string {
	changed := []string{}
	add := func(name string, differ bool) {
		if differ {
			changed = append(changed, name)
		}
	}
	add("emailAddress", old.EmailAddress != u.EmailAddress)
	add("firstName", old.FirstName != u.FirstName)
	add("lastName", old.LastName != u.LastName)
	add("nickName", old.NickName != u.NickName)
	add("permissions", !slices.Equal(old.Permissions, u.Permissions))
	add("phoneNumber", old.PhoneNumber != u.PhoneNumber)
	add("status", old.Status != u.Status)
	add("username", old.Username != u.Username)
	return changed
}
