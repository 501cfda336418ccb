package httpadapter_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/httpadapter"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/storage"
)

// The secrets the fixture's configurations hold; no answer may contain them.
const (
	seedAPIKey     = "ak_live_0123456789abcdef"
	seedAPISecret  = "as_secret_value_987654"
	seedPrivateKey = "sk_live_private_424242"
	bossPassword   = "the other brand's boss"
)

// integFixture is an authFixture with logged-in keys and, in each brand,
// one analytics and one payment-gateway configuration.
type integFixture struct {
	*authFixture
	// keys are authKeys by role: admin, viewer (no permission) and analyst
	// (analytics only) of shop.example.com; boss (every permission) of
	// other.example.com.
	keys map[string]string
	// analytics, gateway: shop.example.com's configurations; the other*
	// ones are other.example.com's.
	analytics, otherAnalytics integrations.Analytics
	gateway, otherGateway     integrations.PaymentGateway
}

// newIntegFixture builds the fixture; opts replace the handler's options
// (rate limiting is off unless opts say otherwise).
func newIntegFixture(t testing.TB, newStore func(t testing.TB) storage.Storage, opts ...httpadapter.Option) *integFixture {
	t.Helper()
	f := &integFixture{authFixture: newAuthFixture(t, newStore), keys: map[string]string{}}
	if len(opts) == 0 {
		opts = []httpadapter.Option{httpadapter.WithoutRateLimits()}
	}
	h, err := f.app.Handler(append([]httpadapter.Option{withTestLogger(f.logs)}, opts...)...)
	require.NoError(t, err)
	f.handler = h
	ctx := t.Context()
	_, err = f.app.Auth.CreateUser(ctx, f.brand.ID, auth.NewUser{Username: "analyst", Password: "analyst password",
		Permissions: []auth.Permission{auth.PermAnalyticsWrite}})
	require.NoError(t, err)
	_, err = f.app.Auth.CreateUser(ctx, f.other.ID, auth.NewUser{Username: "boss", Password: bossPassword,
		Permissions: []auth.Permission{auth.PermAll}})
	require.NoError(t, err)
	shop, other := jsonHeaders("shop.example.com"), jsonHeaders("other.example.com")
	f.keys["admin"] = f.login(t, adminLogin(), shop).AuthKey
	f.keys["viewer"] = f.login(t, `{"username":"viewer","password":"viewer password"}`, shop).AuthKey
	f.keys["analyst"] = f.login(t, `{"username":"analyst","password":"analyst password"}`, shop).AuthKey
	f.keys["boss"] = f.login(t, `{"username":"boss","password":"`+bossPassword+`"}`, other).AuthKey
	f.analytics, f.gateway = seedIntegrations(t, f.app.Integrations, f.brand.ID)
	f.otherAnalytics, f.otherGateway = seedIntegrations(t, f.app.Integrations, f.other.ID)
	return f
}

// seedIntegrations creates, in-process, an app integration of each type and
// a configuration under each in brandID.
func seedIntegrations(t testing.TB, svc *integrations.Service, brandID string) (integrations.Analytics, integrations.PaymentGateway) {
	t.Helper()
	ctx := t.Context()
	system := auth.Principal{UserID: "system", BrandID: brandID, Permissions: []auth.Permission{auth.PermAll}}
	aa, err := svc.CreateAppIntegration(ctx, system, integrations.AppIntegrationInput{
		Type: integrations.TypeAnalytics, Name: "Google Analytics", Domain: "https://analytics.google.com"})
	require.NoError(t, err)
	pa, err := svc.CreateAppIntegration(ctx, system, integrations.AppIntegrationInput{
		Type: integrations.TypePaymentGateway, Name: "Stripe", Domain: "https://stripe.com",
		LogoURL: new("https://stripe.com/logo.png")})
	require.NoError(t, err)
	a, err := svc.CreateAnalytics(ctx, system, integrations.AnalyticsInput{
		AppIntegrationID: &aa.ID, TrackingID: new("G-12345"), APIKey: new(seedAPIKey), APISecret: new(seedAPISecret)})
	require.NoError(t, err)
	p, err := svc.CreatePaymentGateway(ctx, system, integrations.PaymentGatewayInput{
		AppIntegrationID: &pa.ID, Name: new("Stripe live"), PrivateKey: new(seedPrivateKey), PublicKey: new("pk_live_1"),
		IPNListenerLink: new("https://shop.example.com/ipn")})
	require.NoError(t, err)
	return a, p
}

