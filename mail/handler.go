package mail

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"encoding/json"
	"errors"
	"fmt"
	"net/textproto"
	"strings"
	"time"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/outbox"
)

// Rendered is a message rendered from its template: the subject, the text
// part and the HTML part.
type Rendered struct {
	Subject, Text, HTML string
}

// Renderer renders the message of kind for a brand in a language (the
// brand's default when empty) with the placeholders' values in data: the
// message templates implement it.
type Renderer interface {
	Render(ctx context.Context, brandID, language, kind string, data map[string]string) (Rendered, error)
}

// RenderFunc adapts a function to [Renderer].
type RenderFunc func(ctx context.Context, brandID, language, kind string, data map[string]string) (Rendered, error)

// Render calls f.
func (f RenderFunc) Render(ctx context.Context, brandID, language, kind string, data map[string]string) (Rendered, error) {
	return f(ctx, brandID, language, kind, data)
}

// codeSent is the Result.Code of a message the server took: 250, its
// answer to the end of DATA.
const codeSent = 250

// ErrNoSender: the brand has no default SMTP integration and the host no
// sender, so the mail cannot leave (a permanent failure of its item).
var ErrNoSender = errors.New("mail: no sender: the brand has no default SMTP integration and the host no message sender")

// Deliver sends the mail item it (payload [outbox.Mail]) as the outbox's
// handler of outbox.ChannelMail: through the brand's default SMTP
// integration, rendered by the Renderer; without one, through the host's
// auth.MessageSender (an auth.Message: data's link and expiresAt); without
// either, a permanent failure, ErrNoSender, logged. Result.Code is the
// SMTP reply code (250 when sent, 0 without an answer); a 5xx refusal of
// the recipient or the message, or an address the policy refuses, is
// Permanent; a 4xx, a network error or a timeout is retried.
func (s *Service) Deliver(ctx context.Context, it outbox.Item) outbox.Result {
	var m outbox.Mail
	if err := json.Unmarshal(it.Payload, &m); err != nil || m.To == "" || m.Kind == "" {
		return outbox.Result{Err: fmt.Errorf("mail: item %s: a payload without kind or addressee: %v", it.ID, err), Permanent: true}
	}
	sender, err := s.smtp.DefaultSMTP(ctx, it.BrandID)
	switch {
	case err == nil:
		return s.deliverSMTP(ctx, it, m, sender)
	case !errors.Is(err, integrations.ErrNoDefaultSMTP):
		return outbox.Result{Err: fmt.Errorf("mail: reading the default SMTP integration: %w", err)}
	case s.fallback != nil:
		return s.deliverFallback(ctx, it, m)
	}
	s.log.WarnContext(ctx, "mail not sent: no sender", "brandId", it.BrandID, "item", it.ID, "kind", m.Kind)
	return outbox.Result{Err: ErrNoSender, Permanent: true}
}

// deliverSMTP renders m and sends it through the brand's SMTP sender.
func (s *Service) deliverSMTP(ctx context.Context, it outbox.Item, m outbox.Mail, sender integrations.SMTPSender) outbox.Result {
	if s.renderer == nil {
		return outbox.Result{Err: errors.New("mail: no renderer of message templates is configured"), Permanent: true}
	}
	r, err := s.renderer.Render(ctx, it.BrandID, m.Language, m.Kind, m.Data)
	if err != nil {
		return outbox.Result{Err: fmt.Errorf("mail: rendering %s: %w", m.Kind, err), Permanent: true}
	}
	name := sender.FromName
	if name == "" {
		name = m.Data["brandName"]
	}
	err = s.Send(ctx, sender.Server, Message{From: sender.From, FromName: name, To: m.To,
		Subject: r.Subject, Text: r.Text, HTML: r.HTML})
	if err == nil {
		return outbox.Result{Code: codeSent}
	}
	var se *SendError
	if errors.As(err, &se) {
		return outbox.Result{Code: se.Code, Err: err, Permanent: se.Permanent}
	}
	return outbox.Result{Err: err}
}

// deliverFallback hands m to the host's sender as an auth.Message.
func (s *Service) deliverFallback(ctx context.Context, it outbox.Item, m outbox.Mail) outbox.Result {
	msg := auth.Message{Kind: auth.MessageKind(m.Kind), To: m.To, Link: m.Data["link"], BrandID: it.BrandID,
		BrandURL: m.Data["brandUrl"], UserID: m.UserID}
	if t, err := time.Parse(time.RFC3339Nano, m.Data["expiresAt"]); err == nil {
		msg.ExpiresAt = t
	}
	if msg.BrandURL == "" && s.brands != nil {
		b, err := s.brands.Brand(ctx, it.BrandID)
		if err != nil && envelope.KindOf(err) != envelope.KindNotFound {
			return outbox.Result{Err: fmt.Errorf("mail: reading the brand: %w", err)}
		}
		msg.BrandURL = b.URL
	}
	if err := s.fallback.Send(ctx, msg); err != nil {
		return outbox.Result{Err: fmt.Errorf("mail: the host's sender: %w", err)}
	}
	return outbox.Result{}
}

// replyCode returns the SMTP reply code err carries, 0 for none.
func replyCode(err error) int {
	var te *textproto.Error
	if errors.As(err, &te) {
		return te.Code
	}
	return 0
}

// randomID returns 128 random bits in lower-case base32: the local part
// of a Message-ID.
func randomID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return strings.ToLower(base32.HexEncoding.WithPadding(base32.NoPadding).EncodeToString(b[:]))
}
