package integrations_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/integrations"
)

func (w *world) smtpInput(appID string) integrations.SMTPInput {
	return integrations.SMTPInput{
		AppIntegrationID: &appID, Name: ptr("Main relay"), Host: ptr("smtp.example.com"), Port: ptr(587),
		Username: ptr("mailer"), Password: ptr("smtp-password-0123"), UseTLS: ptr(true),
		EmailAddressFrom: ptr("no-reply@shop.example.com"), NameFrom: ptr("Shop"), IsDefault: ptr(true),
	}
}

// TestSMTPConfigurations: an SMTP configuration is a kind like the others:
// created under integrations.smtp.write, its password sealed and masked in
// every answer, kept when sent back masked, one default per brand, and the
// default read back in plaintext for sending only.
func TestSMTPConfigurations(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, w *world) {
		ctx := t.Context()
		app := w.app(t, w.admin, integrations.TypeSMTP)
		in := w.smtpInput(app.ID)

		_, err := w.svc.CreateSMTP(ctx, w.analyst, in)
		assertKind(t, envelope.KindForbidden, err, "analytics.write does not cover SMTP")
		mailer := auth.Principal{UserID: "mailer", BrandID: w.brand, Permissions: []auth.Permission{auth.PermSMTPWrite}}
		m, err := w.svc.CreateSMTP(ctx, mailer, in)
		require.NoError(t, err)
		assert.Equal(t, "**************0123", *m.Password, "masked in the create's answer")
		assert.True(t, m.IsDefault)
		assert.Equal(t, "smtp.example.com", m.Host)
		assert.Equal(t, 587, m.Port)
		assert.Equal(t, "no-reply@shop.example.com", m.EmailAddressFrom)
		assert.Equal(t, "Shop", *m.NameFrom)
		b, err := json.Marshal(m)
		require.NoError(t, err)
		assert.NotContains(t, string(b), "smtp-password", "no answer carries the password")
		for _, key := range []string{`"appIntegration"`, `"name"`, `"host"`, `"port"`, `"username"`, `"password"`,
			`"useTls"`, `"isDefault"`, `"description"`, `"status"`, `"emailAddressFrom"`, `"nameFrom"`} {
			assert.Contains(t, string(b), key, "jfw-js's field names")
		}

		got, err := w.svc.SMTP(ctx, w.brand, m.ID)
		require.NoError(t, err)
		assert.Equal(t, m.Password, got.Password)
		list, err := w.svc.ListSMTP(ctx, w.brand)
		require.NoError(t, err)
		require.Len(t, list, 1)
		assert.Equal(t, "**************0123", *list[0].Password)
		_, err = w.svc.SMTP(ctx, w.other, m.ID)
		assertKind(t, envelope.KindNotFound, err, "another brand's ID")

		def, err := w.svc.DefaultSMTP(ctx, w.brand)
		require.NoError(t, err)
		assert.Equal(t, integrations.SMTPServer{Host: "smtp.example.com", Port: 587, Username: "mailer",
			Password: "smtp-password-0123", UseTLS: true}, def.Server)
		assert.Equal(t, "no-reply@shop.example.com", def.From)
		_, err = w.svc.DefaultSMTP(ctx, w.other)
		assert.ErrorIs(t, err, integrations.ErrNoDefaultSMTP)

		// The masked password sent back keeps the stored one.
		up := in
		up.Password, up.Port = got.Password, ptr(465)
		m2, err := w.svc.UpdateSMTP(ctx, w.admin, m.ID, up, integrations.IfMatch(got.ETag()))
		require.NoError(t, err)
		assert.Equal(t, 465, m2.Port)
		def, err = w.svc.DefaultSMTP(ctx, w.brand)
		require.NoError(t, err)
		assert.Equal(t, "smtp-password-0123", def.Server.Password)
		assert.True(t, def.Server.ImplicitTLS())
		revs, err := w.svc.Revisions(ctx, w.brand, integrations.KindSMTP, m.ID)
		require.NoError(t, err)
		require.Len(t, revs, 1)
		assert.Equal(t, []string{"port"}, revs[0].Fields, "the password did not change")

		// One default per brand: a second default takes it over.
		second := w.smtpInput(app.ID)
		second.Name, second.Password = ptr("Backup"), ptr("another-password")
		m3, err := w.svc.CreateSMTP(ctx, w.admin, second)
		require.NoError(t, err)
		first, err := w.svc.SMTP(ctx, w.brand, m.ID)
		require.NoError(t, err)
		assert.False(t, first.IsDefault)
		def, err = w.svc.DefaultSMTP(ctx, w.brand)
		require.NoError(t, err)
		assert.Equal(t, m3.ID, def.ID)

		require.NoError(t, w.svc.DeleteSMTP(ctx, w.admin, m3.ID))
		_, err = w.svc.DefaultSMTP(ctx, w.brand)
		assert.ErrorIs(t, err, integrations.ErrNoDefaultSMTP, "the default deleted: none")
	})
}

