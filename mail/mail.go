// Package mail builds and sends brandbase's mail: a message with a text and
// an HTML part, Message-ID, Date and a From with the sender's name, sent
// through an SMTP server with github.com/wneessen/go-mail (a maintained
// client with STARTTLS, implicit TLS and SMTP AUTH), never a hand-written
// SMTP client.
//
// # Connections
//
// Every connection goes through the host's address policy (the one of
// every outgoing connection: internal/netguard), checked on the address
// the name resolved to, at connect time: a server in the host's own
// network is refused unless the host allows it, and nothing is dialled. A
// connection is bounded in time (DefaultTimeout per step). TLS: useTls on
// port 465 is implicit TLS; on any other port STARTTLS is required (a
// server that does not offer it is refused: no plain fallback); without
// useTls, plain SMTP to a loopback address only. AUTH (SCRAM, PLAIN or
// LOGIN) is sent over TLS only, or to the local machine.
//
// # Who sends
//
// [Service.Deliver] is the outbox's handler of mail items
// (outbox.ChannelMail): the brand's default SMTP integration sends the
// message, rendered by the host's [Renderer]; without one, the host's
// auth.MessageSender gets it as an auth.Message; without either, the item
// fails for good ("no sender"). [Service.SendTest] sends one message with
// the settings a caller gives (POST app-integrations/smtp/test).
package mail

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode"

	gomail "github.com/wneessen/go-mail"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/internal/netguard"
)

// DefaultTimeout bounds each step of a connection to an SMTP server
// (connect, TLS handshake, every command), unless [WithTimeout] sets
// another.
const DefaultTimeout = 15 * time.Second

// Message is one message to send.
type Message struct {
	// From is the sender's address; FromName its display name ("" for
	// none). Line breaks and other control characters in FromName and
	// Subject become spaces: no input adds a header.
	From, FromName string
	// To is the addressee's address.
	To string
	// Subject is the subject line.
	Subject string
	// Text is the text/plain part; HTML, when not empty, the text/html
	// alternative.
	Text, HTML string
}

// SMTPSource gives a brand's default SMTP configuration, with its
// password: *integrations.Service is one.
type SMTPSource interface {
	DefaultSMTP(ctx context.Context, brandID string) (integrations.SMTPSender, error)
}

// BrandSource reads a brand: *auth.Service is one. The fallback sender's
// messages carry the brand's URL read from it.
type BrandSource interface {
	Brand(ctx context.Context, id string) (auth.Brand, error)
}

// Service sends mail. It is safe for concurrent use.
type Service struct {
	smtp     SMTPSource
	policy   netguard.Policy
	timeout  time.Duration
	rootCAs  *x509.CertPool
	now      func() time.Time
	renderer Renderer
	fallback auth.MessageSender
	brands   BrandSource
	log      *slog.Logger
	// implicitPort is the port of implicit TLS (465; tests set another).
	implicitPort int
}

// Option configures a Service.
type Option func(*Service)

// WithPolicy sets the address policy of every connection (the zero
// Policy, public addresses only, by default; the demo server and tests
// allow loopback).
func WithPolicy(p netguard.Policy) Option { return func(s *Service) { s.policy = p } }

// WithTimeout bounds each step of a connection (DefaultTimeout when d is 0
// or less).
func WithTimeout(d time.Duration) Option {
	return func(s *Service) {
		if d > 0 {
			s.timeout = d
		}
	}
}

// WithRootCAs sets the certificate authorities that servers' certificates
// are checked against (the system's by default): for a private CA, and
// tests.
func WithRootCAs(pool *x509.CertPool) Option { return func(s *Service) { s.rootCAs = pool } }

// WithClock sets the clock of the Date header (time.Now by default).
func WithClock(now func() time.Time) Option {
	return func(s *Service) {
		if now != nil {
			s.now = now
		}
	}
}

// WithRenderer sets the renderer of outbox mail items (the message
// templates); without one, a brand's SMTP integration cannot send them.
func WithRenderer(r Renderer) Option { return func(s *Service) { s.renderer = r } }

// WithFallback sets the host's sender, for the brands without a default
// SMTP integration, and where the brand's URL of its messages is read
// (brands may be nil: the URL is then empty).
func WithFallback(sender auth.MessageSender, brands BrandSource) Option {
	return func(s *Service) { s.fallback, s.brands = sender, brands }
}

// WithLogger sets where failures without a sender are logged
// (slog.Default() by default).
func WithLogger(l *slog.Logger) Option {
	return func(s *Service) {
		if l != nil {
			s.log = l
		}
	}
}

// New returns a Service that sends a brand's mail through its default SMTP
// configuration, read from smtp.
func New(smtp SMTPSource, opts ...Option) *Service {
	s := &Service{smtp: smtp, timeout: DefaultTimeout, now: time.Now, log: slog.Default(),
		implicitPort: integrations.ImplicitTLSPort}
	for _, o := range opts {
		o(s)
	}
	return s
}

// HasFallback reports whether the Service has the host's sender.
func (s *Service) HasFallback() bool { return s.fallback != nil }

// SendError is a failed send: the SMTP server's reply when it answered.
type SendError struct {
	// Code is the server's reply code (421, 535, 550, ...), 0 when it did
	// not answer (no connection, a TLS failure, a timeout).
	Code int
	// Permanent: the server refused the message or its recipient for
	// good (a 5xx reply to RCPT TO or DATA): no retry can mend it.
	Permanent bool
	// Forbidden: the address policy refused the server's address; nothing
	// was sent to it.
	Forbidden bool
	// Err is the cause, with the server's reply text.
	Err error
}

// Error returns the cause, on one line.
func (e *SendError) Error() string { return "mail: " + oneLine(e.Err.Error(), 1024) }

