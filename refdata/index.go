package refdata

// The Service's snapshot: every list is answered in process, from the
// reference data of one revision of the store, read in one transaction
// (Store.ReadRefData) and kept up to date with the changes since
// (Store.RefDataChangesSince).

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"weak"

	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/internal/telemetry"
)

// errClosed is what lists and Ready return once the Service is closed.
var errClosed = envelope.Unavailable(errors.New("refdata: the service is closed"), 1)

// snapshot is the reference data of one revision of the store: immutable
// once published.
type snapshot struct {
	rev        uint64
	gen        string // the store's generation (RefData.Generation)
	version    uint64 // unique to the index, increasing (Service.ListVersion)
	currencies *currencyTable
	countries  *countryTable
	cities     *cityIndex
}

// build is one build of a snapshot, which every list that needs it waits
// for.
type build struct {
	done chan struct{}
	err  error
}

// index is the Service's snapshot and what maintains it. At most one
// snapshot is held, plus the one being built.
type index struct {
	store  Store
	logger *slog.Logger
	rec    *telemetry.RefData // nil: telemetry off

	snap    atomic.Pointer[snapshot]
	builds  atomic.Uint64 // snapshots read whole (Builds)
	patches atomic.Uint64 // snapshots patched with the changes since (Patches)

	mu       sync.Mutex
	building *build // the running build, or nil
	closed   bool
	fresh    freshness // guarded by mu
	// checks is the loop of the checks (refresh), waited for by close: a
	// WaitGroup of its own, so that the loop holds no pointer into the
	// index.
	checks *sync.WaitGroup

	// known is what the checks (or a read) last learned of the store
	// (nil: nothing yet); stamps numbers the reads that learn, in the
	// order they start; refreshing is set once the checks run; usedAt is
	// when a list last came (on the process's monotonic clock, monoNow).
	known      atomic.Pointer[learned]
	stamps     atomic.Uint64
	refreshing atomic.Bool
	usedAt     atomic.Int64
	// back is the revision a read found the store at, below this store's
	// last write (floor).
	back atomic.Pointer[wentBack]

	now      func() time.Time
	versions atomic.Uint64 // the last snapshot version given
	// invalid is the snapshot found to be of another history than the
	// store's (a restore, a failover): lists wait for it to be read whole.
	invalid atomic.Pointer[snapshot]

	life context.Context // ended by Close, which ends a running build
	end  context.CancelFunc
}

func newIndex(store Store, logger *slog.Logger) *index {
	if logger == nil {
		logger = slog.Default()
	}
	life, end := context.WithCancel(context.Background())
	return &index{store: store, logger: logger, life: life, end: end, now: time.Now, checks: new(sync.WaitGroup)}
}

// current returns a snapshot at least as recent as the store's revision
// now, building it (or waiting for the build under way) when the one held
// is older: a list sees every write that returned before it, on this
// instance at once, and another instance's as soon as the store's
// revision shows it. When the store is unavailable (envelope.IsUnavailable)
// it returns the snapshot held, if any: such an answer misses what was
// written since that snapshot's revision. It fails with the store's error
// when there is none, and with ctx.Err() when ctx ends first.
func (x *index) current(ctx context.Context) (*snapshot, error) {
	sn, _, err := x.currentOrHeld(ctx)
	return sn, err
}

// currentOrHeld is current, also reporting whether the snapshot returned
// is the one held while the store is unavailable.
//
// A list never waits on the store for a snapshot it holds: it uses what
// the checks beside the lists last learned (freshness.go). A snapshot
// behind the store's revision only by other instances' writes (above the
// revision of the last write through this store, Store.RefDataWritten)
// answers at once, while a patch runs in the background, at most once a
// patchInterval; when the checks last found the store unavailable, it
// answers as the snapshot held, and another failure of theirs fails the
// list. A snapshot behind this store's own last write, none at all, or
// one found to be of another history (checkGeneration) makes the list
// wait for the read (and answer from the snapshot held, if any, when the
// store is unavailable).
func (x *index) currentOrHeld(ctx context.Context) (sn *snapshot, held bool, err error) {
	for range 3 {
		if x.life.Err() != nil {
			return nil, false, errClosed
		}
		if err := ctx.Err(); err != nil { // a caller that went away gets no list, cached or not
			return nil, false, err
		}
		x.use()
		sn := x.snap.Load()
		if sn != nil && x.invalid.Load() != sn && sn.rev >= x.floor() {
			switch k := x.known.Load(); {
			case k != nil && k.err != nil:
				sn, err := x.held(ctx, k.err)
				return sn, sn != nil, err
			case k != nil && k.rev > sn.rev:
				x.startPatch(ctx) // behind by others' writes only
			}
			return sn, false, nil
		}
		b, err := x.startBuild(ctx)
		if b == nil { // backing off after a failed read
			sn, err := x.held(ctx, err)
			return sn, sn != nil, err
		}
		select {
		case <-b.done:
		case <-ctx.Done():
			return nil, false, ctx.Err()
		}
		if b.err != nil {
			sn, err := x.held(ctx, b.err)
			return sn, sn != nil, err
		}
		// The build read a revision at least as recent as this store's
		// last write, unless it had started before the write returned:
		// then check again.
	}
	if sn := x.snap.Load(); sn != nil {
		return sn, false, nil
	}
	return nil, false, errClosed
}

