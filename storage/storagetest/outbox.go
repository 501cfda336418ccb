package storagetest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/outbox"
	"github.com/brandbase/brandbase/storage"
)

// runOutbox runs the outbox.Store scenarios: items written in a domain
// write's transaction, claims (fair, exclusive, expiring), settlements,
// fan-out, replay, listing, depth and pruning.
func runOutbox(t *testing.T, newStore NewStore) {
	runScenarios(t, newStore, []scenario{
		{"EnqueueInTheWrite", testOutboxEnqueueInTheWrite},
		{"EnqueueInIntegrationsTx", testOutboxEnqueueInIntegrationsTx},
		{"EnqueueExists", testOutboxEnqueueExists},
		{"ClaimAndSettle", testOutboxClaimAndSettle},
		{"ClaimOnlyDue", testOutboxClaimOnlyDue},
		{"SettleRetryAndFail", testOutboxSettleRetryAndFail},
		{"ConcurrentClaimersShareNothing", testOutboxConcurrentClaimers},
		{"ExpiredClaimTakenByAnother", testOutboxExpiredClaim},
		{"FairPerBrand", testOutboxFairPerBrand},
		{"SkipAndHeldBrands", testOutboxSkipAndHeldBrands},
		{"ClaimChannels", testOutboxClaimChannels},
		{"FanOut", testOutboxFanOut},
		{"Replay", testOutboxReplay},
		{"ItemsPaging", testOutboxItemsPaging},
		{"Depth", testOutboxDepth},
		{"Prune", testOutboxPrune},
	})
}

// outboxT0 is when the outbox items of these tests are created.
var outboxT0 = time.Date(2026, 5, 6, 7, 8, 9, 10000, time.UTC)

// testItem returns an item of brandID on ch (a webhook's target is
// "ep_1"), created at at, with a JSON payload.
func testItem(brandID string, ch outbox.Channel, at time.Time) outbox.Item {
	it := outbox.Item{ID: "evt_" + uuid.NewString(), BrandID: brandID, Channel: ch, Topic: "user.created",
		SubjectID: "user-1", Payload: []byte(`{"type":"user.created"}`), CreatedAt: at}
	switch ch {
	case outbox.ChannelWebhook:
		it.Target = "ep_1"
	case outbox.ChannelMail:
		it.Topic, it.Payload = "password_reset", []byte(`{"kind":"password_reset","to":"a@example.com","data":{"link":"secret"}}`)
	}
	return it
}

// enqueueItems stores n items of brandID on ch, created a millisecond
// apart from at, and returns them as stored.
func enqueueItems(t *testing.T, s storage.Storage, brandID string, ch outbox.Channel, at time.Time, n int) []outbox.Item {
	t.Helper()
	items := make([]outbox.Item, n)
	for i := range items {
		items[i] = testItem(brandID, ch, at.Add(time.Duration(i)*time.Millisecond))
	}
	require.NoError(t, s.Enqueue(t.Context(), items...))
	return items
}

// itemByRef returns the stored item with ref's reference (listing its
// brand).
func itemByRef(t *testing.T, s storage.Storage, brandID string, ref outbox.Ref) outbox.Item {
	t.Helper()
	items, err := s.Items(t.Context(), outbox.Filter{BrandID: brandID, Channel: ref.Channel, Target: ref.Target, Limit: 1000})
	require.NoError(t, err)
	for _, it := range items {
		if it.Ref() == ref {
			return it
		}
	}
	require.FailNow(t, "no such item", "%+v", ref)
	return outbox.Item{}
}

// idsOf returns the IDs of items, in order.
func idsOf(items []outbox.Item) []string {
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.ID
	}
	return ids
}

// claim claims for owner at now (a claim of a minute): at most limit
// items, perBrand of one brand.
func claim(t *testing.T, s storage.Storage, owner string, now time.Time, limit, perBrand int) []outbox.Item {
	t.Helper()
	got, err := s.Claim(t.Context(), outbox.Claim{Owner: owner, Now: now, Until: now.Add(time.Minute), Limit: limit, PerBrand: perBrand})
	require.NoError(t, err)
	return got
}