// analyticsBody returns a valid analytics update body for f's analytics
// configuration, with set applied (a nil value removes the field).
func analyticsBody(appID string, set map[string]any) string {
	return jsonBody(map[string]any{"appIntegrationId": appID, "trackingId": "G-777", "apiKey": "ak_new_key_9999",
		"metadata": "env=test", "isDefault": true, "status": "active"}, set)
}

func gatewayBody(appID string, set map[string]any) string {
	return jsonBody(map[string]any{"appIntegrationId": appID, "name": "Stripe EU",
		"ipnListenerLink": "https://shop.example.com/ipn2", "returnLink": "https://shop.example.com/ok",
		"cancelLink": "https://shop.example.com/cancel", "cancelLinkWithoutLogin": "https://shop.example.com/c",
		"publicKey": "pk_live_2", "testMode": false, "isDefault": true, "status": "Active"}, set)
}

func jsonBody(base, set map[string]any) string {
	maps.Copy(base, set)
	for k, v := range base {
		if v == nil {
			delete(base, k)
		}
	}
	b, _ := json.Marshal(base)
	return string(b)
}

// put sends a PUT with role's key (none for "", the literal value for a
// role not in keys) to brandURL.
func (f *integFixture) request(t testing.TB, method, path, role, brandURL, body string, extra ...string) (*httptest.ResponseRecorder, env) {
	t.Helper()
	h := jsonHeaders(brandURL, extra...)
	if role != "" {
		key, ok := f.keys[role]
		if !ok {
			key = role
		}
		h["Auth-Key"] = key
	}
	return f.do(t, method, path, h, body)
}

func analyticsPath(id string) string { return "/api/v1/app-integrations/analytics/" + id }
func gatewayPath(id string) string   { return "/api/v1/app-integrations/payment-gateway/" + id }

