package httpadapter

import (
	"context"
	"net/http"
	"reflect"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/refdata"
)

// appIntegrationParams are the query parameters of GET
// /api/v1/app-integrations (names in any case), as the OpenAPI document
// lists them.
var appIntegrationParams = []refdata.Param{
	{Name: "type", Type: reflect.TypeFor[string](), Kind: refdata.ParamCode, Doc: "Analytics, PaymentGateway or SMTP, any case."},
	{Name: "status", Type: reflect.TypeFor[string](), Kind: refdata.ParamCode, Doc: "Active or Inactive, any case."},
	{Name: "keywords", Type: reflect.TypeFor[string](), Kind: refdata.ParamKeywords,
		Doc: "Free text: every word must be the start of a word of the integration's type, name, domain or description, case and accents ignored."},
}

// listAppIntegrations answers GET /api/v1/app-integrations: the brand's
// app integrations that the query selects, as a bare array (jfw-js reads
// IAppIntegration[]).
func (h *Handler) listAppIntegrations(w http.ResponseWriter, r *http.Request) {
	q := newQuery(r)
	var aq integrations.AppIntegrationQuery
	for name, dst := range map[string]**string{"type": &aq.Type, "status": &aq.Status, "keywords": &aq.Keywords} {
		if v, ok := q.get(name); ok {
			*dst = &v
		}
	}
	ctx := r.Context()
	list, err := h.svc.Integrations.ListAppIntegrations(ctx, brandFrom(ctx).ID, aq)
	h.answerList(w, r, list, err, cacheIntegration)
}

// listConfigs answers a GET of every configuration of one kind in the
// request's brand, secrets masked, as a bare array.
func listConfigs[T any](h *Handler, list func(ctx context.Context, brandID string) ([]T, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		recs, err := list(ctx, brandFrom(ctx).ID)
		h.answerList(w, r, recs, err, cacheIntegration)
	}
}

// answerList answers r with data (or err), under the strong ETag of its
// encoded envelope; a matching If-None-Match gets 304.
func (h *Handler) answerList(w http.ResponseWriter, r *http.Request, data any, err error, cacheControl string) {
	if err != nil {
		h.fail(w, r, err)
		return
	}
	e, err := encodeList(data)
	h.answerEncoded(w, r, e, err, cacheControl)
}

// actor returns who a create or delete acts as: the caller, in the
// request's brand.
func actor(ctx context.Context) auth.Principal {
	return auth.Acting{Brand: brandFrom(ctx), Principal: principalFrom(ctx)}.Actor()
}

// createRecord answers a POST with a body B: it decodes the body and
// creates the record as the caller, answering 201 with the new record and
// its ETag.
func createRecord[B any, T tagged](h *Handler, create func(ctx context.Context, actor auth.Principal, body B) (T, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var body B
		if err := decodeJSON(w, r, &body); err != nil {
			h.fail(w, r, err)
			return
		}
		ctx := r.Context()
		rec, err := create(ctx, actor(ctx), body)
		if err != nil {
			h.fail(w, r, err)
			return
		}
		w.Header().Set("ETag", rec.ETag())
		w.Header().Set("Cache-Control", cacheIntegration)
		h.writeEnvelope(w, r, envelope.Success(http.StatusCreated, "", rec))
	}
}

// deleteRecord answers a DELETE of the path's {id} with 200 and data
// true, as jfw-js reads it.
func deleteRecord(h *Handler, del func(ctx context.Context, actor auth.Principal, id string) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		if err := del(ctx, actor(ctx), r.PathValue("id")); err != nil {
			h.fail(w, r, err)
			return
		}
		h.ok(w, r, true)
	}
}

