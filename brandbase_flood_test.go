package brandbase_test

import (
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/internal/testkit/smtptest"
	"github.com/brandbase/brandbase/internal/testkit/teststores"
	"github.com/brandbase/brandbase/outbox"
)

// hangingSMTP is a TCP server on loopback that takes connections and never
// answers: a brand's mail server that hangs.
func hangingSMTP(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().(*net.TCPAddr).Port
}

// floodBrand makes a brand with a user and a default SMTP integration to
// 127.0.0.1:port (plain SMTP, loopback).
func floodBrand(t *testing.T, app *brandbase.App, url string, port int) (auth.Brand, string) {
	t.Helper()
	ctx := t.Context()
	b, err := app.Auth.CreateBrand(ctx, auth.NewBrand{URL: url, Name: "Brand " + url})
	require.NoError(t, err)
	email := "ann@" + url
	_, err = app.Auth.CreateUser(ctx, b.ID, auth.NewUser{Username: "ann", EmailAddress: email, Password: "ann's pass phrase"})
	require.NoError(t, err)
	system := auth.SystemPrincipal(b.ID)
	ai, err := app.Integrations.CreateAppIntegration(ctx, system, integrations.AppIntegrationInput{
		Type: integrations.TypeSMTP, Name: "Relay", Domain: "https://mail.example.com"})
	require.NoError(t, err)
	_, err = app.Integrations.CreateSMTP(ctx, system, integrations.SMTPInput{AppIntegrationID: &ai.ID, Name: new("Relay"),
		Host: new("127.0.0.1"), Port: new(port), UseTLS: new(false), EmailAddressFrom: new("no-reply@" + url), IsDefault: new(true)})
	require.NoError(t, err)
	return b, email
}

// TestResetFloodOnOneBrandDelaysNoOther is the review's finding closed: one
// brand's mail server hangs while 300 reset requests flood it, and another
// brand's reset mails all arrive promptly, each with a link that works;
// the flooded brand's mails are all kept, none dropped. Real store, real
// dispatcher, real SMTP over TCP.
func TestResetFloodOnOneBrandDelaysNoOther(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"sqlite", "postgres"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			store := teststores.All[name](t)
			app, err := brandbase.New(store, brandbase.Config{
				SecretKeys: integrations.EphemeralKeyRing(), OutboundPolicy: brandbase.OutboundPolicy{AllowLoopback: true},
				AuthOptions: []auth.Option{auth.WithArgon2Params(auth.Argon2Params{Memory: 64, Iterations: 1, Parallelism: 1, SaltLen: 16, KeyLen: 32})},
			})
			require.NoError(t, err)
			t.Cleanup(func() { app.Close() })
			good := smtptest.Start(t, smtptest.Options{TLS: smtptest.NoTLS})
			flooded, floodedEmail := floodBrand(t, app, "flooded.example.com", hangingSMTP(t))
			calm, calmEmail := floodBrand(t, app, "calm.example.com", good.Port)
			ctx := t.Context()

			const flood, calmMails = 300, 20
			for range flood {
				require.NoError(t, app.Auth.RequestPasswordReset(ctx, flooded, auth.PasswordResetRequest{
					EmailAddress: floodedEmail, ResetPasswordLink: "https://flooded.example.com/reset"}))
			}
			start := time.Now()
			for range calmMails {
				require.NoError(t, app.Auth.RequestPasswordReset(ctx, calm, auth.PasswordResetRequest{
					EmailAddress: calmEmail, ResetPasswordLink: "https://calm.example.com/reset"}))
			}
			got := good.Wait(t, calmMails, 20*time.Second)
			took := time.Since(start)
			t.Logf("%d mails of the calm brand arrived in %v while %d of the flooded brand's hung", calmMails, took, flood)
			require.Len(t, got, calmMails)
			for _, r := range got {
				assert.Equal(t, []string{calmEmail}, r.To)
			}

			// Each newer token replaces the one before: exactly one of the
			// mailed links, the newest token's, resets the password.
			worked := 0
			for _, r := range got {
				msg, err := mail.ReadMessage(strings.NewReader(string(r.Data)))
				require.NoError(t, err)
				assert.Equal(t, "Reset your password for Brand calm.example.com", msg.Header.Get("Subject"))
				link := linkIn(t, msg)
				err = app.Auth.ResetPassword(ctx, calm, auth.PasswordReset{EmailAddress: link.Query().Get("emailAddress"),
					Token: link.Query().Get("token"), NewPassword: "a new pass phrase"})
				if err == nil {
					worked++
				}
			}
			assert.Equal(t, 1, worked, "the newest token's link works, once")

			// Nothing of the flooded brand was dropped: every mail is kept,
			// pending (hung or waiting) or retried later, none failed.
			items, err := app.Store.Items(ctx, outbox.Filter{BrandID: flooded.ID, Channel: outbox.ChannelMail, Limit: 1000})
			require.NoError(t, err)
			assert.Len(t, items, flood, "every request's mail is queued")
			for _, it := range items {
				assert.NotEqual(t, outbox.StatusFailed, it.Status)
			}
		})
	}
}

// linkIn returns the reset link in the text part of a received message.
func linkIn(t *testing.T, msg *mail.Message) *url.URL {
	t.Helper()
	text := textPart(t, msg.Header.Get("Content-Type"), msg.Header.Get("Content-Transfer-Encoding"), msg.Body)
	i := strings.Index(text, "https://calm.example.com/reset?")
	require.GreaterOrEqual(t, i, 0, "a link in %s", text)
	end := strings.IndexAny(text[i:], " \r\n")
	if end < 0 {
		end = len(text) - i
	}
	u, err := url.Parse(text[i : i+end])
	require.NoError(t, err)
	return u
}

// textPart returns the decoded text/plain part of a body of contentType.
func textPart(t *testing.T, contentType, encoding string, body io.Reader) string {
	t.Helper()
	media, params, err := mime.ParseMediaType(contentType)
	require.NoError(t, err)
	if strings.HasPrefix(media, "multipart/") {
		mr := multipart.NewReader(body, params["boundary"])
		for {
			p, err := mr.NextRawPart()
			if err == io.EOF {
				return ""
			}
			require.NoError(t, err)
			if s := textPart(t, p.Header.Get("Content-Type"), p.Header.Get("Content-Transfer-Encoding"), p); s != "" {
				return s
			}
		}
	}
	if media != "text/plain" {
		return ""
	}
	if strings.EqualFold(encoding, "quoted-printable") {
		body = quotedprintable.NewReader(body)
	}
	b, err := io.ReadAll(body)
	require.NoError(t, err)
	return string(b)
}