func TestIntegrationUpdateScenarios(t *testing.T) {
	t.Parallel()
	type scenario struct {
		name   string
		method string
		path   func(f *integFixture) string
		role   string // whose Auth-Key the header carries
		brand  string // Brand-URL; shop.example.com when empty
		extra  []string
		body   func(f *integFixture) string
		status int
		// errs are the expected errors, "code" or "field:code", in order.
		errs []string
		// check, when set, inspects a 200 answer.
		check func(t *testing.T, f *integFixture, data map[string]any)
	}
	an := func(f *integFixture) string { return analyticsPath(f.analytics.ID) }
	gw := func(f *integFixture) string { return gatewayPath(f.gateway.ID) }
	anBody := func(set map[string]any) func(f *integFixture) string {
		return func(f *integFixture) string { return analyticsBody(f.analytics.AppIntegration.ID, set) }
	}
	gwBody := func(set map[string]any) func(f *integFixture) string {
		return func(f *integFixture) string { return gatewayBody(f.gateway.AppIntegration.ID, set) }
	}
	raw := func(s string) func(*integFixture) string { return func(*integFixture) string { return s } }
	scenarios := []scenario{
		{name: "analytics updated", method: "PUT", path: an, role: "admin", body: anBody(nil), status: 200,
			check: func(t *testing.T, f *integFixture, d map[string]any) {
				assert.Equal(t, "G-777", d["trackingId"])
				assert.Equal(t, "***********9999", d["apiKey"], "apiKey masked")
				assert.Equal(t, "******************7654", d["apiSecret"], "an omitted secret is kept, masked")
				assert.Equal(t, "Active", d["status"], "status canonical")
				assert.Equal(t, true, d["isDefault"])
				assert.Equal(t, f.analytics.ID, d["id"])
				assert.Regexp(t, `^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?\+00:00$`, d["createdDate"])
				assert.ElementsMatch(t, []string{"appIntegration", "trackingId", "apiKey", "apiSecret", "metadata",
					"accountConfigNotes", "isDefault", "status", "id", "createdDate", "updatedDate"}, keysOf(d))
				app := d["appIntegration"].(map[string]any)
				assert.ElementsMatch(t, []string{"type", "name", "domain", "description", "logoURL", "status", "id"}, keysOf(app))
				assert.Equal(t, "Analytics", app["type"])
				assert.Nil(t, app["logoURL"])
			}},
		{name: "payment gateway updated", method: "PUT", path: gw, role: "admin", body: gwBody(nil), status: 200,
			check: func(t *testing.T, f *integFixture, d map[string]any) {
				assert.Equal(t, "Stripe EU", d["name"])
				assert.Equal(t, "******************4242", d["privateKey"], "privateKey masked, kept")
				assert.Equal(t, "pk_live_2", d["publicKey"])
				assert.Equal(t, false, d["testMode"])
				assert.ElementsMatch(t, []string{"appIntegration", "name", "ipnListenerLink", "cancelLinkWithoutLogin",
					"cancelLink", "returnLink", "publicKey", "privateKey", "description", "notes", "testMode",
					"isDefault", "status", "id", "createdDate", "updatedDate"}, keysOf(d))
				app := d["appIntegration"].(map[string]any)
				assert.Equal(t, "PaymentGateway", app["type"])
				assert.Equal(t, "https://stripe.com/logo.png", app["logoURL"])
			}},
		{name: "analytics read", method: "GET", path: an, role: "viewer", status: 200,
			check: func(t *testing.T, f *integFixture, d map[string]any) {
				assert.Equal(t, "********************cdef", d["apiKey"])
			}},
		{name: "payment gateway read", method: "GET", path: gw, role: "viewer", status: 200},

		// Authentication.
		{name: "no Auth-Key", method: "PUT", path: an, body: anBody(nil), status: 401, errs: []string{"unauthenticated"}},
		{name: "unknown Auth-Key", method: "PUT", path: gw, role: "not-a-key", body: gwBody(nil), status: 401, errs: []string{"unauthenticated"}},
		{name: "Auth-Key of another brand", method: "PUT", path: an, role: "boss", body: anBody(nil), status: 401, errs: []string{"unauthenticated"}},
		{name: "GET without Auth-Key", method: "GET", path: gw, status: 401, errs: []string{"unauthenticated"}},
		{name: "no Brand-URL", method: "PUT", path: an, role: "admin", brand: " ", body: anBody(nil), status: 400,
			errs: []string{"Brand-URL:brand_url_required"}},

		// Authorization and brands.
		{name: "no permission", method: "PUT", path: an, role: "viewer", body: anBody(nil), status: 403, errs: []string{"access_denied"}},
		{name: "analytics permission only", method: "PUT", path: gw, role: "analyst", body: gwBody(nil), status: 403, errs: []string{"access_denied"}},
		{name: "analytics permission", method: "PUT", path: an, role: "analyst", body: anBody(nil), status: 200},
		{name: "id of another brand", method: "PUT", path: func(f *integFixture) string { return analyticsPath(f.otherAnalytics.ID) },
			role: "admin", body: anBody(nil), status: 404, errs: []string{"not_found"}},
		{name: "GET id of another brand", method: "GET", path: func(f *integFixture) string { return gatewayPath(f.otherGateway.ID) },
			role: "admin", status: 404, errs: []string{"not_found"}},
		{name: "unknown id", method: "PUT", path: raw(gatewayPath("nope")), role: "admin", body: gwBody(nil), status: 404, errs: []string{"not_found"}},
		{name: "appIntegrationId of another brand", method: "PUT", path: an, role: "admin",
			body:   func(f *integFixture) string { return analyticsBody(f.otherAnalytics.AppIntegration.ID, nil) },
			status: 400, errs: []string{"appIntegrationId:unknown_reference"}},

		// Body authKey and brandUrl: who acts, in which brand.
		{name: "body key without permission", method: "PUT", path: an, role: "admin",
			body: func(f *integFixture) string {
				return analyticsBody(f.analytics.AppIntegration.ID, map[string]any{"authKey": f.keys["viewer"]})
			}, status: 403, errs: []string{"access_denied"}},
		{name: "body key with permission", method: "PUT", path: an, role: "viewer",
			body: func(f *integFixture) string {
				return analyticsBody(f.analytics.AppIntegration.ID, map[string]any{"authKey": f.keys["admin"]})
			}, status: 200},
		{name: "body key not valid", method: "PUT", path: an, role: "admin", body: anBody(map[string]any{"authKey": "forged"}),
			status: 403, errs: []string{"access_denied"}},
		{name: "body brand and key of the other brand", method: "PUT", role: "admin",
			path: func(f *integFixture) string { return analyticsPath(f.otherAnalytics.ID) },
			body: func(f *integFixture) string {
				return analyticsBody(f.otherAnalytics.AppIntegration.ID, map[string]any{"authKey": f.keys["boss"], "brandUrl": "https://Other.Example.com/"})
			}, status: 200,
			check: func(t *testing.T, f *integFixture, d map[string]any) { assert.Equal(t, f.otherAnalytics.ID, d["id"]) }},
		{name: "body brand: the integration is looked up there", method: "PUT", path: an, role: "admin",
			body: func(f *integFixture) string {
				return analyticsBody(f.analytics.AppIntegration.ID, map[string]any{"authKey": f.keys["boss"], "brandUrl": "other.example.com"})
			}, status: 404, errs: []string{"not_found"}},
		{name: "body brand without a key of it", method: "PUT", role: "admin",
			path: func(f *integFixture) string { return analyticsPath(f.otherAnalytics.ID) },
			body: func(f *integFixture) string {
				return analyticsBody(f.otherAnalytics.AppIntegration.ID, map[string]any{"brandUrl": "other.example.com"})
			}, status: 403, errs: []string{"access_denied"}},
		{name: "body key of the other brand for this brand", method: "PUT", path: an, role: "admin",
			body: func(f *integFixture) string {
				return analyticsBody(f.analytics.AppIntegration.ID, map[string]any{"authKey": f.keys["boss"]})
			}, status: 403, errs: []string{"access_denied"}},
		{name: "body brand unknown", method: "PUT", path: an, role: "admin", body: anBody(map[string]any{"brandUrl": "ghost.example.com"}),
			status: 404, errs: []string{"brand_not_found"}},

		// Validation.
		{name: "required fields", method: "PUT", path: an, role: "admin", body: raw(`{}`), status: 400,
			errs: []string{"appIntegrationId:required", "trackingId:required", "apiKey:required"}},
		{name: "empty fields", method: "PUT", path: an, role: "admin",
			body: anBody(map[string]any{"appIntegrationId": "", "trackingId": "", "apiKey": ""}), status: 400,
			errs: []string{"appIntegrationId:too_short", "trackingId:too_short", "apiKey:too_short"}},
		{name: "bad status", method: "PUT", path: gw, role: "admin", body: gwBody(map[string]any{"status": "Paused"}), status: 400,
			errs: []string{"status:invalid_enum"}},
		{name: "gateway name required and links", method: "PUT", path: gw, role: "admin",
			body:   gwBody(map[string]any{"name": nil, "ipnListenerLink": "http://shop.example.com/ipn", "returnLink": "not a url"}),
			status: 400, errs: []string{"name:required", "ipnListenerLink:https_required", "returnLink:invalid_url"}},
		{name: "http links in test mode", method: "PUT", path: gw, role: "admin",
			body: gwBody(map[string]any{"ipnListenerLink": "http://shop.example.com/ipn", "testMode": true}), status: 200},
		{name: "wrong type app integration", method: "PUT", path: gw, role: "admin",
			body:   func(f *integFixture) string { return gatewayBody(f.analytics.AppIntegration.ID, nil) },
			status: 400, errs: []string{"appIntegrationId:type_mismatch"}},
		{name: "wrong JSON type", method: "PUT", path: an, role: "admin", body: anBody(map[string]any{"isDefault": "yes"}), status: 400,
			errs: []string{"isDefault:invalid_type"}},
		{name: "wrong JSON type of a body identity field", method: "PUT", path: an, role: "admin", body: anBody(map[string]any{"authKey": 7}),
			status: 400, errs: []string{"authKey:invalid_type"}},
		{name: "malformed JSON", method: "PUT", path: gw, role: "admin", body: raw(`{"name":`), status: 400, errs: []string{"malformed_json"}},
		{name: "JSON array", method: "PUT", path: gw, role: "admin", body: raw(`[1]`), status: 400, errs: []string{"malformed_json"}},
		{name: "not JSON", method: "PUT", path: an, role: "admin", extra: []string{"Content-Type", "text/plain"}, body: anBody(nil),
			status: 415, errs: []string{"unsupported_media_type"}},
		{name: "body too large", method: "PUT", path: an, role: "admin",
			body: anBody(map[string]any{"metadata": strings.Repeat("x", httpadapter.MaxBodyBytes)}), status: 413, errs: []string{"body_too_large"}},
		{name: "wrong method", method: "POST", path: an, role: "admin", body: anBody(nil), status: 405, errs: []string{"method_not_allowed"}},

		// Preconditions.
		{name: "If-Match current", method: "PUT", path: an, role: "admin", body: anBody(nil), status: 200,
			extra: []string{"If-Match", `"1.1"`}},
		{name: "If-Match stale", method: "PUT", path: an, role: "admin", body: anBody(nil), status: 412,
			extra: []string{"If-Match", `"7.1"`}, errs: []string{"precondition_failed"}},
		{name: "If-Match weak never matches", method: "PUT", path: gw, role: "admin", body: gwBody(nil), status: 412,
			extra: []string{"If-Match", `W/"1.1"`}, errs: []string{"precondition_failed"}},
		{name: "If-Match any", method: "PUT", path: gw, role: "admin", body: gwBody(nil), status: 200, extra: []string{"If-Match", `*`}},
	}
	for storeName, newStore := range stores {
		for _, sc := range scenarios {
			t.Run(storeName+"/"+sc.name, func(t *testing.T) {
				t.Parallel()
				f := newIntegFixture(t, newStore)
				brand := sc.brand
				if brand == "" {
					brand = "shop.example.com"
				}
				body := ""
				if sc.body != nil {
					body = sc.body(f)
				}
				rec, e := f.request(t, sc.method, sc.path(f), sc.role, brand, body, sc.extra...)
				require.Equal(t, sc.status, rec.Code, rec.Body.String())
				for _, s := range []string{seedAPIKey, seedAPISecret, seedPrivateKey, "ak_new_key_9999"} {
					assert.NotContains(t, rec.Body.String(), s, "no answer carries a secret")
				}
				if sc.status != 200 {
					var got []string
					for _, it := range e.Errors {
						if it.Field != "" {
							got = append(got, it.Field+":"+it.Code)
						} else {
							got = append(got, it.Code)
						}
						assert.NotEmpty(t, it.Details)
					}
					assert.Equal(t, sc.errs, got)
					return
				}
				assert.Regexp(t, `^"\d+\.\d+"$`, rec.Header().Get("ETag"))
				assert.Equal(t, "private, no-cache", rec.Header().Get("Cache-Control"))
				var data map[string]any
				require.NoError(t, json.Unmarshal(e.Data, &data))
				if sc.check != nil {
					sc.check(t, f, data)
				}
			})
		}
	}
}

