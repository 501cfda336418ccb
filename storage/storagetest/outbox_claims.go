package storagetest

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/outbox"
)

// testOutboxConcurrentClaimers runs eight claimers at once over 300 items
// of six brands, each claiming and settling until nothing is left (on
// PostgreSQL, in parallel transactions): every item is claimed exactly
// once, and settled.
func testOutboxConcurrentClaimers(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	ctx := t.Context()
	const brands, perBrand = 6, 50
	for b := range brands {
		enqueueItems(t, s, fmt.Sprintf("brand-%d", b), outbox.ChannelWebhook, outboxT0, perBrand)
	}
	now := outboxT0.Add(time.Minute)
	var mu sync.Mutex
	seen := map[outbox.Ref]string{}
	var dup []string
	var wg sync.WaitGroup
	for w := range 8 {
		owner := fmt.Sprintf("w%d", w)
		wg.Go(func() {
			for {
				got, err := s.Claim(ctx, outbox.Claim{Owner: owner, Now: now, Until: now.Add(time.Minute), Limit: 7, PerBrand: 3})
				if !assert.NoError(t, err) || len(got) == 0 {
					return
				}
				mu.Lock()
				for _, it := range got {
					if prev, ok := seen[it.Ref()]; ok {
						dup = append(dup, fmt.Sprintf("%s by %s and %s", it.ID, prev, owner))
					}
					seen[it.Ref()] = owner
				}
				mu.Unlock()
				for _, it := range got {
					assert.NoError(t, s.Settle(ctx, outbox.Settlement{Ref: it.Ref(), Owner: owner,
						Status: outbox.StatusDelivered, At: now}))
				}
			}
		})
	}
	wg.Wait()
	assert.Empty(t, dup, "no item claimed twice")
	assert.Len(t, seen, brands*perBrand, "every item claimed")
	d, err := s.Depth(ctx)
	require.NoError(t, err)
	assert.Empty(t, d.Pending, "every item settled")
}

// testOutboxFairPerBrand checks that a claim takes at most PerBrand items
// of one brand, so that a brand with a backlog leaves room for the
// others, and that it takes the oldest due items first.
func testOutboxFairPerBrand(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	flood := enqueueItems(t, s, "flood", outbox.ChannelMail, outboxT0, 60)
	quiet := enqueueItems(t, s, "quiet", outbox.ChannelMail, outboxT0.Add(time.Second), 3)
	calm := enqueueItems(t, s, "calm", outbox.ChannelMail, outboxT0.Add(2*time.Second), 2)
	now := outboxT0.Add(time.Minute)
	got := claim(t, s, "w1", now, 10, 4)
	want := append(append(idsOf(flood[:4]), idsOf(quiet)...), idsOf(calm)...)
	assert.Equal(t, want, idsOf(got), "four of the flood, then the others, oldest first")

	got = claim(t, s, "w2", now, 3, 4)
	assert.Equal(t, idsOf(flood[4:7]), idsOf(got), "the oldest due first, up to Limit")
}

// testOutboxSkipAndHeldBrands checks that a claim takes nothing of a
// brand in SkipBrands, nor of one whose Held count reaches PerBrand, and
// only PerBrand less Held of one that holds some.
func testOutboxSkipAndHeldBrands(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	ctx := t.Context()
	stuck := enqueueItems(t, s, "stuck", outbox.ChannelWebhook, outboxT0, 20)
	busy := enqueueItems(t, s, "busy", outbox.ChannelWebhook, outboxT0.Add(time.Second), 20)
	other := enqueueItems(t, s, "other", outbox.ChannelWebhook, outboxT0.Add(2*time.Second), 2)
	now := outboxT0.Add(time.Minute)
	got, err := s.Claim(ctx, outbox.Claim{Owner: "w1", Now: now, Until: now.Add(time.Minute), Limit: 10, PerBrand: 4,
		SkipBrands: []string{"stuck"}, Held: map[string]int{"busy": 3}})
	require.NoError(t, err)
	want := append(idsOf(busy[:1]), idsOf(other)...)
	assert.Equal(t, want, idsOf(got), "none of a skipped brand; PerBrand less Held of a busy one")

	got, err = s.Claim(ctx, outbox.Claim{Owner: "w1", Now: now, Until: now.Add(time.Minute), Limit: 10, PerBrand: 4,
		Held: map[string]int{"stuck": 4, "busy": 9}})
	require.NoError(t, err)
	assert.Empty(t, got, "brands at their cap are skipped")
	got = claim(t, s, "w2", now, 2, 4)
	assert.Equal(t, idsOf(stuck[:2]), idsOf(got), "the skipped brand's items waited, nothing was dropped")
}

// testOutboxClaimChannels checks that a claim naming channels takes only
// their items.
func testOutboxClaimChannels(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	ctx := t.Context()
	mail := enqueueItems(t, s, "b1", outbox.ChannelMail, outboxT0, 2)
	hooks := enqueueItems(t, s, "b1", outbox.ChannelWebhook, outboxT0, 2)
	now := outboxT0.Add(time.Minute)
	got, err := s.Claim(ctx, outbox.Claim{Owner: "w1", Now: now, Until: now.Add(time.Minute), Limit: 10, PerBrand: 10,
		Channels: []outbox.Channel{outbox.ChannelWebhook, outbox.ChannelEvent}})
	require.NoError(t, err)
	assert.ElementsMatch(t, idsOf(hooks), idsOf(got))
	got = claim(t, s, "w1", now, 10, 10)
	assert.ElementsMatch(t, idsOf(mail), idsOf(got))
}