// testOutboxEnqueueInTheWrite checks that an item passed to a domain write
// is stored with it (pending, due at its creation, with a seq), that a
// write that fails stores none, and that an item whose reference is taken
// fails the write whole.
func testOutboxEnqueueInTheWrite(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	ctx := t.Context()
	b := seedBrand(t, s, "enqueue.example.com")
	u := testUser(b.ID, "olga", "olga@example.com")
	ev := testItem(b.ID, outbox.ChannelEvent, outboxT0)
	require.NoError(t, s.CreateUser(ctx, u, ev))
	stored := itemByRef(t, s, b.ID, ev.Ref())
	assert.Positive(t, stored.Seq)
	want := ev
	want.Seq, want.Status, want.NextAt = stored.Seq, outbox.StatusPending, ev.CreatedAt
	assert.Equal(t, want, stored)

	dup := testUser(b.ID, "olga", "other@example.com")
	err := s.CreateUser(ctx, dup, testItem(b.ID, outbox.ChannelEvent, outboxT0))
	assert.ErrorIs(t, err, auth.ErrUserExists)
	items, err := s.Items(ctx, outbox.Filter{BrandID: b.ID})
	require.NoError(t, err)
	assert.Equal(t, []string{ev.ID}, idsOf(items), "a failing CreateUser writes no item")

	again := testUser(b.ID, "pia", "pia@example.com")
	err = s.CreateUser(ctx, again, ev)
	assert.ErrorIs(t, err, outbox.ErrItemExists)
	_, err = s.UserByID(ctx, again.ID)
	assert.ErrorIs(t, err, auth.ErrUserNotFound, "a taken item reference fails the whole write")
}

// testOutboxEnqueueInIntegrationsTx checks that items enqueued in an
// integrations transaction are stored when it commits, and not when it
// fails.
func testOutboxEnqueueInIntegrationsTx(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	ctx := t.Context()
	b := seedBrand(t, s, "integ-outbox.example.com")
	kept := testItem(b.ID, outbox.ChannelEvent, outboxT0)
	require.NoError(t, s.IntegrationsTx(ctx, func(tx integrations.Tx) error { return tx.Enqueue(ctx, kept) }))
	refused := fmt.Errorf("refused")
	err := s.IntegrationsTx(ctx, func(tx integrations.Tx) error {
		require.NoError(t, tx.Enqueue(ctx, testItem(b.ID, outbox.ChannelEvent, outboxT0)))
		return refused
	})
	assert.ErrorIs(t, err, refused)
	items, err := s.Items(ctx, outbox.Filter{BrandID: b.ID})
	require.NoError(t, err)
	assert.Equal(t, []string{kept.ID}, idsOf(items), "the failed transaction's item is gone with it")
}

// testOutboxEnqueueExists checks that Enqueue writes all its items or
// none: one whose reference is taken fails them all with ErrItemExists.
// The same ID on another target is another item.
func testOutboxEnqueueExists(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	ctx := t.Context()
	first := testItem("b1", outbox.ChannelWebhook, outboxT0)
	require.NoError(t, s.Enqueue(ctx, first))
	other := first
	other.Target = "ep_2"
	fresh := testItem("b1", outbox.ChannelEvent, outboxT0)
	err := s.Enqueue(ctx, fresh, first)
	assert.ErrorIs(t, err, outbox.ErrItemExists)
	assert.Equal(t, envelope.KindConflict, envelope.KindOf(err))
	require.NoError(t, s.Enqueue(ctx, other), "the same ID on another target")
	items, err := s.Items(ctx, outbox.Filter{BrandID: "b1"})
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{first.ID, other.ID}, idsOf(items), "the refused batch wrote nothing")
	require.NoError(t, s.Enqueue(ctx), "no item")
}

