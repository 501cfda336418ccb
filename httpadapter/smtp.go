package httpadapter

import (
	"context"
	"net/http"
	"reflect"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/mail"
)

// SMTPUpdateRequest is the body of PUT /api/v1/app-integrations/smtp/{id}:
// the configuration and who acts.
type SMTPUpdateRequest struct {
	integrations.SMTPInput
	BodyIdentity
}

// putSMTP answers PUT /api/v1/app-integrations/smtp/{id}.
func putSMTP(h *Handler) http.HandlerFunc {
	return putRecord(h,
		func(ctx context.Context, actor auth.Principal, id string, b *SMTPUpdateRequest, pre integrations.Precondition) (integrations.SMTP, error) {
			return h.svc.Integrations.UpdateSMTP(ctx, actor, id, b.SMTPInput, pre)
		})
}

// testSMTP answers POST /api/v1/app-integrations/smtp/test: it sends one
// message with the body's settings, as the caller, and answers true.
func (h *Handler) testSMTP(w http.ResponseWriter, r *http.Request) {
	var body mail.TestInput
	if err := decodeJSON(w, r, &body); err != nil {
		h.fail(w, r, err)
		return
	}
	ctx := r.Context()
	if err := h.svc.Mail.SendTest(ctx, actor(ctx), body); err != nil {
		h.fail(w, r, err)
		return
	}
	h.ok(w, r, true)
}

// smtpBodyErrors are the field error codes of an SMTP configuration's
// body.
var smtpBodyErrors = []string{"required", "too_short", "too_long", "invalid_format", "out_of_range", "invalid_enum",
	integrations.CodeInvalidHost, integrations.CodeInvalidEmail, integrations.CodeTLSRequired,
	"unknown_reference", "type_mismatch", "invalid_type"}

// smtpRoutes are the routes of the brand's SMTP integrations, in jfw-js's
// paths (src/features/appIntegration/smtp).
var smtpRoutes = []route{
	{
		pattern: "GET /api/v1/app-integrations/smtp", id: "listSMTP", tag: tagIntegrations,
		summary: "List SMTP integrations",
		description: "The brand's SMTP configurations, oldest first, as a bare array, password masked (all but the last 4 characters are *); " +
			"any user of the brand may list. A record whose password does not decrypt is listed with password null.",
		access: accessAuthKey, integrations: true, data: reflect.TypeFor[[]integrations.SMTP](), etag: etagRead,
		serve: func(h *Handler) http.HandlerFunc { return listConfigs(h, h.svc.Integrations.ListSMTP) },
	},
	{
		pattern: "POST /api/v1/app-integrations/smtp", id: "createSMTP", tag: tagIntegrations,
		summary: "Create an SMTP integration",
		description: "Creates an SMTP configuration in the caller's brand; needs integrations.smtp.write. appIntegrationId (an SMTP app integration), " +
			"name, host, port (1..65535) and emailAddressFrom are required; username and password go together (or neither, for a server " +
			"that takes mail without AUTH). useTls: implicit TLS on port 465, STARTTLS required on any other port; useTls false only for a " +
			"loopback host (tls_required otherwise). isDefault makes it the brand's default (the one its mail goes through), clearing the others'. " +
			"Answers 201 with the new record, password masked, and its ETag.",
		access: accessAuthKey, integrations: true, created: true, etag: etagSent,
		body: reflect.TypeFor[integrations.SMTPInput](), data: reflect.TypeFor[integrations.SMTP](), limit: limitUpdates,
		errors: map[int][]string{400: smtpBodyErrors, 403: {integrations.CodeAccessDenied}},
		serve:  func(h *Handler) http.HandlerFunc { return createRecord(h, h.svc.Integrations.CreateSMTP) },
	},
	{
		pattern: "POST /api/v1/app-integrations/smtp/test", id: "testSMTP", tag: tagIntegrations,
		summary: "Send a test message",
		description: "Sends one message (subject, body as its text and HTML parts) from emailAddressFrom to emailAddressTo through the SMTP " +
			"settings of the body (host, port, username, password, useTls, as a configuration's rules say); needs integrations.smtp.write. " +
			"The host is held to the service's address rules, checked on the address it resolves to: an address of the service's own network " +
			"(private, loopback, link-local) is 400 forbidden_address unless the host application allows it, and is not dialled. " +
			"An SMTP failure (no connection, TLS or AUTH refused, the message refused) is 502 smtp_failed with the server's reply; " +
			"the whole send is bounded (30 s). Answers data: true once the server took the message.",
		access: accessAuthKey, mail: true, body: reflect.TypeFor[mail.TestInput](), data: reflect.TypeFor[bool](), limit: limitUpdates,
		errors: map[int][]string{
			400: {"required", "too_long", "invalid_format", "out_of_range", integrations.CodeInvalidHost, integrations.CodeInvalidEmail,
				integrations.CodeTLSRequired, mail.CodeForbiddenAddress, "invalid_type"},
			403: {integrations.CodeAccessDenied},
			502: {mail.CodeSMTPFailed},
		},
		serve: func(h *Handler) http.HandlerFunc { return h.testSMTP },
	},
	{
		pattern: "GET /api/v1/app-integrations/smtp/{id}", id: "getSMTP", tag: tagIntegrations,
		summary:     "Read an SMTP integration",
		description: "Any user of the brand may read; password is masked (all but the last 4 characters are *).",
		access:      accessAuthKey, integrations: true, data: reflect.TypeFor[integrations.SMTP](), etag: etagRead,
		errors: map[int][]string{404: {"not_found"}},
		serve:  func(h *Handler) http.HandlerFunc { return getRecord(h, h.svc.Integrations.SMTP) },
	},
	{
		pattern: "PUT /api/v1/app-integrations/smtp/{id}", id: "updateSMTP", tag: tagIntegrations,
		summary: "Update an SMTP integration",
		description: "Replaces the configuration; needs integrations.smtp.write. The rules of the create apply. password not sent, or sent back " +
			"masked, keeps the stored one; a status not sent keeps the stored status. The body's authKey and brandUrl, when present, " +
			"name who acts and in which brand.",
		access: accessAuthKey, integrations: true, headers: []string{"If-Match"},
		body: reflect.TypeFor[SMTPUpdateRequest](), data: reflect.TypeFor[integrations.SMTP](), etag: etagWrite, limit: limitUpdates,
		errors: map[int][]string{400: smtpBodyErrors, 403: {integrations.CodeAccessDenied}, 404: {"not_found"}},
		serve:  putSMTP,
	},
	{
		pattern: "DELETE /api/v1/app-integrations/smtp/{id}", id: "deleteSMTP", tag: tagIntegrations,
		summary: "Delete an SMTP integration",
		description: "Deletes the configuration and its password; needs integrations.smtp.write. A revision records who deleted it. " +
			"Deleting the default leaves the brand's mail to the host's sender, if any. Answers data: true.",
		access: accessAuthKey, integrations: true, data: reflect.TypeFor[bool](), limit: limitUpdates,
		errors: map[int][]string{403: {integrations.CodeAccessDenied}, 404: {"not_found"}},
		serve:  func(h *Handler) http.HandlerFunc { return deleteRecord(h, h.svc.Integrations.DeleteSMTP) },
	},
}