func TestIntegrationETags(t *testing.T) {
	t.Parallel()
	for storeName, newStore := range stores {
		t.Run(storeName, func(t *testing.T) {
			t.Parallel()
			f := newIntegFixture(t, newStore)
			path := gatewayPath(f.gateway.ID)
			rec, _ := f.request(t, "GET", path, "admin", "shop.example.com", "")
			require.Equal(t, 200, rec.Code)
			etag := rec.Header().Get("ETag")
			assert.Equal(t, f.gateway.ETag(), etag)

			rec, _ = f.request(t, "GET", path, "admin", "shop.example.com", "", "If-None-Match", etag)
			assert.Equal(t, http.StatusNotModified, rec.Code)

			// Two clients read the same version; the first update wins, the
			// second is refused instead of overwriting it.
			body := gatewayBody(f.gateway.AppIntegration.ID, nil)
			rec, _ = f.request(t, "PUT", path, "admin", "shop.example.com", body, "If-Match", etag)
			require.Equal(t, 200, rec.Code, rec.Body.String())
			next := rec.Header().Get("ETag")
			assert.NotEqual(t, etag, next)
			rec, _ = f.request(t, "PUT", path, "admin", "shop.example.com", gatewayBody(f.gateway.AppIntegration.ID,
				map[string]any{"name": "Lost update"}), "If-Match", etag)
			assert.Equal(t, http.StatusPreconditionFailed, rec.Code)

			rec, e := f.request(t, "GET", path, "admin", "shop.example.com", "", "If-None-Match", etag)
			require.Equal(t, 200, rec.Code, "the old ETag no longer matches")
			assert.Equal(t, next, rec.Header().Get("ETag"))
			var d map[string]any
			require.NoError(t, json.Unmarshal(e.Data, &d))
			assert.Equal(t, "Stripe EU", d["name"])

			revs, err := f.app.Integrations.Revisions(t.Context(), f.brand.ID, integrations.KindPaymentGateway, f.gateway.ID)
			require.NoError(t, err)
			require.Len(t, revs, 1, "only the update that went through is recorded")
			assert.Equal(t, f.admin.ID, revs[0].ActorUserID, "the revision names the user of the key")
		})
	}
}

