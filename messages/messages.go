// Package messages renders the messages brandbase sends (the mail of its
// sign-in flows): each kind has a built-in subject, text body and HTML body,
// which a brand may override per language.
//
// # Templates
//
// Templates are Go templates over the kind's placeholders ([Placeholders]):
// {{.link}}, {{.userName}}, ... The subject and the text body are
// text/template, the HTML body html/template, so a value is escaped for
// where it stands (an attribute, a URL, text). A template that does not
// parse, or fails to render with sample values of the kind's placeholders
// (an unknown placeholder among them), is refused when it is saved, with a
// field error (code invalid_template): never when a user needs it.
//
// # Which template renders
//
// [Service.Render] takes the brand's override of the kind for the
// language asked for (en-GB), else for its base language (en), else the
// brand's default override (language ""), else the built-in. An override
// without a text body takes the built-in text body of its kind.
package messages

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	htmltemplate "html/template"
	"log/slog"
	"regexp"
	"strings"
	texttemplate "text/template"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
)

// Permissions of the templates' routes and methods.
const (
	// PermRead lets a user read the brand's templates.
	PermRead auth.Permission = "email-templates.read"
	// PermWrite lets a user create, change and delete them (and read them).
	PermWrite auth.Permission = "email-templates.write"
)

// Error codes of the package.
const (
	// CodeInvalidTemplate: a template does not parse or does not render
	// with sample data (a field error on subject, body or textBody).
	CodeInvalidTemplate = "invalid_template"
	// CodeTemplateExists: the brand has a template of that kind and
	// language already.
	CodeTemplateExists = "template_exists"
	// CodeAccessDenied: the caller lacks the permission.
	CodeAccessDenied = "access_denied"
)

// Bounds of a template.
const (
	MaxSubjectLen  = 255      // bytes of the subject's source
	MaxBodyLen     = 64 << 10 // bytes of each body's source
	maxLanguageLen = 35
)

// The store's sentinel errors.
var (
	// ErrTemplateNotFound: no template with that ID in the brand.
	ErrTemplateNotFound = envelope.NotFound("The email template does not exist.")
	// ErrTemplateExists: the brand has a template of that kind and
	// language.
	ErrTemplateExists = envelope.New(envelope.KindConflict, CodeTemplateExists,
		"The brand has an email template of that event and language already.")
)

// Template is a brand's override of the templates of one kind of message
// in one language.
type Template struct {
	// ID is assigned at creation.
	ID string
	// BrandID is the brand it belongs to.
	BrandID string
	// Kind is the kind of message (password_reset).
	Kind string
	// Language is a BCP 47 tag in lower case (en, pt-br), or "" for the
	// brand's default, used for every language without its own.
	Language string
	// Subject, Text and HTML are the templates' sources; Text empty takes
	// the kind's built-in text body.
	Subject, Text, HTML string
	// CreatedAt and UpdatedAt are when it was created and last changed.
	CreatedAt, UpdatedAt time.Time
}

// Store keeps the templates. Every method is atomic and safe for
// concurrent use; a cancelled context fails it and writes nothing.
type Store interface {
	// CreateTemplate stores t. [ErrTemplateExists] if its brand has one of
	// its Kind and Language; auth.ErrBrandNotFound if the brand does not
	// exist.
	CreateTemplate(ctx context.Context, t Template) error
	// UpdateTemplate replaces the template of t.BrandID with t.ID (all
	// but CreatedAt). [ErrTemplateNotFound] if absent;
	// [ErrTemplateExists] if another of the brand has t's Kind and
	// Language.
	UpdateTemplate(ctx context.Context, t Template) error
	// DeleteTemplate deletes the template of brandID with that ID.
	// [ErrTemplateNotFound] if absent.
	DeleteTemplate(ctx context.Context, brandID, id string) error
	// TemplateByID returns the template of brandID with that ID, or
	// [ErrTemplateNotFound].
	TemplateByID(ctx context.Context, brandID, id string) (Template, error)
	// ListTemplates returns the templates of brandID, of kind when not
	// empty, ordered by kind, language, then creation.
	ListTemplates(ctx context.Context, brandID, kind string) ([]Template, error)
}

