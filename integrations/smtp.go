package integrations

import (
	"context"
	"net/mail"
	"net/netip"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
)

// ImplicitTLSPort is the port of SMTP over implicit TLS (RFC 8314): with
// useTls, a connection to it starts with the TLS handshake; on any other
// port useTls means STARTTLS, required.
const ImplicitTLSPort = 465

// Codes of the SMTP settings' field errors beyond the common ones.
const (
	// CodeTLSRequired: useTls is false for a host that is not a loopback
	// host (plain SMTP goes to the local machine only).
	CodeTLSRequired = "tls_required"
	// CodeInvalidHost: host is not a host name or an IP address.
	CodeInvalidHost = "invalid_host"
	// CodeInvalidEmail: an address is not a bare email address.
	CodeInvalidEmail = "invalid_email"
)

// maxHostLen bounds a host name (RFC 1035), maxEmailLen an address (RFC
// 5321's path).
const (
	maxHostLen  = 253
	maxEmailLen = 254
)

// SMTPRecord is an SMTP configuration in typed form, as the service reads
// it from a [ConfigRecord]: its password is a ciphertext sealed by a
// [KeyRing], never plaintext. Its JSON form is the record's Body.
type SMTPRecord struct {
	ConfigHeader `json:"-"`
	// Name is the configuration's name; never empty.
	Name string `json:"name"`
	// Host is the SMTP server's host name or IP address.
	Host string `json:"host"`
	// Port is the server's port, 1..65535.
	Port int `json:"port"`
	// Username is the AUTH user name; "" for a server that takes mail
	// without AUTH.
	Username string `json:"username"`
	// Password is the sealed AUTH password, or nil (no AUTH).
	Password []byte `json:"-"`
	// UseTLS: implicit TLS on port 465, STARTTLS required on any other.
	UseTLS bool `json:"useTls"`
	// EmailAddressFrom is the sender's address; NameFrom its display name,
	// or nil.
	EmailAddressFrom string  `json:"emailAddressFrom"`
	NameFrom         *string `json:"nameFrom"`
	// Description is free text, or nil.
	Description *string `json:"description"`
}

// SMTP is an SMTP configuration as answered over HTTP, in jfw-js's shape
// (IAppIntegrationSMTP) plus the sender's address and name: the password
// masked, dates in [DateLayout].
type SMTP struct {
	// AppIntegration is the app integration the configuration belongs to.
	AppIntegration AppIntegration `json:"appIntegration"`
	// Name is the configuration's name.
	Name string `json:"name"`
	// Host is the SMTP server's host name or IP address.
	Host string `json:"host"`
	// Port is the server's port.
	Port int `json:"port"`
	// Username is the AUTH user name, "" when the server takes mail
	// without AUTH.
	Username string `json:"username"`
	// Password is the AUTH password, masked (see [Mask]), or nil when
	// there is none or it does not decrypt (SecretsUnreadable).
	Password *string `json:"password"`
	// UseTLS: implicit TLS on port 465, STARTTLS required on any other.
	UseTLS bool `json:"useTls"`
	// EmailAddressFrom is the address messages are sent from.
	EmailAddressFrom string `json:"emailAddressFrom"`
	// NameFrom is the sender's display name, or nil (the brand's name is
	// used).
	NameFrom *string `json:"nameFrom"`
	// IsDefault marks the brand's default SMTP configuration: the one its
	// mail goes through.
	IsDefault bool `json:"isDefault"`
	// Description is free text, or nil.
	Description *string `json:"description"`
	// Status is Active or Inactive.
	Status Status `json:"status"`
	// ID is the configuration's ID.
	ID string `json:"id"`
	// CreatedDate is CreatedAt in DateLayout.
	CreatedDate string `json:"createdDate"`
	// UpdatedDate is UpdatedAt in DateLayout.
	UpdatedDate string `json:"updatedDate"`

	// BrandID is the brand the configuration belongs to.
	BrandID string `json:"-"`
	// Version is the record's version.
	Version int64 `json:"-"`
	// CreatedAt is when the configuration was created.
	CreatedAt time.Time `json:"-"`
	// UpdatedAt is when it last changed.
	UpdatedAt time.Time `json:"-"`
	// SecretsUnreadable reports, in a list (Service.ListSMTP), that the
	// password does not decrypt with the key ring; Password is then nil.
	// Never sent to clients.
	SecretsUnreadable bool `json:"-"`
}

// ETag returns the strong entity tag of m, which changes whenever its
// answer does.
func (m SMTP) ETag() string { return etag(m.Version, m.AppIntegration.Version) }

