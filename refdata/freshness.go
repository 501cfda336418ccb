package refdata

// How the snapshot keeps up with the store without making lists wait:
// patches for other instances' writes at most once a patchInterval, in
// the background; a backoff after a failed read; and a check, once a
// checkInterval, that the store's reference data are still the history
// the snapshot was read from (a restore or a failover takes the revision
// back, and no notification says so).

import (
	"context"
	"time"
)

const (
	// patchInterval is how often, at most, the snapshot is patched in the
	// background with other instances' writes while lists answer from it.
	patchInterval = time.Second
	// checkInterval is how often the store's generation and revision are
	// read uncached (Store.RefDataGeneration).
	checkInterval = time.Second
	// checkTimeout bounds that read.
	checkTimeout = 5 * time.Second
	// minBackoff and maxBackoff bound the wait after a failed read before
	// the next one starts; it doubles after each failure in a row.
	minBackoff = 100 * time.Millisecond
	maxBackoff = 5 * time.Second
)

// freshness is what the index keeps to pace its reads; guarded by
// index.mu.
type freshness struct {
	patchedAt time.Time // when the last build or patch started
	failures  int       // builds failed in a row
	retryAt   time.Time // no build starts before (after a failure)
	lastErr   error     // the last build's error, while backing off
	checkedAt time.Time // when the last check started
	checking  bool
}

// WithClock makes the Service read the time from now (time.Now when nil
// or not given): the pace of background patches, the backoff after a
// failed read and the checks of the store's generation.
func WithClock(now func() time.Time) Option {
	return func(s *Service) {
		if now != nil {
			s.ix.now = now
		}
	}
}

// floor is the revision a list must see: the last write through this
// store, unless the store's revision rev is below it (a restore took it
// back).
func (x *index) floor(rev uint64) uint64 { return min(x.store.RefDataWritten(), rev) }

// startPatch starts a build in the background unless one ran within the
// last patchInterval (or the index backs off after a failure).
func (x *index) startPatch(ctx context.Context) {
	x.mu.Lock()
	due := x.building == nil && x.now().Sub(x.fresh.patchedAt) >= patchInterval
	x.mu.Unlock()
	if due {
		_, _ = x.startBuild(ctx)
	}
}

// builtAt records the outcome of a build: a failure (not Close) backs off
// the next one, from minBackoff doubling to maxBackoff.
func (x *index) builtAt(err error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if err == nil || err == errClosed {
		x.fresh.failures, x.fresh.retryAt, x.fresh.lastErr = 0, time.Time{}, nil
		return
	}
	x.fresh.failures++
	wait := maxBackoff
	if x.fresh.failures < 8 {
		wait = min(maxBackoff, minBackoff<<(x.fresh.failures-1))
	}
	x.fresh.retryAt, x.fresh.lastErr = x.now().Add(wait), err
}

// checkStore starts, once a checkInterval, a read of the store's
// generation and revision in the background: when the store holds
// another generation than the snapshot's, or a revision below it, the
// snapshot is marked invalid (lists wait for it to be read whole) and a
// read starts. The snapshot is loaded before the read, so that a patch
// published meanwhile is not taken for a store gone back.
func (x *index) checkStore(ctx context.Context) {
	x.mu.Lock()
	now := x.now()
	if x.closed || x.fresh.checking || now.Sub(x.fresh.checkedAt) < checkInterval {
		x.mu.Unlock()
		return
	}
	x.fresh.checking, x.fresh.checkedAt = true, now
	x.checks.Add(1)
	x.mu.Unlock()
	go func() {
		defer x.checks.Done()
		defer func() {
			x.mu.Lock()
			x.fresh.checking = false
			x.mu.Unlock()
		}()
		sn := x.snap.Load()
		if sn == nil {
			return
		}
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), checkTimeout)
		defer cancel()
		defer context.AfterFunc(x.life, cancel)()
		gen, rev, err := x.store.RefDataGeneration(cctx)
		if err != nil || (gen == sn.gen && rev >= sn.rev) {
			return
		}
		x.logger.Warn("refdata: the store's reference data are not those the snapshot was read from (a restore or a failover?): reading them again",
			"snapshot_revision", sn.rev, "store_revision", rev, "generation_changed", gen != sn.gen)
		x.invalid.Store(sn)
		_, _ = x.startBuild(cctx)
	}()
}

// ListVersion returns the version of the reference data that lists
// answer from now: a number, unique to this Service, that changes
// whenever that data changes (a patch, a read whole), so that a caller may
// cache answers under it (the HTTP adapter does). A list that follows
// answers from that version or a later one, never an earlier one. It
// waits, as a list does, when a list would wait, and fails as a list
// does; while the store is unavailable it is the version of the snapshot
// held.
func (s *Service) ListVersion(ctx context.Context) (uint64, error) {
	sn, _, err := s.ix.currentOrHeld(ctx)
	if err != nil {
		return 0, err
	}
	return sn.version, nil
}

// Holds reports whether the Service holds a snapshot that lists can be
// answered from now, without a read: also one behind the store's
// revision, and one held while the store is unavailable; not one found
// to be of another history than the store's (after a restore), nor any
// after Close. For readiness probes.
func (s *Service) Holds() bool {
	sn := s.ix.snap.Load()
	return sn != nil && s.ix.invalid.Load() != sn && s.ix.life.Err() == nil
}
