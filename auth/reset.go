package auth

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/outbox"
)

// MessageKind says what a [Message] is for.
type MessageKind string

// The kinds of message the service hands its [MessageSender].
const (
	// MessagePasswordReset carries a password-reset link.
	MessagePasswordReset MessageKind = "password_reset"
)

// Message is one message the service asks the host to deliver (the library
// sends no mail itself): its kind, its addressee and the link it carries.
type Message struct {
	// Kind says what the message is for.
	Kind MessageKind `json:"kind"`
	// To is the user's email address.
	To string `json:"to"`
	// Link is the link to send: for MessagePasswordReset, the link the
	// client gave with the token and emailAddress query parameters added.
	// It holds a secret: log it nowhere a third party reads.
	Link string `json:"link"`
	// BrandURL is the brand's normalised URL (its domain), BrandID its ID.
	BrandURL string `json:"brandUrl"`
	BrandID  string `json:"brandId"`
	// UserID is the addressee's ID.
	UserID string `json:"userId"`
	// ExpiresAt is when the link stops working.
	ExpiresAt time.Time `json:"expiresAt"`
}

// MessageSender delivers the messages of the service (a host's mailer, a
// queue). Send is never called on the request that caused it: with
// [WithMailOutbox], by the outbox's mail handler (for a brand without a
// default SMTP integration), retried while it fails; otherwise on a
// goroutine of its own, with a context that ends after
// [DefaultSendTimeout], an error logged. It must be safe for concurrent
// use.
type MessageSender interface {
	Send(ctx context.Context, m Message) error
}

// MessageSenderFunc adapts a function to [MessageSender].
type MessageSenderFunc func(ctx context.Context, m Message) error

// Send calls f.
func (f MessageSenderFunc) Send(ctx context.Context, m Message) error { return f(ctx, m) }

// Password-reset settings.
const (
	// ResetTokenTTL is how long a password-reset token works.
	ResetTokenTTL = time.Hour
	// DefaultSendTimeout bounds one delivery: the store write of the token
	// (and its mail) and, without [WithMailOutbox], the call of
	// MessageSender.Send.
	DefaultSendTimeout = 30 * time.Second
	// maxLinkLen bounds a resetPasswordLink, in bytes.
	maxLinkLen = 2048
)

// Codes of the account errors (docs/http-api.md gives their statuses).
const (
	CodeInvalidToken       = "invalid_token"
	CodeRegistrationClosed = "registration_closed"
	CodeOriginNotAllowed   = "origin_not_allowed"
	CodeMismatch           = "mismatch"
	CodeIncorrectPassword  = "incorrect_password"
	CodeTaken              = "taken"
)

// WithMessageSender makes the service hand password-reset links to s: the
// host's sender. With [WithMailOutbox] too, the outbox's mail handler
// calls it for a brand without a default SMTP integration
// ([Service.MessageSender]). Without either option (or with nil)
// [Service.RequestPasswordReset] and [Service.ResetPassword] fail with
// KindNotFound, and the HTTP adapter does not mount their routes
// ([Service.SendsMessages]).
func WithMessageSender(s MessageSender) Option {
	return func(svc *Service) { svc.sender = s }
}

// WithMailOutbox makes the service write each message it sends to the
// outbox, in the transaction of the change that causes it (a reset token
// and its mail are stored together, or neither): an outbox.ChannelMail
// item whose payload is an outbox.Mail, which the outbox's dispatcher
// delivers through the brand's default SMTP integration, else the host's
// MessageSender. notify, when not nil, is called after each write (the
// dispatcher's wake-up). brandbase.New sets it for an App whose outbox
// delivers mail.
func WithMailOutbox(notify func()) Option {
	return func(svc *Service) { svc.mailOut, svc.notifyMail = true, notify }
}

// SendsMessages reports whether the service sends messages: it has a
// [MessageSender] or writes its mail to the outbox ([WithMailOutbox]).
// The password-reset calls work only then.
func (s *Service) SendsMessages() bool { return s.sender != nil || s.mailOut }

var errNoSender = envelope.New(envelope.KindNotFound, "not_found", "Password reset is not available.")

// PasswordResetRequest asks for a password-reset link
// ([Service.RequestPasswordReset]).
type PasswordResetRequest struct {
	// EmailAddress is the user's address; required.
	EmailAddress string
	// ResetPasswordLink is the page of the client that takes the token:
	// an absolute http or https URL whose origin the brand allows
	// ([Service.AllowedResetOrigin]); required.
	ResetPasswordLink string
}

