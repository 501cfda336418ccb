package httpadapter

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/integrations"
)

// cacheIntegration is the Cache-Control of integration answers: private to
// the caller, and revalidated (by ETag) before reuse.
const cacheIntegration = "private, no-cache"

// registerIntegrations mounts the analytics and payment-gateway routes
// (spec 4.5 and 4.6, and GET on both). Without an integrations service they
// are not mounted (404).
func (h *Handler) registerIntegrations() {
	if h.svc.Integrations == nil {
		return
	}
	h.mux.Handle("GET /api/v1/app-integrations/analytics/{id}", h.withAuthKey(h.getAnalytics))
	h.mux.Handle("PUT /api/v1/app-integrations/analytics/{id}", h.withAuthKey(h.rateLimited(limitUpdates, h.putAnalytics)))
	h.mux.Handle("GET /api/v1/app-integrations/payment-gateway/{id}", h.withAuthKey(h.getPaymentGateway))
	h.mux.Handle("PUT /api/v1/app-integrations/payment-gateway/{id}", h.withAuthKey(h.rateLimited(limitUpdates, h.putPaymentGateway)))
}

// BodyIdentity is the part of an update body that names who the update acts
// as (spec 5.4): when present, authKey and brandUrl replace the Auth-Key and
// Brand-URL headers for authorization (the headers still authenticate the
// request), and the integration is looked up in that brand.
type BodyIdentity struct {
	// AuthKey is an authKey of the acting user, valid in the acting brand.
	AuthKey *string `json:"authKey"`
	// BrandURL names the acting brand, as Brand-URL does.
	BrandURL *string `json:"brandUrl"`
}

// AnalyticsUpdateRequest is the body of PUT
// /api/v1/app-integrations/analytics/{id} (spec 2.7 and 5.4).
type AnalyticsUpdateRequest struct {
	integrations.AnalyticsInput
	BodyIdentity
}

// UnmarshalJSON decodes the two parts of the body from the same object, so
// that a field error names the JSON field alone.
func (b *AnalyticsUpdateRequest) UnmarshalJSON(data []byte) error {
	return unmarshalParts(data, &b.AnalyticsInput, &b.BodyIdentity)
}

// PaymentGatewayUpdateRequest is the body of PUT
// /api/v1/app-integrations/payment-gateway/{id} (spec 2.8 and 5.4).
type PaymentGatewayUpdateRequest struct {
	integrations.PaymentGatewayInput
	BodyIdentity
}

// UnmarshalJSON decodes the two parts of the body from the same object, so
// that a field error names the JSON field alone.
func (b *PaymentGatewayUpdateRequest) UnmarshalJSON(data []byte) error {
	return unmarshalParts(data, &b.PaymentGatewayInput, &b.BodyIdentity)
}

// unmarshalParts decodes the JSON object data into each of parts (structs
// that share the object's fields between them).
func unmarshalParts(data []byte, parts ...any) error {
	for _, p := range parts {
		if err := json.Unmarshal(data, p); err != nil {
			return err
		}
	}
	return nil
}

func (h *Handler) getAnalytics(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	a, err := h.svc.Integrations.Analytics(ctx, brandFrom(ctx).ID, r.PathValue("id"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.okTagged(w, r, a, a.ETag())
}

func (h *Handler) putAnalytics(w http.ResponseWriter, r *http.Request) {
	var body AnalyticsUpdateRequest
	if err := decodeJSON(w, r, &body); err != nil {
		h.fail(w, r, err)
		return
	}
	ctx := r.Context()
	brand, actor, err := h.actingIdentity(ctx, body.BodyIdentity)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	a, err := h.svc.Integrations.UpdateAnalytics(ctx, actor, brand.ID, r.PathValue("id"), body.AnalyticsInput, ifMatch(r))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.okTagged(w, r, a, a.ETag())
}

func (h *Handler) getPaymentGateway(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	p, err := h.svc.Integrations.PaymentGateway(ctx, brandFrom(ctx).ID, r.PathValue("id"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.okTagged(w, r, p, p.ETag())
}

func (h *Handler) putPaymentGateway(w http.ResponseWriter, r *http.Request) {
	var body PaymentGatewayUpdateRequest
	if err := decodeJSON(w, r, &body); err != nil {
		h.fail(w, r, err)
		return
	}
	ctx := r.Context()
	brand, actor, err := h.actingIdentity(ctx, body.BodyIdentity)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	p, err := h.svc.Integrations.UpdatePaymentGateway(ctx, actor, brand.ID, r.PathValue("id"), body.PaymentGatewayInput, ifMatch(r))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.okTagged(w, r, p, p.ETag())
}

// actingIdentity returns the brand and principal an update acts as (spec
// 5.4, DESIGN.md 5): the body's brandUrl and authKey where present, else
// the request's (header) brand and principal. A body brandUrl is resolved
// as Brand-URL is (404 brand_not_found, 403 brand_inactive); a body authKey
// that is not valid in the acting brand proves no identity: 403
// access_denied. Whether the identity may make the update is the
// integrations service's decision.
func (h *Handler) actingIdentity(ctx context.Context, id BodyIdentity) (auth.Brand, auth.Principal, error) {
	brand, p := brandFrom(ctx), principalFrom(ctx)
	if id.BrandURL != nil && strings.TrimSpace(*id.BrandURL) != "" {
		b, err := h.svc.Auth.ResolveBrand(ctx, *id.BrandURL)
		if err != nil {
			return auth.Brand{}, auth.Principal{}, err
		}
		brand = b
	}
	if id.AuthKey != nil && *id.AuthKey != "" {
		bp, err := h.svc.Auth.Authenticate(ctx, brand, *id.AuthKey)
		if envelope.KindOf(err) == envelope.KindUnauthenticated {
			return auth.Brand{}, auth.Principal{}, envelope.New(envelope.KindForbidden, integrations.CodeAccessDenied,
				"The authKey of the body is not valid in the acting brand.")
		}
		if err != nil {
			return auth.Brand{}, auth.Principal{}, err
		}
		p = bp
	}
	return brand, p, nil
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
