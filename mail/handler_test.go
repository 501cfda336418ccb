package mail_test

import (
	"context"
	"encoding/json"
	"html"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/internal/testkit/smtptest"
	"github.com/brandbase/brandbase/internal/testkit/teststores"
	"github.com/brandbase/brandbase/mail"
	"github.com/brandbase/brandbase/outbox"
)

// renderer is the minimal renderer of the tests: the kind and the link.
var renderer = mail.RenderFunc(func(_ context.Context, _, language, kind string, data map[string]string) (mail.Rendered, error) {
	return mail.Rendered{
		Subject: kind + " (" + language + ")",
		Text:    "Open " + data["link"],
		HTML:    `<a href="` + html.EscapeString(data["link"]) + `">Open</a>`,
	}, nil
})

// brandWorld is a store with a brand, and the services of the handler.
type brandWorld struct {
	auth  *auth.Service
	integ *integrations.Service
	brand auth.Brand
}

func openWorld(t *testing.T, name string) brandWorld {
	t.Helper()
	store := teststores.All[name](t)
	t.Cleanup(func() { store.Close() })
	a := auth.NewService(store)
	b, err := a.CreateBrand(t.Context(), auth.NewBrand{URL: "shop.example.com", Name: "Shop"})
	require.NoError(t, err)
	return brandWorld{auth: a, integ: integrations.NewService(store), brand: b}
}

// defaultSMTP gives the brand a default SMTP integration on srv.
func (w brandWorld) defaultSMTP(t *testing.T, srv *smtptest.Server) {
	t.Helper()
	ctx := t.Context()
	sys := auth.SystemPrincipal(w.brand.ID)
	app, err := w.integ.CreateAppIntegration(ctx, sys, integrations.AppIntegrationInput{
		Type: integrations.TypeSMTP, Name: "Mail", Domain: "https://mail.example.com"})
	require.NoError(t, err)
	port, host, user, pass, from := srv.Port, "localhost", "mailer", "secret-password", "no-reply@shop.example.com"
	yes := true
	_, err = w.integ.CreateSMTP(ctx, sys, integrations.SMTPInput{AppIntegrationID: &app.ID, Name: &host, Host: &host,
		Port: &port, Username: &user, Password: &pass, UseTLS: &yes, EmailAddressFrom: &from, IsDefault: &yes})
	require.NoError(t, err)
}

func mailItem(t *testing.T, brandID, to string) outbox.Item {
	t.Helper()
	payload, err := json.Marshal(outbox.Mail{Kind: "password_reset", To: to, UserID: "u1", Language: "fr",
		Data: map[string]string{"link": "https://shop.example.com/reset?token=abc&x=1", "expiresAt": "2026-11-29T04:04:05Z",
			"brandName": "Shop"}})
	require.NoError(t, err)
	return outbox.Item{ID: "m1", BrandID: brandID, Channel: outbox.ChannelMail, Topic: "password_reset", Payload: payload}
}

// TestDeliverThroughBrandDefault: the handler sends a mail item through
// the brand's default SMTP integration (a real server, STARTTLS, AUTH),
// rendered, From named after the brand; on every store.
func TestDeliverThroughBrandDefault(t *testing.T) {
	t.Parallel()
	for name := range teststores.All {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := openWorld(t, name)
			srv := smtptest.Start(t, smtptest.Options{TLS: smtptest.StartTLS, Username: "mailer", Password: "secret-password"})
			w.defaultSMTP(t, srv)
			svc := mail.New(w.integ, mail.WithPolicy(loopback), mail.WithRootCAs(srv.CAs), mail.WithRenderer(renderer))

			res := svc.Deliver(t.Context(), mailItem(t, w.brand.ID, "ada@example.com"))
			require.NoError(t, res.Err)
			assert.Equal(t, 250, res.Code)
			got := srv.Wait(t, 1, 5*time.Second)[0]
			assert.True(t, got.TLS)
			p := parse(t, got.Data)
			assert.Equal(t, "password_reset (fr)", p.header.Get("Subject"))
			assert.Equal(t, `"Shop" <no-reply@shop.example.com>`, p.header.Get("From"))
			assert.Equal(t, "Open https://shop.example.com/reset?token=abc&x=1", p.text)
			assert.Contains(t, p.html, `href="https://shop.example.com/reset?token=abc&amp;x=1"`)

			srv.SetRcpt(func(string) error { return smtptest.Refuse(550) })
			res = svc.Deliver(t.Context(), mailItem(t, w.brand.ID, "gone@example.com"))
			assert.Error(t, res.Err)
			assert.Equal(t, 550, res.Code)
			assert.True(t, res.Permanent, "a refused recipient is not retried")
			srv.SetRcpt(func(string) error { return smtptest.Refuse(451) })
			res = svc.Deliver(t.Context(), mailItem(t, w.brand.ID, "later@example.com"))
			assert.Equal(t, 451, res.Code)
			assert.False(t, res.Permanent, "a 4xx is retried")
		})
	}
}

// TestDeliverFallback: without a default SMTP integration, the host's
// auth.MessageSender gets the message; without either, the item fails for
// good.
func TestDeliverFallback(t *testing.T) {
	t.Parallel()
	w := openWorld(t, "memory")
	var mu sync.Mutex
	var sent []auth.Message
	host := auth.MessageSenderFunc(func(_ context.Context, m auth.Message) error {
		mu.Lock()
		defer mu.Unlock()
		sent = append(sent, m)
		return nil
	})
	svc := mail.New(w.integ, mail.WithRenderer(renderer), mail.WithFallback(host, w.auth))
	res := svc.Deliver(t.Context(), mailItem(t, w.brand.ID, "ada@example.com"))
	require.NoError(t, res.Err)
	require.Len(t, sent, 1)
	assert.Equal(t, auth.Message{Kind: auth.MessagePasswordReset, To: "ada@example.com",
		Link: "https://shop.example.com/reset?token=abc&x=1", BrandURL: "shop.example.com", BrandID: w.brand.ID,
		UserID: "u1", ExpiresAt: time.Date(2026, 11, 29, 4, 4, 5, 0, time.UTC)}, sent[0])

	none := mail.New(w.integ, mail.WithRenderer(renderer))
	res = none.Deliver(t.Context(), mailItem(t, w.brand.ID, "ada@example.com"))
	assert.ErrorIs(t, res.Err, mail.ErrNoSender)
	assert.True(t, res.Permanent)

	res = none.Deliver(t.Context(), outbox.Item{ID: "bad", BrandID: w.brand.ID, Channel: outbox.ChannelMail, Payload: []byte("{")})
	assert.True(t, res.Permanent, "a payload no retry can read")
}
