package outbox_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/internal/testkit/telemetrytest"
	"github.com/brandbase/brandbase/internal/testkit/teststores"
	"github.com/brandbase/brandbase/outbox"
	"github.com/brandbase/brandbase/storage"
)

// t0 is when the items of these tests are created: the start of the test
// run, so that a dispatcher on the wall clock finds them due, and within
// its retention.
var t0 = time.Now().UTC().Truncate(time.Second)

// eventually bounds the waits for deliveries running in goroutines.
const eventually = 30 * time.Second

// clock is a settable clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// syncBuffer is a log destination safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// forEachStore runs fn on a fresh store of every backend.
func forEachStore(t *testing.T, fn func(t *testing.T, s storage.Storage)) {
	for _, name := range []string{"memory", "sqlite", "postgres"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := teststores.All[name](t)
			t.Cleanup(func() { s.Close() })
			fn(t, s)
		})
	}
}

// item returns an item of brand on ch created at at.
func item(brand string, ch outbox.Channel, at time.Time) outbox.Item {
	it := outbox.Item{ID: "evt_" + uuid.NewString(), BrandID: brand, Channel: ch, Topic: "user.created",
		Payload: []byte(`{}`), CreatedAt: at}
	if ch == outbox.ChannelWebhook {
		it.Target = "ep_1"
	}
	return it
}

// enqueue stores n items of brand on ch.
func enqueue(t *testing.T, s storage.Storage, brand string, ch outbox.Channel, n int) []outbox.Item {
	t.Helper()
	items := make([]outbox.Item, n)
	for i := range items {
		items[i] = item(brand, ch, t0.Add(time.Duration(i)*time.Millisecond))
	}
	require.NoError(t, s.Enqueue(t.Context(), items...))
	return items
}

// stored returns the stored state of it.
func stored(t *testing.T, s storage.Storage, it outbox.Item) outbox.Item {
	t.Helper()
	items, err := s.Items(t.Context(), outbox.Filter{BrandID: it.BrandID, Channel: it.Channel, Target: it.Target, Limit: 1000})
	require.NoError(t, err)
	for _, got := range items {
		if got.ID == it.ID {
			return got
		}
	}
	t.Fatalf("item %s not stored", it.ID)
	return outbox.Item{}
}

// waitStatus waits until every item of items has status st (one listing
// of each brand's items a check, every 10 ms).
func waitStatus(t *testing.T, s storage.Storage, st outbox.Status, items ...outbox.Item) {
	t.Helper()
	brands := map[string]bool{}
	for _, it := range items {
		brands[it.BrandID] = true
	}
	require.Eventually(t, func() bool {
		status := map[outbox.Ref]outbox.Status{}
		for b := range brands {
			list, err := s.Items(t.Context(), outbox.Filter{BrandID: b, Limit: 1000})
			if err != nil {
				return false
			}
			for _, it := range list {
				status[it.Ref()] = it.Status
			}
		}
		for _, it := range items {
			if status[it.Ref()] != st {
				return false
			}
		}
		return true
	}, eventually, 10*time.Millisecond, "every item %s", st)
}

// newDispatcher returns a dispatcher of s that logs nothing unless opts
// set a logger.
func newDispatcher(s outbox.Store, opts ...outbox.Option) *outbox.Dispatcher {
	return outbox.NewDispatcher(s, append([]outbox.Option{outbox.WithLogger(slog.New(slog.DiscardHandler))}, opts...)...)
}

// start starts d and closes it when t ends.
func start(t *testing.T, d *outbox.Dispatcher) {
	d.Start()
	t.Cleanup(func() { d.Close() })
}

