package auth_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
)

// outcome reads err as "ok", "conflict" (user_exists) or the field errors
// of a KindInvalid error.
func outcome(t *testing.T, err error) []string {
	t.Helper()
	switch {
	case err == nil:
		return []string{"ok"}
	case envelope.CodeOf(err) == "user_exists":
		return []string{"conflict"}
	}
	return fieldsOf(t, err)
}

// TestLookAlikeIdentifiers creates users whose usernames look like the
// admin's ("Admin", email admin@shop.example.com) or the viewer's
// ("viewer"): every look-alike under the PRECIS UsernameCaseMapped profile
// and case folding is a duplicate, a username shaped like an address must
// be the user's own, and what the profile refuses is invalid_format.
func TestLookAlikeIdentifiers(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		tests := []struct {
			name, username, email string
			want                  []string
		}{
			{"admin's address as username", "ADMIN@shop.example.com ", "", []string{"username:not_own_address"}},
			{"admin's address as username, another address", "ADMIN@shop.example.com", "mallory@example.com", []string{"username:not_own_address"}},
			{"admin's address as username and address", "ADMIN@shop.example.com", "admin@shop.example.com", []string{"conflict"}},
			{"fullwidth address as username and address", "ａdmin@shop.example.com", "ａdmin@shop.example.com", []string{"conflict"}},
			{"other case", "aDMIN", "", []string{"conflict"}},
			{"fullwidth a", "ａdmin", "", []string{"conflict"}},
			{"all fullwidth", "ＡＤＭＩＮ", "", []string{"conflict"}},
			{"fullwidth twin of viewer", "ｖｉｅｗｅｒ", "", []string{"conflict"}},
			{"fullwidth address of admin", "mallory", "ａdmin@shop.example.com", []string{"conflict"}},
			{"ligature", "ﬁle", "", []string{"username:invalid_format"}},
			{"roman numeral", "Ⅸ", "", []string{"username:invalid_format"}},
			{"symbol", "bob☃", "", []string{"username:invalid_format"}},
			{"zero width joiner", "ad\u200dmin", "", []string{"username:invalid_format"}},
			{"titlecase digraph", "ǅemal", "", []string{"username:invalid_format"}},
			{"own address as username", "Mallory@example.com", "mallory@example.com", []string{"ok"}},
			{"halfwidth katakana then its full form", "ｱｲ", "", []string{"ok"}},
			{"full form of the halfwidth twin", "アイ", "", []string{"conflict"}},
			{"accented", "Émile", "", []string{"ok"}},
		}
		for _, tt := range tests {
			_, err := e.svc.CreateUser(ctx, e.brand.ID, auth.NewUser{Username: tt.username, EmailAddress: tt.email,
				Password: "pass word one"})
			assert.Equal(t, tt.want, outcome(t, err), tt.name)
		}
		got, err := e.svc.UserByUsername(ctx, e.brand.ID, "ＡＤＭＩＮ")
		require.NoError(t, err)
		assert.Equal(t, e.admin.ID, got.ID, "a look-alike names the one user")
	})
}

// TestUpdateUserLookAlikes checks the same rules on a change of username
// or email address, and that a change of neither is not held to them.
func TestUpdateUserLookAlikes(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		ptr := func(s string) *string { return &s }
		tests := []struct {
			name string
			up   auth.UserUpdate
			want []string
		}{
			{"fullwidth twin of admin", auth.UserUpdate{Username: ptr("ａdmin")}, []string{"conflict"}},
			{"admin's address as username", auth.UserUpdate{Username: ptr("admin@shop.example.com")}, []string{"username:not_own_address"}},
			{"admin's address, look-alike", auth.UserUpdate{EmailAddress: ptr("ADMIN@shop.example.com")}, []string{"conflict"}},
			{"ligature", auth.UserUpdate{Username: ptr("ﬁle")}, []string{"username:invalid_format"}},
			{"own address as username", auth.UserUpdate{Username: ptr("v@shop.example.com"), EmailAddress: ptr("V@shop.example.com")}, []string{"ok"}},
			{"address moves from under the username", auth.UserUpdate{EmailAddress: ptr("w@shop.example.com")}, []string{"username:not_own_address"}},
			{"phone only", auth.UserUpdate{PhoneNumber: ptr("+1 555 0123")}, []string{"ok"}},
		}
		for _, tt := range tests {
			_, err := e.svc.UpdateUser(ctx, e.viewer.ID, tt.up)
			assert.Equal(t, tt.want, outcome(t, err), tt.name)
		}
		got, err := e.svc.User(ctx, e.viewer.ID)
		require.NoError(t, err)
		assert.Equal(t, "v@shop.example.com", got.Username)
		assert.Equal(t, "V@shop.example.com", got.EmailAddress)
	})
}

// TestRegisterLookAlikes signs up with the admin's address as username:
// refused, with the field that is wrong; and the admin's
// address sent as username ("username or email") signs in the admin.
func TestRegisterLookAlikes(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		require.NoError(t, e.svc.SetBrandSettings(ctx, e.brand.ID, auth.BrandSettings{RegistrationOpen: true}))
		tests := []struct {
			name string
			reg  auth.Registration
			want []string // "conflict:field" for a 409
		}{
			{"admin's address as username", auth.Registration{Username: "ADMIN@shop.example.com "}, []string{"username:not_own_address"}},
			{"admin's address as username, own address", auth.Registration{Username: "ADMIN@shop.example.com", EmailAddress: "new@example.com"},
				[]string{"username:not_own_address"}},
			{"admin's address only", auth.Registration{EmailAddress: "Admin@Shop.example.com"}, []string{"conflict:emailAddress"}},
			{"fullwidth admin", auth.Registration{Username: "ａdmin", EmailAddress: "new@example.com"}, []string{"conflict:username"}},
			{"fresh name, admin's address", auth.Registration{Username: "fresh", EmailAddress: "ａdmin@shop.example.com"}, []string{"conflict:emailAddress"}},
			{"ligature", auth.Registration{Username: "ﬁle"}, []string{"username:invalid_format"}},
		}
		for _, tt := range tests {
			tt.reg.Password = "pass word one"
			_, err := e.svc.Register(ctx, e.brand, tt.reg)
			got := outcome(t, err)
			if envelope.CodeOf(err) == "user_exists" {
				got = nil
				for _, f := range envelope.As(err).Fields {
					got = append(got, "conflict:"+f.Field)
				}
			}
			assert.Equal(t, tt.want, got, tt.name)
		}
		sess, err := e.svc.Login(ctx, e.brand, auth.LoginRequest{Username: " ADMIN@shop.example.com", Password: adminPassword})
		require.NoError(t, err, "the admin's address in username names the admin")
		assert.Equal(t, e.admin.ID, sess.User.ID)
		id, err := e.svc.LoginUserID(ctx, e.brand, auth.LoginRequest{Username: "admin@shop.example.com", Password: "x"})
		require.NoError(t, err)
		assert.Equal(t, e.admin.ID, id, "the login limit charges the same user")
		_, err = e.svc.Login(ctx, e.brand, auth.LoginRequest{Username: "admin@shop.example.com", Password: "pass word one"})
		assert.Equal(t, auth.CodeInvalidCredentials, envelope.CodeOf(err))
	})
}
