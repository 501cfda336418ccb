package httpadapter

import (
	"net/http"
	"reflect"

	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/messages"
	"github.com/brandbase/brandbase/refdata"
)

// EmailTemplate is a message template as the routes under
// /api/v1/email-templates answer it, in jfw-js's IEmailTemplate shape.
type EmailTemplate struct {
	// ID names the template.
	ID string `json:"id"`
	// LanguageCode is its language; "" for the brand's default.
	LanguageCode string `json:"languageCode"`
	// CountryCode and Tags are jfw-js's, never kept: null.
	CountryCode *string `json:"countryCode"`
	Tags        *string `json:"tags"`
	// Subject is the subject's template.
	Subject string `json:"subject"`
	// Body is the HTML body's template.
	Body string `json:"body"`
	// TextBody is the text body's template; "" when the built-in one is
	// used.
	TextBody string `json:"textBody"`
	// Event is the kind of message, as jfw-js's IEvent.
	Event EmailEvent `json:"event"`
	// CreatedDate and UpdatedDate are RFC 3339 with a numeric offset.
	CreatedDate string `json:"createdDate"`
	UpdatedDate string `json:"updatedDate"`
}

// EmailEvent is a kind of message in jfw-js's IEvent shape: id and code
// are the kind.
type EmailEvent struct {
	ID            string `json:"id"`
	Code          string `json:"code"`
	Name          string `json:"name"`
	GroupCodeName string `json:"groupCodeName"`
	Status        string `json:"status"`
	IsSystem      bool   `json:"isSystem"`
}

// emailTemplateView is t as the routes answer it.
func emailTemplateView(t messages.Template) EmailTemplate {
	return EmailTemplate{ID: t.ID, LanguageCode: t.Language, Subject: t.Subject, Body: t.HTML, TextBody: t.Text,
		Event:       EmailEvent{ID: t.Kind, Code: t.Kind, Name: t.Kind, GroupCodeName: "messages", Status: "Active", IsSystem: true},
		CreatedDate: t.CreatedAt.UTC().Format(integrations.DateLayout),
		UpdatedDate: t.UpdatedAt.UTC().Format(integrations.DateLayout)}
}

// emailTemplateParams are the query parameters of GET email-templates.
var emailTemplateParams = []refdata.Param{
	{Name: "eventId", Type: reflect.TypeFor[string](), Kind: refdata.ParamCode, Doc: "A kind of message (password_reset)."},
	{Name: "languageCode", Type: reflect.TypeFor[string](), Kind: refdata.ParamCode,
		Doc: "A language tag, any case; empty selects the brand's default templates."},
}

// listEmailTemplates answers GET /api/v1/email-templates.
func (h *Handler) listEmailTemplates(w http.ResponseWriter, r *http.Request) {
	q := newQuery(r)
	var f messages.Filter
	f.Kind, _ = q.get("eventId")
	if v, ok := q.get("languageCode"); ok {
		f.Language = &v
	}
	ctx := r.Context()
	ts, err := h.svc.Messages.Templates(ctx, actor(ctx), f)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	out := make([]EmailTemplate, len(ts))
	for i, t := range ts {
		out[i] = emailTemplateView(t)
	}
	h.ok(w, r, out)
}

