package httpadapter_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/outbox"
	"github.com/brandbase/brandbase/webhooks"
)

// TestWebhookRoutes runs the webhook routes' scenarios, each on a fresh
// service: who may call them, the answers' shapes, field errors, another
// brand's endpoint.
func TestWebhookRoutes(t *testing.T) {
	t.Parallel()
	type ctx struct {
		f               *integFixture
		hook, otherHook string
	}
	tests := []struct {
		name, method, path, key, body string // path: {id} is the brand's endpoint, {other} another brand's
		status                        int
		codes                         []string // the errors' codes, in order
		check                         func(t *testing.T, c ctx, rec *http.Response, data json.RawMessage)
	}{
		{name: "create answers the secret once, never cached", method: "POST", path: "/api/v1/webhooks", key: "admin",
			body: `{"url":"https://hooks.example.com/in","eventTypes":["user.created"],"description":"crm"}`, status: 201,
			check: func(t *testing.T, c ctx, rec *http.Response, data json.RawMessage) {
				var e webhooks.EndpointWithSecret
				require.NoError(t, json.Unmarshal(data, &e))
				assert.True(t, strings.HasPrefix(e.Secret, "whsec_"))
				assert.Equal(t, []string{"user.created"}, e.EventTypes)
				assert.True(t, e.Enabled)
				assert.Equal(t, "no-store", rec.Header.Get("Cache-Control"))
			}},
		{name: "list without secrets", method: "GET", path: "/api/v1/webhooks", key: "admin", status: 200,
			check: func(t *testing.T, c ctx, rec *http.Response, data json.RawMessage) {
				assert.NotContains(t, string(data), "whsec_")
				var list []webhooks.Endpoint
				require.NoError(t, json.Unmarshal(data, &list))
				require.Len(t, list, 1)
				assert.Equal(t, c.hook, list[0].ID)
			}},
		{name: "no permission", method: "GET", path: "/api/v1/webhooks", key: "viewer", status: 403, codes: []string{"access_denied"}},
		{name: "write needs webhooks.write", method: "POST", path: "/api/v1/webhooks", key: "analyst",
			body: `{"url":"https://hooks.example.com/in","eventTypes":["*"]}`, status: 403, codes: []string{"access_denied"}},
		{name: "field errors", method: "POST", path: "/api/v1/webhooks", key: "admin",
			body: `{"url":"http://hooks.example.com/in","eventTypes":[]}`, status: 400, codes: []string{"https_required", "required"}},
		{name: "a private address", method: "POST", path: "/api/v1/webhooks", key: "admin",
			body: `{"url":"https://192.168.1.10/in","eventTypes":["*"]}`, status: 400, codes: []string{"forbidden_address"}},
		{name: "read one", method: "GET", path: "/api/v1/webhooks/{id}", key: "admin", status: 200,
			check: func(t *testing.T, c ctx, rec *http.Response, data json.RawMessage) {
				var e webhooks.Endpoint
				require.NoError(t, json.Unmarshal(data, &e))
				assert.Equal(t, c.hook, e.ID)
				assert.NotContains(t, string(data), "whsec_")
			}},
		{name: "another brand's endpoint", method: "GET", path: "/api/v1/webhooks/{other}", key: "admin", status: 404, codes: []string{"not_found"}},
		{name: "replace", method: "PUT", path: "/api/v1/webhooks/{id}", key: "admin",
			body: `{"url":"https://hooks.example.com/v2","eventTypes":["user.updated"],"enabled":false}`, status: 200,
			check: func(t *testing.T, c ctx, rec *http.Response, data json.RawMessage) {
				got, err := c.f.app.Webhooks.Get(t.Context(), auth.SystemPrincipal(c.f.brand.ID), c.hook)
				require.NoError(t, err)
				assert.Equal(t, "https://hooks.example.com/v2", got.URL)
				assert.False(t, got.Enabled)
			}},
		{name: "rotate the secret", method: "POST", path: "/api/v1/webhooks/{id}/rotate-secret", key: "admin", status: 200,
			check: func(t *testing.T, c ctx, rec *http.Response, data json.RawMessage) {
				var e webhooks.EndpointWithSecret
				require.NoError(t, json.Unmarshal(data, &e))
				assert.True(t, strings.HasPrefix(e.Secret, "whsec_"))
				assert.NotEmpty(t, e.SecretOverlapUntil)
				assert.Equal(t, "no-store", rec.Header.Get("Cache-Control"))
			}},
		{name: "deliveries", method: "GET", path: "/api/v1/webhooks/{id}/deliveries?Status=FAILED", key: "admin", status: 200,
			check: func(t *testing.T, c ctx, rec *http.Response, data json.RawMessage) {
				var list []webhooks.Delivery
				require.NoError(t, json.Unmarshal(data, &list))
				require.Len(t, list, 1)
				assert.Equal(t, "evt_sample", list[0].ID)
				assert.Equal(t, outbox.StatusFailed, list[0].Status)
				assert.Equal(t, 500, list[0].LastStatusCode)
				assert.Equal(t, "HTTP 500: down", list[0].LastError)
			}},
		{name: "deliveries need webhooks.read", method: "GET", path: "/api/v1/webhooks/{id}/deliveries", key: "viewer", status: 403, codes: []string{"access_denied"}},
		{name: "deliveries: a bad query", method: "GET", path: "/api/v1/webhooks/{id}/deliveries?status=lost&limit=5000&before=x", key: "admin",
			status: 400, codes: []string{"invalid_type"}},
		{name: "deliveries: out of range", method: "GET", path: "/api/v1/webhooks/{id}/deliveries?status=lost&limit=5000", key: "admin",
			status: 400, codes: []string{"invalid_enum", "out_of_range"}},
		{name: "another brand's deliveries", method: "GET", path: "/api/v1/webhooks/{other}/deliveries", key: "admin", status: 404, codes: []string{"not_found"}},
		{name: "replay", method: "POST", path: "/api/v1/webhooks/{id}/deliveries/evt_sample/replay", key: "admin", status: 200,
			check: func(t *testing.T, c ctx, rec *http.Response, data json.RawMessage) {
				list, err := c.f.app.Webhooks.Deliveries(t.Context(), auth.SystemPrincipal(c.f.brand.ID), c.hook, webhooks.DeliveryQuery{})
				require.NoError(t, err)
				require.Len(t, list, 1)
				assert.Equal(t, outbox.StatusPending, list[0].Status, "due again")
				assert.NotEmpty(t, list[0].NextAttempt)
			}},
		{name: "replay an unknown delivery", method: "POST", path: "/api/v1/webhooks/{id}/deliveries/evt_none/replay", key: "admin", status: 404, codes: []string{"not_found"}},
		{name: "delete", method: "DELETE", path: "/api/v1/webhooks/{id}", key: "admin", status: 200,
			check: func(t *testing.T, c ctx, rec *http.Response, data json.RawMessage) {
				assert.JSONEq(t, "true", string(data))
				_, err := c.f.app.Webhooks.Get(t.Context(), auth.SystemPrincipal(c.f.brand.ID), c.hook)
				assert.ErrorIs(t, err, webhooks.ErrEndpointNotFound)
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newIntegFixture(t, stores["memory"])
			hook, _ := webhookSamples(t, f)
			other, err := f.app.Webhooks.Create(t.Context(), auth.SystemPrincipal(f.other.ID),
				webhooks.Input{URL: "https://other.example.com/in", EventTypes: []string{"*"}})
			require.NoError(t, err)
			require.NoError(t, f.app.Webhooks.Delete(t.Context(), auth.SystemPrincipal(f.brand.ID), mustSecond(t, f, hook)))
			path := strings.NewReplacer("{id}", hook, "{other}", other.ID).Replace(tc.path)
			rec, e := f.do(t, tc.method, path, jsonHeaders("shop.example.com", "Auth-Key", f.keys[tc.key]), tc.body)
			require.Equal(t, tc.status, rec.Code, rec.Body.String())
			var codes []string
			for _, it := range e.Errors {
				codes = append(codes, it.Code)
			}
			assert.Equal(t, tc.codes, codes)
			if tc.check != nil {
				tc.check(t, ctx{f: f, hook: hook, otherHook: other.ID}, rec.Result(), e.Data)
			}
		})
	}
}

// mustSecond returns the ID of the brand's endpoint other than hook (the
// second webhookSamples makes), so that a scenario starts with one.
func mustSecond(t *testing.T, f *integFixture, hook string) string {
	t.Helper()
	list, err := f.app.Webhooks.List(t.Context(), auth.SystemPrincipal(f.brand.ID))
	require.NoError(t, err)
	for _, e := range list {
		if e.ID != hook {
			return e.ID
		}
	}
	t.Fatal("no second endpoint")
	return ""
}