// Rendered is a message rendered: its subject, text part and HTML part.
type Rendered struct {
	Subject, Text, HTML string
}

// Service manages the templates and renders messages. It is safe for
// concurrent use.
type Service struct {
	store Store
	now   func() time.Time
	log   *slog.Logger
}

// Option configures a Service.
type Option func(*Service)

// WithClock sets the clock (time.Now by default).
func WithClock(now func() time.Time) Option {
	return func(s *Service) {
		if now != nil {
			s.now = now
		}
	}
}

// WithLogger sets the logger of a stored template that fails to render
// (slog.Default() by default).
func WithLogger(l *slog.Logger) Option {
	return func(s *Service) {
		if l != nil {
			s.log = l
		}
	}
}

// NewService returns a Service on store.
func NewService(store Store, opts ...Option) *Service {
	s := &Service{store: store, now: time.Now, log: slog.Default()}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Input is a template as a caller gives it, in the field names of the
// spec's origin's client (jfw-js src/features/emailTemplate).
type Input struct {
	// EventID is the kind of message (password_reset); required.
	EventID string `json:"eventId"`
	// LanguageCode is a BCP 47 tag (en, pt-BR); empty for the brand's
	// default.
	LanguageCode string `json:"languageCode"`
	// CountryCode and Tags are accepted as the client sends them and not
	// kept.
	CountryCode *string `json:"countryCode"`
	Tags        *string `json:"tags"`
	// Subject is the subject's template (text); required, one line.
	Subject string `json:"subject"`
	// Body is the HTML body's template; required.
	Body string `json:"body"`
	// TextBody is the text body's template; empty for the kind's built-in.
	TextBody *string `json:"textBody"`
}

var languageTag = regexp.MustCompile(`^[a-z]{2,3}(-[a-z0-9]{1,8})*$`)

// validate checks in and returns the template's fields (ID, brand and
// times unset): KindInvalid with a field error per bad field.
func validate(in Input) (Template, error) {
	var v envelope.Validation
	t := Template{Kind: strings.TrimSpace(in.EventID), Language: strings.ToLower(strings.TrimSpace(in.LanguageCode)),
		Subject: in.Subject, HTML: in.Body}
	if in.TextBody != nil {
		t.Text = *in.TextBody
	}
	switch _, ok := kinds[t.Kind]; {
	case t.Kind == "":
		v.Add("eventId", "required", "The eventId is required.")
	case !ok:
		v.Add("eventId", "invalid_enum", "The eventId must be one of: "+strings.Join(Kinds(), ", ")+".")
	}
	if t.Language != "" && (len(t.Language) > maxLanguageLen || !languageTag.MatchString(t.Language)) {
		v.Add("languageCode", "invalid_format", "The languageCode must be a language tag such as en or pt-BR.")
	}
	checkSource(&v, "subject", t.Subject, MaxSubjectLen, true)
	if strings.ContainsAny(t.Subject, "\r\n") {
		v.Add("subject", "invalid_format", "The subject must be one line.")
	}
	checkSource(&v, "body", t.HTML, MaxBodyLen, true)
	checkSource(&v, "textBody", t.Text, MaxBodyLen, false)
	if err := v.Err(); err != nil {
		return Template{}, err
	}
	return t, tryRender(kinds[t.Kind], t)
}

// checkSource adds the field errors of one template source.
func checkSource(v *envelope.Validation, field, src string, maxLen int, required bool) {
	switch {
	case required && strings.TrimSpace(src) == "":
		v.Add(field, "required", "The "+field+" is required.")
	case len(src) > maxLen:
		v.Add(field, "too_long", fmt.Sprintf("The %s must be at most %d bytes.", field, maxLen))
	case !utf8.ValidString(src) || strings.ContainsRune(src, 0):
		v.Add(field, "invalid_format", "The "+field+" must be text.")
	}
}

// tryRender parses t's sources and renders them with k's sample values,
// refusing a placeholder k does not have: KindInvalid with a field error
// (code invalid_template) per template that fails.
func tryRender(k *kind, t Template) error {
	var v envelope.Validation
	fail := func(field string, err error) {
		v.Add(field, CodeInvalidTemplate, "The "+field+" is not a valid template: "+err.Error())
	}
	if st, err := texttemplate.New("subject").Option("missingkey=error").Parse(t.Subject); err != nil {
		fail("subject", err)
	} else if err := st.Execute(&bytes.Buffer{}, k.samples); err != nil {
		fail("subject", err)
	}
	if t.Text != "" {
		if tt, err := texttemplate.New("textBody").Option("missingkey=error").Parse(t.Text); err != nil {
			fail("textBody", err)
		} else if err := tt.Execute(&bytes.Buffer{}, k.samples); err != nil {
			fail("textBody", err)
		}
	}
	if ht, err := htmltemplate.New("body").Option("missingkey=error").Parse(t.HTML); err != nil {
		fail("body", err)
	} else if err := ht.Execute(&bytes.Buffer{}, k.samples); err != nil {
		fail("body", err)
	}
	return v.Err()
}

// parse parses the three sources of a message's templates (text empty:
// nil), as Render runs them: a missing placeholder renders empty.
func parse(subject, text, html string) (*texttemplate.Template, *texttemplate.Template, *htmltemplate.Template, error) {
	st, err := texttemplate.New("subject").Option("missingkey=zero").Parse(subject)
	if err != nil {
		return nil, nil, nil, err
	}
	var tt *texttemplate.Template
	if text != "" {
		if tt, err = texttemplate.New("text").Option("missingkey=zero").Parse(text); err != nil {
			return nil, nil, nil, err
		}
	}
	ht, err := htmltemplate.New("html").Option("missingkey=zero").Parse(html)
	if err != nil {
		return nil, nil, nil, err
	}
	return st, tt, ht, nil
}

// authorize checks that actor may use perm in its brand (PermWrite
// includes PermRead).
func authorize(actor auth.Principal, perm auth.Permission) error {
	if actor.BrandID == "" || actor.UserID == "" && !actor.System ||
		!actor.Can(perm) && !(perm == PermRead && actor.Can(PermWrite)) {
		return envelope.New(envelope.KindForbidden, CodeAccessDenied,
			"You do not have the permission to manage the email templates of this brand.")
	}
	return nil
}

// Create stores a new template in actor's brand, on behalf of actor (who
// needs [PermWrite] there). It fails with KindForbidden (access_denied),
// KindInvalid (a field error per bad field; invalid_template for a
// template that does not parse or render with sample data), and
// [ErrTemplateExists] (409 template_exists).
func (s *Service) Create(ctx context.Context, actor auth.Principal, in Input) (Template, error) {
	if err := authorize(actor, PermWrite); err != nil {
		return Template{}, err
	}
	t, err := validate(in)
	if err != nil {
		return Template{}, err
	}
	now := s.now().UTC().Truncate(time.Microsecond)
	t.ID, t.BrandID, t.CreatedAt, t.UpdatedAt = uuid.Must(uuid.NewV7()).String(), actor.BrandID, now, now
	if err := s.store.CreateTemplate(ctx, t); err != nil {
		return Template{}, err
	}
	return t, nil
}

// Update replaces the template with that ID in actor's brand, with the
// rules and errors of [Service.Create], and [ErrTemplateNotFound].
func (s *Service) Update(ctx context.Context, actor auth.Principal, id string, in Input) (Template, error) {
	if err := authorize(actor, PermWrite); err != nil {
		return Template{}, err
	}
	cur, err := s.store.TemplateByID(ctx, actor.BrandID, id)
	if err != nil {
		return Template{}, err
	}
	t, err := validate(in)
	if err != nil {
		return Template{}, err
	}
	t.ID, t.BrandID, t.CreatedAt = cur.ID, cur.BrandID, cur.CreatedAt
	t.UpdatedAt = s.now().UTC().Truncate(time.Microsecond)
	if err := s.store.UpdateTemplate(ctx, t); err != nil {
		return Template{}, err
	}
	return t, nil
}

// Delete deletes the template with that ID in actor's brand (its kind
// and language fall back as Render says). KindForbidden without
// [PermWrite]; [ErrTemplateNotFound].
func (s *Service) Delete(ctx context.Context, actor auth.Principal, id string) error {
	if err := authorize(actor, PermWrite); err != nil {
		return err
	}
	return s.store.DeleteTemplate(ctx, actor.BrandID, id)
}

// Template returns the template with that ID in actor's brand. KindForbidden
// without [PermRead] (or PermWrite); [ErrTemplateNotFound].
func (s *Service) Template(ctx context.Context, actor auth.Principal, id string) (Template, error) {
	if err := authorize(actor, PermRead); err != nil {
		return Template{}, err
	}
	return s.store.TemplateByID(ctx, actor.BrandID, id)
}

// Filter selects templates for [Service.Templates]; an empty field selects
// every value.
type Filter struct {
	// Kind is a kind of message (eventId).
	Kind string
	// Language is a language tag, compared case-insensitively.
	Language *string
}

// Templates returns the templates of actor's brand that f selects, by
// kind, language, then creation. KindForbidden without [PermRead].
func (s *Service) Templates(ctx context.Context, actor auth.Principal, f Filter) ([]Template, error) {
	if err := authorize(actor, PermRead); err != nil {
		return nil, err
	}
	ts, err := s.store.ListTemplates(ctx, actor.BrandID, strings.TrimSpace(f.Kind))
	if err != nil || f.Language == nil {
		return ts, err
	}
	lang := strings.ToLower(strings.TrimSpace(*f.Language))
	out := ts[:0]
	for _, t := range ts {
		if t.Language == lang {
			out = append(out, t)
		}
	}
	return out, nil
}

// Render renders the message of kind for brandID in language with the
// placeholders' values in data, from the template Render picks (see the
// package comment). A stored template that fails to render (which its
// save refused) is logged and the built-in renders instead. It fails with
// KindInvalid for an unknown kind, and with the store's errors.
func (s *Service) Render(ctx context.Context, brandID, language, kind string, data map[string]string) (Rendered, error) {
	k, ok := kinds[kind]
	if !ok {
		return Rendered{}, envelope.Invalid("Unknown message kind.",
			envelope.Field("kind", "invalid_enum", "The kind must be one of: "+strings.Join(Kinds(), ", ")+"."))
	}
	ts, err := s.store.ListTemplates(ctx, brandID, kind)
	if err != nil {
		return Rendered{}, err
	}
	if t, ok := pick(ts, language); ok {
		r, err := renderOverride(k, t, data)
		if err == nil {
			return r, nil
		}
		s.log.WarnContext(ctx, "messages: a stored template failed to render; the built-in one is sent",
			"brand", brandID, "kind", kind, "template", t.ID, "error", err)
	}
	return render(k.subject, k.text, k.html, data)
}

// pick returns the template of ts for language: its own, its base
// language's, or the brand's default.
func pick(ts []Template, language string) (Template, bool) {
	lang := strings.ToLower(strings.TrimSpace(language))
	base, _, _ := strings.Cut(lang, "-")
	for _, want := range []string{lang, base, ""} {
		for _, t := range ts {
			if t.Language == want {
				return t, true
			}
		}
	}
	return Template{}, false
}

// renderOverride renders t, its text body the kind's built-in when empty.
func renderOverride(k *kind, t Template, data map[string]string) (Rendered, error) {
	st, tt, ht, err := parse(t.Subject, t.Text, t.HTML)
	if err != nil {
		return Rendered{}, err
	}
	if tt == nil {
		tt = k.text
	}
	return render(st, tt, ht, data)
}

// render executes the three templates with data; the subject is one line.
func render(st, tt *texttemplate.Template, ht *htmltemplate.Template, data map[string]string) (Rendered, error) {
	if data == nil {
		data = map[string]string{}
	}
	var subject, text, html bytes.Buffer
	if err := errors.Join(st.Execute(&subject, data), tt.Execute(&text, data), ht.Execute(&html, data)); err != nil {
		return Rendered{}, fmt.Errorf("messages: render: %w", err)
	}
	oneLine := strings.Join(strings.Fields(subject.String()), " ")
	return Rendered{Subject: oneLine, Text: text.String(), HTML: html.String()}, nil
}