// SMTPInput is the body of an SMTP create or update (jfw-js's
// ICreateAppIntegrationSMTPParams plus emailAddressFrom and nameFrom). A
// nil field is one the request did not send; an update replaces the
// configuration as [AnalyticsInput] describes (password is the secret: not
// sent, or sent back masked, keeps the stored one).
type SMTPInput struct {
	// AppIntegrationID is required: an SMTP app integration of the same
	// brand.
	AppIntegrationID *string `json:"appIntegrationId"`
	// Name is required, at most 200 characters.
	Name *string `json:"name"`
	// Host is required: a host name or an IP address (no scheme, no port).
	Host *string `json:"host"`
	// Port is required, 1..65535.
	Port *int `json:"port"`
	// Username and Password are AUTH's; both or neither (a server that
	// takes mail without AUTH). Password empty clears it.
	Username *string `json:"username"`
	Password *string `json:"password"`
	// UseTLS is false when not sent; false is allowed for a loopback host
	// only.
	UseTLS *bool `json:"useTls"`
	// EmailAddressFrom is required: the sender's bare address.
	EmailAddressFrom *string `json:"emailAddressFrom"`
	// NameFrom is optional: the sender's display name, one line, at most
	// 200 characters.
	NameFrom *string `json:"nameFrom"`
	// IsDefault is false when not sent.
	IsDefault *bool `json:"isDefault"`
	// Description is optional free text.
	Description *string `json:"description"`
	// Status is Active or Inactive, case-insensitive.
	Status *Status `json:"status"`
}

// SMTPServer is where and how to connect to an SMTP server, its password
// in plaintext: what the mail package dials.
type SMTPServer struct {
	Host     string
	Port     int
	Username string
	Password string
	// UseTLS: implicit TLS on ImplicitTLSPort, STARTTLS required on any
	// other port; without it plain SMTP (a loopback host only).
	UseTLS bool
}

// ImplicitTLS reports whether a connection to s starts with TLS (useTls on
// port 465) rather than upgrading with STARTTLS.
func (s SMTPServer) ImplicitTLS() bool { return s.UseTLS && s.Port == ImplicitTLSPort }

// SMTPSender is a brand's default SMTP configuration, ready to send with:
// the server (password in plaintext) and the sender. For the host's own
// use (the mail handler); never answered over HTTP.
type SMTPSender struct {
	// ID is the configuration's ID.
	ID     string
	Server SMTPServer
	// From is the sender's address; FromName its display name, "" when
	// none is set.
	From, FromName string
}

var smtpKind = kindSpec[SMTPRecord]{
	kindInfo: kindInfo{kind: KindSMTP, appType: TypeSMTP, perm: auth.PermSMTPWrite},
	header:   func(r *SMTPRecord) *ConfigHeader { return &r.ConfigHeader },
	secrets: []secretSlot[SMTPRecord]{
		{"password", func(r *SMTPRecord) *[]byte { return &r.Password }},
	},
}

// ErrNoDefaultSMTP: the brand has no default SMTP configuration (none is
// marked isDefault, or its app integration is Inactive).
var ErrNoDefaultSMTP = envelope.NotFound("The brand has no default SMTP integration.")

// smtpFields is an SMTPInput after validation.
type smtpFields struct {
	common      commonInput
	name        string
	server      SMTPServer // Password unused: see password
	password    *string
	from        string
	nameFrom    *string
	description *string
}

// ValidateSMTPServer checks the connection settings an SMTP configuration
// and the test route share, adding a field error per bad field to v: host
// required, a host name or an IP address (invalid_host); port required,
// 1..65535 (out_of_range); useTls false only for a loopback host
// (tls_required: plain SMTP goes to the local machine only). It returns
// the normalised settings (no password).
func ValidateSMTPServer(v *envelope.Validation, host *string, port *int, useTLS *bool) SMTPServer {
	s := SMTPServer{UseTLS: deref(useTLS)}
	if s.Host = requiredText(v, "host", host, maxHostLen); s.Host != "" && !v.Has("host") {
		s.Host = strings.TrimSuffix(strings.TrimPrefix(s.Host, "["), "]")
		if !validHost(s.Host) {
			v.Add("host", CodeInvalidHost, "The field host must be a host name or an IP address, without scheme or port.")
		}
	}
	switch {
	case port == nil:
		v.Add("port", "required", "The field port is required.")
	case *port < 1 || *port > 65535:
		v.Add("port", "out_of_range", "The field port must be between 1 and 65535.")
	default:
		s.Port = *port
	}
	if !s.UseTLS && s.Host != "" && !v.Has("host") && !isLocalhost(s.Host) {
		v.Add("useTls", CodeTLSRequired,
			"useTls must be true: plain SMTP (without TLS) is allowed to a loopback host (localhost) only.")
	}
	return s
}