// TestDispatcherDelivers checks that each item goes to its channel's
// handler once, is settled delivered, and that an event's fan-out enqueues
// its deliveries as the event is settled.
func TestDispatcherDelivers(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, s storage.Storage) {
		var mu sync.Mutex
		calls := map[string]int{}
		record := func(it outbox.Item) {
			mu.Lock()
			calls[string(it.Channel)+"/"+it.Target+"/"+it.ID]++
			mu.Unlock()
		}
		d := newDispatcher(s, outbox.WithPollInterval(time.Hour))
		d.Handle(outbox.ChannelMail, outbox.HandlerFunc(func(_ context.Context, it outbox.Item) outbox.Result {
			record(it)
			return outbox.Result{Code: 250}
		}))
		d.Handle(outbox.ChannelWebhook, outbox.HandlerFunc(func(_ context.Context, it outbox.Item) outbox.Result {
			record(it)
			return outbox.Result{Code: 204}
		}))
		d.Handle(outbox.ChannelEvent, outbox.HandlerFunc(func(_ context.Context, ev outbox.Item) outbox.Result {
			record(ev)
			var out []outbox.Item
			for _, ep := range []string{"ep_a", "ep_b"} {
				w := ev
				w.Channel, w.Target = outbox.ChannelWebhook, ep
				out = append(out, w)
			}
			return outbox.Result{FanOut: out}
		}))
		mails := enqueue(t, s, "b1", outbox.ChannelMail, 5)
		events := enqueue(t, s, "b2", outbox.ChannelEvent, 2)
		start(t, d)
		d.Notify()
		waitStatus(t, s, outbox.StatusDelivered, append(mails, events...)...)
		var hooks []outbox.Item
		for _, ev := range events {
			for _, ep := range []string{"ep_a", "ep_b"} {
				w := ev
				w.Channel, w.Target = outbox.ChannelWebhook, ep
				hooks = append(hooks, w)
			}
		}
		waitStatus(t, s, outbox.StatusDelivered, hooks...)
		d.Close()
		mu.Lock()
		defer mu.Unlock()
		assert.Len(t, calls, 5+2+4)
		for k, n := range calls {
			assert.Equal(t, 1, n, "%s delivered once", k)
		}
		assert.Equal(t, 250, stored(t, s, mails[0]).LastCode)
		assert.Equal(t, 1, stored(t, s, mails[0]).Attempts)
	})
}

// TestDispatcherRetries checks the retry schedule on an injected clock: a
// failed attempt is due again after the jittered backoff (5 s doubling),
// the target's failure is logged once and its recovery once, and the item
// is then delivered.
func TestDispatcherRetries(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, s storage.Storage) {
		clk := &clock{now: t0}
		logs := &syncBuffer{}
		var fail atomic.Int32
		fail.Store(2)
		attempts := make(chan struct{}, 10)
		d := newDispatcher(s, outbox.WithClock(clk.Now), outbox.WithJitter(func() float64 { return 0.5 }),
			outbox.WithPollInterval(time.Hour), outbox.WithLogger(slog.New(slog.NewTextHandler(logs, nil))))
		d.Handle(outbox.ChannelWebhook, outbox.HandlerFunc(func(context.Context, outbox.Item) outbox.Result {
			defer func() { attempts <- struct{}{} }()
			if fail.Add(-1) >= 0 {
				return outbox.Result{Code: 500, Err: errors.New("HTTP 500")}
			}
			return outbox.Result{Code: 200}
		}))
		it := enqueue(t, s, "b1", outbox.ChannelWebhook, 1)[0]
		start(t, d)
		<-attempts
		waitAttempts(t, s, it, 1)
		got := stored(t, s, it)
		assert.Equal(t, outbox.StatusPending, got.Status)
		assert.Equal(t, t0.Add(2500*time.Millisecond), got.NextAt, "half of 5 s")
		assert.Equal(t, "HTTP 500", got.LastError)
		assert.Equal(t, 500, got.LastCode)

		clk.Add(2 * time.Second)
		d.Notify()
		clk.Add(time.Second) // due now, at t0 + 3 s
		d.Notify()
		<-attempts
		waitAttempts(t, s, it, 2)
		assert.Equal(t, t0.Add(3*time.Second+5*time.Second), stored(t, s, it).NextAt, "half of 10 s")

		clk.Add(5 * time.Second)
		d.Notify()
		<-attempts
		waitStatus(t, s, outbox.StatusDelivered, it)
		d.Close()
		out := logs.String()
		assert.Equal(t, 1, strings.Count(out, "deliveries to a target fail"), out)
		assert.Equal(t, 1, strings.Count(out, "deliveries to a target work again"), out)
		assert.Contains(t, out, "brand=b1 channel=webhook target=ep_1")
	})
}

