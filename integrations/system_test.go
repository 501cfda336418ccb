package integrations_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/integrations"
)

// The host acting as auth.SystemPrincipal may change anything in its brand,
// and the revisions say the system did, naming no user; a user's change
// names the user. A principal that is neither a user nor the system, or the
// system of another brand, is refused.
func TestSystemPrincipal(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, w *world) {
		ctx := t.Context()
		a := w.analytics(t)
		system := auth.SystemPrincipal(w.brand)
		assert.True(t, system.System)
		assert.Empty(t, system.UserID)
		assert.Equal(t, auth.SystemActor, system.Username)

		in := w.analyticsInput(w.analyticsApp.ID)
		in.TrackingID = ptr("G-SYSTEM")
		var seen []integrations.Revision
		unsubscribe := w.svc.OnIntegrationUpdated(func(_ context.Context, ev integrations.IntegrationUpdated) {
			seen = append(seen, ev.Revision)
		})
		defer unsubscribe()
		_, err := w.svc.UpdateAnalytics(ctx, system, a.ID, in)
		require.NoError(t, err)
		in.TrackingID = ptr("G-ADMIN")
		_, err = w.svc.UpdateAnalytics(ctx, w.admin, a.ID, in)
		require.NoError(t, err)

		revs, err := w.svc.Revisions(ctx, w.brand, integrations.KindAnalytics, a.ID)
		require.NoError(t, err)
		require.GreaterOrEqual(t, len(revs), 2)
		bySystem, byAdmin := revs[len(revs)-2], revs[len(revs)-1]
		assert.True(t, bySystem.ActorSystem, "the system's change is the system's")
		assert.Empty(t, bySystem.ActorUserID, "and names no user")
		assert.False(t, byAdmin.ActorSystem)
		assert.Equal(t, w.admin.UserID, byAdmin.ActorUserID)
		require.Len(t, seen, 2)
		assert.True(t, seen[0].ActorSystem, "the hook sees it too")
		assert.False(t, seen[1].ActorSystem)

		for name, p := range map[string]auth.Principal{
			// An update works in its actor's brand: the system of another
			// brand acting in this one holds no permission here.
			"the system of another brand": auth.Acting{Brand: auth.Brand{ID: w.brand}, Principal: auth.SystemPrincipal(w.other)}.Actor(),
			"no user and not the system":  {BrandID: w.brand, Permissions: []auth.Permission{auth.PermAll}},
		} {
			_, err := w.svc.UpdateAnalytics(ctx, p, a.ID, in)
			assert.Equal(t, envelope.KindForbidden, envelope.KindOf(err), name)
		}
		_, err = w.svc.UpdateAnalytics(ctx, auth.SystemPrincipal(w.other), a.ID, in)
		assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err), "in its own brand, the system of another brand finds nothing of this one")
	})
}
