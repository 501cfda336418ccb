package auth

import (
	"context"
	"strings"
)

// The reasons of an [IdentifierCollision].
const (
	// CollisionUsernameTaken: the user's username is another user's under
	// [FoldKey] (look-alikes: "ａdmin" and "admin"). The other user holds
	// the key: a login naming it by username signs in the other user.
	CollisionUsernameTaken = "username_taken"
	// CollisionEmailTaken: the user's email address is another user's
	// under [FoldKey]. The other user holds it: a login or a password
	// reset naming it reaches the other user.
	CollisionEmailTaken = "email_taken"
	// CollisionUsernameIsAddress: the user's username is another user's
	// email address under [FoldKey]. A login naming it by username signs
	// in the user; by emailAddress, the other.
	CollisionUsernameIsAddress = "username_is_address"
	// CollisionNotOwnAddress: the user's username is shaped like an email
	// address (it holds an @) that is not the user's own, and no other
	// user's either.
	CollisionNotOwnAddress = "not_own_address"
	// CollisionStaleKey: the user's stored username or email key is not
	// the current [FoldKey] of it and no other user holds that key (a user
	// written by an older version during a rolling upgrade): a login
	// naming it finds no one until the user's identifier is written again
	// ([Service.UpdateUser]).
	CollisionStaleKey = "stale_key"
)

// IdentifierCollision is a stored user whose username or email address
// breaks a rule that [Service.CreateUser] enforces on every new user and
// change: stored before the rule, the user keeps working as its stored keys
// say (see each reason), until an operator renames one of the two.
type IdentifierCollision struct {
	// Reason is one of the Collision* constants.
	Reason string `json:"reason"`
	// Key is the [FoldKey] the reason is about.
	Key string `json:"key"`
	// User is the user reported.
	User User `json:"user"`
	// Other is the user it collides with: the zero User for
	// CollisionNotOwnAddress and CollisionStaleKey.
	Other User `json:"other"`
}

// IdentifierCollisions reports the users of brandID whose identifiers
// collide under the rules of [Service.CreateUser] (usernames and email
// addresses compared with [FoldKey], in one namespace; a username shaped
// like an address is the user's own): stored before those rules, or by an
// older version. Each user is reported at most once per reason, in the
// order of creation; none (an empty slice, not an error) when the brand's
// identifiers are sound or the brand is unknown. It reads every user of the
// brand: an operator's check (brandbase user collisions), not a request's.
// It fails with the store's errors.
func (s *Service) IdentifierCollisions(ctx context.Context, brandID string) ([]IdentifierCollision, error) {
	recs, err := s.store.ListUsers(ctx, brandID)
	if err != nil {
		return nil, err
	}
	return identifierCollisions(recs), nil
}

// identifierCollisions is IdentifierCollisions over the users recs, oldest
// first.
func identifierCollisions(recs []UserRecord) []IdentifierCollision {
	names, emails := keyHolders(recs, false), keyHolders(recs, true)
	out := []IdentifierCollision{}
	add := func(reason, key string, u UserRecord, other *UserRecord) {
		c := IdentifierCollision{Reason: reason, Key: key, User: u.public()}
		if other != nil {
			c.Other = other.public()
		}
		out = append(out, c)
	}
	for _, u := range recs {
		nameKey, emailKey := FoldKey(u.Username), FoldKey(u.EmailAddress)
		if h := names[nameKey]; h.ID != u.ID {
			add(CollisionUsernameTaken, nameKey, u, &h)
		} else if u.UsernameKey != nameKey {
			add(CollisionStaleKey, nameKey, u, nil)
		}
		if h := emails[emailKey]; emailKey != "" && h.ID != u.ID {
			add(CollisionEmailTaken, emailKey, u, &h)
		} else if u.EmailKey != emailKey {
			add(CollisionStaleKey, emailKey, u, nil)
		}
		if h, ok := emails[nameKey]; ok && h.ID != u.ID {
			add(CollisionUsernameIsAddress, nameKey, u, &h)
		} else if strings.Contains(u.Username, "@") && nameKey != emailKey {
			add(CollisionNotOwnAddress, nameKey, u, nil)
		}
	}
	return out
}

// keyHolders maps each [FoldKey] of recs' usernames (or, with email, of
// their email addresses) to the user that holds it: the one whose stored
// key it is, else the oldest with it.
func keyHolders(recs []UserRecord, email bool) map[string]UserRecord {
	held := map[string]UserRecord{}
	for _, u := range recs {
		ident, stored := u.Username, u.UsernameKey
		if email {
			ident, stored = u.EmailAddress, u.EmailKey
		}
		key := FoldKey(ident)
		if key == "" {
			continue
		}
		if h, ok := held[key]; !ok || (stored == key && h.storedKey(email) != key) {
			held[key] = u
		}
	}
	return held
}

// storedKey returns the record's stored username key, or with email its
// stored email key.
func (r UserRecord) storedKey(email bool) string {
	if email {
		return r.EmailKey
	}
	return r.UsernameKey
}
