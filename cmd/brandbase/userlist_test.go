package main_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/brandbase/brandbase/auth"
)

// TestUserListFilters runs brandbase user list with the filters of GET
// users: keywords (accents ignored), status, username, one page, an
// order; and a bad filter named as the API names it.
func TestUserListFilters(t *testing.T) {
	t.Parallel()
	for name, newDB := range stores(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			env := []string{"BRANDBASE_DATABASE_URL=" + newDB(t, dir)}
			ok(t, dir, env, "", "migrate", "up")
			ok(t, dir, env, "", "brand", "create", "shop.example.com", "--name", "Shop")
			for _, u := range []struct{ name, email string }{
				{"jose", "jose.alvarez@shop.example.com"}, {"anna", "anna@mail.example.com"}, {"joseph", ""},
			} {
				args := []string{"user", "create", "--brand", "shop.example.com", u.name}
				if u.email != "" {
					args = append(args, "--email", u.email)
				}
				ok(t, dir, env, "a long password\n", args...)
			}
			ok(t, dir, env, "", "user", "deactivate", "--brand", "shop.example.com", "anna")
			list := func(args ...string) []string {
				t.Helper()
				var us []auth.User
				okJSON(t, dir, env, "", &us, append([]string{"user", "list", "--brand", "shop.example.com"}, args...)...)
				names := []string{}
				for _, u := range us {
					names = append(names, u.Username)
				}
				return names
			}
			assert.Equal(t, []string{"jose", "anna", "joseph"}, list(), "every user, oldest first")
			assert.Equal(t, []string{"jose", "joseph"}, list("--keywords", "JOSÉ"))
			assert.Equal(t, []string{"jose"}, list("--keywords", "alv"), "a word of the address")
			assert.Equal(t, []string{"anna"}, list("--status", "inactive"))
			assert.Equal(t, []string{"joseph"}, list("--username", "JOSEPH"))
			assert.Equal(t, []string{"joseph", "jose"}, list("--status", "active", "--sort", "username", "--order", "desc"))
			assert.Equal(t, []string{"anna"}, list("--page", "1", "--page-size", "1"))
			assert.Equal(t, []string{"jose", "anna", "joseph"}, list("--page-size", "1"), "every page of one")
			failsWith(t, dir, env, "", 1, "status: status must be one of", "user", "list", "--brand", "shop.example.com", "--status", "gone")
			assert.Contains(t, ok(t, dir, env, "", "user", "list", "--brand", "shop.example.com", "--keywords", "anna"), "anna@mail.example.com")
		})
	}
}
