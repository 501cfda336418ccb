package httpadapter

import (
	"net/http"
	"reflect"
	"strconv"
	"strings"

	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/outbox"
	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/webhooks"
)

// deliveryParams are the query parameters of GET
// /api/v1/webhooks/{id}/deliveries.
var deliveryParams = []refdata.Param{
	{Name: "status", Type: reflect.TypeFor[string](), Kind: refdata.ParamCode, Doc: "pending, delivered or failed: keep the deliveries of that status."},
	{Name: "before", Type: reflect.TypeFor[int64](), Doc: "A sequence: keep the deliveries of a lower one (the next page after a page ending at it)."},
	{Name: "limit", Type: reflect.TypeFor[int](), Doc: "The page's size: 1 to 1000, 100 when not given."},
}

// listWebhooks answers GET /api/v1/webhooks.
func (h *Handler) listWebhooks(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	list, err := h.svc.Webhooks.List(ctx, actor(ctx))
	h.answerNoStore(w, r, list, err, http.StatusOK)
}

// createWebhook answers POST /api/v1/webhooks: 201 with the endpoint and
// its secret, never stored by a cache.
func (h *Handler) createWebhook(w http.ResponseWriter, r *http.Request) {
	var in webhooks.Input
	if err := decodeJSON(w, r, &in); err != nil {
		h.fail(w, r, err)
		return
	}
	ctx := r.Context()
	e, err := h.svc.Webhooks.Create(ctx, actor(ctx), in)
	h.answerNoStore(w, r, e, err, http.StatusCreated)
}

// getWebhook answers GET /api/v1/webhooks/{id}.
func (h *Handler) getWebhook(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	e, err := h.svc.Webhooks.Get(ctx, actor(ctx), r.PathValue("id"))
	h.answerNoStore(w, r, e, err, http.StatusOK)
}

// updateWebhook answers PUT /api/v1/webhooks/{id}.
func (h *Handler) updateWebhook(w http.ResponseWriter, r *http.Request) {
	var in webhooks.Input
	if err := decodeJSON(w, r, &in); err != nil {
		h.fail(w, r, err)
		return
	}
	ctx := r.Context()
	e, err := h.svc.Webhooks.Update(ctx, actor(ctx), r.PathValue("id"), in)
	h.answerNoStore(w, r, e, err, http.StatusOK)
}

// deleteWebhook answers DELETE /api/v1/webhooks/{id} with data true.
func (h *Handler) deleteWebhook(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	err := h.svc.Webhooks.Delete(ctx, actor(ctx), r.PathValue("id"))
	h.answerNoStore(w, r, true, err, http.StatusOK)
}

// rotateWebhookSecret answers POST /api/v1/webhooks/{id}/rotate-secret.
func (h *Handler) rotateWebhookSecret(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	e, err := h.svc.Webhooks.RotateSecret(ctx, actor(ctx), r.PathValue("id"))
	h.answerNoStore(w, r, e, err, http.StatusOK)
}

// listWebhookDeliveries answers GET /api/v1/webhooks/{id}/deliveries.
func (h *Handler) listWebhookDeliveries(w http.ResponseWriter, r *http.Request) {
	q, err := deliveryQuery(newQuery(r))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	ctx := r.Context()
	list, err := h.svc.Webhooks.Deliveries(ctx, actor(ctx), r.PathValue("id"), q)
	h.answerNoStore(w, r, list, err, http.StatusOK)
}

// replayWebhookDelivery answers POST
// /api/v1/webhooks/{id}/deliveries/{deliveryId}/replay with data true.
func (h *Handler) replayWebhookDelivery(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	err := h.svc.Webhooks.Replay(ctx, actor(ctx), r.PathValue("id"), r.PathValue("deliveryId"))
	h.answerNoStore(w, r, true, err, http.StatusOK)
}

// deliveryQuery reads the query of a deliveries list: the values' types
// here, their ranges in the service.
func deliveryQuery(q query) (webhooks.DeliveryQuery, error) {
	var dq webhooks.DeliveryQuery
	var errs []envelope.ErrorItem
	if v, ok := q.get("status"); ok {
		dq.Status = outbox.Status(v)
	}
	if v, ok := q.get("before"); ok {
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			errs = append(errs, envelope.Field("before", "invalid_type", "before must be an integer."))
		}
		dq.Before = n
	}
	if v, ok := q.get("limit"); ok {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			errs = append(errs, envelope.Field("limit", "invalid_type", "limit must be an integer."))
		}
		dq.Limit = n
	}
	if len(errs) > 0 {
		return dq, envelope.Invalid("The query is invalid.", errs...)
	}
	return dq, nil
}

