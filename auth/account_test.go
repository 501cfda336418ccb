package auth_test

import (
	"context"
	"github.com/brandbase/brandbase/outbox"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/storage"
)

func TestCommonPasswordList(t *testing.T) {
	t.Parallel()
	assert.Equal(t, auth.CommonPasswordCount, auth.CommonPasswordsLen(), "the whole list, header left out")
	for _, pw := range []string{"password", "PASSWORD", " 123456 ", "iloveyou", "qwertyuiop", "trustno1", "eyphed", "pic\\'s"} {
		assert.True(t, auth.IsCommonPassword(pw), pw)
	}
	for _, pw := range []string{"correct horse battery", "# The 10,000 most common passwords, one a line, as published.", ""} {
		assert.False(t, auth.IsCommonPassword(pw), pw)
	}
}

// TestEveryPasswordPathRefusesCommonOnes: the same rule wherever a
// password is set.
func TestEveryPasswordPathRefusesCommonOnes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, stores["memory"])
	ctx := t.Context()
	require.NoError(t, e.svc.SetBrandSettings(ctx, e.brand.ID, auth.BrandSettings{RegistrationOpen: true}))
	field := func(err error) string {
		require.Equal(t, envelope.KindInvalid, envelope.KindOf(err), "%v", err)
		f := envelope.As(err).Fields
		require.NotEmpty(t, f)
		return f[0].Field + ":" + f[0].Code
	}
	_, err := e.svc.CreateUser(ctx, e.brand.ID, auth.NewUser{Username: "c", Password: "baseball"})
	assert.Equal(t, "password:too_common", field(err))
	assert.Equal(t, "password:too_common", field(e.svc.SetPassword(ctx, e.viewer.ID, "Football")))
	_, err = e.svc.Register(ctx, e.brand, auth.Registration{Username: "r", Password: "superman"})
	assert.Equal(t, "password:too_common", field(err))
	p := login(t, e, "admin", adminPassword)
	_, err = e.svc.ChangePassword(ctx, p, auth.PasswordChange{OldPassword: adminPassword, NewPassword: "starwars", ConfirmPassword: "starwars"})
	assert.Equal(t, "newPassword:too_common", field(err))
	assert.Equal(t, "newPassword:too_common", field(e.svc.SetUserPassword(ctx, p, e.viewer.ID, "princess", "")))
}

// login logs username in through the service and authenticates the key.
func login(t *testing.T, e *env, username, password string) auth.Principal {
	t.Helper()
	s, err := e.svc.Login(t.Context(), e.brand, auth.LoginRequest{Username: username, Password: password})
	require.NoError(t, err)
	p, err := e.svc.Authenticate(t.Context(), e.brand, s.AuthKey)
	require.NoError(t, err)
	return p
}

// gatedStore is a real store whose PutResetToken waits for a gate, and
// which counts the reads of a password-reset request.
type gatedStore struct {
	storage.Storage
	gate chan struct{}

	mu    sync.Mutex
	reads int
	puts  int
}

func (g *gatedStore) UserByEmail(ctx context.Context, brandID, key string) (auth.UserRecord, error) {
	g.mu.Lock()
	g.reads++
	g.mu.Unlock()
	return g.Storage.UserByEmail(ctx, brandID, key)
}

func (g *gatedStore) PutResetToken(ctx context.Context, t auth.ResetToken, out ...outbox.Item) error {
	<-g.gate
	g.mu.Lock()
	g.puts++
	g.mu.Unlock()
	return g.Storage.PutResetToken(ctx, t, out...)
}

// chanSender hands every message to a channel.
type chanSender chan auth.Message

func (c chanSender) Send(_ context.Context, m auth.Message) error {
	c <- m
	return nil
}

