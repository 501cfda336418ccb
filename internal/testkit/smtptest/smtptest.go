// Package smtptest runs a real SMTP server (github.com/emersion/go-smtp)
// on a loopback port inside a test: STARTTLS or implicit TLS on a
// certificate made for the test by a CA of its own, AUTH PLAIN, and every
// message it takes kept for the test to parse. It is for tests only.
package smtptest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"io"
	"math/big"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
	"github.com/stretchr/testify/require"
)

// TLSMode says how the server offers TLS.
type TLSMode int

// The TLS modes.
const (
	// StartTLS: plain at first, STARTTLS offered (and AUTH only after it).
	StartTLS TLSMode = iota
	// Implicit: the TLS handshake first (as on port 465).
	Implicit
	// NoTLS: no TLS at all (AUTH offered in the clear).
	NoTLS
)

// Options configure a Server.
type Options struct {
	TLS TLSMode
	// Username and Password are the one account AUTH PLAIN takes; without
	// a Username the server offers no AUTH.
	Username, Password string
}

// Received is one message the server took.
type Received struct {
	From string
	To   []string
	// Data is the message as received (headers and body).
	Data []byte
	// TLS reports whether the connection it came on was encrypted, and
	// Auth who authenticated ("" for nobody).
	TLS  bool
	Auth string
}

// Server is a running SMTP server.
type Server struct {
	// Host is 127.0.0.1; Port its port.
	Host string
	Port int
	// CAs trusts the server's certificate (made for localhost and
	// 127.0.0.1).
	CAs *x509.CertPool

	opts     Options
	mu       sync.Mutex
	received []Received
	sessions int
	arrived  chan struct{}
	rcpt     func(to string) error
}

// SetRcpt makes fn answer RCPT TO from now on: nil takes the address, an
// error (see Refuse) refuses it.
func (s *Server) SetRcpt(fn func(to string) error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rcpt = fn
}

// Start starts a server on a loopback port; the test's cleanup stops it.
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	cert, pool := certificate(t)
	s := &Server{Host: "127.0.0.1", CAs: pool, opts: opts, arrived: make(chan struct{}, 1024)}
	tlsConfig := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	srv := smtp.NewServer(smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) {
		s.mu.Lock()
		s.sessions++
		s.mu.Unlock()
		return &session{srv: s, conn: c}, nil
	}))
	srv.Domain = "localhost"
	srv.ReadTimeout, srv.WriteTimeout = 10*time.Second, 10*time.Second
	srv.MaxMessageBytes = 1 << 20
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	switch opts.TLS {
	case StartTLS:
		srv.TLSConfig = tlsConfig
	case Implicit:
		l = tls.NewListener(l, tlsConfig)
	case NoTLS:
		srv.AllowInsecureAuth = true
	}
	s.Port = l.Addr().(*net.TCPAddr).Port
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return s
}

// Addr returns host:port.
func (s *Server) Addr() string { return net.JoinHostPort(s.Host, strconv.Itoa(s.Port)) }

// Received returns the messages taken so far.
func (s *Server) Received() []Received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Received(nil), s.received...)
}

// Sessions returns how many connections the server has taken.
func (s *Server) Sessions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions
}

// Wait returns once n messages have been taken in all, or fails the test
// after timeout.
func (s *Server) Wait(t testing.TB, n int, timeout time.Duration) []Received {
	t.Helper()
	deadline := time.After(timeout)
	for {
		if got := s.Received(); len(got) >= n {
			return got
		}
		select {
		case <-s.arrived:
		case <-deadline:
			t.Fatalf("smtptest: %d messages after %v, want %d", len(s.Received()), timeout, n)
		}
	}
}

// session is one client's session.
type session struct {
	srv  *Server
	conn *smtp.Conn
	from string
	to   []string
	auth string
}

func (s *session) AuthMechanisms() []string {
	if s.srv.opts.Username == "" {
		return nil
	}
	return []string{sasl.Plain}
}

func (s *session) Auth(mech string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, username, password string) error {
		if username != s.srv.opts.Username || password != s.srv.opts.Password {
			return &smtp.SMTPError{Code: 535, EnhancedCode: smtp.EnhancedCode{5, 7, 8}, Message: "Authentication credentials invalid"}
		}
		s.auth = username
		return nil
	}), nil
}

func (s *session) Mail(from string, _ *smtp.MailOptions) error {
	if s.srv.opts.Username != "" && s.auth == "" {
		return smtp.ErrAuthRequired
	}
	s.from = from
	return nil
}

func (s *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.srv.mu.Lock()
	rcpt := s.srv.rcpt
	s.srv.mu.Unlock()
	if rcpt != nil {
		if err := rcpt(to); err != nil {
			return err
		}
	}
	s.to = append(s.to, to)
	return nil
}

func (s *session) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	_, tlsOn := s.conn.TLSConnectionState()
	s.srv.mu.Lock()
	s.srv.received = append(s.srv.received, Received{From: s.from, To: s.to, Data: b, TLS: tlsOn, Auth: s.auth})
	s.srv.mu.Unlock()
	select {
	case s.srv.arrived <- struct{}{}:
	default:
	}
	return nil
}

func (s *session) Reset()        { s.from, s.to = "", nil }
func (s *session) Logout() error { return nil }

// Refuse returns an SMTP error reply of code (550 for a permanent refusal,
// 450 for a temporary one).
func Refuse(code int) error {
	class := 5
	if code < 500 {
		class = 4
	}
	return &smtp.SMTPError{Code: code, EnhancedCode: smtp.EnhancedCode{class, 1, 1}, Message: "Mailbox unavailable"}
}

// certificate returns a certificate for localhost and 127.0.0.1 signed by
// a CA made here, and a pool trusting that CA.
func certificate(t testing.TB) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	now := time.Now()
	ca := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "smtptest CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	require.NoError(t, err)
	caCert, err := x509.ParseCertificate(caDER)
	require.NoError(t, err)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	leaf := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "localhost"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, leaf, caCert, &key.PublicKey, caKey)
	require.NoError(t, err)
	pool := x509.NewCertPool()
	pool.AddCert(caCert)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, pool
}
