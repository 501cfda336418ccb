package auth

import (
	"context"
	"strings"

	"github.com/brandbase/brandbase/envelope"
)

// The statuses a user has beside Active and Inactive (docs/administration.md,
// "Statuses"). A user whose status is not Active cannot sign in (403 after
// a correct password, with a code naming the status), its keys are
// refused, and no password-reset mail is sent to it.
const (
	// StatusLocked: the account is held for security (a suspected
	// takeover). Locking ends every session at once (they do not come
	// back); unlocking makes the user Active, signing in with its current
	// password.
	StatusLocked Status = "Locked"
	// StatusSuspended: the account is barred for a while. Its sessions
	// are refused while suspended and work again, until they expire, once
	// it is unsuspended.
	StatusSuspended Status = "Suspended"
)

// Codes of a sign-in refused for the user's status (HTTP 403).
const (
	CodeUserLocked    = "user_locked"
	CodeUserSuspended = "user_suspended"
	// CodeStatusConflict is the code of a status change the user's
	// current status does not allow (HTTP 409): unlocking a user who is
	// not locked, suspending one who is not active, ...
	CodeStatusConflict = "status_conflict"
)

// userStatuses are the statuses of users, in the order errors list them.
var userStatuses = []Status{StatusActive, StatusInactive, StatusLocked, StatusSuspended}

// parseUserStatus returns the canonical user status for s, matched
// case-insensitively.
func parseUserStatus(s string) (Status, bool) {
	for _, st := range userStatuses {
		if strings.EqualFold(strings.TrimSpace(s), string(st)) {
			return st, true
		}
	}
	return "", false
}

// statusRefusal is the error of a sign-in by a user of status st, which
// is not Active.
func statusRefusal(st Status) error {
	switch st {
	case StatusLocked:
		return envelope.New(envelope.KindForbidden, CodeUserLocked, "This user is locked.")
	case StatusSuspended:
		return envelope.New(envelope.KindForbidden, CodeUserSuspended, "This user is suspended.")
	}
	return envelope.New(envelope.KindForbidden, CodeUserInactive, "This user is inactive.")
}

// StatusChange is an administrator's change of a user's status
// ([Service.ChangeUserStatus]), named as the route that makes it.
type StatusChange string

// The status changes: each goes from one status to another, and is a
// no-op on a user already in the status it goes to.
const (
	// Activate: Inactive to Active.
	Activate StatusChange = "activate"
	// Deactivate: Active to Inactive.
	Deactivate StatusChange = "deactivate"
	// Lock: Active to Locked; every session of the user ends.
	Lock StatusChange = "lock"
	// Unlock: Locked to Active.
	Unlock StatusChange = "unlock"
	// Suspend: Active to Suspended.
	Suspend StatusChange = "suspend"
	// Unsuspend: Suspended to Active.
	Unsuspend StatusChange = "unsuspend"
)

// statusChanges are the statuses each change goes from and to.
var statusChanges = map[StatusChange]struct{ from, to Status }{
	Activate:   {StatusInactive, StatusActive},
	Deactivate: {StatusActive, StatusInactive},
	Lock:       {StatusActive, StatusLocked},
	Unlock:     {StatusLocked, StatusActive},
	Suspend:    {StatusActive, StatusSuspended},
	Unsuspend:  {StatusSuspended, StatusActive},
}

// ChangeUserStatus makes change on the user userID as actor, and returns
// the user: actor must be allowed to act on the user ([CanActOn]: it
// holds users.write and every permission the user holds; checked again
// in the write), and never on itself (an administrator cannot lock,
// suspend or deactivate its own account, nor lift such a status: another
// administrator does). A change on a user already in the status it goes
// to changes nothing. Every change of status ends the user's single-use
// tokens; Lock also ends every session of the user for good.
//
// It fails with KindInvalid for an unknown change; KindForbidden
// (access_denied) as [Service.UserToActOn] does, and for the actor's own
// ID; [ErrUserNotFound]; KindConflict (status_conflict) when the user's
// status is not the one the change goes from.
func (s *Service) ChangeUserStatus(ctx context.Context, actor Principal, userID string, change StatusChange) (User, error) {
	sc, ok := statusChanges[change]
	if !ok {
		return User{}, envelope.Invalid("The status change is invalid.",
			envelope.Field("change", "invalid_enum", "The change must be activate, deactivate, lock, unlock, suspend or unsuspend."))
	}
	if _, err := s.UserToActOn(ctx, actor, userID); err != nil {
		return User{}, err
	}
	if !actor.System && actor.UserID == userID {
		return User{}, errAccessDenied("A user cannot change its own status: another administrator can.")
	}
	return s.setUserStatus(ctx, userID, sc.to, func(r *UserRecord) error {
		if err := CanActOn(actor, r.User); err != nil {
			return err
		}
		if r.Status != sc.from && r.Status != sc.to {
			return envelope.New(envelope.KindConflict, CodeStatusConflict, "The user is "+string(r.Status)+
				": "+string(change)+" applies to a user who is "+string(sc.from)+".")
		}
		return nil
	})
}

// setUserStatus sets the user's status to st after check (when not nil)
// passes on the user under the write's lock. Going to Locked moves the
// session epoch on and revokes the user's pairs, so no session survives
// an unlock.
func (s *Service) setUserStatus(ctx context.Context, userID string, st Status, check func(*UserRecord) error) (User, error) {
	locked := false
	u, err := s.updateUser(ctx, userID, true, EventUserUpdated, func(r *UserRecord) error {
		if check != nil {
			if err := check(r); err != nil {
				return err
			}
		}
		if st == StatusLocked && r.Status != StatusLocked {
			r.SessionEpoch++
			locked = true
		}
		r.Status = st
		return nil
	})
	if err != nil {
		return User{}, err
	}
	if locked {
		if _, err := s.revokeKeys(ctx, KeySelector{UserID: userID}); err != nil {
			return User{}, err
		}
	}
	return u, nil
}