// testOutboxClaimAndSettle checks a claim (its items in due order, marked
// so that another claim passes them over), a delivered settlement (one
// attempt, the claim released, a mail item's payload cleared, an event's
// kept) and that a settled item's claim is lost.
func testOutboxClaimAndSettle(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	ctx := t.Context()
	mail := testItem("b1", outbox.ChannelMail, outboxT0)
	ev := testItem("b1", outbox.ChannelEvent, outboxT0.Add(time.Second))
	require.NoError(t, s.Enqueue(ctx, ev, mail))
	now := outboxT0.Add(time.Minute)
	got := claim(t, s, "w1", now, 10, 10)
	assert.Equal(t, []string{mail.ID, ev.ID}, idsOf(got), "oldest due first")
	assert.Equal(t, mail.Payload, got[0].Payload)
	assert.Empty(t, claim(t, s, "w2", now, 10, 10), "claimed items are passed over")

	at := now.Add(time.Second)
	for _, it := range got {
		require.NoError(t, s.Settle(ctx, outbox.Settlement{Ref: it.Ref(), Owner: "w1", Status: outbox.StatusDelivered, At: at, Code: 250}))
	}
	m := itemByRef(t, s, "b1", mail.Ref())
	assert.Equal(t, outbox.StatusDelivered, m.Status)
	assert.Equal(t, 1, m.Attempts)
	assert.Equal(t, 250, m.LastCode)
	assert.Equal(t, at, m.DeliveredAt)
	assert.Nil(t, m.Payload, "a delivered mail's payload (a link, a code) is cleared")
	e := itemByRef(t, s, "b1", ev.Ref())
	assert.Equal(t, ev.Payload, e.Payload, "an event's payload is kept for a replay")

	err := s.Settle(ctx, outbox.Settlement{Ref: mail.Ref(), Owner: "w1", Status: outbox.StatusDelivered, At: at})
	assert.ErrorIs(t, err, outbox.ErrClaimLost, "a settled item")
	err = s.Settle(ctx, outbox.Settlement{Ref: outbox.Ref{Channel: outbox.ChannelMail, ID: "none"}, Owner: "w1",
		Status: outbox.StatusDelivered, At: at})
	assert.ErrorIs(t, err, outbox.ErrClaimLost, "an unknown item")
	err = s.Settle(ctx, outbox.Settlement{Ref: mail.Ref(), Owner: "w1", Status: "lost", At: at})
	assert.Equal(t, envelope.KindInvalid, envelope.KindOf(err))
	assert.Empty(t, claim(t, s, "w1", now.Add(time.Hour), 10, 10), "delivered items are never claimed")
	none, err := s.Claim(ctx, outbox.Claim{Owner: "w1", Now: now, Until: now.Add(time.Minute)})
	require.NoError(t, err)
	assert.Empty(t, none, "a claim of no item")
}

// testOutboxClaimOnlyDue checks that an item is claimed only once its
// NextAt (its creation) has come.
func testOutboxClaimOnlyDue(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	it := testItem("b1", outbox.ChannelEvent, outboxT0)
	require.NoError(t, s.Enqueue(t.Context(), it))
	assert.Empty(t, claim(t, s, "w1", outboxT0.Add(-time.Microsecond), 10, 10), "not due yet")
	assert.Equal(t, []string{it.ID}, idsOf(claim(t, s, "w1", outboxT0, 10, 10)), "due at its NextAt")
}

// testOutboxSettleRetryAndFail checks a pending settlement (an attempt
// counted, due again at NextAt, claimable then and not before, the
// payload kept) and a failed one (its error cut to 1 KB on a character
// boundary, the mail payload cleared).
func testOutboxSettleRetryAndFail(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	ctx := t.Context()
	it := testItem("b1", outbox.ChannelMail, outboxT0)
	require.NoError(t, s.Enqueue(ctx, it))
	now := outboxT0.Add(time.Second)
	require.Len(t, claim(t, s, "w1", now, 1, 1), 1)
	retryAt := now.Add(10 * time.Second)
	require.NoError(t, s.Settle(ctx, outbox.Settlement{Ref: it.Ref(), Owner: "w1", Status: outbox.StatusPending,
		At: now, NextAt: retryAt, Code: 451, Error: "try later"}))
	got := itemByRef(t, s, "b1", it.Ref())
	assert.Equal(t, outbox.StatusPending, got.Status)
	assert.Equal(t, 1, got.Attempts)
	assert.Equal(t, retryAt, got.NextAt)
	assert.Equal(t, 451, got.LastCode)
	assert.Equal(t, "try later", got.LastError)
	assert.Equal(t, it.Payload, got.Payload, "a retried item keeps its payload")
	assert.Empty(t, claim(t, s, "w2", retryAt.Add(-time.Microsecond), 1, 1), "not before its retry")
	again := claim(t, s, "w2", retryAt, 1, 1)
	require.Len(t, again, 1)
	assert.Equal(t, 1, again[0].Attempts, "a claim counts no attempt")

	long := strings.Repeat("é", 700) // 1400 bytes
	require.NoError(t, s.Settle(ctx, outbox.Settlement{Ref: it.Ref(), Owner: "w2", Status: outbox.StatusFailed,
		At: retryAt, Error: long}))
	got = itemByRef(t, s, "b1", it.Ref())
	assert.Equal(t, outbox.StatusFailed, got.Status)
	assert.Equal(t, 2, got.Attempts)
	assert.Equal(t, strings.Repeat("é", 512), got.LastError, "at most 1 KB, whole characters")
	assert.Nil(t, got.Payload, "a failed mail's payload is cleared")
	assert.True(t, got.DeliveredAt.IsZero())
}

