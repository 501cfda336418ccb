package auth

import (
	"context"
	"time"
)

// ChangeKind says which cached answers a [Change] concerns.
type ChangeKind string

// The kinds of change a Service forgets cached answers for.
const (
	// ChangeBrand: a brand (Change.ID) was created or changed (its status,
	// its URL, its settings).
	ChangeBrand ChangeKind = "brand"
	// ChangeUser: something of a user (Change.ID) changed that a cached
	// answer may hold: its status or permissions, or one of its key pairs
	// or devices was revoked or rotated.
	ChangeUser ChangeKind = "user"
	// ChangeAll: anything may have changed; every cached answer is dropped.
	ChangeAll ChangeKind = "all"
)

// Change names what another process sharing the store has changed, so that
// a Service drops the cached answers it concerns ([Service.Forget]).
type Change struct {
	// Kind says what changed.
	Kind ChangeKind
	// ID is the brand's or the user's ID; unused for ChangeAll.
	ID string
	// At is when the change was committed, when the feed that reports it
	// knows (zero otherwise): Forget then records how long it took to be
	// heard (see WithMeterProvider).
	At time.Time
}

// Forget drops the cached answers that c makes stale, so that the next
// Authenticate, CheckDevice or ResolveBrand reads the store again:
//
//   - ChangeBrand: the cached brand with ID c.ID and its cached
//     settings ([Service.BrandSettings]);
//   - ChangeUser: the cached keys and device checks of user c.ID;
//   - ChangeAll: every cached key, device check, brand and brand
//     settings, but not the
//     last known record of each brand that ResolveBrandOrLastKnown answers
//     from while the store is unavailable (a ChangeBrand forgets that).
//
// A Change of another kind drops nothing. Changes made through this
// Service are forgotten already; Forget is for those made by another
// process sharing the store (a store that reports them, such as
// storage/postgres, is subscribed to it by brandbase.New). It is safe for
// concurrent use and costs a walk of the cache concerned, never a store
// read; a lookup running at the same time does not cache what it read
// before the call (see the generation of the cache).
//
// With a meter provider ([WithMeterProvider]) each change of a kind above
// counts as one change heard, by kind, and one with At set records how
// long after its commit it was heard.
func (s *Service) Forget(c Change) {
	switch c.Kind {
	case ChangeBrand, ChangeUser, ChangeAll:
		s.tel.ChangeHeard(context.Background(), string(c.Kind), c.At, s.now())
	}
	switch c.Kind {
	case ChangeBrand:
		s.brands.invalidate(func(_ string, b Brand) bool { return b.ID == c.ID })
		s.settings.invalidate(func(id string, _ BrandSettings) bool { return id == c.ID })
		s.lastBrands.forgetID(c.ID)
	case ChangeUser:
		s.invalidateUser(c.ID)
	case ChangeAll:
		s.keys.invalidate(nil)
		s.devices.invalidate(nil)
		s.brands.invalidate(nil)
		s.settings.invalidate(nil)
	}
}
