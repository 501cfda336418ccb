package mail_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	netmail "net/mail"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/internal/netguard"
	"github.com/brandbase/brandbase/internal/testkit/smtptest"
	"github.com/brandbase/brandbase/mail"
)

var loopback = netguard.Policy{AllowLoopback: true}

var t0 = time.Date(2026, 11, 29, 3, 4, 5, 0, time.UTC)

// newService returns a mail service trusting srv's CA, loopback allowed,
// with a fixed clock.
func newService(srv *smtptest.Server, opts ...mail.Option) *mail.Service {
	base := []mail.Option{mail.WithPolicy(loopback), mail.WithRootCAs(srv.CAs), mail.WithClock(func() time.Time { return t0 }),
		mail.WithTimeout(5 * time.Second)}
	return mail.New(nil, append(base, opts...)...)
}

func server(srv *smtptest.Server, useTLS bool) integrations.SMTPServer {
	return integrations.SMTPServer{Host: "localhost", Port: srv.Port, Username: "mailer", Password: "secret-password", UseTLS: useTLS}
}

// parsed is a received message, parsed with net/mail and mime/multipart.
type parsed struct {
	header     netmail.Header
	text, html string
}

func parse(t *testing.T, data []byte) parsed {
	t.Helper()
	msg, err := netmail.ReadMessage(bytes.NewReader(data))
	require.NoError(t, err)
	p := parsed{header: msg.Header}
	mt, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	require.NoError(t, err)
	require.Equal(t, "multipart/alternative", mt, "a text and an HTML part")
	mr := multipart.NewReader(msg.Body, params["boundary"])
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		body, err := io.ReadAll(decoded(part))
		require.NoError(t, err)
		ct, _, _ := mime.ParseMediaType(part.Header.Get("Content-Type"))
		switch ct {
		case "text/plain":
			p.text = string(body)
		case "text/html":
			p.html = string(body)
		}
	}
	return p
}

// decoded undoes a part's quoted-printable or base64 transfer encoding
// (multipart.Reader undoes quoted-printable itself).
func decoded(part *multipart.Part) io.Reader {
	if strings.EqualFold(part.Header.Get("Content-Transfer-Encoding"), "base64") {
		return base64Reader(part)
	}
	return part
}

// TestSendOverSTARTTLS: a message through a real server with STARTTLS on
// a test certificate and AUTH PLAIN arrives encrypted and authenticated,
// with a text and an HTML part, Message-ID, Date, and a From with the
// sender's name; a name and a subject holding CR LF stay one header each
// and add none.
func TestSendOverSTARTTLS(t *testing.T) {
	t.Parallel()
	srv := smtptest.Start(t, smtptest.Options{TLS: smtptest.StartTLS, Username: "mailer", Password: "secret-password"})
	svc := newService(srv)
	err := svc.Send(t.Context(), server(srv, true), mail.Message{
		From: "no-reply@shop.example.com", FromName: "Shop\r\nBcc: victim@example.com", To: "ada@example.com",
		Subject: "Réinitialiser\r\nX-Injected: yes", Text: "Follow the link.", HTML: "<p>Follow <a href=\"https://x\">the link</a>.</p>",
	})
	require.NoError(t, err)
	got := srv.Wait(t, 1, 5*time.Second)[0]
	assert.True(t, got.TLS, "sent after STARTTLS")
	assert.Equal(t, "mailer", got.Auth, "AUTH PLAIN")
	assert.Equal(t, []string{"ada@example.com"}, got.To, "no recipient injected")
	assert.Equal(t, "no-reply@shop.example.com", got.From)

	p := parse(t, got.Data)
	assert.Len(t, p.header["From"], 1)
	assert.Empty(t, p.header["Bcc"], "the name's CR LF added no header")
	assert.Empty(t, p.header["X-Injected"], "the subject's CR LF added no header")
	from, err := netmail.ParseAddress(p.header.Get("From"))
	require.NoError(t, err)
	assert.Equal(t, "no-reply@shop.example.com", from.Address)
	assert.Contains(t, from.Name, "Bcc: victim@example.com", "the line break stayed inside the name")
	subject, err := new(mime.WordDecoder).DecodeHeader(p.header.Get("Subject"))
	require.NoError(t, err)
	assert.Equal(t, "Réinitialiser  X-Injected: yes", subject)
	date, err := p.header.Date()
	require.NoError(t, err)
	assert.True(t, t0.Equal(date), "Date from the clock: %v", date)
	id := p.header.Get("Message-Id")
	assert.Regexp(t, `^<[a-z0-9]{26}@shop\.example\.com>$`, id)
	assert.Equal(t, "Follow the link.", strings.TrimSpace(p.text))
	assert.Contains(t, p.html, `<a href="https://x">the link</a>`)
}

