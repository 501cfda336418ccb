package storagetest

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/outbox"
	"github.com/brandbase/brandbase/storage"
)

// OutboxBacklog is the number of items BenchOutboxClaim queues before it
// claims: 10,000, or the value of the environment variable
// BRANDBASE_OUTBOX_BACKLOG (100000 for the figures of
// docs/performance.md).
func OutboxBacklog() int {
	if n, err := strconv.Atoi(os.Getenv("BRANDBASE_OUTBOX_BACKLOG")); err == nil && n > 0 {
		return n
	}
	return 10_000
}

// reportP50 reports the median of took as the metric p50-µs.
func reportP50(b *testing.B, took []time.Duration) {
	if len(took) == 0 {
		return
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Nanoseconds())/1e3, "p50-µs")
}

// BenchOutboxWrite times the write an outbox item rides on: CreateUser
// without an item and with one (the cost the item adds is the difference
// of their p50-µs). Run it from a Benchmark function: go test -bench
// OutboxWrite.
func BenchOutboxWrite(b *testing.B, newStore func(b *testing.B) storage.Storage) {
	s := newStore(b)
	b.Cleanup(func() { s.Close() })
	brand := seedBrandB(b, s)
	for _, items := range []int{0, 1} {
		b.Run(fmt.Sprintf("Items%d", items), func(b *testing.B) {
			ctx := b.Context()
			took := make([]time.Duration, 0, b.N)
			for i := 0; b.Loop(); i++ {
				u := testUser(brand, fmt.Sprintf("u%d-%d-%d", items, b.N, i), "")
				out := make([]outbox.Item, items)
				for j := range out {
					out[j] = testItem(brand, outbox.ChannelEvent, outboxT0)
				}
				start := time.Now()
				if err := s.CreateUser(ctx, u, out...); err != nil {
					b.Fatal(err)
				}
				took = append(took, time.Since(start))
			}
			reportP50(b, took)
		})
	}
}

// seedBrandB stores a brand for a benchmark.
func seedBrandB(b *testing.B, s storage.Storage) string {
	br := testBrand(fmt.Sprintf("bench-%d.example.com", time.Now().UnixNano()))
	require.NoError(b, s.CreateBrand(b.Context(), br))
	return br.ID
}

// FillOutbox queues n webhook items of brand, created from at on, in
// transactions of 1,000.
func FillOutbox(tb testing.TB, s storage.Storage, brand string, at time.Time, n int) {
	tb.Helper()
	batch := make([]outbox.Item, 0, 1000)
	for i := range n {
		batch = append(batch, testItem(brand, outbox.ChannelWebhook, at.Add(time.Duration(i)*time.Microsecond)))
		if len(batch) == cap(batch) || i == n-1 {
			require.NoError(tb, s.Enqueue(tb.Context(), batch...))
			batch = batch[:0]
		}
	}
}

// BenchOutboxClaim times a claim of 64 items (16 a brand) over a backlog
// of OutboxBacklog items of one brand ("flood") beside 100 brands of 10
// items each: with every brand claimable, and with the flooded brand
// skipped (its deliveries all busy). The claims expire at once, so every
// round claims the same oldest items again and the backlog stays whole.
func BenchOutboxClaim(b *testing.B, newStore func(b *testing.B) storage.Storage) {
	s := newStore(b)
	b.Cleanup(func() { s.Close() })
	start := time.Now()
	FillOutbox(b, s, "flood", outboxT0, OutboxBacklog())
	for i := range 100 {
		FillOutbox(b, s, fmt.Sprintf("brand-%03d", i), outboxT0.Add(time.Second), 10)
	}
	b.Logf("queued %d items in %v", OutboxBacklog()+1000, time.Since(start).Round(time.Millisecond))
	now := outboxT0.Add(time.Hour)
	for _, sc := range []struct {
		name string
		skip []string
	}{{"AllBrands", nil}, {"FloodSkipped", []string{"flood"}}} {
		b.Run(sc.name, func(b *testing.B) {
			var got []outbox.Item
			for b.Loop() {
				var err error
				got, err = s.Claim(b.Context(), outbox.Claim{Owner: "bench", Now: now, Until: now, Limit: 64, PerBrand: 16,
					SkipBrands: sc.skip})
				if err != nil {
					b.Fatal(err)
				}
			}
			require.Len(b, got, 64)
			sink = got
		})
	}
}