// testOutboxExpiredClaim checks that a claim holds until it expires, that
// another claimer then takes the item, and that the first one's
// settlement is refused with ErrClaimLost while the second one's stands.
func testOutboxExpiredClaim(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	ctx := t.Context()
	it := testItem("b1", outbox.ChannelWebhook, outboxT0)
	require.NoError(t, s.Enqueue(ctx, it))
	now := outboxT0.Add(time.Second)
	require.Len(t, claim(t, s, "killed", now, 1, 1), 1) // until now + 1 min
	assert.Empty(t, claim(t, s, "other", now.Add(59*time.Second), 1, 1), "the claim holds")
	taken := claim(t, s, "other", now.Add(time.Minute), 1, 1)
	require.Equal(t, []string{it.ID}, idsOf(taken), "an expired claim is taken by another")

	err := s.Settle(ctx, outbox.Settlement{Ref: it.Ref(), Owner: "killed", Status: outbox.StatusDelivered, At: now.Add(2 * time.Minute)})
	assert.ErrorIs(t, err, outbox.ErrClaimLost)
	assert.Equal(t, envelope.KindConflict, envelope.KindOf(err))
	require.NoError(t, s.Settle(ctx, outbox.Settlement{Ref: it.Ref(), Owner: "other", Status: outbox.StatusDelivered,
		At: now.Add(2 * time.Minute)}))
	got := itemByRef(t, s, "b1", it.Ref())
	assert.Equal(t, 1, got.Attempts, "the lost settlement wrote nothing")
}

// testOutboxFanOut checks that FanOut settles the event and writes its
// deliveries in one step (same ID, one per target), refuses a lost claim
// writing nothing, and passes over a delivery that is stored.
func testOutboxFanOut(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	ctx := t.Context()
	ev := testItem("b1", outbox.ChannelEvent, outboxT0)
	require.NoError(t, s.Enqueue(ctx, ev))
	now := outboxT0.Add(time.Second)
	require.Len(t, claim(t, s, "w1", now, 1, 1), 1)
	delivery := func(target string) outbox.Item {
		d := ev
		d.Channel, d.Target = outbox.ChannelWebhook, target
		return d
	}
	err := s.FanOut(ctx, "w2", ev, now, []outbox.Item{delivery("ep_x")})
	assert.ErrorIs(t, err, outbox.ErrClaimLost, "another owner's claim")
	require.NoError(t, s.FanOut(ctx, "w1", ev, now, []outbox.Item{delivery("ep_1"), delivery("ep_2")}))
	assert.Equal(t, outbox.StatusDelivered, itemByRef(t, s, "b1", ev.Ref()).Status)
	hooks, err := s.Items(ctx, outbox.Filter{BrandID: "b1", Channel: outbox.ChannelWebhook})
	require.NoError(t, err)
	require.Len(t, hooks, 2, "one delivery per endpoint; none for the refused fan-out")
	for _, h := range hooks {
		assert.Equal(t, ev.ID, h.ID)
		assert.Equal(t, outbox.StatusPending, h.Status)
		assert.Equal(t, ev.Payload, h.Payload)
	}

	require.NoError(t, s.Replay(ctx, ev.Ref(), now))
	again, err := s.Claim(ctx, outbox.Claim{Owner: "w3", Now: now, Until: now.Add(time.Minute), Limit: 1,
		Channels: []outbox.Channel{outbox.ChannelEvent}})
	require.NoError(t, err)
	require.Equal(t, []string{ev.ID}, idsOf(again))
	require.NoError(t, s.FanOut(ctx, "w3", ev, now, []outbox.Item{delivery("ep_2"), delivery("ep_3")}),
		"a stored delivery is passed over")
	hooks, err = s.Items(ctx, outbox.Filter{BrandID: "b1", Channel: outbox.ChannelWebhook})
	require.NoError(t, err)
	assert.Len(t, hooks, 3)
}

