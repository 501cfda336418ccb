package webhooks_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/outbox"
	"github.com/brandbase/brandbase/storage"
	"github.com/brandbase/brandbase/storage/memory"
	"github.com/brandbase/brandbase/webhooks"
)

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// written records the outbox items the real store is given with each
// UpdateWebhook that succeeds (the store writes them; the record lets a
// test read them before the queue's Items).
type written struct {
	webhooks.Store
	mu    sync.Mutex
	items []outbox.Item
}

func (w *written) UpdateWebhook(ctx context.Context, brandID, id string, fn func(*webhooks.Record) error, out ...outbox.Item) (webhooks.Record, error) {
	r, err := w.Store.UpdateWebhook(ctx, brandID, id, fn, out...)
	if err == nil {
		w.mu.Lock()
		w.items = append(w.items, out...)
		w.mu.Unlock()
	}
	return r, err
}

func (w *written) all() []outbox.Item {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]outbox.Item(nil), w.items...)
}

// fixture is a webhooks service on a real store, with one brand.
type fixture struct {
	store   storage.Storage
	written *written
	svc     *webhooks.Service
	clock   *clock
	keys    *integrations.KeyRing
	key1    []byte // the ring's one key, k1
	brand   auth.Brand
	system  auth.Principal
}

// newFixture opens a memory store (SQLite in memory) with a brand and a
// service on it at a test clock; opts come after the fixture's own
// (loopback allowed unless opts set another policy).
func newFixture(t *testing.T, opts ...webhooks.Option) *fixture {
	t.Helper()
	s, err := memory.New(t.Context())
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return newFixtureOn(t, s, opts...)
}

// newFixtureOn is newFixture on the store s.
func newFixtureOn(t *testing.T, s storage.Storage, opts ...webhooks.Option) *fixture {
	t.Helper()
	f := &fixture{store: s, written: &written{Store: s}, clock: newClock(), key1: integrations.GenerateKey()}
	keys, err := integrations.NewKeyRing("k1", map[string][]byte{"k1": f.key1})
	require.NoError(t, err)
	f.keys = keys
	var b auth.Brand
	b, err = auth.NewService(s).CreateBrand(t.Context(), auth.NewBrand{URL: "hooks.example.com", Name: "Hooks"})
	require.NoError(t, err)
	f.brand, f.system = b, auth.SystemPrincipal(b.ID)
	all := append([]webhooks.Option{webhooks.WithClock(f.clock.Now), webhooks.WithKeyRing(f.keys),
		webhooks.WithAddressPolicy(webhooks.AddressPolicy{AllowLoopback: true})}, opts...)
	f.svc = webhooks.NewService(f.written, all...)
	return f
}

// create makes an endpoint at url taking every event, as the system.
func (f *fixture) create(t *testing.T, url string) webhooks.EndpointWithSecret {
	t.Helper()
	e, err := f.svc.Create(t.Context(), f.system, webhooks.Input{URL: url, EventTypes: []string{"*"}})
	require.NoError(t, err)
	return e
}

// delivery returns a webhook item of the event id to the endpoint.
func (f *fixture) delivery(endpointID, id, payload string) outbox.Item {
	return outbox.Item{ID: id, BrandID: f.brand.ID, Channel: outbox.ChannelWebhook, Topic: "user.created",
		Target: endpointID, Payload: []byte(payload), CreatedAt: f.clock.Now()}
}

// deliver runs the delivery handler on it.
func (f *fixture) deliver(t *testing.T, it outbox.Item) outbox.Result {
	t.Helper()
	return f.svc.DeliveryHandler().Deliver(t.Context(), it)
}