// waitAttempts waits until it has been settled n times.
func waitAttempts(t *testing.T, s storage.Storage, it outbox.Item, n int) {
	t.Helper()
	require.Eventually(t, func() bool { return stored(t, s, it).Attempts == n }, eventually, 5*time.Millisecond)
}

// TestDispatcherFails checks that an item is marked failed with its last
// error when its handler says the failure is permanent, or when the retry
// bound from its creation has passed.
func TestDispatcherFails(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, s storage.Storage) {
		clk := &clock{now: t0.Add(outbox.DefaultRetryBound)}
		d := newDispatcher(s, outbox.WithClock(clk.Now), outbox.WithPollInterval(time.Hour))
		d.Handle(outbox.ChannelMail, outbox.HandlerFunc(func(_ context.Context, it outbox.Item) outbox.Result {
			return outbox.Result{Code: 550, Err: errors.New("mailbox unavailable: " + strings.Repeat("x", 2000))}
		}))
		d.Handle(outbox.ChannelWebhook, outbox.HandlerFunc(func(_ context.Context, it outbox.Item) outbox.Result {
			return outbox.Result{Err: errors.New("no such endpoint"), Permanent: true}
		}))
		late := enqueue(t, s, "b1", outbox.ChannelMail, 1)[0] // created t0: the bound has passed
		fresh := item("b1", outbox.ChannelWebhook, clk.Now())
		require.NoError(t, s.Enqueue(t.Context(), fresh))
		start(t, d)
		waitStatus(t, s, outbox.StatusFailed, late, fresh)
		got := stored(t, s, late)
		assert.Equal(t, 550, got.LastCode)
		assert.LessOrEqual(t, len(got.LastError), 1024, "at most 1 KB kept")
		assert.True(t, strings.HasPrefix(got.LastError, "mailbox unavailable: "))
		assert.Equal(t, "no such endpoint", stored(t, s, fresh).LastError)
	})
}

// TestDispatcherBrandFairness floods one brand whose server hangs: it
// holds at most its per-brand slots, every other brand's items are
// delivered meanwhile, and the hanging brand's items wait in the store,
// none dropped.
func TestDispatcherBrandFairness(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, s storage.Storage) {
		release := make(chan struct{})
		var hanging, maxHanging atomic.Int32
		d := newDispatcher(s, outbox.WithConcurrency(6), outbox.WithPerBrandConcurrency(2),
			outbox.WithPollInterval(10*time.Millisecond))
		d.Handle(outbox.ChannelMail, outbox.HandlerFunc(func(ctx context.Context, it outbox.Item) outbox.Result {
			if it.BrandID != "slow" {
				return outbox.Result{}
			}
			n := hanging.Add(1)
			defer hanging.Add(-1)
			for m := maxHanging.Load(); n > m && !maxHanging.CompareAndSwap(m, n); m = maxHanging.Load() {
			}
			select {
			case <-release:
				return outbox.Result{}
			case <-ctx.Done():
				return outbox.Result{Err: ctx.Err()}
			}
		}))
		slow := enqueue(t, s, "slow", outbox.ChannelMail, 20)
		var others []outbox.Item
		for b := range 4 {
			others = append(others, enqueue(t, s, fmt.Sprintf("brand-%d", b), outbox.ChannelMail, 8)...)
		}
		start(t, d)
		waitStatus(t, s, outbox.StatusDelivered, others...)
		assert.Equal(t, int32(2), maxHanging.Load(), "the hanging brand holds its two slots, no more")
		items, err := s.Items(t.Context(), outbox.Filter{BrandID: "slow", Status: outbox.StatusPending, Limit: 1000})
		require.NoError(t, err)
		assert.Len(t, items, len(slow), "the hanging brand's items wait, none dropped")
		close(release)
		waitStatus(t, s, outbox.StatusDelivered, slow...)
	})
}

