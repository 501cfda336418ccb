package storagetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/outbox"
	"github.com/brandbase/brandbase/storage"
	"github.com/brandbase/brandbase/webhooks"
)

// runWebhooks runs the webhooks.Store scenarios.
func runWebhooks(t *testing.T, newStore NewStore) {
	runScenarios(t, newStore, []scenario{
		{"CreateAndRead", testWebhookCreateAndRead},
		{"Errors", testWebhookErrors},
		{"Update", testWebhookUpdate},
		{"UpdateWritesItsItems", testWebhookUpdateWritesItsItems},
		{"ConcurrentUpdatesAreAtomic", testWebhookConcurrentUpdates},
		{"PagesAcrossBrands", testWebhookPagesAcrossBrands},
	})
}

// testWebhook returns an endpoint record of brandID made at at.
func testWebhook(brandID string, at time.Time) webhooks.Record {
	return webhooks.Record{ID: uuid.NewString(), BrandID: brandID, URL: "https://hooks.example.com/in",
		EventTypes: []string{"user.created", "user.updated"}, Enabled: true, Description: "crm",
		Secret: []byte{1, 0, 2, 255}, CreatedAt: at, UpdatedAt: at}
}

// testWebhookCreateAndRead: a record reads back as written, a brand's
// endpoints oldest first, another brand's not at all.
func testWebhookCreateAndRead(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	ctx := t.Context()
	a, b := seedBrand(t, s, "wa.example.com"), seedBrand(t, s, "wb.example.com")
	at := time.Date(2026, 5, 1, 10, 0, 0, 123456000, time.UTC)
	first := testWebhook(a.ID, at)
	second := testWebhook(a.ID, at.Add(time.Second))
	second.EventTypes, second.Enabled = []string{"*"}, false
	second.OldSecret, second.OldSecretUntil = []byte{9, 9}, at.Add(24*time.Hour)
	second.FailingSince, second.DisabledReason = at.Add(time.Minute), "failing"
	other := testWebhook(b.ID, at)
	for _, r := range []webhooks.Record{second, first, other} {
		require.NoError(t, s.CreateWebhook(ctx, r))
	}
	got, err := s.Webhook(ctx, a.ID, second.ID)
	require.NoError(t, err)
	assert.Equal(t, second, got)
	got, err = s.Webhook(ctx, a.ID, first.ID)
	require.NoError(t, err)
	assert.Equal(t, first, got)
	assert.Nil(t, got.OldSecret)
	list, err := s.Webhooks(ctx, a.ID)
	require.NoError(t, err)
	require.Len(t, list, 2)
	assert.Equal(t, []string{first.ID, second.ID}, []string{list[0].ID, list[1].ID})
	_, err = s.Webhook(ctx, b.ID, first.ID)
	assert.ErrorIs(t, err, webhooks.ErrEndpointNotFound)
	none, err := s.Webhooks(ctx, uuid.NewString())
	require.NoError(t, err)
	assert.Empty(t, none)
}

// testWebhookErrors: the contract's sentinels.
func testWebhookErrors(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	ctx := t.Context()
	a, b := seedBrand(t, s, "we.example.com"), seedBrand(t, s, "wf.example.com")
	at := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	r := testWebhook(a.ID, at)
	require.NoError(t, s.CreateWebhook(ctx, r))
	assert.ErrorIs(t, s.CreateWebhook(ctx, r), webhooks.ErrEndpointExists)
	assert.ErrorIs(t, s.CreateWebhook(ctx, testWebhook(uuid.NewString(), at)), auth.ErrBrandNotFound)
	_, err := s.UpdateWebhook(ctx, b.ID, r.ID, func(*webhooks.Record) error { return nil })
	assert.ErrorIs(t, err, webhooks.ErrEndpointNotFound)
	assert.ErrorIs(t, s.DeleteWebhook(ctx, b.ID, r.ID), webhooks.ErrEndpointNotFound, "another brand's ID")
	require.NoError(t, s.DeleteWebhook(ctx, a.ID, r.ID))
	assert.ErrorIs(t, s.DeleteWebhook(ctx, a.ID, r.ID), webhooks.ErrEndpointNotFound)
	_, err = s.Webhook(ctx, a.ID, r.ID)
	assert.ErrorIs(t, err, webhooks.ErrEndpointNotFound)
}

// testWebhookUpdate: fn's changes are written, but never the ID, brand or
// creation time; fn's error writes nothing and comes back as it is.
func testWebhookUpdate(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	ctx := t.Context()
	a := seedBrand(t, s, "wu.example.com")
	at := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	r := testWebhook(a.ID, at)
	require.NoError(t, s.CreateWebhook(ctx, r))
	later := at.Add(time.Hour)
	got, err := s.UpdateWebhook(ctx, a.ID, r.ID, func(w *webhooks.Record) error {
		w.ID, w.BrandID, w.CreatedAt = "x", "y", later
		w.URL, w.EventTypes, w.Enabled, w.Description = "https://b.example.com/", []string{"*"}, false, ""
		w.Secret, w.OldSecret, w.OldSecretUntil = []byte{7}, []byte{1, 0, 2, 255}, later
		w.FailingSince, w.DisabledReason, w.UpdatedAt = later, "why", later
		return nil
	})
	require.NoError(t, err)
	want := webhooks.Record{ID: r.ID, BrandID: a.ID, URL: "https://b.example.com/", EventTypes: []string{"*"},
		DisabledReason: "why", Secret: []byte{7}, OldSecret: []byte{1, 0, 2, 255}, OldSecretUntil: later,
		FailingSince: later, CreatedAt: at, UpdatedAt: later}
	assert.Equal(t, want, got)
	read, err := s.Webhook(ctx, a.ID, r.ID)
	require.NoError(t, err)
	assert.Equal(t, want, read)

	refused := errors.New("refused")
	_, err = s.UpdateWebhook(ctx, a.ID, r.ID, func(w *webhooks.Record) error {
		w.URL = "https://c.example.com/"
		return refused
	})
	assert.ErrorIs(t, err, refused)
	read, err = s.Webhook(ctx, a.ID, r.ID)
	require.NoError(t, err)
	assert.Equal(t, want, read, "nothing written")
}

