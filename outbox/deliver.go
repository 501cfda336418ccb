package outbox

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/brandbase/brandbase/internal/telemetry"
)

// settleTimeout bounds the store call that records an attempt's outcome.
const settleTimeout = 10 * time.Second

// maxSettleBatch bounds the outcomes one SettleAll records.
const maxSettleBatch = 128

// attempted is an attempt's outcome on its way to the store.
type attempted struct {
	it      Item
	res     Result
	s       Settlement
	outcome string // for the metrics
	closing bool   // cut short by the dispatcher's stop
}

// deliver runs one attempt on it (claimed as owner) and hands its outcome
// to the settler (a fan-out is settled here, in its own transaction); the
// slot is freed once the outcome is stored.
func (d *Dispatcher) deliver(ctx context.Context, owner string, it Item) {
	res := d.attempt(ctx, it)
	a := attempted{it: it, res: res, closing: ctx.Err() != nil && res.Err != nil}
	a.s, a.outcome = d.outcome(it, res, d.cfg.clock(), a.closing)
	a.s.Owner = owner
	if res.Err != nil || len(res.FanOut) == 0 {
		d.settles <- a
		return
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), settleTimeout)
	defer cancel()
	err := d.store.FanOut(sctx, owner, it, a.s.At, res.FanOut)
	if err == nil {
		d.Notify() // the deliveries are due now
	}
	d.settled(sctx, a, err)
}

// settleLoop records the outcomes sent on d.settles until it is closed,
// those that arrive together in one transaction (SettleAll), at most
// maxSettleBatch.
func (d *Dispatcher) settleLoop(ctx context.Context) {
	for first := range d.settles {
		batch := []attempted{first}
	fill:
		for len(batch) < maxSettleBatch {
			select {
			case a, ok := <-d.settles:
				if !ok {
					break fill
				}
				batch = append(batch, a)
			default:
				break fill
			}
		}
		ss := make([]Settlement, len(batch))
		for i, a := range batch {
			ss[i] = a.s
		}
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), settleTimeout)
		errs, err := d.store.SettleAll(sctx, ss)
		for i, a := range batch {
			e := err
			if e == nil && i < len(errs) {
				e = errs[i]
			}
			d.settled(sctx, a, e)
		}
		cancel()
	}
}

// settled logs an outcome the store refused, counts and tracks one it
// recorded, and frees the attempt's slot.
func (d *Dispatcher) settled(ctx context.Context, a attempted, err error) {
	defer d.deliveries.Done()
	defer d.release(a.it)
	it := a.it
	switch {
	case errors.Is(err, ErrClaimLost):
		d.log.Info("outbox: an item's claim expired before its attempt was settled; another dispatcher took it",
			"brand", it.BrandID, "channel", string(it.Channel), "target", it.Target, "id", it.ID)
		return
	case err != nil:
		d.log.Warn("outbox: settling an attempt failed; the item is attempted again when its claim expires",
			"brand", it.BrandID, "channel", string(it.Channel), "target", it.Target, "id", it.ID, "error", err)
		return
	}
	d.metrics.Attempted(ctx, string(it.Channel), a.outcome)
	if !a.closing {
		d.track(it, a.res, a.s.At)
	}
}

// attempt hands it to its channel's handler, bounded by the channel's
// attempt timeout and 90% of the claim's TTL; a handler's panic is a
// failed attempt.
func (d *Dispatcher) attempt(ctx context.Context, it Item) (res Result) {
	d.mu.Lock()
	h := d.handlers[it.Channel]
	d.mu.Unlock()
	if h == nil {
		return Result{Err: fmt.Errorf("outbox: no handler for channel %q", it.Channel)}
	}
	timeout := min(cmp.Or(d.cfg.timeouts[it.Channel], DefaultAttemptTimeout), d.cfg.claimTTL*9/10)
	actx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	defer func() {
		if r := recover(); r != nil {
			d.log.Error("outbox: a handler panicked", "channel", string(it.Channel), "panic", fmt.Sprint(r))
			res = Result{Err: fmt.Errorf("outbox: the %s handler panicked: %v", it.Channel, r)}
		}
	}()
	return h.Deliver(actx, it)
}

