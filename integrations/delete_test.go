package integrations_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/integrations"
)

// TestDeleteNeedsThePermissionOfItsKind: a configuration is deleted only
// by a holder of its own kind's permission in its brand; the other kind's
// permission, none, or a key of another brand delete nothing.
func TestDeleteNeedsThePermissionOfItsKind(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, w *world) {
		ctx := t.Context()
		payments := auth.Principal{UserID: "payments", BrandID: w.brand, Permissions: []auth.Permission{auth.PermPaymentGatewayWrite}}
		for _, tc := range []struct {
			name  string
			actor auth.Principal
			kind  integrations.RecordKind
			want  envelope.Kind // "" when deleted
		}{
			{"analytics by the analytics permission", w.analyst, integrations.KindAnalytics, ""},
			{"payment gateway by the payment-gateway permission", payments, integrations.KindPaymentGateway, ""},
			{"payment gateway by the analytics permission", w.analyst, integrations.KindPaymentGateway, envelope.KindForbidden},
			{"analytics by the payment-gateway permission", payments, integrations.KindAnalytics, envelope.KindForbidden},
			{"analytics without a permission", w.viewer, integrations.KindAnalytics, envelope.KindForbidden},
			{"payment gateway without a permission", w.viewer, integrations.KindPaymentGateway, envelope.KindForbidden},
			{"analytics by another brand's admin", w.otherAdmin, integrations.KindAnalytics, envelope.KindNotFound},
			{"payment gateway by another brand's admin", w.otherAdmin, integrations.KindPaymentGateway, envelope.KindNotFound},
			{"payment gateway by every permission", w.admin, integrations.KindPaymentGateway, ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				var id string
				var del func() error
				var read func() error
				if tc.kind == integrations.KindAnalytics {
					id = w.analytics(t).ID
					del = func() error { return w.svc.DeleteAnalytics(ctx, tc.actor, id) }
					read = func() error { _, err := w.svc.Analytics(ctx, w.brand, id); return err }
				} else {
					id = w.gateway(t).ID
					del = func() error { return w.svc.DeletePaymentGateway(ctx, tc.actor, id) }
					read = func() error { _, err := w.svc.PaymentGateway(ctx, w.brand, id); return err }
				}
				err := del()
				if tc.want != "" {
					assertKind(t, tc.want, err, "refused")
					if tc.want == envelope.KindForbidden {
						assert.Equal(t, auth.CodeAccessDenied, envelope.CodeOf(err))
					}
					assert.NoError(t, read(), "nothing deleted")
					return
				}
				require.NoError(t, err)
				assertKind(t, envelope.KindNotFound, read(), "deleted")
				revs, err := w.svc.Revisions(ctx, w.brand, tc.kind, id)
				require.NoError(t, err)
				require.NotEmpty(t, revs)
				assert.True(t, revs[len(revs)-1].Deleted(), "a revision records the deletion")
			})
		}
	})
}