// lag returns the revisions the snapshot held is behind the store's
// revision now; false when no snapshot is held or the revision cannot be
// read.
func (x *index) lag(ctx context.Context) (int64, bool) {
	sn := x.snap.Load()
	if sn == nil || x.life.Err() != nil {
		return 0, false
	}
	rev, err := x.store.RefDataRevision(ctx)
	if err != nil {
		return 0, false
	}
	if rev <= sn.rev {
		return 0, true
	}
	return int64(rev - sn.rev), true
}

// held returns the snapshot held when err says the store is unavailable
// and ctx has not ended; err otherwise.
func (x *index) held(ctx context.Context, err error) (*snapshot, error) {
	if envelope.IsUnavailable(err) && ctx.Err() == nil {
		if sn := x.snap.Load(); sn != nil {
			return sn, nil
		}
	}
	return nil, err
}

// warm reports whether a snapshot of the store's current revision is held,
// without waiting: when it is not, it starts the build a list would start
// and reports false. It fails after Close, and with the store's error when
// its revision cannot be read.
func (x *index) warm(ctx context.Context) (bool, error) {
	if x.life.Err() != nil {
		return false, errClosed
	}
	x.use()
	rev, err := x.store.RefDataRevision(ctx)
	if err != nil {
		return false, err
	}
	if sn := x.snap.Load(); sn != nil && x.invalid.Load() != sn && sn.rev >= min(x.floor(), rev) {
		if sn.rev < rev {
			x.startPatch(ctx)
		}
		return true, nil
	}
	_, err = x.startBuild(ctx)
	return false, err
}

// startBuild starts a build unless one is running, and returns the running
// one; after Close, a build already done with errClosed. While it backs
// off after failed builds (freshness.retryAt), it starts none and returns
// nil and the last build's error. The build outlives the call that
// started it (keeping its context's values) and ends with Close.
func (x *index) startBuild(ctx context.Context) (*build, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.building != nil {
		return x.building, nil
	}
	b := &build{done: make(chan struct{})}
	if x.closed {
		b.err = errClosed
		close(b.done)
		return b, nil
	}
	now := x.now()
	if now.Before(x.fresh.retryAt) {
		return nil, x.fresh.lastErr
	}
	x.fresh.patchedAt = now
	x.building = b
	go func() {
		defer func() {
			x.mu.Lock()
			x.building = nil
			x.mu.Unlock()
			close(b.done)
		}()
		bctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		defer cancel()
		defer context.AfterFunc(x.life, cancel)()
		b.err = x.build(bctx)
		switch {
		case b.err != nil && x.life.Err() != nil:
			b.err = errClosed // cancelled by Close: not a failure to report
		case b.err != nil:
			x.logger.Warn("refdata: reading the reference data failed", "err", b.err)
		}
		x.builtAt(b.err)
	}()
	return b, nil
}