// TestPasswordResetSameWorkKnownOrNot holds the "same time" promise by
// structure: a request for a known address and one for an unknown address
// do the same store reads and return before the token is stored or sent
// (the store write waits at a gate that opens only after both returned).
func TestPasswordResetSameWorkKnownOrNot(t *testing.T) {
	t.Parallel()
	real := stores["sqlite"](t)
	t.Cleanup(func() { real.Close() })
	g := &gatedStore{Storage: real, gate: make(chan struct{})}
	sent := make(chanSender, 4)
	c := newClock()
	svc := auth.NewService(g, auth.WithClock(c.Now), auth.WithArgon2Params(fastArgon2), auth.WithMessageSender(sent))
	ctx := t.Context()
	brand, err := svc.CreateBrand(ctx, auth.NewBrand{URL: "shop.example.com", Name: "Shop"})
	require.NoError(t, err)
	_, err = svc.CreateUser(ctx, brand.ID, auth.NewUser{Username: "ann", EmailAddress: "ann@shop.example.com", Password: adminPassword})
	require.NoError(t, err)

	for _, email := range []string{"ann@shop.example.com", "nobody@shop.example.com"} {
		done := make(chan error, 1)
		go func() {
			done <- svc.RequestPasswordReset(ctx, brand, auth.PasswordResetRequest{EmailAddress: email, ResetPasswordLink: "https://shop.example.com/r"})
		}()
		select {
		case err := <-done:
			require.NoError(t, err, email)
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: the request waited for the token's store write", email)
		}
	}
	g.mu.Lock()
	assert.Equal(t, 2, g.reads, "one lookup each, known or not")
	assert.Equal(t, 0, g.puts, "no store write on the request's path")
	g.mu.Unlock()
	close(g.gate)
	select {
	case m := <-sent:
		assert.Equal(t, "ann@shop.example.com", m.To)
	case <-time.After(5 * time.Second):
		t.Fatal("the known address got no message")
	}
	assert.Empty(t, sent, "the unknown address got none")
}

// TestResetTokenExpiresAfterAnHour uses the service's clock, advanced by
// literal durations (not by auth.ResetTokenTTL, which a longer lifetime
// would pass): a token works at 59m59s, not at 60m, nor at 60m01s.
func TestResetTokenExpiresAfterAnHour(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		sent := make(chanSender, 4)
		svc := auth.NewService(e.store, auth.WithClock(e.clock.Now), auth.WithArgon2Params(fastArgon2), auth.WithMessageSender(sent))
		ctx := t.Context()
		token := func() string {
			require.NoError(t, svc.RequestPasswordReset(ctx, e.brand, auth.PasswordResetRequest{
				EmailAddress: "admin@shop.example.com", ResetPasswordLink: "https://shop.example.com/reset"}))
			select {
			case m := <-sent:
				u, err := url.Parse(m.Link)
				require.NoError(t, err)
				assert.Equal(t, e.clock.Now().Add(time.Hour).UTC(), m.ExpiresAt.UTC())
				return u.Query().Get("token")
			case <-time.After(5 * time.Second):
				t.Fatal("no message")
				return ""
			}
		}
		for _, age := range []time.Duration{time.Hour, time.Hour + time.Second} {
			tok := token()
			e.clock.Add(age)
			err := svc.ResetPassword(ctx, e.brand, auth.PasswordReset{EmailAddress: "admin@shop.example.com", Token: tok, NewPassword: "reset passphrase"})
			assert.Equal(t, auth.CodeInvalidToken, envelope.CodeOf(err), "expired after an hour (%s)", age)
		}
		tok := token()
		e.clock.Add(59*time.Minute + 59*time.Second)
		assert.NoError(t, svc.ResetPassword(ctx, e.brand, auth.PasswordReset{EmailAddress: "admin@shop.example.com", Token: tok, NewPassword: "reset passphrase"}))
		err := svc.ResetPassword(ctx, e.other, auth.PasswordReset{EmailAddress: "admin@shop.example.com", Token: tok, NewPassword: "reset passphrase"})
		assert.Equal(t, auth.CodeInvalidToken, envelope.CodeOf(err))
	})
}

// TestResetOfAnotherBrandRefused: a token works only in its brand, and
// leaves the token usable there.
func TestResetOfAnotherBrandRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t, stores["memory"])
	sent := make(chanSender, 4)
	svc := auth.NewService(e.store, auth.WithClock(e.clock.Now), auth.WithArgon2Params(fastArgon2), auth.WithMessageSender(sent))
	ctx := t.Context()
	require.NoError(t, svc.RequestPasswordReset(ctx, e.brand, auth.PasswordResetRequest{
		EmailAddress: "admin@shop.example.com", ResetPasswordLink: "https://shop.example.com/reset"}))
	m := <-sent
	u, err := url.Parse(m.Link)
	require.NoError(t, err)
	req := auth.PasswordReset{EmailAddress: "admin@shop.example.com", Token: u.Query().Get("token"), NewPassword: "reset passphrase"}
	assert.Equal(t, auth.CodeInvalidToken, envelope.CodeOf(svc.ResetPassword(ctx, e.other, req)))
	assert.NoError(t, svc.ResetPassword(ctx, e.brand, req), "still usable in its brand")
}

// resetTokenOf asks svc for a reset link for email in e's brand and returns
// its token.
func resetTokenOf(t *testing.T, svc *auth.Service, sent chanSender, e *env, email string) string {
	t.Helper()
	require.NoError(t, svc.RequestPasswordReset(t.Context(), e.brand, auth.PasswordResetRequest{
		EmailAddress: email, ResetPasswordLink: "https://shop.example.com/reset"}))
	select {
	case m := <-sent:
		u, err := url.Parse(m.Link)
		require.NoError(t, err)
		return u.Query().Get("token")
	case <-time.After(5 * time.Second):
		t.Fatal("no message")
		return ""
	}
}