// testOutboxReplay checks that Replay makes a delivered item pending and
// due at the given time with its attempts kept, leaves a pending one as
// it is, and refuses an unknown one.
func testOutboxReplay(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	ctx := t.Context()
	it := testItem("b1", outbox.ChannelWebhook, outboxT0)
	require.NoError(t, s.Enqueue(ctx, it))
	now := outboxT0.Add(time.Second)
	require.Len(t, claim(t, s, "w1", now, 1, 1), 1)
	require.NoError(t, s.Settle(ctx, outbox.Settlement{Ref: it.Ref(), Owner: "w1", Status: outbox.StatusFailed, At: now, Error: "gone"}))

	at := now.Add(time.Hour)
	require.NoError(t, s.Replay(ctx, it.Ref(), at))
	got := itemByRef(t, s, "b1", it.Ref())
	assert.Equal(t, outbox.StatusPending, got.Status)
	assert.Equal(t, at, got.NextAt)
	assert.Equal(t, 1, got.Attempts, "attempts kept")
	assert.Equal(t, it.Payload, got.Payload)
	require.NoError(t, s.Replay(ctx, it.Ref(), at.Add(time.Hour)), "a pending item")
	assert.Equal(t, at, itemByRef(t, s, "b1", it.Ref()).NextAt, "left as it is")
	assert.Empty(t, claim(t, s, "w1", at.Add(-time.Second), 1, 1))
	assert.Len(t, claim(t, s, "w1", at, 1, 1), 1, "due at the replay's time")

	err := s.Replay(ctx, outbox.Ref{Channel: outbox.ChannelWebhook, Target: "ep_1", ID: "nope"}, at)
	assert.ErrorIs(t, err, outbox.ErrItemNotFound)
	assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err))
}

// testOutboxItemsPaging checks Items: a brand's items only, newest first,
// paged by BeforeSeq, filtered by channel, target and status, and its
// refusals.
func testOutboxItemsPaging(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	ctx := t.Context()
	hooks := enqueueItems(t, s, "b1", outbox.ChannelWebhook, outboxT0, 25)
	mails := enqueueItems(t, s, "b1", outbox.ChannelMail, outboxT0, 3)
	enqueueItems(t, s, "b2", outbox.ChannelWebhook, outboxT0, 4)

	var paged []string
	before := int64(0)
	for {
		page, err := s.Items(ctx, outbox.Filter{BrandID: "b1", Channel: outbox.ChannelWebhook, Target: "ep_1", BeforeSeq: before, Limit: 10})
		require.NoError(t, err)
		if len(page) == 0 {
			break
		}
		assert.LessOrEqual(t, len(page), 10)
		paged = append(paged, idsOf(page)...)
		before = page[len(page)-1].Seq
	}
	var want []string
	for i := len(hooks) - 1; i >= 0; i-- {
		want = append(want, hooks[i].ID)
	}
	assert.Equal(t, want, paged, "newest first, every item once")

	all, err := s.Items(ctx, outbox.Filter{BrandID: "b1"})
	require.NoError(t, err)
	assert.Len(t, all, 28, "the brand's items only")
	for i := 1; i < len(all); i++ {
		assert.Greater(t, all[i-1].Seq, all[i].Seq)
	}
	got, err := s.Items(ctx, outbox.Filter{BrandID: "b1", Channel: outbox.ChannelMail})
	require.NoError(t, err)
	assert.ElementsMatch(t, idsOf(mails), idsOf(got))
	got, err = s.Items(ctx, outbox.Filter{BrandID: "b1", Status: outbox.StatusDelivered})
	require.NoError(t, err)
	assert.Empty(t, got)
	got, err = s.Items(ctx, outbox.Filter{BrandID: "b1", Channel: outbox.ChannelWebhook, Target: "ep_9"})
	require.NoError(t, err)
	assert.Empty(t, got)

	_, err = s.Items(ctx, outbox.Filter{})
	assert.Equal(t, envelope.KindInvalid, envelope.KindOf(err), "no brand")
	_, err = s.Items(ctx, outbox.Filter{BrandID: "b1", Limit: 1001})
	assert.Equal(t, envelope.KindInvalid, envelope.KindOf(err), "over 1000")
}