// TestSendFailures: implicit TLS works; useTls against a server without
// STARTTLS fails and sends nothing (no plain fallback); a wrong password
// keeps the server's 535; a refused recipient is permanent (550) or not
// (450); an address the policy refuses is never dialled.
func TestSendFailures(t *testing.T) {
	t.Parallel()
	msg := mail.Message{From: "no-reply@shop.example.com", To: "ada@example.com", Subject: "Hi", Text: "Hello"}

	t.Run("implicit TLS", func(t *testing.T) {
		t.Parallel()
		srv := smtptest.Start(t, smtptest.Options{TLS: smtptest.Implicit, Username: "mailer", Password: "secret-password"})
		svc := newService(srv, mail.WithImplicitTLSPort(srv.Port))
		require.NoError(t, svc.Send(t.Context(), server(srv, true), msg))
		assert.True(t, srv.Wait(t, 1, 5*time.Second)[0].TLS)
	})
	t.Run("no STARTTLS offered", func(t *testing.T) {
		t.Parallel()
		srv := smtptest.Start(t, smtptest.Options{TLS: smtptest.NoTLS, Username: "mailer", Password: "secret-password"})
		err := newService(srv).Send(t.Context(), server(srv, true), msg)
		var se *mail.SendError
		require.ErrorAs(t, err, &se)
		assert.Contains(t, se.Error(), "STARTTLS")
		assert.False(t, se.Permanent)
		assert.Empty(t, srv.Received(), "nothing sent in the clear")
	})
	t.Run("wrong password", func(t *testing.T) {
		t.Parallel()
		srv := smtptest.Start(t, smtptest.Options{TLS: smtptest.StartTLS, Username: "mailer", Password: "secret-password"})
		bad := server(srv, true)
		bad.Password = "wrong"
		err := newService(srv).Send(t.Context(), bad, msg)
		var se *mail.SendError
		require.ErrorAs(t, err, &se)
		assert.Equal(t, 535, se.Code)
		assert.Contains(t, se.Error(), "Authentication credentials invalid", "the server's reply is kept")
		assert.False(t, se.Permanent, "a password can be mended: retried")
		assert.Empty(t, srv.Received())
	})
	for _, code := range []int{550, 450} {
		t.Run("recipient refused "+string(rune('0'+code/100))+"xx", func(t *testing.T) {
			t.Parallel()
			srv := smtptest.Start(t, smtptest.Options{TLS: smtptest.StartTLS, Username: "mailer", Password: "secret-password"})
			srv.SetRcpt(func(string) error { return smtptest.Refuse(code) })
			err := newService(srv).Send(t.Context(), server(srv, true), msg)
			var se *mail.SendError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, code, se.Code)
			assert.Equal(t, code >= 500, se.Permanent)
		})
	}
	t.Run("policy refuses loopback", func(t *testing.T) {
		t.Parallel()
		srv := smtptest.Start(t, smtptest.Options{TLS: smtptest.StartTLS, Username: "mailer", Password: "secret-password"})
		svc := newService(srv, mail.WithPolicy(netguard.Policy{}))
		err := svc.Send(t.Context(), server(srv, true), msg)
		var se *mail.SendError
		require.ErrorAs(t, err, &se)
		assert.True(t, se.Forbidden)
		assert.ErrorIs(t, err, netguard.ErrForbiddenAddress)
		assert.Zero(t, srv.Sessions(), "never dialled")
	})
	t.Run("plain SMTP to loopback", func(t *testing.T) {
		t.Parallel()
		srv := smtptest.Start(t, smtptest.Options{TLS: smtptest.NoTLS})
		plain := integrations.SMTPServer{Host: "127.0.0.1", Port: srv.Port}
		require.NoError(t, newService(srv).Send(t.Context(), plain, msg))
		assert.False(t, srv.Wait(t, 1, 5*time.Second)[0].TLS)
	})
}

func base64Reader(r io.Reader) io.Reader {
	return base64.NewDecoder(base64.StdEncoding, newlineSkipper{r})
}

// newlineSkipper drops CR and LF, which base64 bodies break lines with.
type newlineSkipper struct{ r io.Reader }

func (n newlineSkipper) Read(p []byte) (int, error) {
	k, err := n.r.Read(p)
	out := p[:0]
	for _, c := range p[:k] {
		if c != '\r' && c != '\n' {
			out = append(out, c)
		}
	}
	return len(out), err
}