// TestUserChangesEndResetTokens: a reset token asked for before any change
// of the user's password (its own, an admin's, the host's), status or
// address no longer resets the password; a change of anything else keeps
// it.
func TestUserChangesEndResetTokens(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, e *env, svc *auth.Service)
		ends   bool
	}{
		{"own password change", func(t *testing.T, e *env, svc *auth.Service) {
			_, err := svc.ChangePassword(t.Context(), login(t, e, "admin", adminPassword), auth.PasswordChange{
				OldPassword: adminPassword, NewPassword: "secured by the owner", ConfirmPassword: "secured by the owner"})
			require.NoError(t, err)
		}, true},
		{"admin sets it", func(t *testing.T, e *env, svc *auth.Service) {
			boss, err := svc.CreateUser(t.Context(), e.brand.ID, auth.NewUser{Username: "boss", Password: "boss password",
				Permissions: []auth.Permission{auth.PermAll}})
			require.NoError(t, err)
			require.NoError(t, svc.SetUserPassword(t.Context(), login(t, e, boss.Username, "boss password"), e.admin.ID, "set by the boss", ""))
		}, true},
		{"host sets it", func(t *testing.T, e *env, svc *auth.Service) {
			require.NoError(t, svc.SetPassword(t.Context(), e.admin.ID, "set by the host"))
		}, true},
		{"deactivated", func(t *testing.T, e *env, svc *auth.Service) {
			_, err := svc.SetUserStatus(t.Context(), e.admin.ID, auth.StatusInactive)
			require.NoError(t, err)
			_, err = svc.SetUserStatus(t.Context(), e.admin.ID, auth.StatusActive)
			require.NoError(t, err)
		}, true},
		{"address changed and back", func(t *testing.T, e *env, svc *auth.Service) {
			for _, a := range []string{"moved@shop.example.com", "admin@shop.example.com"} {
				_, err := svc.UpdateUser(t.Context(), e.admin.ID, auth.UserUpdate{EmailAddress: &a})
				require.NoError(t, err)
			}
		}, true},
		{"phone changed", func(t *testing.T, e *env, svc *auth.Service) {
			phone := "+1 555 0199"
			_, err := svc.UpdateUser(t.Context(), e.admin.ID, auth.UserUpdate{PhoneNumber: &phone})
			require.NoError(t, err)
		}, false},
		{"every session ended", func(t *testing.T, e *env, svc *auth.Service) {
			_, err := svc.RevokeUserKeys(t.Context(), e.admin.ID)
			require.NoError(t, err)
		}, false},
		{"permission revoked", func(t *testing.T, e *env, svc *auth.Service) {
			_, err := svc.Revoke(t.Context(), e.admin.ID, auth.PermAll)
			require.NoError(t, err)
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			forEachStore(t, func(t *testing.T, e *env) {
				sent := make(chanSender, 4)
				svc := auth.NewService(e.store, auth.WithClock(e.clock.Now), auth.WithArgon2Params(fastArgon2), auth.WithMessageSender(sent))
				tok := resetTokenOf(t, svc, sent, e, "admin@shop.example.com")
				tc.change(t, e, svc)
				err := svc.ResetPassword(t.Context(), e.brand, auth.PasswordReset{
					EmailAddress: "admin@shop.example.com", Token: tok, NewPassword: "taken back by the reader"})
				if tc.ends {
					assert.Equal(t, auth.CodeInvalidToken, envelope.CodeOf(err), "the change ended the token")
				} else {
					assert.NoError(t, err, "the token outlives this change")
				}
			})
		})
	}
}

// TestRegistrationClosedByDefault: Register refuses a sign-up in a brand
// whose settings do not open it, and stores no user; once opened, the new
// user is active and holds no permission.
func TestRegistrationClosedByDefault(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		r := auth.Registration{Username: "newbie", EmailAddress: "newbie@shop.example.com", Password: "a long new password"}
		_, err := e.svc.Register(ctx, e.brand, r)
		assert.Equal(t, envelope.KindForbidden, envelope.KindOf(err))
		assert.Equal(t, auth.CodeRegistrationClosed, envelope.CodeOf(err))
		_, err = e.svc.UserByUsername(ctx, e.brand.ID, "newbie")
		assert.ErrorIs(t, err, auth.ErrUserNotFound, "no user stored")
		require.NoError(t, e.svc.SetBrandSettings(ctx, e.other.ID, auth.BrandSettings{RegistrationOpen: true}))
		_, err = e.svc.Register(ctx, e.brand, r)
		assert.Equal(t, auth.CodeRegistrationClosed, envelope.CodeOf(err), "another brand's setting opens nothing here")

		require.NoError(t, e.svc.SetBrandSettings(ctx, e.brand.ID, auth.BrandSettings{RegistrationOpen: true}))
		u, err := e.svc.Register(ctx, e.brand, r)
		require.NoError(t, err)
		assert.Equal(t, auth.StatusActive, u.Status)
		assert.Empty(t, u.Permissions)
		login(t, e, "newbie", "a long new password")
	})
}

