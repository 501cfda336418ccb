package httpadapter_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/integrations"
)

// jfwAppIntegration is what jfw-js reads of an IAppIntegration.
type jfwAppIntegration struct {
	ID          string  `json:"id"`
	Type        string  `json:"type"`
	Name        string  `json:"name"`
	Domain      string  `json:"domain"`
	Description *string `json:"description"`
	LogoURL     *string `json:"logoURL"`
	Status      string  `json:"status"`
}

// jfwConfig is what jfw-js reads of an IAppIntegrationAnalytics or
// IAppIntegrationPaymentGateway here.
type jfwConfig struct {
	ID               string  `json:"id"`
	AppIntegrationID *string `json:"appIntegrationId"`
	APIKey           *string `json:"apiKey"`
	PrivateKey       *string `json:"privateKey"`
	IsDefault        bool    `json:"isDefault"`
	Status           string  `json:"status"`
}

func decodeData[T any](t *testing.T, e env) T {
	t.Helper()
	var v T
	require.NoError(t, json.Unmarshal(e.Data, &v), string(e.Data))
	return v
}

// TestAppIntegrationsList calls GET app-integrations as jfw-js's
// getAppIntegrations does (params type, status, keywords), on every store.
func TestAppIntegrationsList(t *testing.T) {
	t.Parallel()
	for name, newStore := range stores {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newIntegFixture(t, newStore)
			viewer := jsonHeaders("shop.example.com", "Auth-Key", f.keys["viewer"])
			list := func(query string) []jfwAppIntegration {
				t.Helper()
				rec, e := f.do(t, "GET", "/api/v1/app-integrations"+query, viewer, "")
				require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
				assert.NotEmpty(t, rec.Header().Get("ETag"))
				return decodeData[[]jfwAppIntegration](t, e)
			}
			all := list("")
			require.Len(t, all, 2, "the brand's two, not the other brand's; any user of the brand may list")
			assert.Equal(t, jfwAppIntegration{ID: f.analytics.AppIntegration.ID, Type: "Analytics", Name: "Google Analytics",
				Domain: "https://analytics.google.com", Description: new(""), Status: "Active"}, all[0])
			assert.Equal(t, "PaymentGateway", all[1].Type)
			assert.Equal(t, []jfwAppIntegration{all[1]}, list("?type=paymentgateway"))
			assert.Equal(t, []jfwAppIntegration{all[1]}, list("?Keywords=strip"))
			assert.Equal(t, all, list("?status=Active&keywords="))
			assert.Empty(t, list("?status=inactive"))
			assert.Empty(t, list("?keywords=%2B%2B"), "keywords without a letter or digit match nothing")
			assert.Empty(t, list("?type=Analytics&keywords=stripe"), "filters combine")

			rec, e := f.do(t, "GET", "/api/v1/app-integrations?type=CRM&status=on", viewer, "")
			require.Equal(t, http.StatusBadRequest, rec.Code)
			fields := map[string]string{}
			for _, it := range e.Errors {
				fields[it.Field] = it.Code
			}
			assert.Equal(t, map[string]string{"type": "invalid_enum", "status": "invalid_enum"}, fields)
			rec, _ = f.do(t, "GET", "/api/v1/app-integrations", jsonHeaders("shop.example.com"), "")
			assert.Equal(t, http.StatusUnauthorized, rec.Code, "a signed-in user only")
		})
	}
}