// ValidateEmailAddress checks that p is a bare email address (no display
// name, no angle brackets), required when required is set, and returns it
// trimmed ("" when absent).
func ValidateEmailAddress(v *envelope.Validation, field string, p *string, required bool) string {
	if p == nil || strings.TrimSpace(*p) == "" {
		if required {
			v.Add(field, "required", "The field "+field+" is required.")
		}
		return ""
	}
	s := strings.TrimSpace(*p)
	a, err := mail.ParseAddress(s)
	if utf8.RuneCountInString(s) > maxEmailLen || err != nil || a.Name != "" || a.Address != s {
		v.Add(field, CodeInvalidEmail, "The field "+field+" must be an email address (name@example.com).")
	}
	return s
}

// validHost reports whether h is an IP address or a host name (labels of
// letters, digits, '-' and '_', 1 to 63 characters, not starting or ending
// with '-').
func validHost(h string) bool {
	if _, err := netip.ParseAddr(h); err == nil {
		return true
	}
	h = strings.TrimSuffix(h, ".")
	if h == "" || len(h) > maxHostLen {
		return false
	}
	for label := range strings.SplitSeq(h, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, c := range []byte(label) {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
}

// validate checks in, with a field error for every bad field.
func (in SMTPInput) validate(v *envelope.Validation) smtpFields {
	var f smtpFields
	f.common = validateCommon(v, in.AppIntegrationID, in.IsDefault)
	f.name = requiredText(v, "name", in.Name, maxNameLen)
	f.server = ValidateSMTPServer(v, in.Host, in.Port, in.UseTLS)
	if in.Username != nil && strings.TrimSpace(*in.Username) != "" {
		f.server.Username = strings.TrimSpace(*in.Username)
		checkLine(v, "username", f.server.Username, maxNameLen)
	}
	f.password = optionalSecret(v, "password", in.Password)
	f.from = ValidateEmailAddress(v, "emailAddressFrom", in.EmailAddressFrom, true)
	if in.NameFrom != nil && strings.TrimSpace(*in.NameFrom) != "" {
		n := strings.TrimSpace(*in.NameFrom)
		checkLine(v, "nameFrom", n, maxNameLen)
		f.nameFrom = &n
	}
	f.description = optionalText(v, "description", in.Description, maxTextLen)
	f.common.status = parseStatus(v, "status", in.Status)
	return f
}

// saveSMTP creates (id "") or updates an SMTP configuration.
func (s *Service) saveSMTP(ctx context.Context, actor auth.Principal, id string, in SMTPInput, pre []Precondition) (SMTP, error) {
	sv := &save[SMTPRecord]{k: &smtpKind, actor: actor, brandID: actor.BrandID, id: id, pre: pre}
	f := in.validate(&sv.v)
	sv.common = f.common
	sv.apply = func(next, cur *SMTPRecord) error {
		next.Name, next.Host, next.Port, next.Username = f.name, f.server.Host, f.server.Port, f.server.Username
		next.UseTLS, next.EmailAddressFrom, next.NameFrom, next.Description = f.server.UseTLS, f.from, f.nameFrom, f.description
		var curPassword []byte
		if cur != nil {
			curPassword = cur.Password
		}
		var err error
		next.Password, err = s.nextSecret(secretOf(KindSMTP, &next.ConfigHeader, "password"), curPassword, f.password)
		if err != nil {
			return err
		}
		switch {
		case next.Username != "" && next.Password == nil:
			return envelope.Invalid("The request has an invalid field.",
				envelope.Field("password", "required", "The field password is required with a username."))
		case next.Username == "" && next.Password != nil:
			return envelope.Invalid("The request has an invalid field.",
				envelope.Field("username", "required", "The field username is required with a password."))
		}
		return nil
	}
	r, p, err := sv.run(ctx, s)
	if err != nil {
		return SMTP{}, err
	}
	return s.smtpView(r, p)
}

// CreateSMTP validates in and stores a new SMTP configuration in the
// actor's brand (actor.BrandID) on behalf of actor (who needs
// auth.PermSMTPWrite there), applying the status and default rules; the
// password is sealed with the key ring. It fails with KindForbidden
// (access_denied) or KindInvalid (a field error per bad field: see
// [SMTPInput] and [ValidateSMTPServer]).
func (s *Service) CreateSMTP(ctx context.Context, actor auth.Principal, in SMTPInput) (SMTP, error) {
	return s.saveSMTP(ctx, actor, "", in, nil)
}

// UpdateSMTP replaces the SMTP configuration with that ID in the actor's
// brand on behalf of actor (who needs auth.PermSMTPWrite there), under
// every precondition given, with the rules of [Service.UpdateAnalytics]
// and the errors of [Service.CreateSMTP], KindNotFound and
// KindPreconditionFailed.
func (s *Service) UpdateSMTP(ctx context.Context, actor auth.Principal, id string, in SMTPInput, pre ...Precondition) (SMTP, error) {
	if id == "" {
		return SMTP{}, ErrConfigNotFound
	}
	return s.saveSMTP(ctx, actor, id, in, pre)
}

// DeleteSMTP deletes the SMTP configuration with that ID in the actor's
// brand, as [Service.DeleteAnalytics] does, on behalf of an actor who
// holds auth.PermSMTPWrite there.
func (s *Service) DeleteSMTP(ctx context.Context, actor auth.Principal, id string) error {
	return s.deleteConfig(ctx, actor, smtpKind.kindInfo, id)
}

// SMTP returns the SMTP configuration of brandID with that ID, its
// password masked, or KindNotFound. It fails with ErrSecretUnreadable when
// the password does not decrypt with the key ring.
func (s *Service) SMTP(ctx context.Context, brandID, id string) (SMTP, error) {
	r, p, err := readConfig(ctx, s, &smtpKind, brandID, id)
	if err != nil {
		return SMTP{}, err
	}
	m, err := s.smtpView(r, p)
	if err != nil {
		return SMTP{}, err
	}
	return m, nil
}

// ListSMTP returns the SMTP configurations of brandID, passwords masked,
// oldest first. One whose password does not decrypt is listed with
// SecretsUnreadable set and Password nil, not as a failure of the list.
func (s *Service) ListSMTP(ctx context.Context, brandID string) ([]SMTP, error) {
	return listConfigs(ctx, s, &smtpKind, brandID, s.smtpView)
}

// DefaultSMTP returns the default SMTP configuration of brandID with its
// password in plaintext, for sending the brand's mail (never to be sent to
// clients). It fails with ErrNoDefaultSMTP when the brand has none,
// ErrSecretUnreadable when the password does not decrypt, and the store's
// errors.
func (s *Service) DefaultSMTP(ctx context.Context, brandID string) (SMTPSender, error) {
	if err := requireBrand(brandID); err != nil {
		return SMTPSender{}, err
	}
	yes := true
	recs, err := smtpKind.list(ctx, s.store, ConfigFilter{BrandID: brandID, IsDefault: &yes})
	if err != nil {
		return SMTPSender{}, err
	}
	if len(recs) == 0 || recs[0].Status != StatusActive {
		return SMTPSender{}, ErrNoDefaultSMTP
	}
	return s.smtpSender(recs[0])
}

// SMTPSender returns the SMTP configuration of brandID with that ID, ready
// to send with (its password in plaintext; never to be sent to clients),
// whatever its status: what an operator's test of one configuration
// needs. It fails with KindNotFound, ErrSecretUnreadable, and the store's
// errors.
func (s *Service) SMTPSender(ctx context.Context, brandID, id string) (SMTPSender, error) {
	r, _, err := readConfig(ctx, s, &smtpKind, brandID, id)
	if err != nil {
		return SMTPSender{}, err
	}
	return s.smtpSender(r)
}

// smtpSender opens the password of r and returns its sender.
func (s *Service) smtpSender(r SMTPRecord) (SMTPSender, error) {
	password, err := s.open(secretOf(KindSMTP, &r.ConfigHeader, "password"), r.Password)
	if err != nil {
		return SMTPSender{}, err
	}
	return SMTPSender{
		ID: r.ID,
		Server: SMTPServer{Host: r.Host, Port: r.Port, Username: r.Username, Password: deref(password),
			UseTLS: r.UseTLS},
		From: r.EmailAddressFrom, FromName: deref(r.NameFrom),
	}, nil
}

// smtpView returns the answer for r under app integration p. When the
// password does not decrypt it returns the answer with Password nil and
// SecretsUnreadable set, and ErrSecretUnreadable.
func (s *Service) smtpView(r SMTPRecord, p AppIntegration) (SMTP, error) {
	password, err := s.openMasked(secretOf(KindSMTP, &r.ConfigHeader, "password"), r.Password)
	return SMTP{
		AppIntegration: p, Name: r.Name, Host: r.Host, Port: r.Port, Username: r.Username, Password: password,
		UseTLS: r.UseTLS, EmailAddressFrom: r.EmailAddressFrom, NameFrom: r.NameFrom, IsDefault: r.IsDefault,
		Description: r.Description, Status: r.Status, ID: r.ID,
		CreatedDate: formatDate(r.CreatedAt), UpdatedDate: formatDate(r.UpdatedAt),
		BrandID: r.BrandID, Version: r.Version, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
		SecretsUnreadable: err != nil,
	}, err
}
