package sqlstore

import (
	"context"

	"github.com/brandbase/brandbase/auth"
)

// storedKeys is what RekeyUsers reads of a user.
type storedKeys struct {
	id, brandID, username, usernameKey, email, emailKey string
}

// brandKey is a lookup key in a brand.
type brandKey struct{ brandID, key string }

// RekeyUsers is the Go step of migration 0013_user_identifiers, run in its
// transaction tx (numbered: the placeholders are $1 rather than ?). It
// recomputes every user's username and email keys with the current
// auth.FoldKey, oldest users first, and stores each new key that no other
// user's key of the same column holds (a user whose new key is taken keeps
// its old one, so its row stays valid); then it fills user_identifiers with
// the users' keys, email addresses before usernames (a username that is
// another's address does not keep the address from its owner) and older
// users first, a key already held by another user being left to the first
// holder. The
// collisions left behind are what auth.Service.IdentifierCollisions
// reports.
func RekeyUsers(ctx context.Context, tx DB, numbered bool) error {
	bind := func(q string) string {
		if numbered {
			return Rebind(q)
		}
		return q
	}
	users, err := readStoredKeys(ctx, tx)
	if err != nil {
		return err
	}
	byName, byEmail := map[brandKey]bool{}, map[brandKey]bool{}
	for _, u := range users {
		byName[brandKey{u.brandID, u.usernameKey}] = true
		if u.emailKey != "" {
			byEmail[brandKey{u.brandID, u.emailKey}] = true
		}
	}
	for _, u := range users {
		if k, ok := rekey(byName, u.brandID, u.usernameKey, auth.FoldKey(u.username)); ok {
			if _, err := tx.Exec(ctx, bind(`UPDATE users SET username_key = ? WHERE id = ?`), k, u.id); err != nil {
				return err
			}
		}
		if u.emailKey == "" {
			continue
		}
		if k, ok := rekey(byEmail, u.brandID, u.emailKey, auth.FoldKey(u.email)); ok {
			if _, err := tx.Exec(ctx, bind(`UPDATE users SET email_key = ? WHERE id = ?`), k, u.id); err != nil {
				return err
			}
		}
	}
	// (The WHERE also keeps SQLite from reading ON CONFLICT as a join's ON.)
	for _, col := range []string{"email_key", "username_key"} {
		if _, err := tx.Exec(ctx, `INSERT INTO user_identifiers (brand_id, ident, user_id)
			SELECT brand_id, `+col+`, id FROM users WHERE `+col+` IS NOT NULL AND `+col+` <> ''
			ORDER BY created_at, seq ON CONFLICT DO NOTHING`); err != nil {
			return err
		}
	}
	return nil
}

// rekey moves a user's key in brandID from old to next in held (the keys
// of one column) and reports true, unless next is old or held by another.
func rekey(held map[brandKey]bool, brandID, old, next string) (string, bool) {
	if next == old || held[brandKey{brandID, next}] {
		return "", false
	}
	delete(held, brandKey{brandID, old})
	held[brandKey{brandID, next}] = true
	return next, true
}

// readStoredKeys reads every user's identifiers and keys, oldest first.
func readStoredKeys(ctx context.Context, tx DB) ([]storedKeys, error) {
	rows, err := tx.Query(ctx, `SELECT id, brand_id, username, username_key, email_address, coalesce(email_key, '')
		FROM users ORDER BY created_at, seq`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []storedKeys
	for rows.Next() {
		var u storedKeys
		if err := rows.Scan(&u.id, &u.brandID, &u.username, &u.usernameKey, &u.email, &u.emailKey); err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, rows.Err()
}
