package integrations_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/events"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/outbox"
)

// integrationEvents returns the events of brandID in the outbox, oldest
// first, with their data decoded.
func integrationEvents(t *testing.T, w *world, brandID string) []eventRead {
	t.Helper()
	lister, ok := w.store.(interface {
		Items(ctx context.Context, f outbox.Filter) ([]outbox.Item, error)
	})
	require.True(t, ok, "the store lists its outbox items")
	items, err := lister.Items(t.Context(), outbox.Filter{BrandID: brandID, Channel: outbox.ChannelEvent, Limit: 1000})
	require.NoError(t, err)
	slices.Reverse(items)
	var out []eventRead
	for _, it := range items {
		p, err := events.Decode(it.Payload)
		require.NoError(t, err)
		var d events.Integration
		require.NoError(t, json.Unmarshal(p.Data, &d))
		assert.Equal(t, it.ID, p.ID)
		assert.Equal(t, it.Topic, string(p.Type))
		assert.Equal(t, brandID, p.BrandID)
		assert.Equal(t, events.Version, p.Version)
		assert.Equal(t, d.ID, p.SubjectID)
		assert.True(t, w.clock.Now().Equal(p.Timestamp))
		out = append(out, eventRead{typ: p.Type, data: d, body: string(it.Payload)})
	}
	return out
}

type eventRead struct {
	typ  events.Type
	data events.Integration
	body string
}

// TestIntegrationEventsWrittenWithTheirChange: every committed change of an
// app integration or a configuration writes its event in its transaction;
// one refused writes none; no secret value is in any.
func TestIntegrationEventsWrittenWithTheirChange(t *testing.T) {
	t.Parallel()
	type want struct {
		typ     events.Type
		kind    integrations.RecordKind
		changed []string
	}
	cases := []struct {
		name   string
		change func(t *testing.T, w *world) error
		want   []want
	}{
		{"an app integration created", func(t *testing.T, w *world) error {
			w.app(t, w.admin, integrations.TypeAnalytics)
			return nil
		}, []want{{events.IntegrationCreated, integrations.KindAppIntegration, nil}}},
		{"an app integration updated", func(t *testing.T, w *world) error {
			_, err := w.svc.UpdateAppIntegration(t.Context(), w.admin, w.analyticsApp.ID, integrations.AppIntegrationInput{
				Type: integrations.TypeAnalytics, Name: "Renamed", Domain: w.analyticsApp.Domain})
			return err
		}, []want{{events.IntegrationUpdated, integrations.KindAppIntegration, []string{"name"}}}},
		{"a configuration created, updated and deleted", func(t *testing.T, w *world) error {
			a := w.analytics(t)
			in := w.analyticsInput(w.analyticsApp.ID)
			in.APIKey = ptr("ak_live_rotated_value_42")
			if _, err := w.svc.UpdateAnalytics(t.Context(), w.admin, a.ID, in); err != nil {
				return err
			}
			return w.svc.DeleteAnalytics(t.Context(), w.admin, a.ID)
		}, []want{{events.IntegrationCreated, integrations.KindAnalytics, nil},
			{events.IntegrationUpdated, integrations.KindAnalytics, []string{"apiKey"}},
			{events.IntegrationDeleted, integrations.KindAnalytics, nil}}},
		{"a payment gateway created", func(t *testing.T, w *world) error {
			w.gateway(t)
			return nil
		}, []want{{events.IntegrationCreated, integrations.KindPaymentGateway, nil}}},
		{"a refused change writes none", func(t *testing.T, w *world) error {
			_, err := w.svc.CreateAnalytics(t.Context(), w.viewer, w.analyticsInput(w.analyticsApp.ID))
			assert.Equal(t, envelope.KindForbidden, envelope.KindOf(err))
			a := w.analytics(t)
			_, err = w.svc.UpdateAnalytics(t.Context(), w.admin, a.ID, w.analyticsInput(w.analyticsApp.ID),
				integrations.IfMatch("stale"))
			assert.Equal(t, envelope.KindPreconditionFailed, envelope.KindOf(err))
			return nil
		}, []want{{events.IntegrationCreated, integrations.KindAnalytics, nil}}},
	}
	for name, newStore := range stores {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					t.Parallel()
					w := newWorld(t, newStore)
					before := len(integrationEvents(t, w, w.brand))
					require.NoError(t, tc.change(t, w))
					got := integrationEvents(t, w, w.brand)[before:]
					require.Len(t, got, len(tc.want))
					for i, wt := range tc.want {
						assert.Equal(t, wt.typ, got[i].typ)
						assert.Equal(t, string(wt.kind), got[i].data.Kind)
						assert.Equal(t, wt.changed, got[i].data.Changed)
						assert.Equal(t, "admin", got[i].data.ActorUserID)
						for _, secret := range []string{"ak_live_", "as_secret_value", "sk_live_private"} {
							assert.NotContains(t, got[i].body, secret)
						}
					}
				})
			}
		})
	}
}