// saveEmailTemplate answers POST (create, id "") and PUT (update) of a
// template.
func (h *Handler) saveEmailTemplate(w http.ResponseWriter, r *http.Request) {
	var body messages.Input
	if err := decodeJSON(w, r, &body); err != nil {
		h.fail(w, r, err)
		return
	}
	ctx := r.Context()
	var t messages.Template
	var err error
	status := http.StatusOK
	if id := r.PathValue("id"); id != "" {
		t, err = h.svc.Messages.Update(ctx, actor(ctx), id, body)
	} else {
		t, err = h.svc.Messages.Create(ctx, actor(ctx), body)
		status = http.StatusCreated
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.writeEnvelope(w, r, envelope.Success(status, "", emailTemplateView(t)))
}

// getEmailTemplate answers GET /api/v1/email-templates/{id}.
func (h *Handler) getEmailTemplate(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	t, err := h.svc.Messages.Template(ctx, actor(ctx), r.PathValue("id"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.ok(w, r, emailTemplateView(t))
}

// templateBodyErrors are the field error codes of a template's body.
var templateBodyErrors = []string{"required", "too_long", "invalid_format", "invalid_enum", messages.CodeInvalidTemplate, "invalid_type"}

// emailTemplateRoutes are the routes of the brand's message templates, in
// jfw-js's paths (src/features/emailTemplate).
var emailTemplateRoutes = []route{
	{
		pattern: "GET /api/v1/email-templates", id: "listEmailTemplates", tag: tagMessages,
		summary:     "List email templates",
		description: "The brand's message templates, by kind then language, as a bare array; needs email-templates.read (or .write). eventId and languageCode filter.",
		access:      accessAuthKey, messages: true, query: emailTemplateParams, data: reflect.TypeFor[[]EmailTemplate](),
		errors: map[int][]string{403: {messages.CodeAccessDenied}},
		serve:  func(h *Handler) http.HandlerFunc { return h.listEmailTemplates },
	},
	{
		pattern: "POST /api/v1/email-templates", id: "createEmailTemplate", tag: tagMessages,
		summary: "Create an email template",
		description: "Overrides the built-in templates of a kind of message (eventId: password_reset) in a language (languageCode; empty for the " +
			"brand's default); needs email-templates.write. subject (text, one line) and body (HTML) are Go templates over the kind's placeholders " +
			"(GET email-templates/placeholder-keys), written {{.link}}; textBody, the text part, is optional (the built-in one without it). " +
			"A template that does not parse or render with sample values is 400 invalid_template. Answers 201 with the template.",
		access: accessAuthKey, messages: true, created: true, body: reflect.TypeFor[messages.Input](),
		data: reflect.TypeFor[EmailTemplate](), limit: limitUpdates,
		errors: map[int][]string{400: templateBodyErrors, 403: {messages.CodeAccessDenied}, 409: {messages.CodeTemplateExists}},
		serve:  func(h *Handler) http.HandlerFunc { return h.saveEmailTemplate },
	},
	{
		pattern: "GET /api/v1/email-templates/placeholder-keys", id: "getEmailTemplatePlaceholderKeys", tag: tagMessages,
		summary:     "List the placeholder keys",
		description: "The placeholder keys of each kind of message, by kind: what a template may write as {{.key}}.",
		access:      accessAuthKey, messages: true, data: reflect.TypeFor[map[string][]string](),
		serve: func(h *Handler) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) { h.ok(w, r, messages.PlaceholderKeys()) }
		},
	},
	{
		pattern: "GET /api/v1/email-templates/{id}", id: "getEmailTemplate", tag: tagMessages,
		summary:     "Read an email template",
		description: "Needs email-templates.read (or .write).",
		access:      accessAuthKey, messages: true, data: reflect.TypeFor[EmailTemplate](),
		errors: map[int][]string{403: {messages.CodeAccessDenied}, 404: {"not_found"}},
		serve:  func(h *Handler) http.HandlerFunc { return h.getEmailTemplate },
	},
	{
		pattern: "PUT /api/v1/email-templates/{id}", id: "updateEmailTemplate", tag: tagMessages,
		summary:     "Update an email template",
		description: "Replaces the template, with the rules of the create; needs email-templates.write.",
		access:      accessAuthKey, messages: true, body: reflect.TypeFor[messages.Input](), data: reflect.TypeFor[EmailTemplate](),
		limit: limitUpdates,
		errors: map[int][]string{400: templateBodyErrors, 403: {messages.CodeAccessDenied}, 404: {"not_found"},
			409: {messages.CodeTemplateExists}},
		serve: func(h *Handler) http.HandlerFunc { return h.saveEmailTemplate },
	},
	{
		pattern: "DELETE /api/v1/email-templates/{id}", id: "deleteEmailTemplate", tag: tagMessages,
		summary:     "Delete an email template",
		description: "Deletes the template: its kind and language fall back again (base language, brand default, built-in). Needs email-templates.write. Answers data: true.",
		access:      accessAuthKey, messages: true, data: reflect.TypeFor[bool](), limit: limitUpdates,
		errors: map[int][]string{403: {messages.CodeAccessDenied}, 404: {"not_found"}},
		serve:  func(h *Handler) http.HandlerFunc { return deleteRecord(h, h.svc.Messages.Delete) },
	},
}