// build publishes a snapshot of the store's current revision: the one
// held patched with the cities changed since its revision when they are
// few (a quarter of the cities or less), else one read whole.
func (x *index) build(ctx context.Context) (err error) {
	span := x.rec.StartBuild(ctx)
	patched := false
	defer func() {
		if err == nil {
			x.rec.Built(ctx, span, patched)
		}
		telemetry.EndSpan(span, err)
	}()
	written, stamp := x.store.RefDataWritten(), x.stamps.Add(1)
	old := x.snap.Load()
	if old != nil && x.invalid.Load() != old {
		data, err := x.store.RefDataChangesSince(ctx, old.rev, old.cities.len()/4+1)
		if err != nil {
			return fmt.Errorf("refdata: reading the changes since revision %d: %w", old.rev, err)
		}
		x.readAt(written, data.Revision)
		x.learn(&learned{stamp: stamp, rev: data.Revision})
		switch {
		case data.Generation != old.gen || data.Revision < old.rev: // another history: read whole
			x.invalid.Store(old)
		case data.Revision == old.rev:
			return nil // nothing newer: old is current
		case data.Whole: // too many changes to patch: read whole, in the same read
			x.publish(&snapshot{rev: data.Revision, gen: data.Generation, currencies: newCurrencyTable(data.Currencies),
				countries: newCountryTable(data.Countries), cities: frozenCityIndex(data)})
			x.builds.Add(1)
			return nil
		default:
			cities := old.cities.clone()
			cities.upsertAll(data.Cities)
			cities.freeze()
			x.publish(&snapshot{rev: data.Revision, gen: data.Generation, currencies: newCurrencyTable(data.Currencies),
				countries: newCountryTable(data.Countries), cities: cities})
			x.patches.Add(1)
			patched = true
			return nil
		}
	}
	data, err := x.store.ReadRefData(ctx)
	if err != nil {
		return fmt.Errorf("refdata: reading the reference data: %w", err)
	}
	x.readAt(written, data.Revision)
	x.learn(&learned{stamp: stamp, rev: data.Revision})
	x.publish(&snapshot{rev: data.Revision, gen: data.Generation, currencies: newCurrencyTable(data.Currencies),
		countries: newCountryTable(data.Countries), cities: frozenCityIndex(data)})
	x.builds.Add(1)
	return nil
}

// frozenCityIndex returns the index of data's cities, frozen: a patch
// writes a copy (clone). A template's cities (RefData.Template) get the
// index of the last template's cities built, when they are the same.
func frozenCityIndex(data RefData) *cityIndex {
	if data.Template {
		return templateIndex.frozen(data.Cities)
	}
	cities := buildCityIndex(data.Cities)
	cities.freeze()
	return cities
}

// templateIndex lets the Services of a process over stores holding one
// template's cities (the memory store's, new SQLite files': a test
// suite's many Apps) share one index instead of each building its own.
var templateIndex builtIndex

// builtIndex holds the last index it built, weakly: it goes with the
// last snapshot that holds it.
type builtIndex struct {
	mu  sync.Mutex
	idx weak.Pointer[cityIndex]
}

// frozen returns the index of cs, frozen: the last one b built when that
// holds the very cities of cs, in the same order, and is still held;
// else a new one.
func (b *builtIndex) frozen(cs []City) *cityIndex {
	b.mu.Lock()
	t := b.idx.Value()
	b.mu.Unlock()
	if t != nil && t.holds(cs) {
		return t
	}
	t = buildCityIndex(cs)
	t.freeze()
	b.mu.Lock()
	b.idx = weak.Make(t)
	b.mu.Unlock()
	return t
}

// holds reports whether t holds exactly cs, in the same order.
func (t *cityIndex) holds(cs []City) bool {
	if t.len() != len(cs) {
		return false
	}
	for i := range cs {
		if *t.rec(int32(i)) != cs[i] {
			return false
		}
	}
	return true
}

// publish makes sn the snapshot held unless the one held is more recent
// and of the same history (one found invalid is replaced whatever its
// revision), giving it the next version.
func (x *index) publish(sn *snapshot) {
	sn.version = x.versions.Add(1)
	for {
		old := x.snap.Load()
		if old != nil && old.rev > sn.rev && x.invalid.Load() != old {
			return
		}
		if x.snap.CompareAndSwap(old, sn) {
			return
		}
	}
}

// buildCityIndex returns the index of cs, their upserts prepared (folded
// and split into words, most of the work) on every core while the
// prepared ones are indexed.
func buildCityIndex(cs []City) *cityIndex {
	t := newCityIndexSized(len(cs))
	const chunk = 8192
	workers := max(1, runtime.GOMAXPROCS(0)-1)
	n := (len(cs) + chunk - 1) / chunk
	ready := make([]chan []prepared, n)
	for i := range ready {
		ready[i] = make(chan []prepared, 1)
	}
	next := atomic.Int64{}
	for range min(workers, n) {
		go func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				ready[i] <- prepareAll(cs[i*chunk : min((i+1)*chunk, len(cs))])
			}
		}()
	}
	for i := range ready {
		ps := <-ready[i]
		for j, c := range cs[i*chunk : min((i+1)*chunk, len(cs))] {
			t.upsert(c, ps[j])
		}
	}
	t.finishBatch()
	return t
}

// close stops builds: a running one is cancelled and waited for, and the
// snapshot is dropped.
func (x *index) close() {
	x.mu.Lock()
	x.closed = true
	b := x.building
	x.mu.Unlock()
	x.end()
	if b != nil {
		<-b.done
	}
	x.checks.Wait()
	x.snap.Store(nil)
}