// TestDispatcherMailBesideHangingWebhooks holds that a brand whose webhook
// endpoints hang still has its mail sent: the brand's slots are counted
// per lane (mail apart from events and webhooks), so its hanging
// deliveries hold only the webhooks' slots.
func TestDispatcherMailBesideHangingWebhooks(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, s storage.Storage) {
		release := make(chan struct{})
		d := newDispatcher(s, outbox.WithConcurrency(6), outbox.WithPerBrandConcurrency(2),
			outbox.WithPollInterval(10*time.Millisecond))
		d.Handle(outbox.ChannelWebhook, outbox.HandlerFunc(func(ctx context.Context, it outbox.Item) outbox.Result {
			select {
			case <-release:
				return outbox.Result{}
			case <-ctx.Done():
				return outbox.Result{Err: ctx.Err()}
			}
		}))
		d.Handle(outbox.ChannelMail, outbox.HandlerFunc(func(context.Context, outbox.Item) outbox.Result {
			return outbox.Result{}
		}))
		hooks := enqueue(t, s, "shop", outbox.ChannelWebhook, 10)
		start(t, d)
		mail := enqueue(t, s, "shop", outbox.ChannelMail, 3)
		d.Notify()
		waitStatus(t, s, outbox.StatusDelivered, mail...)
		close(release)
		waitStatus(t, s, outbox.StatusDelivered, hooks...)
	})
}

// TestDispatchersShareNothing runs three dispatchers on one store (on
// PostgreSQL, claiming in parallel transactions): each item is delivered
// exactly once.
func TestDispatchersShareNothing(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, s storage.Storage) {
		var mu sync.Mutex
		calls := map[string]int{}
		var items []outbox.Item
		for b := range 4 {
			items = append(items, enqueue(t, s, fmt.Sprintf("b%d", b), outbox.ChannelWebhook, 25)...)
		}
		for w := range 3 {
			d := newDispatcher(s, outbox.WithOwner(fmt.Sprintf("w%d", w)), outbox.WithConcurrency(8),
				outbox.WithPollInterval(5*time.Millisecond))
			d.Handle(outbox.ChannelWebhook, outbox.HandlerFunc(func(_ context.Context, it outbox.Item) outbox.Result {
				mu.Lock()
				calls[it.ID]++
				mu.Unlock()
				return outbox.Result{Code: 200}
			}))
			start(t, d)
		}
		waitStatus(t, s, outbox.StatusDelivered, items...)
		mu.Lock()
		defer mu.Unlock()
		assert.Len(t, calls, len(items))
		for id, n := range calls {
			assert.Equal(t, 1, n, "%s delivered once", id)
		}
	})
}

// TestDispatcherCloseCancels checks that Close cancels an attempt in
// flight, waits for it, and leaves its item pending and due at once, and
// that items of a channel without a handler are never claimed.
func TestDispatcherCloseCancels(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, s storage.Storage) {
		clk := &clock{now: t0.Add(time.Minute)}
		started := make(chan struct{})
		d := newDispatcher(s, outbox.WithClock(clk.Now), outbox.WithPollInterval(time.Hour))
		d.Handle(outbox.ChannelWebhook, outbox.HandlerFunc(func(ctx context.Context, _ outbox.Item) outbox.Result {
			close(started)
			<-ctx.Done()
			return outbox.Result{Err: ctx.Err()}
		}))
		hook := enqueue(t, s, "b1", outbox.ChannelWebhook, 1)[0]
		mail := enqueue(t, s, "b1", outbox.ChannelMail, 1)[0]
		d.Start()
		<-started
		require.NoError(t, d.Close())
		got := stored(t, s, hook)
		assert.Equal(t, outbox.StatusPending, got.Status)
		assert.Equal(t, clk.Now(), got.NextAt, "due again at once")
		assert.Contains(t, got.LastError, "stopped")
		assert.Zero(t, stored(t, s, mail).Attempts, "no handler, never claimed")
		require.NoError(t, d.Close(), "twice")
	})
}