// TestSMTPValidation: every bad field is its own field error; plain SMTP
// (useTls false) only to a loopback host.
func TestSMTPValidation(t *testing.T) {
	t.Parallel()
	w := newWorld(t, stores["memory"])
	app := w.app(t, w.admin, integrations.TypeSMTP)
	cases := []struct {
		name   string
		mutate func(*integrations.SMTPInput)
		want   map[string]string
	}{
		{"port 0", func(in *integrations.SMTPInput) { in.Port = ptr(0) }, map[string]string{"port": "out_of_range"}},
		{"port 65536", func(in *integrations.SMTPInput) { in.Port = ptr(65536) }, map[string]string{"port": "out_of_range"}},
		{"no port", func(in *integrations.SMTPInput) { in.Port = nil }, map[string]string{"port": "required"}},
		{"no host", func(in *integrations.SMTPInput) { in.Host = nil }, map[string]string{"host": "required"}},
		{"a URL for host", func(in *integrations.SMTPInput) { in.Host = ptr("smtp://smtp.example.com") },
			map[string]string{"host": integrations.CodeInvalidHost}},
		{"plain SMTP to a public host", func(in *integrations.SMTPInput) { in.UseTLS = ptr(false) },
			map[string]string{"useTls": integrations.CodeTLSRequired}},
		{"plain SMTP to a private address", func(in *integrations.SMTPInput) { in.UseTLS, in.Host = ptr(false), ptr("10.0.0.5") },
			map[string]string{"useTls": integrations.CodeTLSRequired}},
		{"a sender with a name", func(in *integrations.SMTPInput) { in.EmailAddressFrom = ptr("Shop <no-reply@shop.example.com>") },
			map[string]string{"emailAddressFrom": integrations.CodeInvalidEmail}},
		{"no sender", func(in *integrations.SMTPInput) { in.EmailAddressFrom = nil },
			map[string]string{"emailAddressFrom": "required"}},
		{"a name with CR LF", func(in *integrations.SMTPInput) { in.NameFrom = ptr("Shop\r\nBcc: victim@example.com") },
			map[string]string{"nameFrom": "invalid_format"}},
		{"a username without a password", func(in *integrations.SMTPInput) { in.Password = nil },
			map[string]string{"password": "required"}},
		{"a password without a username", func(in *integrations.SMTPInput) { in.Username = nil },
			map[string]string{"username": "required"}},
		{"an analytics app", func(in *integrations.SMTPInput) { in.AppIntegrationID = &w.analyticsApp.ID },
			map[string]string{"appIntegrationId": "type_mismatch"}},
		{"several at once", func(in *integrations.SMTPInput) { in.Port, in.Name = ptr(-1), nil },
			map[string]string{"port": "out_of_range", "name": "required"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := w.smtpInput(app.ID)
			c.mutate(&in)
			_, err := w.svc.CreateSMTP(t.Context(), w.admin, in)
			assert.Equal(t, c.want, fieldCodes(t, err))
		})
	}
	for _, host := range []string{"localhost", "127.0.0.1", "::1", "[::1]", "mail.localhost"} {
		in := w.smtpInput(app.ID)
		in.Host, in.UseTLS, in.Username, in.Password = ptr(host), ptr(false), nil, nil
		m, err := w.svc.CreateSMTP(t.Context(), w.admin, in)
		require.NoError(t, err, "plain SMTP to the loopback host %s, without AUTH", host)
		assert.Nil(t, m.Password)
	}
}

// TestSMTPPasswordRotates: keys rotate re-seals an SMTP password like
// every other secret, and it opens under the new key alone.
func TestSMTPPasswordRotates(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, w *world) {
		ctx := t.Context()
		app := w.app(t, w.admin, integrations.TypeSMTP)
		m, err := w.svc.CreateSMTP(ctx, w.admin, w.smtpInput(app.ID))
		require.NoError(t, err)

		k1, k2 := []byte("0123456789abcdef0123456789abcdef"), []byte("fedcba9876543210fedcba9876543210")
		both, err := integrations.NewKeyRing("k2", map[string][]byte{"k1": k1, "k2": k2})
		require.NoError(t, err)
		rep, err := integrations.NewService(w.store, integrations.WithKeyRing(both)).RotateSecrets(ctx, integrations.RotateOptions{})
		require.NoError(t, err)
		assert.Equal(t, 1, rep.Resealed, "the SMTP password")

		onlyNew, err := integrations.NewKeyRing("k2", map[string][]byte{"k2": k2})
		require.NoError(t, err)
		svc := integrations.NewService(w.store, integrations.WithKeyRing(onlyNew))
		def, err := svc.DefaultSMTP(ctx, w.brand)
		require.NoError(t, err)
		assert.Equal(t, "smtp-password-0123", def.Server.Password)
		got, err := svc.SMTP(ctx, w.brand, m.ID)
		require.NoError(t, err)
		assert.Equal(t, m.Password, got.Password)
	})
}