// testOutboxDepth checks that Depth counts the pending items by channel
// (claimed ones too) with the creation of the oldest, and not the settled
// ones.
func testOutboxDepth(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	ctx := t.Context()
	d, err := s.Depth(ctx)
	require.NoError(t, err)
	assert.Empty(t, d.Pending)
	assert.Empty(t, d.Oldest)

	enqueueItems(t, s, "b1", outbox.ChannelWebhook, outboxT0.Add(time.Hour), 3)
	mails := enqueueItems(t, s, "b2", outbox.ChannelMail, outboxT0, 2)
	now := outboxT0.Add(2 * time.Hour)
	got := claim(t, s, "w1", now, 1, 1)
	require.Equal(t, []string{mails[0].ID}, idsOf(got))
	require.NoError(t, s.Settle(ctx, outbox.Settlement{Ref: got[0].Ref(), Owner: "w1", Status: outbox.StatusDelivered, At: now}))
	claim(t, s, "w1", now, 1, 1) // claimed is still pending

	d, err = s.Depth(ctx)
	require.NoError(t, err)
	assert.Equal(t, map[outbox.Channel]int{outbox.ChannelWebhook: 3, outbox.ChannelMail: 1}, d.Pending)
	assert.Equal(t, map[outbox.Channel]time.Time{outbox.ChannelWebhook: outboxT0.Add(time.Hour),
		outbox.ChannelMail: mails[1].CreatedAt}, d.Oldest)
}

// testOutboxPrune checks that Prune deletes delivered and failed items
// created before the bound, oldest first, at most limit at a time, and
// never a pending one.
func testOutboxPrune(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	ctx := t.Context()
	old := enqueueItems(t, s, "b1", outbox.ChannelWebhook, outboxT0, 5)
	recent := enqueueItems(t, s, "b1", outbox.ChannelWebhook, outboxT0.Add(48*time.Hour), 2)
	now := outboxT0.Add(72 * time.Hour)
	got := claim(t, s, "w1", now, 100, 100)
	require.Len(t, got, 7)
	for i, it := range got {
		if i == 0 {
			continue // old[0] stays pending
		}
		st := outbox.StatusDelivered
		if i%2 == 0 {
			st = outbox.StatusFailed
		}
		require.NoError(t, s.Settle(ctx, outbox.Settlement{Ref: it.Ref(), Owner: "w1", Status: st, At: now}))
	}
	before := outboxT0.Add(24 * time.Hour)
	n, err := s.Prune(ctx, before, 3)
	require.NoError(t, err)
	assert.Equal(t, 3, n, "at most limit")
	n, err = s.Prune(ctx, before, 3)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	n, err = s.Prune(ctx, before, 3)
	require.NoError(t, err)
	assert.Zero(t, n)
	left, err := s.Items(ctx, outbox.Filter{BrandID: "b1"})
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{old[0].ID, recent[0].ID, recent[1].ID}, idsOf(left),
		"the pending item and the recent ones are kept")
}

// outboxCalls returns one call of every outbox.Store method, named.
func outboxCalls(s storage.Storage) map[string]func(ctx context.Context) error {
	ref := outbox.Ref{Channel: outbox.ChannelEvent, ID: "evt_cancelled"}
	ev := outbox.Item{ID: ref.ID, BrandID: "b1", Channel: ref.Channel, Topic: "user.created", CreatedAt: outboxT0}
	return map[string]func(ctx context.Context) error{
		"Enqueue": func(ctx context.Context) error { return s.Enqueue(ctx, testItem("b1", outbox.ChannelEvent, outboxT0)) },
		"Claim": func(ctx context.Context) error {
			_, err := s.Claim(ctx, outbox.Claim{Owner: "w", Now: outboxT0, Until: outboxT0.Add(time.Minute), Limit: 1})
			return err
		},
		"Settle": func(ctx context.Context) error {
			return s.Settle(ctx, outbox.Settlement{Ref: ref, Owner: "w", Status: outbox.StatusDelivered, At: outboxT0})
		},
		"FanOut": func(ctx context.Context) error { return s.FanOut(ctx, "w", ev, outboxT0, nil) },
		"Items":  func(ctx context.Context) error { _, err := s.Items(ctx, outbox.Filter{BrandID: "b1"}); return err },
		"Replay": func(ctx context.Context) error { return s.Replay(ctx, ref, outboxT0) },
		"Depth":  func(ctx context.Context) error { _, err := s.Depth(ctx); return err },
		"Prune":  func(ctx context.Context) error { _, err := s.Prune(ctx, outboxT0, 10); return err },
	}
}
