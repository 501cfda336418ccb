package outbox

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	randv2 "math/rand/v2"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/brandbase/brandbase/internal/telemetry"
)

// Dispatcher delivers the items of a [Store]: it claims due items, as many
// as it has free slots, hands each to the [Handler] of its channel, and
// settles the outcome. Run one on every instance that shares the store;
// each item is claimed by one at a time.
//
// Fairness: at most the per-brand concurrency of its slots go to one
// brand; a brand at its cap is skipped by the claims, so a brand whose
// server hangs holds only its own slots and never delays another brand.
// Nothing is dropped: an item waits in the store until a slot takes it.
//
// Retries: a failed attempt is retried after a random delay
// (DefaultBackoffBase, DefaultBackoffCap: "full jitter"), until the retry
// bound (DefaultRetryBound) from the item's creation has passed; then, or
// at once when the handler says Permanent, the item is marked failed with
// its last error.
//
// Build it with [NewDispatcher], register handlers with [Dispatcher.Handle],
// then [Dispatcher.Start] it (or call [Dispatcher.Run]) and
// [Dispatcher.Close] it when done.
type Dispatcher struct {
	store   Store
	cfg     config
	log     *slog.Logger
	metrics *telemetry.Outbox
	wake    chan struct{}
	settles chan attempted // outcomes for the settler

	mu        sync.Mutex
	handlers  map[Channel]Handler
	held      map[string]int // deliveries in flight, by lane and brand (heldKey)
	inflight  int
	more      bool // the last claim may have left due items behind
	claims    uint64
	failing   map[failKey]time.Time // targets failing, since
	lastPrune time.Time

	deliveries sync.WaitGroup
	run        sync.Mutex // held while Run runs
	cancel     context.CancelFunc
	done       chan struct{}
}

// failKey names a delivery target: a brand's channel and endpoint (the
// endpoint is empty for mail: the brand's mail server).
type failKey struct {
	brand   string
	channel Channel
	target  string
}

// maxFailing bounds the failing targets a dispatcher tracks for its logs.
const maxFailing = 10_000

// NewDispatcher returns a dispatcher of store's items, configured by opts.
// It delivers nothing until it runs ([Dispatcher.Start] or
// [Dispatcher.Run]) with a handler for a channel.
func NewDispatcher(store Store, opts ...Option) *Dispatcher {
	c := config{clock: time.Now, logger: slog.Default(), retryBound: DefaultRetryBound, claimTTL: DefaultClaimTTL,
		concurrency: DefaultConcurrency, perBrand: DefaultPerBrandConcurrency, timeouts: map[Channel]time.Duration{},
		poll: DefaultPollInterval, retention: DefaultRetention, pruneEvery: time.Hour, jitter: randv2.Float64}
	for _, o := range opts {
		o(&c)
	}
	c.perBrand = min(c.perBrand, c.concurrency)
	if c.owner == "" {
		c.owner = defaultOwner()
	}
	return &Dispatcher{store: store, cfg: c, log: c.logger, metrics: telemetry.NewOutbox(c.mp),
		wake: make(chan struct{}, 1), settles: make(chan attempted, c.concurrency), handlers: map[Channel]Handler{}, held: map[string]int{},
		failing: map[failKey]time.Time{}}
}

// defaultOwner names this process: host, process ID and a random suffix.
func defaultOwner() string {
	host, _ := os.Hostname()
	var b [4]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%s-%d-%s", host, os.Getpid(), hex.EncodeToString(b[:]))
}

// Handle makes h deliver the items of ch, replacing the handler it had.
// Items of a channel without a handler are never claimed by this
// dispatcher: they wait for one that has it. It may be called while the
// dispatcher runs.
func (d *Dispatcher) Handle(ch Channel, h Handler) {
	d.mu.Lock()
	d.handlers[ch] = h
	d.mu.Unlock()
	d.Notify()
}

// Notify wakes the dispatcher to look for due items now (after an
// in-process write that enqueued some) rather than at its next poll.
func (d *Dispatcher) Notify() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// Start runs the dispatcher in a goroutine of its own until Close. It does
// nothing when the dispatcher runs already.
func (d *Dispatcher) Start() {
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan bool)
	go func() {
		if !d.run.TryLock() {
			started <- false
			return
		}
		d.mu.Lock()
		d.cancel, d.done = cancel, make(chan struct{})
		done := d.done
		d.mu.Unlock()
		started <- true
		defer close(done)
		d.runLocked(ctx)
	}()
	if !<-started {
		cancel()
	}
}

// Close stops a dispatcher that Start started: it claims no more, cancels
// the attempts in flight (each is settled, due again at once), and waits
// for them. It returns nil, and may be called more than once.
func (d *Dispatcher) Close() error {
	d.mu.Lock()
	cancel, done := d.cancel, d.done
	d.cancel = nil
	d.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
	return nil
}

// Run delivers until ctx ends, then cancels the attempts in flight and
// waits for them (each is settled, due again at once). It returns
// ctx's error, or an error at once when the dispatcher runs already (Start
// or another Run).
func (d *Dispatcher) Run(ctx context.Context) error {
	if !d.run.TryLock() {
		return fmt.Errorf("outbox: the dispatcher runs already")
	}
	d.runLocked(ctx)
	return ctx.Err()
}