// RequestPasswordReset makes a password-reset token for the user of brand
// whose email address is req.EmailAddress, and sends the user the link:
// req.ResetPasswordLink with the token and emailAddress query parameters
// added. The token is 256 random bits, stored only as its SHA-256, works
// once, for [ResetTokenTTL]; a newer one replaces it. With
// [WithMailOutbox], the token and its mail (an outbox.ChannelMail item,
// kind password_reset) are written in one transaction; otherwise the
// link goes to the [MessageSender] once the token is stored. No request's
// message is dropped: each has a goroutine of its own, bounded by
// [DefaultSendTimeout].
//
// It answers the same, and in the same time, whether the address is known
// or not: both do one store read and make a token and a link; the store
// write and the delivery happen afterwards on a goroutine of their own.
//
// It fails with KindInvalid for a missing or malformed address or link,
// code origin_not_allowed (field resetPasswordLink) when the link's origin
// is not one the brand allows (an attacker who chose it would receive the
// victim's token), KindNotFound when the service sends no messages
// ([Service.SendsMessages]), and the store's errors.
func (s *Service) RequestPasswordReset(ctx context.Context, brand Brand, req PasswordResetRequest) error {
	var v envelope.Validation
	email, err := s.resetEmail(&v, req.EmailAddress)
	if err != nil {
		return err
	}
	if email != "" {
		validateEmail(&v, "emailAddress", email)
	}
	link, linkErr := s.resetLinkBase(ctx, brand, req.ResetPasswordLink)
	if linkErr != nil && !v.Merge(linkErr) {
		return linkErr
	}
	if err := v.Err(); err != nil {
		return err
	}
	user, err := s.store.UserByEmail(ctx, brand.ID, FoldKey(email))
	known := err == nil && user.BrandID == brand.ID && user.Status == StatusActive
	if err != nil && !errors.Is(err, ErrUserNotFound) {
		return err
	}
	// Known or not, the same work: a token, its hash and the link.
	token, err := s.newKey()
	if err != nil {
		return err
	}
	h := hashKey(token)
	q := link.Query()
	q.Set("token", token)
	q.Set("emailAddress", email)
	link.RawQuery = q.Encode()
	now := s.now().UTC().Truncate(time.Microsecond)
	if !known {
		return nil
	}
	t := ResetToken{UserID: user.ID, BrandID: brand.ID, Hash: h[:], CreatedAt: now, ExpiresAt: now.Add(ResetTokenTTL),
		UserStamp: user.TokenStamp()}
	m := Message{Kind: MessagePasswordReset, To: user.EmailAddress, Link: link.String(), BrandURL: brand.URL,
		BrandID: brand.ID, UserID: user.ID, ExpiresAt: t.ExpiresAt}
	go s.deliver(t, m, func() outbox.Item { return resetMail(m, user, brand, now) }) // built off the request's path
	return nil
}

// resetMail returns the outbox item of the password-reset mail m: its
// payload an outbox.Mail with the placeholders of the password_reset
// template (link, expiresAt, userName, brandName, brandUrl).
func resetMail(m Message, user UserRecord, brand Brand, now time.Time) outbox.Item {
	name := strings.TrimSpace(user.FirstName + " " + user.LastName)
	if name == "" {
		name = user.Username
	}
	payload, _ := json.Marshal(outbox.Mail{Kind: string(m.Kind), To: m.To, UserID: user.ID, Data: map[string]string{
		"link": m.Link, "expiresAt": m.ExpiresAt.UTC().Format(time.RFC3339), "userName": name,
		"brandName": brand.Name, "brandUrl": brand.URL,
	}}) // strings only: it cannot fail
	return outbox.Item{ID: "mail_" + uuid.Must(uuid.NewV7()).String(), BrandID: brand.ID, Channel: outbox.ChannelMail,
		Topic: string(m.Kind), SubjectID: user.ID, Payload: payload, CreatedAt: now}
}

// deliver stores t and sends m, bounded by DefaultSendTimeout, on the
// goroutine it is called on: with the outbox, t and its mail item (mail
// builds it) in one write (the dispatcher sends it); else t, then m
// through the sender.
// Nothing limits how many run at once: each is one store write (and,
// without the outbox, one Send), every one bounded in time.
func (s *Service) deliver(t ResetToken, m Message, mail func() outbox.Item) {
	ctx, cancel := context.WithTimeout(context.Background(), DefaultSendTimeout)
	defer cancel()
	var out []outbox.Item
	if s.mailOut {
		out = append(out, mail())
	}
	if err := s.store.PutResetToken(ctx, t, out...); errors.Is(err, ErrResetTokenInvalid) {
		s.log.InfoContext(ctx, "auth: a password-reset token not sent: its user changed since it was asked for", "user", t.UserID)
		return
	} else if err != nil {
		s.log.WarnContext(ctx, "auth: store a password-reset token", "user", t.UserID, "error", err)
		return
	}
	if s.mailOut {
		if s.notifyMail != nil {
			s.notifyMail()
		}
		return
	}
	if err := s.sender.Send(ctx, m); err != nil {
		s.log.WarnContext(ctx, "auth: send a password-reset message", "user", m.UserID, "error", err)
	}
}