func TestIntegrationConcurrentUpdatesHTTP(t *testing.T) {
	t.Parallel()
	for storeName, newStore := range stores {
		t.Run(storeName, func(t *testing.T) {
			t.Parallel()
			f := newIntegFixture(t, newStore)
			const n = 50
			var wg sync.WaitGroup
			for i := range n {
				wg.Go(func() {
					body := analyticsBody(f.analytics.AppIntegration.ID, map[string]any{"trackingId": fmt.Sprintf("G-%d", i)})
					req := httptest.NewRequest("PUT", analyticsPath(f.analytics.ID), strings.NewReader(body))
					for k, v := range jsonHeaders("shop.example.com", "Auth-Key", f.keys["admin"]) {
						req.Header.Set(k, v)
					}
					rec := httptest.NewRecorder()
					f.handler.ServeHTTP(rec, req)
					assert.Equal(t, 200, rec.Code, rec.Body.String())
				})
			}
			wg.Wait()
			got, err := f.app.Integrations.Analytics(t.Context(), f.brand.ID, f.analytics.ID)
			require.NoError(t, err)
			assert.EqualValues(t, n+1, got.Version)
			revs, err := f.app.Integrations.Revisions(t.Context(), f.brand.ID, integrations.KindAnalytics, f.analytics.ID)
			require.NoError(t, err)
			assert.Len(t, revs, n)
		})
	}
}

