package webhooks_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/internal/testkit/teststores"
	"github.com/brandbase/brandbase/outbox"
	"github.com/brandbase/brandbase/webhooks"
)

// TestEventsReachEndpointsThroughTheOutbox: an event written to the
// outbox is fanned out by the real dispatcher to the brand's enabled
// endpoints that take its type, each delivery signed and carrying the
// event's sequence; the deliveries are listed with their outcome, and a
// replay sends one again with the same webhook-id. On every store.
func TestEventsReachEndpointsThroughTheOutbox(t *testing.T) {
	t.Parallel()
	for name, open := range teststores.All {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := open(t)
			t.Cleanup(func() { s.Close() })
			f := newFixtureOn(t, s, webhooks.WithQueue(s), webhooks.WithClock(time.Now))
			ctx := t.Context()
			rcv := newReceiver(t, time.Now, nil)
			takes := func(types ...string) webhooks.EndpointWithSecret {
				e, err := f.svc.Create(ctx, f.system, webhooks.Input{URL: rcv.srv.URL + "/" + types[0], EventTypes: types})
				require.NoError(t, err)
				rcv.trust(e.ID, e.Secret)
				return e
			}
			created, all, other := takes("user.created"), takes("*"), takes("user.updated")
			off := takes("user.created")
			_, err := f.svc.Update(ctx, f.system, off.ID, webhooks.Input{URL: rcv.srv.URL, EventTypes: []string{"*"}, Enabled: new(false)})
			require.NoError(t, err)

			d := outbox.NewDispatcher(s, outbox.WithPollInterval(20*time.Millisecond))
			d.Handle(outbox.ChannelEvent, f.svc.EventHandler())
			d.Handle(outbox.ChannelWebhook, f.svc.DeliveryHandler())
			d.Start()
			t.Cleanup(func() { d.Close() })
			ev := outbox.Item{ID: "evt_one", BrandID: f.brand.ID, Channel: outbox.ChannelEvent, Topic: "user.created",
				SubjectID: "u1", Payload: []byte(`{"type":"user.created","data":{"userId":"u1"}}`), CreatedAt: time.Now()}
			require.NoError(t, s.Enqueue(ctx, ev))
			d.Notify()
			require.Eventually(t, func() bool { return len(rcv.received()) == 2 }, 10*time.Second, 10*time.Millisecond)

			events, err := s.Items(ctx, outbox.Filter{BrandID: f.brand.ID, Channel: outbox.ChannelEvent})
			require.NoError(t, err)
			require.Len(t, events, 1)
			seq := events[0].Seq
			for _, g := range rcv.received() {
				assert.Empty(t, g.refused)
				assert.Equal(t, "evt_one", g.id)
				require.Len(t, g.verifiedBy, 1)
				assert.Contains(t, []string{created.ID, all.ID}, g.verifiedBy[0], "signed with the endpoint's own secret")
				var p map[string]any
				require.NoError(t, json.Unmarshal(g.body, &p))
				assert.Equal(t, float64(seq), p["sequence"])
				assert.Equal(t, "user.created", p["type"])
			}
			for _, e := range []webhooks.EndpointWithSecret{other, off} {
				list, err := f.svc.Deliveries(ctx, f.system, e.ID, webhooks.DeliveryQuery{})
				require.NoError(t, err)
				assert.Empty(t, list, "an endpoint that does not take the type, or is disabled, gets none")
			}

			require.Eventually(t, func() bool {
				list, err := f.svc.Deliveries(ctx, f.system, created.ID, webhooks.DeliveryQuery{})
				return err == nil && len(list) == 1 && list[0].Status == outbox.StatusDelivered
			}, 10*time.Second, 10*time.Millisecond)
			list, err := f.svc.Deliveries(ctx, f.system, created.ID, webhooks.DeliveryQuery{Status: "Delivered"})
			require.NoError(t, err)
			require.Len(t, list, 1)
			assert.Equal(t, webhooks.Delivery{ID: "evt_one", EventType: "user.created", Status: outbox.StatusDelivered,
				Attempts: 1, LastStatusCode: http.StatusNoContent, Sequence: list[0].Sequence, CreatedDate: list[0].CreatedDate,
				DeliveredDate: list[0].DeliveredDate}, list[0])
			assert.NotEmpty(t, list[0].DeliveredDate)

			require.NoError(t, f.svc.Replay(ctx, f.system, created.ID, "evt_one"))
			d.Notify()
			require.Eventually(t, func() bool { return len(rcv.received()) == 3 }, 10*time.Second, 10*time.Millisecond)
			last := rcv.received()[2]
			assert.Equal(t, "evt_one", last.id, "a replay carries the same webhook-id")
			assert.Equal(t, []string{created.ID}, last.verifiedBy)
			assert.ErrorIs(t, f.svc.Replay(ctx, f.system, created.ID, "evt_none"), webhooks.ErrDeliveryNotFound)
			assert.ErrorIs(t, f.svc.Replay(ctx, f.system, other.ID, "evt_one"), webhooks.ErrDeliveryNotFound)
		})
	}
}