// outcome returns the settlement of an attempt on it that ended at now
// with res, and its outcome for the metrics: delivered; failed when
// Permanent or past the retry bound; else retried after the backoff (at
// the latest at the bound, for a last attempt). An attempt the
// dispatcher's close cut short is due again at once.
func (d *Dispatcher) outcome(it Item, res Result, now time.Time, closing bool) (Settlement, string) {
	s := Settlement{Ref: it.Ref(), At: now, Code: res.Code}
	if res.Err == nil {
		s.Status = StatusDelivered
		return s, telemetry.OutboxDelivered
	}
	s.Error = res.Err.Error()
	bound := it.CreatedAt.Add(d.cfg.retryBound)
	switch {
	case closing:
		s.Status, s.NextAt = StatusPending, now
		s.Error = "the dispatcher stopped during the attempt: " + s.Error
		return s, telemetry.OutboxRetried
	case res.Permanent || !now.Before(bound):
		s.Status = StatusFailed
		return s, telemetry.OutboxFailed
	}
	s.Status = StatusPending
	s.NextAt = now.Add(d.backoff(it.Attempts + 1))
	if s.NextAt.After(bound) {
		s.NextAt = bound
	}
	return s, telemetry.OutboxRetried
}

// backoff returns the wait after the n-th failed attempt (n from 1): a
// uniformly random time below min(DefaultBackoffCap,
// DefaultBackoffBase × 2^(n−1)).
func (d *Dispatcher) backoff(n int) time.Duration {
	ceiling := DefaultBackoffCap
	if n < 20 {
		ceiling = min(DefaultBackoffCap, DefaultBackoffBase<<max(n-1, 0))
	}
	return time.Duration(d.cfg.jitter() * float64(ceiling))
}

// track logs a target (the item's brand, channel and endpoint) once when
// its deliveries start failing and once when they recover: never per
// attempt.
func (d *Dispatcher) track(it Item, res Result, now time.Time) {
	key := failKey{brand: it.BrandID, channel: it.Channel, target: it.Target}
	d.mu.Lock()
	since, failing := d.failing[key]
	started := res.Err != nil && !failing && len(d.failing) < maxFailing
	recovered := res.Err == nil && failing
	switch {
	case started:
		d.failing[key] = now
	case recovered:
		delete(d.failing, key)
	}
	d.mu.Unlock()
	switch {
	case started:
		d.log.Warn("outbox: deliveries to a target fail; retrying with backoff", "brand", it.BrandID,
			"channel", string(it.Channel), "target", it.Target, "code", res.Code, "error", res.Err.Error())
	case recovered:
		d.log.Info("outbox: deliveries to a target work again", "brand", it.BrandID, "channel", string(it.Channel),
			"target", it.Target, "failedFor", now.Sub(since).String())
	}
}

// prune, when the last pruning (or the start) is an hour old by the
// dispatcher's clock, deletes the delivered and failed items older than the
// retention, in transactions of at most PruneBatch items, in a goroutine
// of its own; and forgets the targets that have been failing for longer
// than the retry bound (their items have failed).
func (d *Dispatcher) prune(ctx context.Context) {
	now := d.cfg.clock()
	if d.cfg.retention < 0 || now.Sub(d.lastPrune) < d.cfg.pruneEvery {
		return
	}
	d.lastPrune = now
	d.mu.Lock()
	for k, since := range d.failing {
		if now.Sub(since) > d.cfg.retryBound {
			delete(d.failing, k)
		}
	}
	d.mu.Unlock()
	before := now.Add(-d.cfg.retention)
	d.deliveries.Add(1)
	go func() {
		defer d.deliveries.Done()
		total := 0
		for ctx.Err() == nil {
			n, err := d.store.Prune(ctx, before, PruneBatch)
			if err != nil {
				if ctx.Err() == nil {
					d.log.Warn("outbox: pruning delivered and failed items failed; trying again in an hour", "error", err)
				}
				return
			}
			if total += n; n < PruneBatch {
				break
			}
		}
		if total > 0 {
			d.log.Debug("outbox: pruned delivered and failed items", "items", total, "before", before)
		}
	}()
}
