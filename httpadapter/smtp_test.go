package httpadapter_test

import (
	"bytes"
	"encoding/json"
	"mime"
	"net/http"
	netmail "net/mail"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/httpadapter"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/internal/netguard"
	"github.com/brandbase/brandbase/internal/testkit/smtptest"
	"github.com/brandbase/brandbase/mail"
)

const seedSMTPPassword = "smtp-password-0123"

func smtpPath(id string) string { return "/api/v1/app-integrations/smtp/" + id }

// seedSMTP creates, in-process, an SMTP app integration (once per brand)
// and a default SMTP configuration under it in brandID.
func seedSMTP(t testing.TB, svc *integrations.Service, brandID string) integrations.SMTP {
	t.Helper()
	ctx := t.Context()
	system := auth.SystemPrincipal(brandID)
	typ := "SMTP"
	apps, err := svc.ListAppIntegrations(ctx, brandID, integrations.AppIntegrationQuery{Type: &typ})
	require.NoError(t, err)
	var app integrations.AppIntegration
	if len(apps) > 0 {
		app = apps[0]
	} else {
		app, err = svc.CreateAppIntegration(ctx, system, integrations.AppIntegrationInput{
			Type: integrations.TypeSMTP, Name: "Mail relay", Domain: "https://mail.example.com"})
		require.NoError(t, err)
	}
	m, err := svc.CreateSMTP(ctx, system, integrations.SMTPInput{AppIntegrationID: &app.ID, Name: new("Relay"),
		Host: new("smtp.example.com"), Port: new(587), Username: new("mailer"), Password: new(seedSMTPPassword),
		UseTLS: new(true), EmailAddressFrom: new("no-reply@shop.example.com"), IsDefault: new(true)})
	require.NoError(t, err)
	return m
}

func smtpBody(appID string, set map[string]any) string {
	return jsonBody(map[string]any{"appIntegrationId": appID, "name": "Relay EU", "host": "smtp.eu.example.com", "port": 587,
		"username": "mailer", "password": "another-password-77", "useTls": true, "emailAddressFrom": "mail@shop.example.com",
		"nameFrom": "Shop", "description": "EU relay", "isDefault": true, "status": "Active"}, set)
}

// TestSMTPRoutes: the SMTP routes in jfw-js's paths: create, list, read,
// update with the masked password sent back, delete; the password never
// leaves; field errors name each bad field; integrations.smtp.write
// guards every change.
func TestSMTPRoutes(t *testing.T) {
	t.Parallel()
	for name, newStore := range stores {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newIntegFixture(t, newStore)
			seeded := seedSMTP(t, f.app.Integrations, f.brand.ID)
			admin := jsonHeaders("shop.example.com", "Auth-Key", f.keys["admin"])
			viewer := jsonHeaders("shop.example.com", "Auth-Key", f.keys["viewer"])
			analyst := jsonHeaders("shop.example.com", "Auth-Key", f.keys["analyst"])

			rec, e := f.do(t, "POST", "/api/v1/app-integrations/smtp", admin, smtpBody(seeded.AppIntegration.ID, nil))
			require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
			assert.NotContains(t, rec.Body.String(), "another-password")
			var created integrations.SMTP
			require.NoError(t, json.Unmarshal(e.Data, &created))
			assert.Equal(t, strings.Repeat("*", 15)+"d-77", *created.Password)
			assert.True(t, created.IsDefault)
			assert.NotEmpty(t, rec.Header().Get("ETag"))

			rec, e = f.do(t, "GET", "/api/v1/app-integrations/smtp", viewer, "")
			require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
			var list []integrations.SMTP
			require.NoError(t, json.Unmarshal(e.Data, &list))
			require.Len(t, list, 2)
			assert.False(t, list[0].IsDefault, "the new default cleared the seeded one's")
			assert.NotContains(t, rec.Body.String(), seedSMTPPassword)

			rec, e = f.do(t, "GET", smtpPath(created.ID), viewer, "")
			require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
			etag := rec.Header().Get("ETag")
			rec, e = f.do(t, "PUT", smtpPath(created.ID), append2(admin, "If-Match", etag),
				smtpBody(seeded.AppIntegration.ID, map[string]any{"password": *created.Password, "port": 465}))
			require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
			def, err := f.app.Integrations.DefaultSMTP(t.Context(), f.brand.ID)
			require.NoError(t, err)
			assert.Equal(t, "another-password-77", def.Server.Password, "the masked password kept the stored one")
			assert.Equal(t, 465, def.Server.Port)

			for _, c := range []struct {
				set  map[string]any
				want map[string]string
			}{
				{map[string]any{"port": 0}, map[string]string{"port": "out_of_range"}},
				{map[string]any{"port": "587"}, map[string]string{"port": "invalid_type"}},
				{map[string]any{"useTls": false}, map[string]string{"useTls": integrations.CodeTLSRequired}},
				{map[string]any{"host": "smtp.example.com:25", "emailAddressFrom": "nope"},
					map[string]string{"host": integrations.CodeInvalidHost, "emailAddressFrom": integrations.CodeInvalidEmail}},
			} {
				rec, e = f.do(t, "POST", "/api/v1/app-integrations/smtp", admin, smtpBody(seeded.AppIntegration.ID, c.set))
				require.Equal(t, http.StatusBadRequest, rec.Code, rec.Body.String())
				got := map[string]string{}
				for _, it := range e.Errors {
					got[it.Field] = it.Code
				}
				assert.Equal(t, c.want, got, "%v", c.set)
			}

			rec, _ = f.do(t, "POST", "/api/v1/app-integrations/smtp", analyst, smtpBody(seeded.AppIntegration.ID, nil))
			assert.Equal(t, http.StatusForbidden, rec.Code, "analytics.write does not cover SMTP")
			rec, _ = f.do(t, "DELETE", smtpPath(created.ID), viewer, "")
			assert.Equal(t, http.StatusForbidden, rec.Code)
			rec, _ = f.do(t, "DELETE", smtpPath(created.ID), admin, "")
			assert.Equal(t, http.StatusOK, rec.Code)
			rec, _ = f.do(t, "GET", smtpPath(created.ID), admin, "")
			assert.Equal(t, http.StatusNotFound, rec.Code)
		})
	}
}