// Unwrap returns the cause.
func (e *SendError) Unwrap() error { return e.Err }

// Send sends m through the SMTP server srv, within ctx and the Service's
// bounds. It fails with a *SendError.
func (s *Service) Send(ctx context.Context, srv integrations.SMTPServer, m Message) error {
	msg, err := s.build(m)
	if err != nil {
		return &SendError{Permanent: true, Err: err}
	}
	implicit := srv.UseTLS && srv.Port == s.implicitPort
	c, err := gomail.NewClient(srv.Host, s.clientOptions(srv, implicit)...)
	if err != nil {
		return &SendError{Permanent: true, Err: err}
	}
	if err := c.DialAndSendWithContext(ctx, msg); err != nil {
		return classify(err)
	}
	return nil
}

// clientOptions returns go-mail's options for srv: port, bounds, the
// guarded dialer, TLS as useTls says, and AUTH when a username is set.
func (s *Service) clientOptions(srv integrations.SMTPServer, implicit bool) []gomail.Option {
	tlsConfig := &tls.Config{ServerName: srv.Host, MinVersion: tls.VersionTLS12, RootCAs: s.rootCAs}
	opts := []gomail.Option{
		gomail.WithPort(srv.Port), gomail.WithTimeout(s.timeout), gomail.WithTLSConfig(tlsConfig),
		gomail.WithDialContextFunc(s.dial(srv, implicit, tlsConfig)), gomail.WithHELO("localhost"),
	}
	switch {
	case implicit:
		opts = append(opts, gomail.WithSSL())
	case srv.UseTLS:
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
	default:
		opts = append(opts, gomail.WithTLSPolicy(gomail.NoTLS))
	}
	if srv.Username != "" {
		opts = append(opts, gomail.WithOpportunisticSMTPAuth(gomail.SMTPAuthSCRAMSHA256, gomail.SMTPAuthSCRAMSHA1,
			gomail.SMTPAuthPlain, gomail.SMTPAuthLogin),
			gomail.WithUsername(srv.Username), gomail.WithPassword(srv.Password))
	}
	return opts
}

// dial returns the dial function of a connection to srv: the address
// policy checked on the address connected to (plain SMTP to a loopback
// address only), bounded by the timeout, and the TLS handshake first for
// implicit TLS. It dials srv's host and port itself (go-mail would join an
// IPv6 host and port without brackets).
func (s *Service) dial(srv integrations.SMTPServer, implicit bool, tlsConfig *tls.Config) gomail.DialContextFunc {
	d := &net.Dialer{Timeout: s.timeout, Control: func(_, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("%w: %q is not an address", netguard.ErrForbiddenAddress, address)
		}
		if !srv.UseTLS && !ap.Addr().Unmap().IsLoopback() {
			return fmt.Errorf("%w: plain SMTP (without TLS) goes to a loopback address only, not %s",
				netguard.ErrForbiddenAddress, ap.Addr())
		}
		return s.policy.Check(ap.Addr())
	}}
	address := net.JoinHostPort(srv.Host, strconv.Itoa(srv.Port))
	return func(ctx context.Context, network, _ string) (net.Conn, error) {
		conn, err := d.DialContext(ctx, network, address)
		if err != nil || !implicit {
			return conn, err
		}
		tc := tls.Client(conn, tlsConfig)
		hs, cancel := context.WithTimeout(ctx, s.timeout)
		defer cancel()
		if err := tc.HandshakeContext(hs); err != nil {
			_ = conn.Close()
			return nil, err
		}
		return tc, nil
	}
}

// build returns m as go-mail's message: From with the sender's name, To,
// Subject, Date, a Message-ID on the sender's domain, the text part and
// the HTML alternative.
func (s *Service) build(m Message) (*gomail.Msg, error) {
	msg := gomail.NewMsg()
	if err := msg.FromFormat(headerText(m.FromName), m.From); err != nil {
		return nil, fmt.Errorf("the sender's address: %w", err)
	}
	if err := msg.To(m.To); err != nil {
		return nil, fmt.Errorf("the addressee's address: %w", err)
	}
	msg.Subject(headerText(m.Subject))
	msg.SetDateWithValue(s.now())
	domain := m.From[strings.LastIndexByte(m.From, '@')+1:]
	msg.SetMessageIDWithValue(randomID() + "@" + domain)
	msg.SetBodyString(gomail.TypeTextPlain, m.Text)
	if m.HTML != "" {
		msg.AddAlternativeString(gomail.TypeTextHTML, m.HTML)
	}
	return msg, nil
}

// headerText returns s on one line: every control character (CR, LF, tab,
// ...) a space, spaces around it trimmed. go-mail then encodes what is not
// ASCII (RFC 2047), so a header holds exactly s.
func headerText(s string) string {
	return strings.TrimSpace(strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s))
}

// oneLine returns s on one line, at most max bytes.
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > max {
		s = s[:max]
	}
	return s
}

// classify returns err, a failed dial or send of go-mail, as a *SendError:
// the server's reply code, and whether it refused the message or its
// recipient for good, or the policy refused its address.
func classify(err error) *SendError {
	e := &SendError{Err: err}
	if errors.Is(err, netguard.ErrForbiddenAddress) {
		e.Forbidden, e.Permanent = true, true
		return e
	}
	var se *gomail.SendError
	if errors.As(err, &se) {
		e.Code = se.ErrorCode()
		switch se.Reason {
		case gomail.ErrSMTPRcptTo, gomail.ErrSMTPData, gomail.ErrSMTPDataClose:
			e.Permanent = e.Code >= 500 && e.Code < 600
		}
		return e
	}
	e.Code = replyCode(err)
	return e
}
