package auth

import (
	"context"
	"errors"
	"slices"
)

// HoldsEvery reports whether p holds every permission of perms: PermAll
// holds them all, and only PermAll holds PermAll.
func (p Principal) HoldsEvery(perms []Permission) bool {
	if slices.Contains(p.Permissions, PermAll) {
		return true
	}
	for _, q := range perms {
		if !slices.Contains(p.Permissions, q) {
			return false
		}
	}
	return true
}

// CanActOn is the rule of every act of a caller on another user: setting
// its password or status, listing or ending its devices, changing its
// permissions or roles, deleting it. actor may act on target only when it
// holds [PermUsersWrite], target is of actor's brand, and actor holds
// every permission target holds ([Principal.HoldsEvery]): no one reaches,
// through another account, a permission it does not hold itself (a holder
// of users.write alone cannot set the password of a "*" admin and sign in
// as it). Every route that acts on a user, now and later, calls it (or
// [Service.UserToActOn], which looks the user up first).
//
// It fails with KindForbidden (access_denied) when actor lacks users.write
// or one of target's permissions, and with [ErrUserNotFound] when target
// is of another brand.
func CanActOn(actor Principal, target User) error {
	if !actor.Can(PermUsersWrite) {
		return errAccessDenied("Acting on another user needs the users.write permission.")
	}
	if target.BrandID != actor.BrandID {
		return ErrUserNotFound
	}
	if !actor.HoldsEvery(target.Permissions) {
		return errAccessDenied("Acting on this user needs every permission the user holds.")
	}
	return nil
}

// UserToActOn returns the user userID when actor may act on it
// ([CanActOn]). Without users.write actor is refused (KindForbidden,
// access_denied) whether or not the user exists, so that it learns nothing
// of who does; with it, [ErrUserNotFound] when no user of actor's brand
// has that ID, and access_denied when the user holds a permission actor
// does not. The store's errors otherwise.
func (s *Service) UserToActOn(ctx context.Context, actor Principal, userID string) (User, error) {
	if !actor.Can(PermUsersWrite) {
		return User{}, CanActOn(actor, User{})
	}
	if !plausibleID(userID) {
		return User{}, ErrUserNotFound
	}
	u, err := s.store.UserByID(ctx, userID)
	if errors.Is(err, ErrUserNotFound) {
		return User{}, ErrUserNotFound
	}
	if err != nil {
		return User{}, err
	}
	if err := CanActOn(actor, u.User); err != nil {
		return User{}, err
	}
	return u.public(), nil
}