// TestDispatcherPrunes checks that a dispatcher deletes the delivered and
// failed items older than its retention an hour after it starts (by its
// clock), and keeps the others.
func TestDispatcherPrunes(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, s storage.Storage) {
		ctx := t.Context()
		old := enqueue(t, s, "b1", outbox.ChannelWebhook, 3)
		got, err := s.Claim(ctx, outbox.Claim{Owner: "x", Now: t0.Add(time.Second), Until: t0.Add(time.Minute), Limit: 3, PerBrand: 3})
		require.NoError(t, err)
		require.Len(t, got, 3)
		for _, it := range got[:2] {
			require.NoError(t, s.Settle(ctx, outbox.Settlement{Ref: it.Ref(), Owner: "x", Status: outbox.StatusDelivered, At: t0}))
		}
		clk := &clock{now: t0.Add(outbox.DefaultRetention + time.Hour)}
		recent := item("b1", outbox.ChannelMail, clk.Now())
		require.NoError(t, s.Enqueue(ctx, recent))
		d := newDispatcher(s, outbox.WithClock(clk.Now), outbox.WithPollInterval(time.Hour))
		start(t, d)
		d.Notify()
		left, err := s.Items(ctx, outbox.Filter{BrandID: "b1"})
		require.NoError(t, err)
		require.Len(t, left, 4, "nothing pruned at start")
		clk.Add(time.Hour)
		d.Notify()
		require.Eventually(t, func() bool {
			left, err := s.Items(ctx, outbox.Filter{BrandID: "b1"})
			return err == nil && len(left) == 2
		}, eventually, 5*time.Millisecond)
		left, err = s.Items(ctx, outbox.Filter{BrandID: "b1"})
		require.NoError(t, err)
		assert.ElementsMatch(t, []string{old[2].ID, recent.ID}, []string{left[0].ID, left[1].ID})
	})
}

// TestDispatcherMetrics checks the metrics: attempts by channel and
// outcome, and the depth and oldest-age gauges by channel.
func TestDispatcherMetrics(t *testing.T) {
	t.Parallel()
	s := teststores.All["sqlite"](t)
	t.Cleanup(func() { s.Close() })
	mp, metrics := telemetrytest.MeterProvider(t)
	clk := &clock{now: t0.Add(time.Minute)}
	d := newDispatcher(s, outbox.WithClock(clk.Now), outbox.WithMeterProvider(mp), outbox.WithPollInterval(time.Hour))
	d.Handle(outbox.ChannelWebhook, outbox.HandlerFunc(func(_ context.Context, it outbox.Item) outbox.Result {
		if it.Topic == "fail" {
			return outbox.Result{Err: errors.New("down")}
		}
		return outbox.Result{}
	}))
	ok := enqueue(t, s, "b1", outbox.ChannelWebhook, 2)
	bad := item("b1", outbox.ChannelWebhook, t0)
	bad.Topic = "fail"
	require.NoError(t, s.Enqueue(t.Context(), bad))
	mail := enqueue(t, s, "b2", outbox.ChannelMail, 1)[0] // no handler: stays pending
	start(t, d)
	waitStatus(t, s, outbox.StatusDelivered, ok...)
	waitAttempts(t, s, bad, 1)
	f := telemetrytest.ScrapeHandler(t, metrics)
	const deliveries = "brandbase_outbox_deliveries_total"
	assert.Equal(t, 2.0, f.Value(deliveries, "brandbase_outbox_channel", "webhook", "brandbase_outbox_outcome", "delivered"))
	assert.Equal(t, 1.0, f.Value(deliveries, "brandbase_outbox_channel", "webhook", "brandbase_outbox_outcome", "retried"))
	assert.Equal(t, 1.0, f.Value("brandbase_outbox_depth", "brandbase_outbox_channel", "webhook"), "the retried one")
	assert.Equal(t, 1.0, f.Value("brandbase_outbox_depth", "brandbase_outbox_channel", "mail"))
	assert.Equal(t, 0.0, f.Value("brandbase_outbox_depth", "brandbase_outbox_channel", "event"))
	assert.Len(t, f.Series("brandbase_outbox_depth", "brandbase_outbox_channel", "event"), 1, "observed at 0")
	assert.Equal(t, clk.Now().Sub(mail.CreatedAt).Seconds(),
		f.Value("brandbase_outbox_oldest_age_seconds", "brandbase_outbox_channel", "mail"))
}
