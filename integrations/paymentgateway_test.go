package integrations_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/integrations"
)

func TestPaymentGatewayValidation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		mutate func(w *world, in *integrations.PaymentGatewayInput)
		want   map[string]string // nil: accepted
	}{
		{"missing required fields", func(_ *world, in *integrations.PaymentGatewayInput) {
			*in = integrations.PaymentGatewayInput{}
		}, map[string]string{"appIntegrationId": "required", "name": "required"}},
		{"links must be absolute http(s) URLs", func(_ *world, in *integrations.PaymentGatewayInput) {
			in.IPNListenerLink, in.CancelLink = ptr("/relative/path"), ptr("ftp://files.example.com/x")
			in.ReturnLink, in.CancelLinkWithoutLogin = ptr("https://"), ptr("https://exa mple.com")
		}, map[string]string{"ipnListenerLink": "invalid_url", "cancelLink": "invalid_url",
			"returnLink": "invalid_url", "cancelLinkWithoutLogin": "invalid_url"}},
		{"https required in production", func(_ *world, in *integrations.PaymentGatewayInput) {
			in.IPNListenerLink = ptr("http://shop.example.com/ipn")
		}, map[string]string{"ipnListenerLink": "https_required"}},
		{"http allowed in test mode", func(_ *world, in *integrations.PaymentGatewayInput) {
			in.IPNListenerLink, in.TestMode = ptr("http://shop.example.com/ipn"), ptr(true)
		}, nil},
		{"http allowed for localhost", func(_ *world, in *integrations.PaymentGatewayInput) {
			in.IPNListenerLink, in.ReturnLink = ptr("http://localhost:3000/ipn"), ptr("http://127.0.0.1/return")
		}, nil},
		{"blank links are absent", func(_ *world, in *integrations.PaymentGatewayInput) {
			in.IPNListenerLink, in.CancelLink = ptr(""), ptr("  ")
		}, nil},
		{"wrong app integration type and bad status", func(w *world, in *integrations.PaymentGatewayInput) {
			in.AppIntegrationID, in.Status = &w.analyticsApp.ID, ptr(integrations.Status("Deleted"))
		}, map[string]string{"appIntegrationId": "type_mismatch", "status": "invalid_enum"}},
		{"app integration of another brand", func(w *world, in *integrations.PaymentGatewayInput) {
			in.AppIntegrationID = &w.otherGatewayApp.ID
		}, map[string]string{"appIntegrationId": "unknown_reference"}},
		{"free text that no store can hold", func(_ *world, in *integrations.PaymentGatewayInput) {
			in.PublicKey, in.Description, in.Notes = ptr("pk\x00"), ptr("a\x00b"), ptr("bad \xff utf-8")
		}, map[string]string{"publicKey": "invalid_format", "description": "invalid_format", "notes": "invalid_format"}},
		{"free text with line breaks and tabs", func(_ *world, in *integrations.PaymentGatewayInput) {
			in.Description, in.Notes = ptr("line one\nline two"), ptr("a\tb")
		}, nil},
	}
	for name, newStore := range stores {
		for _, tt := range tests {
			t.Run(name+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				w := newWorld(t, newStore)
				p := w.gateway(t)
				in := w.gatewayInput(w.gatewayApp.ID)
				tt.mutate(w, &in)
				got, err := w.svc.UpdatePaymentGateway(t.Context(), w.admin, p.ID, in)
				if tt.want == nil {
					require.NoError(t, err)
					assert.EqualValues(t, 2, got.Version)
					return
				}
				assert.Equal(t, tt.want, fieldCodes(t, err))
				_, err = w.svc.CreatePaymentGateway(t.Context(), w.admin, in)
				assert.Equal(t, tt.want, fieldCodes(t, err), "create checks the same")
			})
		}
	}
}

func TestPaymentGatewayAnswerAndSecrets(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, w *world) {
		ctx := t.Context()
		p := w.gateway(t, func(in *integrations.PaymentGatewayInput) {
			in.Description, in.Notes, in.TestMode = ptr("Main gateway"), ptr("ops"), ptr(true)
		})
		assert.Equal(t, ptr("Stripe"), p.Name)
		assert.Equal(t, ptr("******************4242"), p.PrivateKey, "privateKey masked")
		assert.Equal(t, ptr("pk_live_abc"), p.PublicKey, "the public key is not a secret")
		assert.Equal(t, ptr("https://shop.example.com/ipn"), p.IPNListenerLink)
		assert.True(t, p.TestMode)
		assert.Equal(t, integrations.StatusActive, p.Status)
		assert.Equal(t, w.gatewayApp, p.AppIntegration)

		got, err := w.svc.PaymentGateway(ctx, w.brand, p.ID)
		require.NoError(t, err)
		assert.Equal(t, p, got)
		sec, err := w.svc.PaymentGatewaySecrets(ctx, w.brand, p.ID)
		require.NoError(t, err)
		assert.Equal(t, ptr("sk_live_private_424242"), sec.PrivateKey)

		// PUT semantics: fields not sent are cleared (testMode false), the
		// private key sent back masked is kept.
		in := integrations.PaymentGatewayInput{AppIntegrationID: &w.gatewayApp.ID, Name: ptr("Stripe 2"), PrivateKey: p.PrivateKey}
		got, err = w.svc.UpdatePaymentGateway(ctx, w.admin, p.ID, in)
		require.NoError(t, err)
		assert.Nil(t, got.IPNListenerLink)
		assert.Nil(t, got.Description)
		assert.False(t, got.TestMode)
		assert.Equal(t, p.PrivateKey, got.PrivateKey)
		sec, err = w.svc.PaymentGatewaySecrets(ctx, w.brand, p.ID)
		require.NoError(t, err)
		assert.Equal(t, ptr("sk_live_private_424242"), sec.PrivateKey)
		revs, err := w.svc.Revisions(ctx, w.brand, integrations.KindPaymentGateway, p.ID)
		require.NoError(t, err)
		require.Len(t, revs, 1)
		assert.Equal(t, []string{"cancelLink", "cancelLinkWithoutLogin", "description", "ipnListenerLink", "name",
			"notes", "publicKey", "returnLink", "testMode"}, revs[0].Fields)

		list, err := w.svc.ListPaymentGateways(ctx, w.brand)
		require.NoError(t, err)
		assert.Equal(t, []integrations.PaymentGateway{got}, list)
	})
}

