package auth

import (
	"context"
	"fmt"
	"time"
)

// EventType names what happened.
type EventType string

// The events the auth service emits.
const (
	// EventUserAuthenticated: a user logged in with a password and got a
	// key pair. Event.KeyID names the pair; Event.Device is the device
	// the login registered, if any.
	EventUserAuthenticated EventType = "user.authenticated"
	// EventDeviceRegistered: a login carrying X-Device-Code registered a
	// new device or updated a known one (Event.NewDevice tells which).
	EventDeviceRegistered EventType = "device.registered"
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
}

// WithEventHook adds a hook that the service calls, in-process, after a user
// authenticated or a device was registered. Hooks run synchronously, one
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