func TestIntegrationUpdatesRateLimited(t *testing.T) {
	t.Parallel()
	clock := newClock()
	f := newIntegFixture(t, stores["memory"], httpadapter.WithClock(clock.Now))
	body := analyticsBody(f.analytics.AppIntegration.ID, nil)
	for range 5 {
		rec, _ := f.request(t, "PUT", analyticsPath(f.analytics.ID), "admin", "shop.example.com", body)
		require.Equal(t, 200, rec.Code, rec.Body.String())
	}
	rec, e := f.request(t, "PUT", analyticsPath(f.analytics.ID), "admin", "shop.example.com", body)
	require.Equal(t, http.StatusTooManyRequests, rec.Code)
	assert.Equal(t, "rate_limited", e.Errors[0].Code)
	rec, _ = f.request(t, "PUT", gatewayPath(f.gateway.ID), "analyst", "shop.example.com", gatewayBody(f.gateway.AppIntegration.ID, nil))
	assert.Equal(t, http.StatusForbidden, rec.Code, "another user has a bucket of its own")
	rec, _ = f.request(t, "GET", analyticsPath(f.analytics.ID), "admin", "shop.example.com", "")
	assert.Equal(t, 200, rec.Code, "reads are not limited by the update limit")
}

func TestIntegrationRoutesNeedTheService(t *testing.T) {
	t.Parallel()
	f := newAuthFixture(t, stores["memory"])
	h, err := httpadapter.New(httpadapter.Services{Auth: f.app.Auth, RefData: f.app.RefData})
	require.NoError(t, err)
	req := httptest.NewRequest("GET", analyticsPath("x"), nil)
	req.Header.Set("Brand-URL", "shop.example.com")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	assert.Equal(t, http.StatusNotFound, rec.Code)
	assert.Contains(t, rec.Body.String(), "route_not_found")
}

