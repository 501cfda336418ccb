package mail

import (
	"context"
	"errors"
	"html"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/integrations"
)

// TestTimeout bounds a whole test send ([Service.SendTest]): connect,
// TLS, AUTH and the message.
const TestTimeout = 30 * time.Second

// Limits of a test message.
const (
	maxSubjectLen = 998 // a header line's limit (RFC 5322)
	maxBodyLen    = 100_000
)

// Codes of the test send's errors.
const (
	// CodeForbiddenAddress: the host names an address the host's policy
	// refuses (the service's own network); nothing was dialled (400, field
	// host).
	CodeForbiddenAddress = "forbidden_address"
	// CodeSMTPFailed: the SMTP server could not be reached, refused the
	// connection's TLS or AUTH, or refused the message (502; the message
	// holds the server's reply).
	CodeSMTPFailed = "smtp_failed"
)

// TestInput is the body of POST app-integrations/smtp/test, in jfw-js's
// shape (ITestSendingEmailAddressParams) plus an optional nameFrom. A nil
// field is one the request did not send.
type TestInput struct {
	// Host, Port and UseTLS follow the rules of an SMTP configuration
	// (integrations.ValidateSMTPServer).
	Host   *string `json:"host"`
	Port   *int    `json:"port"`
	UseTLS *bool   `json:"useTls"`
	// Username and Password are AUTH's: both or neither.
	Username *string `json:"username"`
	Password *string `json:"password"`
	// EmailAddressFrom and EmailAddressTo are required bare addresses.
	EmailAddressFrom *string `json:"emailAddressFrom"`
	EmailAddressTo   *string `json:"emailAddressTo"`
	// NameFrom is optional: the sender's display name.
	NameFrom *string `json:"nameFrom"`
	// Subject is required, one line; Body is required text, sent as the
	// text part and, escaped, as the HTML part.
	Subject *string `json:"subject"`
	Body    *string `json:"body"`
}

// validate checks in, with a field error per bad field, and returns the
// server and the message.
func (in TestInput) validate() (integrations.SMTPServer, Message, error) {
	var v envelope.Validation
	srv := integrations.ValidateSMTPServer(&v, in.Host, in.Port, in.UseTLS)
	srv.Username, srv.Password = strings.TrimSpace(deref(in.Username)), deref(in.Password)
	switch {
	case srv.Username != "" && srv.Password == "":
		v.Add("password", "required", "The field password is required with a username.")
	case srv.Username == "" && srv.Password != "":
		v.Add("username", "required", "The field username is required with a password.")
	}
	m := Message{
		From:     integrations.ValidateEmailAddress(&v, "emailAddressFrom", in.EmailAddressFrom, true),
		To:       integrations.ValidateEmailAddress(&v, "emailAddressTo", in.EmailAddressTo, true),
		FromName: deref(in.NameFrom), Subject: strings.TrimSpace(deref(in.Subject)), Text: deref(in.Body),
	}
	switch {
	case m.Subject == "":
		v.Add("subject", "required", "The field subject is required.")
	case utf8.RuneCountInString(m.Subject) > maxSubjectLen:
		v.Add("subject", "too_long", "The field subject is longer than 998 characters.")
	}
	switch {
	case strings.TrimSpace(m.Text) == "":
		v.Add("body", "required", "The field body is required.")
	case len(m.Text) > maxBodyLen:
		v.Add("body", "too_long", "The field body is longer than 100000 bytes.")
	default:
		v.Text("body", m.Text)
	}
	m.HTML = "<p>" + strings.ReplaceAll(html.EscapeString(m.Text), "\n", "<br>\n") + "</p>"
	return srv, m, v.Err()
}

// SendTest sends one message with the settings in, on behalf of actor,
// who needs auth.PermSMTPWrite in its brand, within [TestTimeout]. The
// host is held to the address policy: an address of the service's own
// network is refused before anything is dialled.
//
// It fails with KindForbidden (access_denied), KindInvalid (a field error
// per bad field; CodeForbiddenAddress on host for an address the policy
// refuses), or KindBadGateway (CodeSMTPFailed) when the server could not be
// reached in time, refused TLS or AUTH, or refused the message: its
// message holds the server's reply.
func (s *Service) SendTest(ctx context.Context, actor auth.Principal, in TestInput) error {
	if actor.BrandID == "" || actor.UserID == "" && !actor.System || !actor.Can(auth.PermSMTPWrite) {
		return envelope.New(envelope.KindForbidden, auth.CodeAccessDenied,
			"You do not have the permission to send a test message in this brand.")
	}
	srv, m, err := in.validate()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, TestTimeout)
	defer cancel()
	err = s.Send(ctx, srv, m)
	var se *SendError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &se) && se.Forbidden:
		return envelope.Invalid("The SMTP host is not allowed.", envelope.Field("host", CodeForbiddenAddress,
			"The host resolves to an address this service may not connect to (its own network)."))
	}
	return envelope.New(envelope.KindBadGateway, CodeSMTPFailed,
		"The test message was not sent: "+oneLine(err.Error(), 512)).WithCause(err)
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