// answerNoStore answers data with status, or err; never stored by a cache
// (an answer may hold a secret).
func (h *Handler) answerNoStore(w http.ResponseWriter, r *http.Request, data any, err error, status int) {
	if err != nil {
		h.fail(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	h.writeEnvelope(w, r, envelope.Success(status, "", data))
}

// webhookErrors are the error codes of the webhook routes that name one.
var webhookErrors = map[int][]string{403: {webhooks.CodeAccessDenied}, 404: {"not_found"}}

// webhookBodyErrors are webhookErrors with those of a body's fields.
var webhookBodyErrors = map[int][]string{
	400: {"required", "invalid_url", "https_required", "forbidden_address", "too_long", "invalid_format", "invalid_type"},
	403: {webhooks.CodeAccessDenied}, 404: {"not_found"},
}

// webhookRoutes are the routes of the brand's webhook endpoints
// (docs/webhooks.md).
var webhookRoutes = []route{
	{
		pattern: "GET /api/v1/webhooks", id: "listWebhooks", tag: tagWebhooks,
		summary:     "List webhook endpoints",
		description: "The brand's webhook endpoints, oldest first, never their secrets; needs webhooks.read (or webhooks.write).",
		access:      accessAuthKey, webhooks: true, data: reflect.TypeFor[[]webhooks.Endpoint](),
		errors: map[int][]string{403: {webhooks.CodeAccessDenied}},
		serve:  func(h *Handler) http.HandlerFunc { return h.listWebhooks },
	},
	{
		pattern: "POST /api/v1/webhooks", id: "createWebhook", tag: tagWebhooks,
		summary: "Create a webhook endpoint",
		description: "Creates an endpoint in the caller's brand; needs webhooks.write. url is https (http only to a loopback host), " +
			"eventTypes lists the event types it takes (\"*\" for all); enabled is true when not sent. " +
			"Answers 201 with the endpoint and its signing secret (whsec_...): the one time the secret is shown.",
		access: accessAuthKey, webhooks: true, created: true, limit: limitUpdates,
		body: reflect.TypeFor[webhooks.Input](), data: reflect.TypeFor[webhooks.EndpointWithSecret](),
		errors: webhookBodyErrors,
		serve:  func(h *Handler) http.HandlerFunc { return h.createWebhook },
	},
	{
		pattern: "GET /api/v1/webhooks/{id}", id: "getWebhook", tag: tagWebhooks,
		summary:     "Read a webhook endpoint",
		description: "One endpoint of the brand, without its secret; needs webhooks.read.",
		access:      accessAuthKey, webhooks: true, data: reflect.TypeFor[webhooks.Endpoint](),
		errors: webhookErrors,
		serve:  func(h *Handler) http.HandlerFunc { return h.getWebhook },
	},
	{
		pattern: "PUT /api/v1/webhooks/{id}", id: "updateWebhook", tag: tagWebhooks,
		summary: "Replace a webhook endpoint",
		description: "Replaces the endpoint's url, eventTypes, enabled and description (the secret stays); needs webhooks.write. " +
			"Enabling an endpoint the service disabled clears its disabledReason.",
		access: accessAuthKey, webhooks: true, limit: limitUpdates,
		body: reflect.TypeFor[webhooks.Input](), data: reflect.TypeFor[webhooks.Endpoint](),
		errors: webhookBodyErrors,
		serve:  func(h *Handler) http.HandlerFunc { return h.updateWebhook },
	},
	{
		pattern: "DELETE /api/v1/webhooks/{id}", id: "deleteWebhook", tag: tagWebhooks,
		summary:     "Delete a webhook endpoint",
		description: "Deletes the endpoint; its pending deliveries fail for good. Needs webhooks.write. Answers data: true.",
		access:      accessAuthKey, webhooks: true, data: reflect.TypeFor[bool](), limit: limitUpdates,
		errors: webhookErrors,
		serve:  func(h *Handler) http.HandlerFunc { return h.deleteWebhook },
	},
	{
		pattern: "POST /api/v1/webhooks/{id}/rotate-secret", id: "rotateWebhookSecret", tag: tagWebhooks,
		summary: "Rotate a webhook endpoint's secret",
		description: "Gives the endpoint a new signing secret, answered this once; the old one keeps signing beside it " +
			"(two signatures in webhook-signature) until secretOverlapUntil (24 h by default). Needs webhooks.write.",
		access: accessAuthKey, webhooks: true, data: reflect.TypeFor[webhooks.EndpointWithSecret](), limit: limitUpdates,
		errors: webhookErrors,
		serve:  func(h *Handler) http.HandlerFunc { return h.rotateWebhookSecret },
	},
	{
		pattern: "GET /api/v1/webhooks/{id}/deliveries", id: "listWebhookDeliveries", tag: tagWebhooks,
		summary: "List an endpoint's deliveries",
		description: "The deliveries to the endpoint, newest first: status, attempts, last status code and error, next attempt. " +
			"status filters; before and limit page. Needs webhooks.read.",
		access: accessAuthKey, webhooks: true, queue: true, query: deliveryParams,
		data:   reflect.TypeFor[[]webhooks.Delivery](),
		errors: map[int][]string{400: {"invalid_type", "invalid_enum", "out_of_range"}, 403: {webhooks.CodeAccessDenied}, 404: {"not_found"}},
		serve:  func(h *Handler) http.HandlerFunc { return h.listWebhookDeliveries },
	},
	{
		pattern: "POST /api/v1/webhooks/{id}/deliveries/{deliveryId}/replay", id: "replayWebhookDelivery", tag: tagWebhooks,
		summary: "Replay a delivery",
		description: "Sends a delivered or failed delivery again, now, with the same webhook-id (its attempts kept). " +
			"Needs webhooks.write. Answers data: true.",
		access: accessAuthKey, webhooks: true, queue: true, data: reflect.TypeFor[bool](), limit: limitUpdates,
		errors: webhookErrors,
		serve:  func(h *Handler) http.HandlerFunc { return h.replayWebhookDelivery },
	},
}