func append2(h map[string]string, k, v string) map[string]string {
	out := map[string]string{k: v}
	for key, val := range h {
		out[key] = val
	}
	return out
}

// testBody is the body of POST app-integrations/smtp/test to srv.
func testBody(host string, port int, set map[string]any) string {
	return jsonBody(map[string]any{"host": host, "port": port, "username": "mailer", "password": "secret-password",
		"useTls": true, "emailAddressFrom": "no-reply@shop.example.com", "emailAddressTo": "ada@example.com",
		"subject": "Test from Shop", "body": "It works.\nSecond line & more."}, set)
}

// TestSMTPTestRoute: the test route sends through a real server (STARTTLS
// on a test certificate, AUTH PLAIN); an SMTP failure is a 502 with the
// server's reply, never a 500; useTls against a server without STARTTLS
// sends nothing; an address of the service's own network is refused with
// 400 and never dialled.
func TestSMTPTestRoute(t *testing.T) {
	t.Parallel()
	f := newIntegFixture(t, stores["memory"])
	admin := jsonHeaders("shop.example.com", "Auth-Key", f.keys["admin"])
	handler := func(t *testing.T, opts ...mail.Option) (http.Handler, *bytes.Buffer) {
		svc := mail.New(f.app.Integrations, append([]mail.Option{mail.WithTimeout(5 * time.Second)}, opts...)...)
		logs := &bytes.Buffer{}
		h, err := httpadapter.New(httpadapter.Services{Auth: f.app.Auth, RefData: f.app.RefData,
			Integrations: f.app.Integrations, Mail: svc}, httpadapter.WithoutRateLimits(), withTestLogger(logs))
		require.NoError(t, err)
		return h, logs
	}
	post := func(t *testing.T, h http.Handler, headers map[string]string, body string) (int, env) {
		rec := serve(h, "POST", sampleRequest{path: "/api/v1/app-integrations/smtp/test", headers: headers, body: body})
		e, err := decodeEnvelope(rec.Code, rec.Header(), rec.Body.Bytes())
		require.NoError(t, err, rec.Body.String())
		return rec.Code, e
	}
	loopback := netguard.Policy{AllowLoopback: true}

	t.Run("delivers", func(t *testing.T) {
		t.Parallel()
		srv := smtptest.Start(t, smtptest.Options{TLS: smtptest.StartTLS, Username: "mailer", Password: "secret-password"})
		h, _ := handler(t, mail.WithPolicy(loopback), mail.WithRootCAs(srv.CAs))
		code, e := post(t, h, admin, testBody("localhost", srv.Port, nil))
		require.Equal(t, http.StatusOK, code, "%+v", e)
		assert.JSONEq(t, "true", string(e.Data))
		got := srv.Wait(t, 1, 5*time.Second)[0]
		assert.True(t, got.TLS)
		assert.Equal(t, "mailer", got.Auth)
		assert.Equal(t, []string{"ada@example.com"}, got.To)
		msg, err := netmail.ReadMessage(bytes.NewReader(got.Data))
		require.NoError(t, err)
		subject, err := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
		require.NoError(t, err)
		assert.Equal(t, "Test from Shop", subject)
		assert.NotEmpty(t, msg.Header.Get("Message-Id"))
		assert.NotEmpty(t, msg.Header.Get("Date"))
		mt, _, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
		require.NoError(t, err)
		assert.Equal(t, "multipart/alternative", mt)
	})
	t.Run("wrong password", func(t *testing.T) {
		t.Parallel()
		srv := smtptest.Start(t, smtptest.Options{TLS: smtptest.StartTLS, Username: "mailer", Password: "secret-password"})
		h, logs := handler(t, mail.WithPolicy(loopback), mail.WithRootCAs(srv.CAs))
		code, e := post(t, h, admin, testBody("localhost", srv.Port, map[string]any{"password": "wrong"}))
		require.Equal(t, http.StatusBadGateway, code, "%+v", e)
		require.Len(t, e.Errors, 1)
		assert.Equal(t, mail.CodeSMTPFailed, e.Errors[0].Code)
		assert.Contains(t, e.Message, "535", "the server's reply")
		assert.Contains(t, e.Message, "Authentication credentials invalid")
		assert.NotContains(t, e.Message, "wrong", "never the password")
		assert.Empty(t, srv.Received())
		assert.NotContains(t, logs.String(), "level=ERROR", "the caller's server failed, not this service: logged at INFO")
		assert.Contains(t, logs.String(), "535")
	})
	t.Run("no STARTTLS: no plain fallback", func(t *testing.T) {
		t.Parallel()
		srv := smtptest.Start(t, smtptest.Options{TLS: smtptest.NoTLS, Username: "mailer", Password: "secret-password"})
		h, _ := handler(t, mail.WithPolicy(loopback), mail.WithRootCAs(srv.CAs))
		code, e := post(t, h, admin, testBody("localhost", srv.Port, nil))
		require.Equal(t, http.StatusBadGateway, code, "%+v", e)
		assert.Contains(t, e.Message, "STARTTLS")
		assert.Empty(t, srv.Received(), "nothing sent in the clear")
	})
	t.Run("loopback refused by the policy, not dialled", func(t *testing.T) {
		t.Parallel()
		srv := smtptest.Start(t, smtptest.Options{TLS: smtptest.StartTLS, Username: "mailer", Password: "secret-password"})
		h, _ := handler(t) // the zero policy: public addresses only
		code, e := post(t, h, admin, testBody("127.0.0.1", srv.Port, nil))
		require.Equal(t, http.StatusBadRequest, code, "%+v", e)
		require.Len(t, e.Errors, 1)
		assert.Equal(t, "host", e.Errors[0].Field)
		assert.Equal(t, mail.CodeForbiddenAddress, e.Errors[0].Code)
		assert.Zero(t, srv.Sessions(), "the server never saw a connection")
	})
	t.Run("private address refused at once", func(t *testing.T) {
		t.Parallel()
		h, _ := handler(t, mail.WithPolicy(loopback))
		began := time.Now()
		code, e := post(t, h, admin, testBody("10.255.255.1", 587, nil))
		require.Equal(t, http.StatusBadRequest, code, "%+v", e)
		assert.Equal(t, mail.CodeForbiddenAddress, e.Errors[0].Code)
		assert.Less(t, time.Since(began), 2*time.Second, "refused before connecting, not after a connect timeout")
	})
	for _, c := range []struct {
		name   string
		role   string
		set    map[string]any
		status int
		field  string
		code   string
	}{
		{"plain SMTP to a public host", "admin", map[string]any{"host": "smtp.example.com", "useTls": false}, 400, "useTls", integrations.CodeTLSRequired},
		{"port out of range", "admin", map[string]any{"port": 70000}, 400, "port", "out_of_range"},
		{"no recipient", "admin", map[string]any{"emailAddressTo": nil}, 400, "emailAddressTo", "required"},
		{"without integrations.smtp.write", "analyst", nil, 403, "", auth.CodeAccessDenied},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			h, _ := handler(t, mail.WithPolicy(loopback))
			code, e := post(t, h, jsonHeaders("shop.example.com", "Auth-Key", f.keys[c.role]), testBody("localhost", 2525, c.set))
			require.Equal(t, c.status, code, "%+v", e)
			require.NotEmpty(t, e.Errors)
			assert.Equal(t, c.field, e.Errors[0].Field)
			assert.Equal(t, c.code, e.Errors[0].Code)
		})
	}
}
