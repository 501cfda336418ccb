package brandbase_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/outbox"
	"github.com/brandbase/brandbase/storage/memory"
)

// outboxItem returns a webhook item of brand created now.
func outboxItem(brand string) outbox.Item {
	return outbox.Item{ID: "evt_" + uuid.NewString(), BrandID: brand, Channel: outbox.ChannelWebhook, Target: "ep_1",
		Topic: "user.created", Payload: []byte(`{}`), CreatedAt: time.Now().UTC()}
}

// attemptsOf returns the attempts stored for it.
func attemptsOf(t *testing.T, app *brandbase.App, it outbox.Item) (int, outbox.Status) {
	t.Helper()
	items, err := app.Store.Items(t.Context(), outbox.Filter{BrandID: it.BrandID})
	require.NoError(t, err)
	for _, got := range items {
		if got.ID == it.ID {
			return got.Attempts, got.Status
		}
	}
	t.Fatalf("no item %s", it.ID)
	return 0, ""
}

// TestAppOutbox checks the App's dispatcher: New starts it, it delivers
// through the handler registered on App.Outbox, and App.Close stops it;
// with Config.OutboxManualStart it delivers only once the host starts it.
func TestAppOutbox(t *testing.T) {
	t.Parallel()
	for _, manual := range []bool{false, true} {
		store, err := memory.New(t.Context())
		require.NoError(t, err)
		t.Cleanup(func() { store.Close() })
		app, err := brandbase.New(store, brandbase.Config{SecretKeys: integrations.EphemeralKeyRing(),
			Logger: slog.New(slog.DiscardHandler), OutboxManualStart: manual})
		require.NoError(t, err)
		var calls atomic.Int32
		app.Outbox.Handle(outbox.ChannelWebhook, outbox.HandlerFunc(func(context.Context, outbox.Item) outbox.Result {
			calls.Add(1)
			return outbox.Result{Code: 204}
		}))
		it := outboxItem("b1")
		require.NoError(t, app.Store.Enqueue(t.Context(), it))
		app.Outbox.Notify()
		if manual {
			n, _ := attemptsOf(t, app, it)
			assert.Zero(t, n, "not started")
			app.Outbox.Start()
		}
		require.Eventually(t, func() bool { _, st := attemptsOf(t, app, it); return st == outbox.StatusDelivered },
			10*time.Second, 5*time.Millisecond, "manual start %v", manual)
		require.NoError(t, app.Close())
		after := outboxItem("b1")
		require.NoError(t, app.Store.Enqueue(t.Context(), after))
		app.Outbox.Notify()
		n, _ := attemptsOf(t, app, after)
		assert.Zero(t, n, "closed: nothing more delivered")
		assert.Equal(t, int32(1), calls.Load())
	}
}

// TestReadinessIgnoresFailingDeliveries: deliveries that fail (a brand's
// mail server or endpoint down) never make the instance unready.
func TestReadinessIgnoresFailingDeliveries(t *testing.T) {
	t.Parallel()
	store, err := memory.New(t.Context())
	require.NoError(t, err)
	t.Cleanup(func() { store.Close() })
	app, err := brandbase.New(store, brandbase.Config{SecretKeys: integrations.EphemeralKeyRing(), Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	t.Cleanup(func() { app.Close() })
	app.Outbox.Handle(outbox.ChannelWebhook, outbox.HandlerFunc(func(context.Context, outbox.Item) outbox.Result {
		return outbox.Result{Err: errors.New("connection refused")}
	}))
	it := outboxItem("b1")
	require.NoError(t, app.Store.Enqueue(t.Context(), it))
	app.Outbox.Notify()
	require.Eventually(t, func() bool { n, _ := attemptsOf(t, app, it); return n > 0 }, 10*time.Second, 5*time.Millisecond)
	srv := healthServer(t, app)
	status, _, st := readyz(t, srv)
	assert.Equal(t, http.StatusOK, status, "%+v", st)
	assert.Equal(t, "ok", st.Status)
}