func TestAppIntegrations(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, w *world) {
		ctx := t.Context()
		_, err := w.svc.CreateAppIntegration(ctx, w.admin, integrations.AppIntegrationInput{})
		assert.Equal(t, map[string]string{"type": "required", "name": "required", "domain": "required"}, fieldCodes(t, err))
		_, err = w.svc.CreateAppIntegration(ctx, w.admin, integrations.AppIntegrationInput{
			Type: "Crm", Name: "x", Domain: "not a url", LogoURL: ptr("javascript:alert(1)"), Status: "gone",
		})
		assert.Equal(t, map[string]string{"type": "invalid_enum", "domain": "invalid_url", "logoURL": "invalid_url",
			"status": "invalid_enum"}, fieldCodes(t, err))
		_, err = w.svc.CreateAppIntegration(ctx, w.admin, integrations.AppIntegrationInput{
			Type: "analytics", Name: "x", Domain: "https://crm.example.com", Description: "nul\x00",
		})
		assert.Equal(t, map[string]string{"description": "invalid_format"}, fieldCodes(t, err), "text no store can hold")

		a, err := w.svc.CreateAppIntegration(ctx, w.admin, integrations.AppIntegrationInput{
			Type: "paymentgateway", Name: " PayPal ", Domain: "http://paypal.example.com", Description: "Wallets",
			LogoURL: ptr("https://paypal.example.com/logo.svg"), Status: "INACTIVE",
		})
		require.NoError(t, err)
		assert.Equal(t, integrations.TypePaymentGateway, a.Type, "type canonical")
		assert.Equal(t, "PayPal", a.Name)
		assert.Equal(t, integrations.StatusInactive, a.Status)
		got, err := w.svc.AppIntegration(ctx, w.brand, a.ID)
		require.NoError(t, err)
		assert.Equal(t, a, got)

		typ := integrations.TypePaymentGateway
		list, err := w.svc.AppIntegrations(ctx, w.brand, &typ)
		require.NoError(t, err)
		assert.Equal(t, []integrations.AppIntegration{w.gatewayApp, a}, list)

		_, err = w.svc.UpdateAppIntegration(ctx, w.admin, a.ID, integrations.AppIntegrationInput{
			Type: integrations.TypeAnalytics, Name: "PayPal", Domain: "https://paypal.example.com",
		})
		assert.Equal(t, map[string]string{"type": "immutable"}, fieldCodes(t, err))
		up, err := w.svc.UpdateAppIntegration(ctx, w.admin, a.ID, integrations.AppIntegrationInput{
			Name: "PayPal", Domain: "https://paypal.example.com",
		})
		require.NoError(t, err)
		assert.Nil(t, up.LogoURL)
		assert.Equal(t, integrations.StatusInactive, up.Status, "an empty status keeps the stored one")
		assert.EqualValues(t, 2, up.Version)
		revs, err := w.svc.Revisions(ctx, w.brand, integrations.KindAppIntegration, a.ID)
		require.NoError(t, err)
		require.Len(t, revs, 1)
		assert.Equal(t, []string{"description", "domain", "logoURL"}, revs[0].Fields)

		// A configuration created under an Inactive app integration is
		// Inactive.
		p, err := w.svc.CreatePaymentGateway(ctx, w.admin, w.gatewayInput(a.ID))
		require.NoError(t, err)
		assert.Equal(t, integrations.StatusInactive, p.Status)
	})
}

// A payment gateway stored without a name answers "name": null, as the
// interface allows; one with a name answers it.
func TestPaymentGatewayNameMayBeNull(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, w *world) {
		ctx := t.Context()
		p := w.gateway(t)
		out, err := json.Marshal(p)
		require.NoError(t, err)
		assert.Contains(t, string(out), `"name":"Stripe"`)

		require.NoError(t, w.store.IntegrationsTx(ctx, func(tx integrations.Tx) error {
			r, err := tx.ConfigByID(ctx, integrations.KindPaymentGateway, w.brand, p.ID)
			if err != nil {
				return err
			}
			var body map[string]any
			if err := json.Unmarshal(r.Body, &body); err != nil {
				return err
			}
			delete(body, "name")
			if r.Body, err = json.Marshal(body); err != nil {
				return err
			}
			return tx.UpdateConfig(ctx, r)
		}))
		got, err := w.svc.PaymentGateway(ctx, w.brand, p.ID)
		require.NoError(t, err)
		assert.Nil(t, got.Name)
		out, err = json.Marshal(got)
		require.NoError(t, err)
		assert.Contains(t, string(out), `"name":null`)
	})
}
