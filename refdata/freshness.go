package refdata

// How the snapshot keeps up with the store without making lists wait:
// checks run beside the lists, never in their path (a list uses what
// they last learned, and a database that does not answer holds no list
// answered from the snapshot): the store's revision every revisionEvery,
// and, once a checkInterval, that the store's reference data are still
// the history the snapshot was read from (a restore or a failover takes
// the revision back, and no notification says so). Patches for other
// instances' writes run at most once a patchInterval, in the background;
// a backoff follows a failed read.

import (
	"context"
	"fmt"
	"sync"
	"time"
	"weak"

	"github.com/brandbase/brandbase/envelope"
)

const (
	// patchInterval is how often, at most, the snapshot is patched in the
	// background with other instances' writes while lists answer from it.
	patchInterval = time.Second
	// revisionEvery is the pause between two reads of the store's
	// revision (Store.RefDataRevision, which the stores cache) by the
	// checks.
	revisionEvery = 100 * time.Millisecond
	// checkInterval is how often the store's generation and revision are
	// read uncached (Store.RefDataGeneration).
	checkInterval = time.Second
	// checkTimeout bounds each read of the checks.
	checkTimeout = 5 * time.Second
	// refreshIdle is how long the checks keep their pace with no list:
	// then they read the revision once an idleEvery, until the next list.
	refreshIdle = 30 * time.Second
	// idleEvery is the pause between two checks while no list comes: a
	// list after a quiet spell uses a revision read at most this long ago.
	idleEvery = 500 * time.Millisecond
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
	checkedAt time.Time // when the last check of the generation started
}

// WithClock makes the Service read the time from now (time.Now when nil
// or not given): the pace of background patches, the backoff after a
// failed read and the checks of the store's generation (the pace of the
// checks themselves is real time).
func WithClock(now func() time.Time) Option {
	return func(s *Service) {
		if now != nil {
			s.ix.now = now
		}
	}
}

// floor is the revision a list must see: the last write through this
// store, unless a read made since found the store's revision below it (a
// restore took it back).
func (x *index) floor() uint64 {
	w := x.store.RefDataWritten()
	if b := x.back.Load(); b != nil && b.written == w {
		return min(w, b.rev)
	}
	return w
}

// wentBack is a revision of the store that a read found below the last
// write through this store, written before it started.
type wentBack struct{ written, rev uint64 }

// readAt records that a read, started when the last write through this
// store was written, found the store at revision rev.
func (x *index) readAt(written, rev uint64) {
	if rev < written {
		x.back.Store(&wentBack{written: written, rev: rev})
	} else {
		x.back.Store(nil)
	}
}

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

// learned is what a check (or a read of the snapshot) learned of the
// store: its revision, or why it could not be read; stamp orders the
// reads by their start (index.stamps).
type learned struct {
	stamp uint64
	rev   uint64
	err   error
}

// learn makes l what the lists use unless a read started later has
// told already.
func (x *index) learn(l *learned) {
	for {
		old := x.known.Load()
		if old != nil && old.stamp > l.stamp || x.known.CompareAndSwap(old, l) {
			return
		}
	}
}

// use records that a list (or Ready, or Warm) needs the snapshot now, and
// starts the checks at the first: they run beside the lists until Close,
// or until the Service is garbage (a Service never closed ends its checks
// and is released with its store).
func (x *index) use() {
	x.usedAt.Store(monoNow())
	if x.refreshing.Load() {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.closed || !x.refreshing.CompareAndSwap(false, true) {
		return
	}
	x.checks.Add(1)
	go refresh(weak.Make(x), x.life.Done(), x.checks)
}

// monoStart and monoNow give the time on the process's monotonic clock:
// the checks' pace is real time, whatever clock the Service was given (a
// test's clock that stands still does not keep them at their fast pace).
var monoStart = time.Now()

func monoNow() int64 { return int64(time.Since(monoStart)) }

// idle reports whether no list has come for refreshIdle.
func (x *index) idle() bool {
	return time.Duration(monoNow()-x.usedAt.Load()) >= refreshIdle
}

// refresh runs the checks of the index w points to, one every
// revisionEvery (every idleEvery while no list comes), until done (Close)
// or until the index is garbage. It holds the index only while a check
// runs, so that a Service nobody holds is collected with its store.
func refresh(w weak.Pointer[index], done <-chan struct{}, running *sync.WaitGroup) {
	defer running.Done()
	wait := time.NewTimer(0)
	defer wait.Stop()
	for {
		select {
		case <-done:
			return
		case <-wait.C:
		}
		pause, ok := checkOnce(w)
		if !ok {
			return
		}
		wait.Reset(pause)
	}
}

// checkOnce runs one check of the index w points to and returns the
// pause before the next; false when the index is garbage.
func checkOnce(w weak.Pointer[index]) (time.Duration, bool) {
	x := w.Value()
	if x == nil {
		return 0, false
	}
	x.check()
	if x.idle() {
		return idleEvery, true
	}
	return revisionEvery, true
}

// check reads the store's revision (Store.RefDataRevision, within
// checkTimeout) for the lists to use, and starts a patch in the
// background when the snapshot is behind it; once a checkInterval it
// also checks the store's generation (checkGeneration).
func (x *index) check() {
	ctx, cancel := context.WithTimeout(x.life, checkTimeout)
	defer cancel()
	stamp := x.stamps.Add(1)
	rev, err := x.store.RefDataRevision(ctx)
	switch {
	case x.life.Err() != nil:
		return // closed: nothing more to learn
	case err != nil && ctx.Err() != nil:
		err = envelope.Unavailable(fmt.Errorf("refdata: the store's revision was not read within %s: %w", checkTimeout, err), 1)
	}
	x.learn(&learned{stamp: stamp, rev: rev, err: err})
	if err != nil {
		return
	}
	if sn := x.snap.Load(); sn != nil && x.invalid.Load() != sn && sn.rev < rev {
		x.startPatch(x.life)
	}
	x.checkGeneration(x.life)
}

// checkGeneration reads, once a checkInterval, the store's generation and
// revision uncached (Store.RefDataGeneration, within checkTimeout): when
// the store holds another generation than the snapshot's, or a revision
// below it, the snapshot is marked invalid (lists wait for it to be read
// whole) and a read starts. The snapshot is loaded before the read, so
// that a patch published meanwhile is not taken for a store gone back.
func (x *index) checkGeneration(ctx context.Context) {
	x.mu.Lock()
	now := x.now()
	if now.Sub(x.fresh.checkedAt) < checkInterval {
		x.mu.Unlock()
		return
	}
	x.fresh.checkedAt = now
	x.mu.Unlock()
	sn := x.snap.Load()
	if sn == nil {
		return
	}
	cctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	gen, rev, err := x.store.RefDataGeneration(cctx)
	if err != nil || (gen == sn.gen && rev >= sn.rev) {
		return
	}
	x.logger.Warn("refdata: the store's reference data are not those the snapshot was read from (a restore or a failover?): reading them again",
		"snapshot_revision", sn.rev, "store_revision", rev, "generation_changed", gen != sn.gen)
	x.invalid.Store(sn)
	_, _ = x.startBuild(ctx)
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