// TestChangePasswordChecksTheOldOne: a wrong old password changes nothing:
// the password and every session stand.
func TestChangePasswordChecksTheOldOne(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		sess, err := e.svc.Login(ctx, e.brand, auth.LoginRequest{Username: "admin", Password: adminPassword})
		require.NoError(t, err)
		p, err := e.svc.Authenticate(ctx, e.brand, sess.AuthKey)
		require.NoError(t, err)
		for _, old := range []string{"not the password", strings.ToUpper(adminPassword), adminPassword + " "} {
			_, err := e.svc.ChangePassword(ctx, p, auth.PasswordChange{OldPassword: old,
				NewPassword: "set without the old one", ConfirmPassword: "set without the old one"})
			require.Equal(t, envelope.KindInvalid, envelope.KindOf(err), "%q", old)
			f := envelope.As(err).Fields
			require.Len(t, f, 1)
			assert.Equal(t, "oldPassword:"+auth.CodeIncorrectPassword, f[0].Field+":"+f[0].Code)
		}
		_, err = e.svc.Authenticate(ctx, e.brand, sess.AuthKey)
		assert.NoError(t, err, "the session stands")
		_, err = e.svc.Login(ctx, e.brand, auth.LoginRequest{Username: "admin", Password: "set without the old one"})
		assert.Equal(t, envelope.KindUnauthenticated, envelope.KindOf(err), "the new password was never set")
		login(t, e, "admin", adminPassword)
	})
}

// heldPuts is a real store whose PutResetToken waits for a gate, then
// reports its answer.
type heldPuts struct {
	storage.Storage
	gate    chan struct{}
	answers chan error
}

func (h heldPuts) PutResetToken(ctx context.Context, t auth.ResetToken, out ...outbox.Item) error {
	<-h.gate
	err := h.Storage.PutResetToken(ctx, t, out...)
	h.answers <- err
	return err
}

// TestChangeBeforeTheTokenIsStoredEndsIt: a reset asked for before a
// change of the user's password, status or address, whose token's store
// write (on a goroutine of its own) comes after the change, stores no
// token and sends nothing.
func TestChangeBeforeTheTokenIsStoredEndsIt(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, e *env, svc *auth.Service)
		stored bool
	}{
		{"password", func(t *testing.T, e *env, svc *auth.Service) {
			require.NoError(t, svc.SetPassword(t.Context(), e.admin.ID, "secured by the owner"))
		}, false},
		{"status", func(t *testing.T, e *env, svc *auth.Service) {
			_, err := svc.SetUserStatus(t.Context(), e.admin.ID, auth.StatusInactive)
			require.NoError(t, err)
		}, false},
		{"phone", func(t *testing.T, e *env, svc *auth.Service) {
			phone := "+1 555 0199"
			_, err := svc.UpdateUser(t.Context(), e.admin.ID, auth.UserUpdate{PhoneNumber: &phone})
			require.NoError(t, err)
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			forEachStore(t, func(t *testing.T, e *env) {
				held := heldPuts{Storage: e.store, gate: make(chan struct{}), answers: make(chan error, 1)}
				sent := make(chanSender, 4)
				svc := auth.NewService(held, auth.WithClock(e.clock.Now), auth.WithArgon2Params(fastArgon2), auth.WithMessageSender(sent))
				require.NoError(t, svc.RequestPasswordReset(t.Context(), e.brand, auth.PasswordResetRequest{
					EmailAddress: "admin@shop.example.com", ResetPasswordLink: "https://shop.example.com/reset"}))
				tc.change(t, e, svc)
				close(held.gate)
				var err error
				select {
				case err = <-held.answers:
				case <-time.After(5 * time.Second):
					t.Fatal("the token was never written")
				}
				if tc.stored {
					assert.NoError(t, err)
					select {
					case <-sent:
					case <-time.After(5 * time.Second):
						t.Fatal("no message")
					}
					return
				}
				assert.ErrorIs(t, err, auth.ErrResetTokenInvalid, "the change ended the token before it was stored")
				assert.Empty(t, sent, "nothing sent")
			})
		})
	}
}
