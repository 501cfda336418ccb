package httpadapter

import (
	"context"
	"net/http"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/integrations"
)

// cacheIntegration is the Cache-Control of integration answers: private to
// the caller, and revalidated (by ETag) before reuse.
const cacheIntegration = "private, no-cache"

// putAnalytics answers PUT /api/v1/app-integrations/analytics/{id}; the
// route table mounts it only with an integrations service.
func putAnalytics(h *Handler) http.HandlerFunc {
	return putRecord(h,
		func(ctx context.Context, actor auth.Principal, id string, b *AnalyticsUpdateRequest, pre integrations.Precondition) (integrations.Analytics, error) {
			return h.svc.Integrations.UpdateAnalytics(ctx, actor, id, b.AnalyticsInput, pre)
		})
}

// putPaymentGateway answers PUT
// /api/v1/app-integrations/payment-gateway/{id}; the route table
// mounts it only with an integrations service.
func putPaymentGateway(h *Handler) http.HandlerFunc {
	return putRecord(h,
		func(ctx context.Context, actor auth.Principal, id string, b *PaymentGatewayUpdateRequest, pre integrations.Precondition) (integrations.PaymentGateway, error) {
			return h.svc.Integrations.UpdatePaymentGateway(ctx, actor, id, b.PaymentGatewayInput, pre)
		})
}

// BodyIdentity is the part of an update body that names who the update acts
// as: when present, authKey and brandUrl replace the Auth-Key and
// Brand-URL headers for authorization (the headers still authenticate the
// request), and the integration is looked up in that brand.
type BodyIdentity struct {
	// AuthKey is an authKey of the acting user, valid in the acting brand.
	AuthKey *string `json:"authKey"`
	// BrandURL names the acting brand, as Brand-URL does.
	BrandURL *string `json:"brandUrl"`
}

// actingAs returns the identity part of an update body (promoted to the
// bodies that embed BodyIdentity), absent fields empty.
func (id BodyIdentity) actingAs() auth.ActingAs {
	var a auth.ActingAs
	if id.AuthKey != nil {
		a.AuthKey = *id.AuthKey
	}
	if id.BrandURL != nil {
		a.BrandURL = *id.BrandURL
	}
	return a
}

// AnalyticsUpdateRequest is the body of PUT
// /api/v1/app-integrations/analytics/{id}: the configuration and who acts.
type AnalyticsUpdateRequest struct {
	integrations.AnalyticsInput
	BodyIdentity
}

// PaymentGatewayUpdateRequest is the body of PUT
// /api/v1/app-integrations/payment-gateway/{id}: the configuration and who
// acts.
type PaymentGatewayUpdateRequest struct {
	integrations.PaymentGatewayInput
	BodyIdentity
}

// tagged is an answer that names its entity tag.
type tagged interface{ ETag() string }

// getRecord answers a GET of the record read returns for the path's {id} in
// the request's brand.
func getRecord[T tagged](h *Handler, read func(ctx context.Context, brandID, id string) (T, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		rec, err := read(ctx, brandFrom(ctx).ID, r.PathValue("id"))
		if err != nil {
			h.fail(w, r, err)
			return
		}
		h.okTagged(w, r, rec, rec.ETag())
	}
}

// putRecord answers a PUT with a body B: it decodes the body, settles the
// identity the update acts as (auth.Service.ActingIdentity) and applies update,
// as that identity's actor (auth.Acting.Actor, whose brand is the acting
// brand), to the path's {id}, under the request's If-Match.
func putRecord[B interface{ actingAs() auth.ActingAs }, T tagged](h *Handler,
	update func(ctx context.Context, actor auth.Principal, id string, body *B, pre integrations.Precondition) (T, error),
) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var body B
		if err := decodeJSON(w, r, &body); err != nil {
			h.fail(w, r, err)
			return
		}
		ctx := r.Context()
		act, err := h.svc.Auth.ActingIdentity(ctx, brandFrom(ctx), principalFrom(ctx), body.actingAs())
		if err != nil {
			h.fail(w, r, err)
			return
		}
		rec, err := update(ctx, act.Actor(), r.PathValue("id"), &body, ifMatch(r))
		if err != nil {
			h.fail(w, r, err)
			return
		}
		h.okTagged(w, r, rec, rec.ETag())
	}
}

// ifMatch returns the precondition of r's If-Match header (strong
// comparison; "*" matches any current version), or nil without one.
func ifMatch(r *http.Request) integrations.Precondition {
	header := r.Header.Get("If-Match")
	if header == "" {
		return nil
	}
	return func(etag string) bool { return etagMatches(header, etag, false) }
}

// okTagged answers r with data under etag, the entity tag of its record; a
// GET whose If-None-Match lists it gets 304 Not Modified.
func (h *Handler) okTagged(w http.ResponseWriter, r *http.Request, data any, etag string) {
	hd := w.Header()
	hd.Set("ETag", etag)
	hd.Set("Cache-Control", cacheIntegration)
	if (r.Method == http.MethodGet || r.Method == http.MethodHead) && etagMatches(r.Header.Get("If-None-Match"), etag, true) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.ok(w, r, data)
}