// testWebhookUpdateWritesItsItems: the outbox items of an update are
// written in its transaction: once written, the same item is refused
// (outbox.ErrItemExists) and rolls its update back; an update whose fn
// fails writes no item.
func testWebhookUpdateWritesItsItems(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	ctx := t.Context()
	a := seedBrand(t, s, "wi.example.com")
	at := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	r := testWebhook(a.ID, at)
	require.NoError(t, s.CreateWebhook(ctx, r))
	item := func(id string) outbox.Item {
		return outbox.Item{ID: id, BrandID: a.ID, Channel: outbox.ChannelEvent, Topic: "webhook.disabled",
			SubjectID: r.ID, Payload: []byte(`{}`), CreatedAt: at}
	}
	setDesc := func(d string) func(*webhooks.Record) error {
		return func(w *webhooks.Record) error { w.Description = d; return nil }
	}
	_, err := s.UpdateWebhook(ctx, a.ID, r.ID, setDesc("one"), item("evt_1"))
	require.NoError(t, err)
	_, err = s.UpdateWebhook(ctx, a.ID, r.ID, setDesc("two"), item("evt_1"))
	require.ErrorIs(t, err, outbox.ErrItemExists)
	read, err := s.Webhook(ctx, a.ID, r.ID)
	require.NoError(t, err)
	assert.Equal(t, "one", read.Description, "the update with a taken item is rolled back")

	_, err = s.UpdateWebhook(ctx, a.ID, r.ID, func(*webhooks.Record) error { return errors.New("no") }, item("evt_2"))
	require.Error(t, err)
	_, err = s.UpdateWebhook(ctx, a.ID, r.ID, setDesc("three"), item("evt_2"))
	require.NoError(t, err, "the failed update wrote no item")
}

// testWebhookConcurrentUpdates: concurrent updates of one endpoint each
// see the others' writes (no update is lost).
func testWebhookConcurrentUpdates(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	ctx := t.Context()
	a := seedBrand(t, s, "wc.example.com")
	r := testWebhook(a.ID, time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC))
	r.EventTypes = []string{"base"}
	require.NoError(t, s.CreateWebhook(ctx, r))
	const n = 8
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			_, err := s.UpdateWebhook(ctx, a.ID, r.ID, func(w *webhooks.Record) error {
				w.EventTypes = append(w.EventTypes, fmt.Sprintf("t%d", i))
				return nil
			})
			assert.NoError(t, err)
		})
	}
	wg.Wait()
	read, err := s.Webhook(ctx, a.ID, r.ID)
	require.NoError(t, err)
	assert.Len(t, read.EventTypes, n+1)
}

// testWebhookPagesAcrossBrands: WebhooksAfter reads every brand's
// endpoints in ID order, page by page.
func testWebhookPagesAcrossBrands(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	ctx := t.Context()
	at := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	var want []string
	for i, url := range []string{"p1.example.com", "p2.example.com", "p3.example.com"} {
		b := seedBrand(t, s, url)
		for range i + 1 {
			r := testWebhook(b.ID, at)
			require.NoError(t, s.CreateWebhook(ctx, r))
			want = append(want, r.ID)
		}
	}
	slices.Sort(want)
	var got []string
	after := ""
	for {
		page, err := s.WebhooksAfter(ctx, after, 4)
		require.NoError(t, err)
		if len(page) == 0 {
			break
		}
		assert.LessOrEqual(t, len(page), 4)
		for _, r := range page {
			got = append(got, r.ID)
		}
		after = page[len(page)-1].ID
	}
	assert.Equal(t, want, got)
}

// webhookCalls returns one call of every webhooks.Store method, named, in
// the brand brandID (for the cancellation scenarios).
func webhookCalls(s storage.Storage, brandID string) map[string]func(ctx context.Context) error {
	r := testWebhook(brandID, time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC))
	return map[string]func(ctx context.Context) error{
		"CreateWebhook": func(ctx context.Context) error { return s.CreateWebhook(ctx, r) },
		"Webhook":       func(ctx context.Context) error { _, err := s.Webhook(ctx, brandID, r.ID); return err },
		"Webhooks":      func(ctx context.Context) error { _, err := s.Webhooks(ctx, brandID); return err },
		"UpdateWebhook": func(ctx context.Context) error {
			_, err := s.UpdateWebhook(ctx, brandID, r.ID, func(*webhooks.Record) error { return nil })
			return err
		},
		"DeleteWebhook": func(ctx context.Context) error { return s.DeleteWebhook(ctx, brandID, r.ID) },
		"WebhooksAfter": func(ctx context.Context) error { _, err := s.WebhooksAfter(ctx, "", 10); return err },
	}
}
