package auth_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
)

// fieldsOf returns "field:code" for each field error of err.
func fieldsOf(t *testing.T, err error) []string {
	t.Helper()
	var e *envelope.Error
	require.ErrorAs(t, err, &e)
	require.Equal(t, envelope.KindInvalid, e.Kind, "%v", err)
	var out []string
	for _, f := range e.Fields {
		out = append(out, f.Field+":"+f.Code)
	}
	return out
}

func TestCreateUserValidation(t *testing.T) {
	t.Parallel()
	e := newEnv(t, stores["memory"])
	ok := auth.NewUser{Username: "someone", Password: "long enough"}
	tests := []struct {
		name string
		edit func(*auth.NewUser)
		want []string
	}{
		{"nothing", func(u *auth.NewUser) { *u = auth.NewUser{} }, []string{"username:required", "password:required"}},
		{"blank username", func(u *auth.NewUser) { u.Username = "   " }, []string{"username:required"}},
		{"space in username", func(u *auth.NewUser) { u.Username = "two words" }, []string{"username:invalid_format"}},
		{"long username", func(u *auth.NewUser) { u.Username = string(make([]rune, 65)) }, []string{"username:too_long"}},
		{"bad email", func(u *auth.NewUser) { u.EmailAddress = "not-an-email" }, []string{"emailAddress:invalid_email"}},
		{"named email", func(u *auth.NewUser) { u.EmailAddress = "Bob <bob@example.com>" }, []string{"emailAddress:invalid_email"}},
		{"email without domain", func(u *auth.NewUser) { u.EmailAddress = "bob@example" }, []string{"emailAddress:invalid_email"}},
		{"bad phone", func(u *auth.NewUser) { u.PhoneNumber = "call me" }, []string{"phoneNumber:invalid_phone"}},
		{"short password", func(u *auth.NewUser) { u.Password = "short" }, []string{"password:too_short"}},
		{"huge password", func(u *auth.NewUser) { u.Password = string(make([]byte, 1025)) + "xxxxxxxx" }, []string{"password:too_long"}},
		{"bad permission", func(u *auth.NewUser) { u.Permissions = []auth.Permission{"a b"} }, []string{"permissions:invalid_permission"}},
		{"bad status", func(u *auth.NewUser) { u.Status = "Paused" }, []string{"status:invalid_enum"}},
		{"bad hash", func(u *auth.NewUser) { u.Password, u.PasswordHash = "", "$md5$abc" }, []string{"passwordHash:invalid_format"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			nu := ok
			tt.edit(&nu)
			_, err := e.svc.CreateUser(t.Context(), e.brand.ID, nu)
			assert.ElementsMatch(t, tt.want, fieldsOf(t, err))
		})
	}
}

func TestCreateUserUniquenessPerBrand(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		tests := []struct {
			name string
			nu   auth.NewUser
			kind envelope.Kind
		}{
			{"same username other case", auth.NewUser{Username: " ADMIN ", Password: "pass word one"}, envelope.KindConflict},
			{"same email other case", auth.NewUser{Username: "x", EmailAddress: "Admin@Shop.Example.COM", Password: "pass word one"}, envelope.KindConflict},
			{"unicode case folding", auth.NewUser{Username: "ÉMILE", Password: "pass word one"}, ""},
			{"folded twin", auth.NewUser{Username: "émile", Password: "pass word one"}, envelope.KindConflict},
			{"new user", auth.NewUser{Username: "fresh", EmailAddress: "fresh@shop.example.com", Password: "pass word one"}, ""},
		}
		for _, tt := range tests {
			_, err := e.svc.CreateUser(ctx, e.brand.ID, tt.nu)
			assert.Equal(t, tt.kind, envelope.KindOf(err), tt.name)
			if tt.kind == envelope.KindConflict {
				assert.Equal(t, "user_exists", envelope.CodeOf(err))
			}
		}
		_, err := e.svc.CreateUser(ctx, "no-such-brand", auth.NewUser{Username: "x", Password: "pass word one"})
		assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err))

		users, err := e.svc.Users(ctx, e.brand.ID)
		require.NoError(t, err)
		assert.Len(t, users, 4)
		got, err := e.svc.UserByUsername(ctx, e.brand.ID, "ADMIN")
		require.NoError(t, err)
		assert.Equal(t, e.admin, got)
		assert.Equal(t, "Admin", got.Username, "the username keeps its case")
	})
}

func TestPermissions(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		u, err := e.svc.Grant(ctx, e.viewer.ID, auth.PermPaymentGatewayWrite, auth.PermAnalyticsWrite, auth.PermAnalyticsWrite)
		require.NoError(t, err)
		assert.Equal(t, []auth.Permission{auth.PermAnalyticsWrite, auth.PermPaymentGatewayWrite}, u.Permissions,
			"sorted and distinct")
		u, err = e.svc.Revoke(ctx, e.viewer.ID, auth.PermAnalyticsWrite, "never.granted")
		require.NoError(t, err)
		assert.Equal(t, []auth.Permission{auth.PermPaymentGatewayWrite}, u.Permissions)
		got, err := e.svc.User(ctx, e.viewer.ID)
		require.NoError(t, err)
		assert.Equal(t, u, got, "stored")

		_, err = e.svc.Grant(ctx, e.viewer.ID, "has,comma")
		assert.Equal(t, []string{"permissions:invalid_permission"}, fieldsOf(t, err))
		_, err = e.svc.Grant(ctx, "missing", auth.PermAll)
		assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err))
	})
}

func TestUpdateUser(t *testing.T) {
	t.Parallel()
	e := newEnv(t, stores["sqlite"])
	ctx := t.Context()
	name, email, empty := " Viewer2 ", "viewer@shop.example.com", ""
	u, err := e.svc.UpdateUser(ctx, e.viewer.ID, auth.UserUpdate{Username: &name, EmailAddress: &email})
	require.NoError(t, err)
	assert.Equal(t, "Viewer2", u.Username)
	assert.Equal(t, email, u.EmailAddress)
	_, err = e.svc.Login(ctx, e.brand, auth.LoginRequest{EmailAddress: "VIEWER@shop.example.com", Password: "viewer password"})
	assert.NoError(t, err, "the new email logs in")

	taken := "ADMIN"
	_, err = e.svc.UpdateUser(ctx, e.viewer.ID, auth.UserUpdate{Username: &taken})
	assert.Equal(t, envelope.KindConflict, envelope.KindOf(err))
	_, err = e.svc.UpdateUser(ctx, e.viewer.ID, auth.UserUpdate{Username: &empty})
	assert.Equal(t, []string{"username:required"}, fieldsOf(t, err))
	u, err = e.svc.UpdateUser(ctx, e.viewer.ID, auth.UserUpdate{EmailAddress: &empty})
	require.NoError(t, err)
	assert.Empty(t, u.EmailAddress, "an email address can be removed")
}