// runLocked is Run's loop; d.run is held and released at its end.
func (d *Dispatcher) runLocked(ctx context.Context) {
	defer d.run.Unlock()
	stop := d.metrics.ObserveDepth(d.observeDepth)
	defer stop()
	settler := make(chan struct{})
	go func() { defer close(settler); d.settleLoop(ctx) }()
	defer func() {
		d.deliveries.Wait()
		close(d.settles)
		<-settler
		d.settles = make(chan attempted, d.cfg.concurrency)
	}()
	timer := time.NewTimer(d.cfg.poll)
	defer timer.Stop()
	d.lastPrune = d.cfg.clock() // the first pruning an hour from now
	for ctx.Err() == nil {
		d.prune(ctx)
		if d.claim(ctx) {
			continue // every slot was filled and more may be due
		}
		select {
		case <-ctx.Done():
		case <-d.wake:
		case <-timer.C:
		}
		timer.Reset(d.cfg.poll)
	}
}

// observeDepth reads the store's depth for the gauges, every channel
// observed (0 when none is pending).
func (d *Dispatcher) observeDepth(ctx context.Context) (map[string]int64, map[string]time.Time, time.Time, bool) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	depth, err := d.store.Depth(ctx)
	if err != nil {
		return nil, nil, time.Time{}, false
	}
	pending := map[string]int64{string(ChannelEvent): 0, string(ChannelWebhook): 0, string(ChannelMail): 0}
	oldest := map[string]time.Time{}
	for ch, n := range depth.Pending {
		pending[string(ch)] = int64(n)
	}
	for ch, at := range depth.Oldest {
		oldest[string(ch)] = at
	}
	return pending, oldest, d.cfg.clock(), true
}

// claim claims, lane by lane (mail; events and webhooks), as many due
// items as the dispatcher has free slots and
// starts their deliveries. It reports whether it filled every slot (more
// may be due: claim again once slots free).
func (d *Dispatcher) claim(ctx context.Context) bool {
	d.mu.Lock()
	d.more = false // each lane's claim tells whether it left items behind
	d.mu.Unlock()
	full := false
	for _, l := range lanes {
		if d.claimLane(ctx, l) {
			full = true
		}
	}
	return full
}

// lane is a class of channels whose deliveries a brand holds slots of
// apart: a brand whose webhook endpoints hang still has its mail sent.
type lane struct {
	name     string
	channels []Channel
}

// lanes are the mail lane and the events' and webhooks' lane.
var lanes = []lane{{"mail", []Channel{ChannelMail}}, {"hooks", []Channel{ChannelEvent, ChannelWebhook}}}

// laneOf returns the name of the lane of ch.
func laneOf(ch Channel) string {
	if ch == ChannelMail {
		return "mail"
	}
	return "hooks"
}

// heldKey keys the held slots of a brand in a lane.
func heldKey(lane, brand string) string { return lane + "\x00" + brand }

// claimLane claims the due items of l's channels this dispatcher has
// handlers for, as many as it has free slots, at most perBrand of a brand
// in l counting the brand's deliveries of l in flight; it reports whether
// it filled every free slot.
func (d *Dispatcher) claimLane(ctx context.Context, l lane) bool {
	d.mu.Lock()
	free := d.cfg.concurrency - d.inflight
	var channels []Channel
	for _, ch := range l.channels {
		if d.handlers[ch] != nil {
			channels = append(channels, ch)
		}
	}
	held := map[string]int{}
	var skip []string
	prefix := heldKey(l.name, "")
	for k, n := range d.held {
		b, ok := strings.CutPrefix(k, prefix)
		if !ok {
			continue
		}
		held[b] = n
		if n >= d.cfg.perBrand {
			skip = append(skip, b)
		}
	}
	d.claims++
	owner := fmt.Sprintf("%s#%d", d.cfg.owner, d.claims)
	d.mu.Unlock()
	if free <= 0 || len(channels) == 0 {
		return false
	}
	now := d.cfg.clock()
	until := now.Add(d.cfg.claimTTL)
	items, err := d.store.Claim(ctx, Claim{Owner: owner, Now: now, Until: until, Limit: free,
		PerBrand: d.cfg.perBrand, SkipBrands: skip, Held: held, Channels: channels})
	d.storeOutcome(ctx, err)
	if err != nil {
		return false
	}
	d.mu.Lock()
	d.more = d.more || len(items) == free || len(skip) > 0
	for _, it := range items {
		d.inflight++
		d.held[heldKey(l.name, it.BrandID)]++
		d.deliveries.Add(1)
		go d.deliver(ctx, owner, it)
	}
	d.mu.Unlock()
	return len(items) == free
}

// release frees the slot of the delivery of it, and wakes the loop when
// the last claim may have left due items behind and half the slots are
// free (or all): claims take items by the batch, not one by one.
func (d *Dispatcher) release(it Item) {
	key := heldKey(laneOf(it.Channel), it.BrandID)
	d.mu.Lock()
	d.inflight--
	if d.held[key]--; d.held[key] <= 0 {
		delete(d.held, key)
	}
	wake := d.more && (d.cfg.concurrency-d.inflight == max(1, d.cfg.concurrency/2) || d.inflight == 0)
	d.mu.Unlock()
	if wake {
		d.Notify()
	}
}

// storeOutcome logs the store's failure to claim once when it starts and
// once when it ends (ctx's end is no failure).
func (d *Dispatcher) storeOutcome(ctx context.Context, err error) {
	key := failKey{channel: "store"}
	if err != nil && ctx.Err() != nil {
		return
	}
	d.mu.Lock()
	since, failing := d.failing[key]
	switch {
	case err != nil && !failing:
		d.failing[key] = d.cfg.clock()
	case err == nil && failing:
		delete(d.failing, key)
	}
	d.mu.Unlock()
	switch {
	case err != nil && !failing:
		d.log.Warn("outbox: claiming items fails; deliveries wait until the store answers", "error", err)
	case err == nil && failing:
		d.log.Info("outbox: claiming items works again", "failedFor", d.cfg.clock().Sub(since).String())
	}
}