// resetEmail is the start of both reset calls: errNoSender when the
// service sends no messages, else the address trimmed (a required error on v when empty).
func (s *Service) resetEmail(v *envelope.Validation, raw string) (string, error) {
	if !s.SendsMessages() {
		return "", errNoSender
	}
	email := strings.TrimSpace(raw)
	if email == "" {
		v.Add("emailAddress", "required", "The emailAddress is required.")
	}
	return email, nil
}

// resetLinkBase parses and checks a resetPasswordLink: an absolute http
// or https URL without user info, whose origin brand allows.
func (s *Service) resetLinkBase(ctx context.Context, brand Brand, raw string) (*url.URL, error) {
	const field = "resetPasswordLink"
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, envelope.Invalid("The resetPasswordLink is required.",
			envelope.Field(field, "required", "The resetPasswordLink is required."))
	}
	u, err := url.Parse(raw)
	if err != nil || len(raw) > maxLinkLen || !u.IsAbs() || u.Host == "" || u.User != nil ||
		(!strings.EqualFold(u.Scheme, "http") && !strings.EqualFold(u.Scheme, "https")) {
		return nil, envelope.Invalid("The resetPasswordLink is not valid.",
			envelope.Field(field, "invalid_url", "The resetPasswordLink must be an absolute http or https URL."))
	}
	ok, err := s.AllowedResetOrigin(ctx, brand, u.Scheme+"://"+u.Host)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, envelope.Invalid("The resetPasswordLink points elsewhere.",
			envelope.Field(field, CodeOriginNotAllowed,
				"The resetPasswordLink must point to https:// and the brand's own URL, or to an origin the brand allows."))
	}
	return u, nil
}

// AllowedResetOrigin reports whether a password-reset link may point to
// origin (scheme://host[:port]): https:// and the brand's own URL always,
// and the origins of its settings' ResetLinkOrigins. It fails with the
// errors of [Service.BrandSettings].
func (s *Service) AllowedResetOrigin(ctx context.Context, brand Brand, origin string) (bool, error) {
	o, ok := NormalizeOrigin(origin)
	if !ok {
		return false, nil
	}
	if o == "https://"+brand.URL {
		return true, nil
	}
	bs, err := s.BrandSettings(ctx, brand.ID)
	if err != nil {
		return false, err
	}
	return slices.Contains(bs.ResetLinkOrigins, o), nil
}

// PasswordReset sets a new password with a reset token
// ([Service.ResetPassword]).
type PasswordReset struct {
	// EmailAddress is the address the token was sent to; required.
	EmailAddress string
	// Token is the token of the link; required.
	Token string
	// NewPassword is the new password, under the rules of [NewUser].
	NewPassword string
}

// ResetPassword sets the password of the user a reset token was made for
// and ends every session of the user; the token works once.
//
// It fails with KindInvalid: field errors for a missing address or token,
// or a new password the rules refuse (the token stays usable); code
// invalid_token when the token is unknown, used, expired, of another
// brand, or made for another address. KindNotFound when the service
// sends no messages ([Service.SendsMessages]); the store's errors.
func (s *Service) ResetPassword(ctx context.Context, brand Brand, req PasswordReset) error {
	var v envelope.Validation
	email, err := s.resetEmail(&v, req.EmailAddress)
	if err != nil {
		return err
	}
	if req.Token == "" {
		v.Add("token", "required", "The token is required.")
	}
	validatePassword(&v, "newPassword", req.NewPassword)
	if err := v.Err(); err != nil {
		return err
	}
	if len(req.Token) > maxKeyLen {
		return ErrResetTokenInvalid
	}
	hash, err := s.hasher.hash(ctx, req.NewPassword) // bounded like a login's: the route is open to anyone
	if err != nil {
		return err
	}
	h := hashKey(req.Token)
	now := s.now().UTC().Truncate(time.Microsecond)
	// The store writes out after fn returns (auth.AccountStore's
	// UseResetToken): fn fills in the event of the user it finds.
	out := make([]outbox.Item, 1)
	u, err := s.store.UseResetToken(ctx, h[:], now, func(r *UserRecord) error {
		if r.BrandID != brand.ID || r.EmailKey != FoldKey(email) {
			return ErrResetTokenInvalid
		}
		r.PasswordHash = hash
		r.SessionEpoch++
		r.UpdatedAt = now
		out[0] = userEvent(EventUserPasswordReset, *r, now, nil)
		return nil
	}, out...)
	if err != nil {
		return err
	}
	s.invalidateUser(u.ID)
	s.emitUser(ctx, EventUserPasswordReset, u, now, nil)
	_, err = s.revokeKeys(ctx, KeySelector{UserID: u.ID})
	return err
}
