package brandbase_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
)

// awaitChange subscribes to the changes in hears of kind, and returns a
// function that waits (at most staleness) until one of id was heard:
// then in's auth service, subscribed before, has forgotten what that
// change made stale, and a notification still on its way cannot undo
// what a test makes in cache next.
func awaitChange(t *testing.T, in *instance, kind auth.ChangeKind) func(id string) {
	t.Helper()
	feed, ok := in.app.Store.(brandbase.ChangeFeed)
	require.True(t, ok, "a PostgreSQL store reports its changes")
	heard := make(chan string, 64)
	unsubscribe := feed.OnAuthChange(func(c auth.Change) {
		if c.Kind == kind {
			select {
			case heard <- c.ID:
			default:
			}
		}
	})
	t.Cleanup(unsubscribe)
	return func(id string) {
		t.Helper()
		timeout := time.After(staleness)
		for {
			select {
			case got := <-heard:
				if got == id {
					return
				}
			case <-timeout:
				t.Fatalf("the %s change of %s not heard on %s within %v", kind, id, in.name, staleness)
			}
		}
	}
}

// TestSeveralInstancesAccount checks the account's changes across
// instances on one PostgreSQL database: what one instance changes, the
// others see within staleness, though they cached the old answer.
func TestSeveralInstancesAccount(t *testing.T) {
	t.Parallel()
	nodes := cluster(t, 2)
	a, b := nodes[0], nodes[1]
	ctx := t.Context()
	created := awaitChange(t, b, auth.ChangeBrand)
	brand, err := a.app.Auth.CreateBrand(ctx, auth.NewBrand{URL: "account.example.com", Name: "Account"})
	require.NoError(t, err)
	created(brand.ID) // so that B's caches hold what the tests read next

	t.Run("brand settings set on A are seen on B", func(t *testing.T) {
		bs, err := b.app.Auth.BrandSettings(ctx, brand.ID)
		require.NoError(t, err)
		require.False(t, bs.RegistrationOpen, "B caches the defaults")
		start := time.Now()
		require.NoError(t, a.app.Auth.SetBrandSettings(ctx, brand.ID, auth.BrandSettings{RegistrationOpen: true,
			MaxDevicesPerUser: 2, ResetLinkOrigins: []string{"http://localhost:5173"}}))
		within(t, start, "settings, seen on B", func() bool {
			bs, err := b.app.Auth.BrandSettings(ctx, brand.ID)
			require.NoError(t, err)
			return bs.RegistrationOpen && bs.MaxDevicesPerUser == 2 && len(bs.ResetLinkOrigins) == 1
		})
	})

	_, err = a.app.Auth.CreateUser(ctx, brand.ID, auth.NewUser{Username: "ann", EmailAddress: "ann@account.example.com",
		Password: "ann's first password"})
	require.NoError(t, err)
	const shop = "account.example.com"
	loginAnn := func(t *testing.T, in *instance, password string) string {
		t.Helper()
		r := in.do(t, "POST", "/api/v1/users/auth", shop, "", fmt.Sprintf(`{"username":"ann","password":%q}`, password))
		require.Equal(t, http.StatusOK, r.status, "login on %s", in.name)
		return r.data["authKey"].(string)
	}
	me := func(t *testing.T, in *instance, key string) int {
		t.Helper()
		return in.do(t, "GET", "/api/v1/users/me", shop, key, "").status
	}

	t.Run("a password changed on A ends the sessions cached on B", func(t *testing.T) {
		onB := loginAnn(t, b, "ann's first password")
		require.Equal(t, http.StatusOK, me(t, b, onB), "B caches the key")
		onA := loginAnn(t, a, "ann's first password")
		start := time.Now()
		r := a.do(t, "PUT", "/api/v1/users/change-password", shop, onA,
			`{"oldPassword":"ann's first password","newPassword":"ann's second password","confirmPassword":"ann's second password"}`)
		require.Equal(t, http.StatusOK, r.status)
		next := r.data["authKey"].(string)
		within(t, start, "password change, seen on B", func() bool { return me(t, b, onB) == http.StatusUnauthorized })
		assert.Equal(t, http.StatusOK, me(t, b, next), "the caller's new pair works on B")
	})

	t.Run("a password reset on A ends the sessions cached on B; its token is used everywhere", func(t *testing.T) {
		sent := make(chan auth.Message, 1)
		mailer := auth.NewService(a.app.Store, auth.WithArgon2Params(fastArgon2),
			auth.WithMessageSender(auth.MessageSenderFunc(func(_ context.Context, m auth.Message) error { sent <- m; return nil })))
		onB := loginAnn(t, b, "ann's second password")
		require.Equal(t, http.StatusOK, me(t, b, onB), "B caches the key")
		require.NoError(t, mailer.RequestPasswordReset(ctx, brand, auth.PasswordResetRequest{
			EmailAddress: "ann@account.example.com", ResetPasswordLink: "https://account.example.com/reset"}))
		var m auth.Message
		select {
		case m = <-sent:
		case <-time.After(5 * time.Second):
			t.Fatal("no reset message")
		}
		link, err := url.Parse(m.Link)
		require.NoError(t, err)
		req := auth.PasswordReset{EmailAddress: "ann@account.example.com", Token: link.Query().Get("token"), NewPassword: "ann's third password"}
		start := time.Now()
		require.NoError(t, mailer.ResetPassword(ctx, brand, req))
		within(t, start, "password reset, seen on B", func() bool { return me(t, b, onB) == http.StatusUnauthorized })
		other := auth.NewService(b.app.Store, auth.WithArgon2Params(fastArgon2), auth.WithMessageSender(auth.MessageSenderFunc(
			func(context.Context, auth.Message) error { return nil })))
		req.NewPassword = "ann's fourth password"
		assert.Equal(t, auth.CodeInvalidToken, envelope.CodeOf(other.ResetPassword(ctx, brand, req)), "the used token is refused on B")
		loginAnn(t, b, "ann's third password")
	})

	t.Run("sign-up opened on A is open on B", func(t *testing.T) {
		body := `{"username":"newcomer","password":"a long new password"}`
		require.NoError(t, a.app.Auth.SetBrandSettings(ctx, brand.ID, auth.BrandSettings{}))
		within(t, time.Now(), "sign-up closed, seen on B", func() bool {
			bs, err := b.app.Auth.BrandSettings(ctx, brand.ID)
			return err == nil && !bs.RegistrationOpen
		})
		require.Equal(t, http.StatusForbidden, b.do(t, "POST", "/api/v1/users/register", shop, "", body).status, "B caches closed")
		start := time.Now()
		require.NoError(t, a.app.Auth.SetBrandSettings(ctx, brand.ID, auth.BrandSettings{RegistrationOpen: true}))
		within(t, start, "sign-up opened, seen on B", func() bool {
			return b.do(t, "POST", "/api/v1/users/register", shop, "", body).status == http.StatusCreated
		})
	})
}