func TestConfigWiresIntegrations(t *testing.T) {
	t.Parallel()
	store := stores["sqlite"](t)
	t.Cleanup(func() { store.Close() })
	keys, err := integrations.NewKeyRing("host-key", map[string][]byte{"host-key": []byte("0123456789abcdef0123456789abcdef")})
	require.NoError(t, err)
	var mu sync.Mutex
	var events []integrations.IntegrationUpdated
	app, err := brandbase.New(store, brandbase.Config{
		SecretKeys:  keys,
		AuthOptions: []auth.Option{auth.WithArgon2Params(testArgon2)},
		OnIntegrationUpdated: func(_ context.Context, ev integrations.IntegrationUpdated) {
			mu.Lock()
			defer mu.Unlock()
			events = append(events, ev)
		},
	})
	require.NoError(t, err)
	ctx := t.Context()
	b, err := app.Auth.CreateBrand(ctx, auth.NewBrand{URL: "shop.example.com", Name: "Shop"})
	require.NoError(t, err)
	u, err := app.Auth.CreateUser(ctx, b.ID, auth.NewUser{Username: "admin", Password: adminPassword,
		Permissions: []auth.Permission{auth.PermAll}})
	require.NoError(t, err)
	a, _ := seedIntegrations(t, app.Integrations, b.ID)
	h, err := app.Handler(httpadapter.WithoutRateLimits())
	require.NoError(t, err)
	f := &integFixture{authFixture: &authFixture{fixture: &fixture{app: app, handler: h, brand: b}}, keys: map[string]string{}}
	f.keys["admin"] = f.login(t, adminLogin(), jsonHeaders("shop.example.com")).AuthKey

	rec, _ := f.request(t, "PUT", analyticsPath(a.ID), "admin", "shop.example.com", analyticsBody(a.AppIntegration.ID, nil))
	require.Equal(t, 200, rec.Code, rec.Body.String())
	mu.Lock()
	require.Len(t, events, 1, "Config.OnIntegrationUpdated is called")
	assert.Equal(t, u.ID, events[0].Revision.ActorUserID)
	mu.Unlock()
	stored, err := store.ConfigByID(ctx, integrations.KindAnalytics, b.ID, a.ID)
	require.NoError(t, err)
	id, err := integrations.KeyIDOf(stored.Secrets["apiKey"])
	require.NoError(t, err)
	assert.Equal(t, "host-key", id, "Config.SecretKeys seals the secrets")
}