// TestIntegrationAdminRoutes creates, lists and deletes configurations as
// jfw-js's createAppIntegrationAnalytics, getAppIntegrationAnalyticsWithBrand,
// deleteAppIntegrationAnalytics (and the payment-gateway ones) do, on
// every store.
func TestIntegrationAdminRoutes(t *testing.T) {
	t.Parallel()
	for name, newStore := range stores {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newIntegFixture(t, newStore)
			ctx := t.Context()
			as := func(role string) map[string]string {
				return jsonHeaders("shop.example.com", "Auth-Key", f.keys[role])
			}

			// Create: the permission of the kind, 201 and the new record.
			body := analyticsBody(f.analytics.AppIntegration.ID, map[string]any{"apiSecret": "as_created_secret", "isDefault": true})
			rec, e := f.do(t, "POST", "/api/v1/app-integrations/analytics", as("viewer"), body)
			require.Equal(t, http.StatusForbidden, rec.Code)
			assert.Equal(t, integrations.CodeAccessDenied, e.Errors[0].Code)
			rec, e = f.do(t, "POST", "/api/v1/app-integrations/analytics", as("analyst"), body)
			require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
			assert.Equal(t, http.StatusCreated, e.StatusCode)
			created := decodeData[jfwConfig](t, e)
			assert.Equal(t, "***********9999", *created.APIKey, "secrets masked")
			assert.True(t, created.IsDefault)
			assert.Equal(t, "Active", created.Status, "status sent in any case, canonical out")
			assert.NotEmpty(t, rec.Header().Get("ETag"))
			rec, _ = f.do(t, "POST", "/api/v1/app-integrations/analytics", as("analyst"), `{"trackingId":"x"}`)
			assert.Equal(t, http.StatusBadRequest, rec.Code)
			gw := gatewayBody(f.gateway.AppIntegration.ID, map[string]any{"privateKey": "sk_live_created_1"})
			rec, _ = f.do(t, "POST", "/api/v1/app-integrations/payment-gateway", as("analyst"), gw)
			assert.Equal(t, http.StatusForbidden, rec.Code, "the analyst may not write payment gateways")
			rec, e = f.do(t, "POST", "/api/v1/app-integrations/payment-gateway", as("admin"), gw)
			require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
			createdGW := decodeData[jfwConfig](t, e)
			assert.Equal(t, "*************ed_1", *createdGW.PrivateKey)

			// Lists: any user of the brand, secrets masked.
			rec, e = f.do(t, "GET", "/api/v1/app-integrations/analytics", as("viewer"), "")
			require.Equal(t, http.StatusOK, rec.Code)
			list := decodeData[[]jfwConfig](t, e)
			require.Len(t, list, 2)
			assert.Equal(t, []string{f.analytics.ID, created.ID}, []string{list[0].ID, list[1].ID}, "oldest first")
			assert.Equal(t, "***********9999", *list[1].APIKey)
			rec, e = f.do(t, "GET", "/api/v1/app-integrations/payment-gateway", as("viewer"), "")
			require.Equal(t, http.StatusOK, rec.Code)
			assert.Len(t, decodeData[[]jfwConfig](t, e), 2)
			rec, e = f.do(t, "GET", "/api/v1/app-integrations/analytics", jsonHeaders("other.example.com", "Auth-Key", f.keys["boss"]), "")
			require.Equal(t, http.StatusOK, rec.Code)
			assert.Equal(t, []string{f.otherAnalytics.ID}, []string{decodeData[[]jfwConfig](t, e)[0].ID}, "a brand's own only")

			// Delete: the permission of the kind, 200 data true, 404 after.
			path := analyticsPath(created.ID)
			rec, _ = f.do(t, "DELETE", path, as("viewer"), "")
			assert.Equal(t, http.StatusForbidden, rec.Code)
			rec, _ = f.do(t, "DELETE", analyticsPath(f.otherAnalytics.ID), as("admin"), "")
			assert.Equal(t, http.StatusNotFound, rec.Code, "another brand's record is not found")
			rec, _ = f.do(t, "DELETE", gatewayPath(created.ID), as("admin"), "")
			assert.Equal(t, http.StatusNotFound, rec.Code, "an analytics ID is no payment gateway")
			rec, e = f.do(t, "DELETE", path, as("analyst"), "")
			require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
			assert.JSONEq(t, "true", string(e.Data), "jfw-js reads data: true")
			rec, _ = f.do(t, "DELETE", path, as("analyst"), "")
			assert.Equal(t, http.StatusNotFound, rec.Code)
			rec, _ = f.do(t, "GET", path, as("viewer"), "")
			assert.Equal(t, http.StatusNotFound, rec.Code)
			_, err := f.app.Integrations.AnalyticsSecrets(ctx, f.brand.ID, created.ID)
			assert.ErrorIs(t, err, integrations.ErrConfigNotFound, "the secrets went with the record")
			revs, err := f.app.Integrations.Revisions(ctx, f.brand.ID, integrations.KindAnalytics, created.ID)
			require.NoError(t, err)
			if assert.Len(t, revs, 1) {
				assert.True(t, revs[0].Deleted())
				analyst, err := f.app.Auth.UserByUsername(ctx, f.brand.ID, "analyst")
				require.NoError(t, err)
				assert.Equal(t, analyst.ID, revs[0].ActorUserID, "the revision names who deleted")
			}
			all, err := f.app.Integrations.ListAnalytics(ctx, f.brand.ID)
			require.NoError(t, err)
			for _, a := range all {
				assert.False(t, a.IsDefault, "deleting the default leaves no default")
			}

			rec, e = f.do(t, "DELETE", gatewayPath(createdGW.ID), as("admin"), "")
			require.Equal(t, http.StatusOK, rec.Code)
			assert.JSONEq(t, "true", string(e.Data))
			_, err = f.app.Integrations.PaymentGatewaySecrets(ctx, f.brand.ID, createdGW.ID)
			assert.ErrorIs(t, err, integrations.ErrConfigNotFound)
		})
	}
}
