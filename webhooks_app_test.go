package brandbase_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/outbox"
	"github.com/brandbase/brandbase/storage/memory"
	"github.com/brandbase/brandbase/webhooks"
)

// TestAppDeliversWebhooks: an App built by New delivers an event written
// to its outbox to the brand's endpoint, signed with the secret the create
// answered, with no wiring by the host.
func TestAppDeliversWebhooks(t *testing.T) {
	t.Parallel()
	store, err := memory.New(t.Context())
	require.NoError(t, err)
	t.Cleanup(func() { store.Close() })
	app, err := brandbase.New(store, brandbase.Config{OutboundPolicy: brandbase.OutboundPolicy{AllowLoopback: true},
		OutboxOptions: []outbox.Option{outbox.WithPollInterval(20 * time.Millisecond)}})
	require.NoError(t, err)
	t.Cleanup(func() { app.Close() })

	var mu sync.Mutex
	var got []*http.Request
	var bodies [][]byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got, bodies = append(got, r), append(bodies, b)
		mu.Unlock()
	}))
	t.Cleanup(srv.Close)

	ctx := t.Context()
	b, err := app.Auth.CreateBrand(ctx, auth.NewBrand{URL: "shop.example.com", Name: "Shop"})
	require.NoError(t, err)
	e, err := app.Webhooks.Create(ctx, auth.SystemPrincipal(b.ID), webhooks.Input{URL: srv.URL, EventTypes: []string{"user.created"}})
	require.NoError(t, err)
	require.NoError(t, app.Store.Enqueue(ctx, outbox.Item{ID: "evt_app", BrandID: b.ID, Channel: outbox.ChannelEvent,
		Topic: "user.created", Payload: []byte(`{"type":"user.created"}`), CreatedAt: time.Now()}))
	app.Outbox.Notify()
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(got) == 1 }, 10*time.Second, 10*time.Millisecond)

	mu.Lock()
	defer mu.Unlock()
	h := got[0].Header
	assert.Equal(t, "evt_app", h.Get("webhook-id"))
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(e.Secret, "whsec_"))
	require.NoError(t, err)
	m := hmac.New(sha256.New, key)
	m.Write([]byte(h.Get("webhook-id") + "." + h.Get("webhook-timestamp") + "." + string(bodies[0])))
	assert.Equal(t, "v1,"+base64.StdEncoding.EncodeToString(m.Sum(nil)), h.Get("webhook-signature"))
	assert.Contains(t, string(bodies[0]), `"sequence":`)
}
