package auth_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
)

// TestLoginUserID checks that LoginUserID names the user Login would check
// the password of, by any spelling of its identifier, and "" otherwise.
func TestLoginUserID(t *testing.T) {
	t.Parallel()
	e := newEnv(t, stores["memory"])
	for _, tc := range []struct {
		name string
		req  auth.LoginRequest
		want string
	}{
		{"username", auth.LoginRequest{Username: "admin"}, e.admin.ID},
		{"username folded", auth.LoginRequest{Username: " ADMIN "}, e.admin.ID},
		{"email", auth.LoginRequest{EmailAddress: "Admin@Shop.Example.com"}, e.admin.ID},
		{"username wins over email", auth.LoginRequest{Username: "viewer", EmailAddress: "admin@shop.example.com"}, e.viewer.ID},
		{"unknown username", auth.LoginRequest{Username: "ghost", EmailAddress: "admin@shop.example.com"}, ""},
		{"unknown email", auth.LoginRequest{EmailAddress: "ghost@shop.example.com"}, ""},
		{"no identifier", auth.LoginRequest{Username: "  "}, ""},
		{"too long", auth.LoginRequest{Username: strings.Repeat("a", 255)}, ""},
	} {
		got, err := e.svc.LoginUserID(t.Context(), e.brand, tc.req)
		require.NoError(t, err, tc.name)
		assert.Equal(t, tc.want, got, tc.name)
	}
	got, err := e.svc.LoginUserID(t.Context(), e.other, auth.LoginRequest{Username: "admin"})
	require.NoError(t, err)
	assert.Equal(t, e.stray.ID, got, "per brand")
}