// integrationAdminRoutes are the routes an admin console uses beside the
// spec's GET and PUT of one configuration: the lists, create and delete
// (docs/http-api.md, "Integrations for an admin console").
var integrationAdminRoutes = []route{
	{
		pattern: "GET /api/v1/app-integrations", id: "listAppIntegrations", tag: tagIntegrations,
		summary: "List app integrations",
		description: "The brand's app integrations (type, name, domain, description, logoURL, status, id), oldest first, as a bare array; " +
			"any user of the brand may list. type, status and keywords filter.",
		access: accessAuthKey, integrations: true, query: appIntegrationParams,
		data: reflect.TypeFor[[]integrations.AppIntegration](), etag: etagRead,
		errors: map[int][]string{400: {"invalid_enum", "too_long"}},
		serve:  func(h *Handler) http.HandlerFunc { return h.listAppIntegrations },
	},
	{
		pattern: "GET /api/v1/app-integrations/analytics", id: "listAnalytics", tag: tagIntegrations,
		summary: "List analytics integrations",
		description: "The brand's analytics configurations, oldest first, as a bare array, secrets masked as on the GET of one; " +
			"any user of the brand may list. A record whose secrets do not decrypt is listed with secretsUnreadable true.",
		access: accessAuthKey, integrations: true, data: reflect.TypeFor[[]integrations.Analytics](), etag: etagRead,
		serve: func(h *Handler) http.HandlerFunc { return listConfigs(h, h.svc.Integrations.ListAnalytics) },
	},
	{
		pattern: "POST /api/v1/app-integrations/analytics", id: "createAnalytics", tag: tagIntegrations,
		summary: "Create an analytics integration",
		description: "Creates a configuration in the caller's brand; needs integrations.analytics.write. The rules of the update apply " +
			"(appIntegrationId, trackingId and apiKey required; status Active when not sent; isDefault clears the others' default). " +
			"Answers 201 with the new record, secrets masked, and its ETag (for If-Match on a later PUT).",
		access: accessAuthKey, integrations: true, created: true, etag: etagSent,
		body: reflect.TypeFor[integrations.AnalyticsInput](), data: reflect.TypeFor[integrations.Analytics](), limit: limitUpdates,
		errors: map[int][]string{
			400: {"required", "too_short", "too_long", "invalid_enum", "unknown_reference", "type_mismatch"},
			403: {integrations.CodeAccessDenied},
		},
		serve: func(h *Handler) http.HandlerFunc { return createRecord(h, h.svc.Integrations.CreateAnalytics) },
	},
	{
		pattern: "DELETE /api/v1/app-integrations/analytics/{id}", id: "deleteAnalytics", tag: tagIntegrations,
		summary: "Delete an analytics integration",
		description: "Deletes the configuration and its secrets; needs integrations.analytics.write. A revision records who deleted it. " +
			"Deleting the default leaves the brand without a default. Answers data: true.",
		access: accessAuthKey, integrations: true, data: reflect.TypeFor[bool](), limit: limitUpdates,
		errors: map[int][]string{403: {integrations.CodeAccessDenied}, 404: {"not_found"}},
		serve:  func(h *Handler) http.HandlerFunc { return deleteRecord(h, h.svc.Integrations.DeleteAnalytics) },
	},
	{
		pattern: "GET /api/v1/app-integrations/payment-gateway", id: "listPaymentGateways", tag: tagIntegrations,
		summary: "List payment-gateway integrations",
		description: "The brand's payment-gateway configurations, oldest first, as a bare array, privateKey masked; " +
			"any user of the brand may list. A record whose secret does not decrypt is listed with secretsUnreadable true.",
		access: accessAuthKey, integrations: true, data: reflect.TypeFor[[]integrations.PaymentGateway](), etag: etagRead,
		serve: func(h *Handler) http.HandlerFunc { return listConfigs(h, h.svc.Integrations.ListPaymentGateways) },
	},
	{
		pattern: "POST /api/v1/app-integrations/payment-gateway", id: "createPaymentGateway", tag: tagIntegrations,
		summary: "Create a payment-gateway integration",
		description: "Creates a configuration in the caller's brand; needs integrations.payment-gateway.write. The rules of the update " +
			"apply (appIntegrationId and name required; links absolute http(s), https unless testMode or localhost). " +
			"Answers 201 with the new record, privateKey masked, and its ETag.",
		access: accessAuthKey, integrations: true, created: true, etag: etagSent,
		body: reflect.TypeFor[integrations.PaymentGatewayInput](), data: reflect.TypeFor[integrations.PaymentGateway](), limit: limitUpdates,
		errors: map[int][]string{
			400: {"required", "too_short", "too_long", "invalid_url", "https_required", "invalid_enum", "unknown_reference", "type_mismatch"},
			403: {integrations.CodeAccessDenied},
		},
		serve: func(h *Handler) http.HandlerFunc { return createRecord(h, h.svc.Integrations.CreatePaymentGateway) },
	},
	{
		pattern: "DELETE /api/v1/app-integrations/payment-gateway/{id}", id: "deletePaymentGateway", tag: tagIntegrations,
		summary: "Delete a payment-gateway integration",
		description: "Deletes the configuration and its privateKey; needs integrations.payment-gateway.write. A revision records who " +
			"deleted it. Deleting the default leaves the brand without a default. Answers data: true.",
		access: accessAuthKey, integrations: true, data: reflect.TypeFor[bool](), limit: limitUpdates,
		errors: map[int][]string{403: {integrations.CodeAccessDenied}, 404: {"not_found"}},
		serve:  func(h *Handler) http.HandlerFunc { return deleteRecord(h, h.svc.Integrations.DeletePaymentGateway) },
	},
}
