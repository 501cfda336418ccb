package integrations_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/integrations"
)

// TestMissingConfigReadsAlike checks that a missing configuration fails
// with ErrConfigNotFound (404, not_found, one message) for every kind and
// call, on every store.
func TestMissingConfigReadsAlike(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, w *world) {
		ctx := t.Context()
		other := w.analytics(t) // exists, but is not of the payment-gateway kind
		calls := map[string]func(ctx context.Context, id string) error{
			"Analytics": func(ctx context.Context, id string) error { _, err := w.svc.Analytics(ctx, w.brand, id); return err },
			"PaymentGateway": func(ctx context.Context, id string) error {
				_, err := w.svc.PaymentGateway(ctx, w.brand, id)
				return err
			},
			"UpdateAnalytics": func(ctx context.Context, id string) error {
				_, err := w.svc.UpdateAnalytics(ctx, w.admin, id, w.analyticsInput(w.analyticsApp.ID))
				return err
			},
			"UpdatePaymentGateway": func(ctx context.Context, id string) error {
				_, err := w.svc.UpdatePaymentGateway(ctx, w.admin, id, w.gatewayInput(w.gatewayApp.ID))
				return err
			},
			"AnalyticsSecrets": func(ctx context.Context, id string) error {
				_, err := w.svc.AnalyticsSecrets(ctx, w.brand, id)
				return err
			},
		}
		for name, call := range calls {
			for _, id := range []string{"", "missing", other.ID} {
				if id == other.ID && name != "PaymentGateway" && name != "UpdatePaymentGateway" {
					continue
				}
				err := call(ctx, id)
				require.Errorf(t, err, "%s(%q)", name, id)
				assert.ErrorIsf(t, err, integrations.ErrConfigNotFound, "%s(%q)", name, id)
				e := envelope.As(err)
				assert.Equal(t, envelope.KindNotFound, e.Kind)
				assert.Equal(t, "not_found", e.Code)
				assert.Equal(t, integrations.ErrConfigNotFound.Message, e.Message)
			}
		}
	})
}

// The integrations' status is their own type, parsed in any case.
func TestParseStatus(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]integrations.Status{
		"Active": integrations.StatusActive, " inactive ": integrations.StatusInactive, "ACTIVE": integrations.StatusActive, "": "", "Paused": "",
	} {
		got, ok := integrations.ParseStatus(in)
		assert.Equal(t, want, got, in)
		assert.Equal(t, want != "", ok, in)
	}
}
