package refindex

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/refdata"
)

// InMemory is the optional capability of a refdata.Store whose lists are
// already answered from memory (storage/memory): Wrap returns such a store
// as it is.
type InMemory interface {
	// RefDataInMemory reports whether the store answers its reference-data
	// lists from memory.
	RefDataInMemory() bool
}

// Defaults of Options.
const (
	// DefaultRetryDelay is how long lists are answered by the wrapped store
	// after a failed build before the next build is tried.
	DefaultRetryDelay = time.Second
	// readPageSize is the page size of the reads that build a snapshot.
	readPageSize = 20_000
)

// ErrClosed is what Store.Ready returns once the Store is closed.
var ErrClosed = errors.New("refindex: closed: lists are answered by the store")

// ErrTooManyCities is what Store.Ready returns when the store holds more
// cities than Options.MaxCities: its lists are answered by the store.
var ErrTooManyCities = errors.New("refindex: more cities than MaxCities: lists are answered by the store")

// Options configure a Store. The zero value is usable.
type Options struct {
	// Wait makes a List call that finds no snapshot of the store's current
	// revision wait for it to be built (one build at a time; the other
	// callers wait for the same one). When false (the default), such a
	// call is answered by the wrapped store while the snapshot is built in
	// the background, so no call waits longer than the store takes.
	Wait bool
	// MaxCities bounds the memory a snapshot takes (about 320 bytes a city,
	// see docs/performance.md): a store holding more cities is not indexed and answers
	// its lists itself. 0 means no limit.
	MaxCities int
	// RetryDelay is how long after a failed build lists are answered by
	// the store before another build is tried; DefaultRetryDelay when 0.
	RetryDelay time.Duration
	// Clock is where the retry delay is measured; time.Now when nil.
	Clock func() time.Time
	// Logger receives build failures (at WARN); slog.Default() when nil.
	Logger *slog.Logger
}

// Store is a refdata.Store that answers ListCurrencies, ListCountries and
// ListCities from an in-process snapshot of the wrapped store's reference
// data, and sends every other call to the wrapped store, which stays the
// source of truth.
//
// A snapshot is labelled with the store's RefDataRevision when it was read;
// every List call reads the revision (cheap on the stores of this module:
// cached in-process) and uses the snapshot only when the labels agree, so a
// List call sees every write that returned before it, on this instance at
// once and on any other as soon as the store's revision shows it (within
// 1 s on SQLite and PostgreSQL). A write through this Store (Upsert*)
// patches the snapshot or drops it before it returns (see write). When the
// snapshot is missing or stale, one build patches the stale one with the
// cities changed since (CityChanges), or reads the whole reference data
// through the store's own List methods (pages in the order of storage,
// between two reads of the revision that must agree) and indexes it;
// meanwhile calls are answered by the store (or wait, with Options.Wait).
// At most one snapshot is held (current, or stale and kept for the next
// build to patch), plus the one being built.
type Store struct {
	refdata.Store
	opts Options

	snap    atomic.Pointer[snapshot]
	gen     atomic.Uint64 // writes through this Store
	builds  atomic.Uint64 // snapshots built (Builds)
	patches atomic.Uint64 // snapshots patched from the store's changes (Patches)

	writeMu sync.Mutex // serialises writes, so that each patch starts from the last

	mu       sync.Mutex
	building *build                   // the running build, or nil
	stale    atomic.Pointer[snapshot] // what startBuild left the build to patch
	closed   bool                     // set by Close: no build starts again

	life context.Context // ended by Close, which ends a running build
	end  context.CancelFunc
}

// snapshot is the reference data of one revision of the store, or the
// reason there is none for it.
type snapshot struct {
	rev, gen   uint64
	currencies *refdata.CurrencyTable
	countries  *refdata.CountryTable
	cities     *CityIndex // nil: lists go to the store
	failedAt   time.Time  // when cities is nil: the build failed then (zero: too many cities)
	// read is set by the first list it answers: a write patches only a
	// snapshot that lists read, so that an import nobody lists meanwhile
	// costs one build after it, not a patch a batch.
	read atomic.Bool
}

// build is one build of a snapshot.
type build struct {
	done chan struct{}
	err  error
}

var _ refdata.Store = (*Store)(nil)

// Wrap returns store with its lists answered from an in-process snapshot
// (a *Store), or store itself when it already answers them from memory
// (InMemory, as a *Store does).
func Wrap(store refdata.Store, opts Options) refdata.Store {
	if m, ok := store.(InMemory); ok && m.RefDataInMemory() {
		return store
	}
	return New(store, opts)
}

// New returns a Store in front of store. Nothing is read until the first
// List call (or Ready).
func New(store refdata.Store, opts Options) *Store {
	if opts.RetryDelay <= 0 {
		opts.RetryDelay = DefaultRetryDelay
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	life, end := context.WithCancel(context.Background())
	return &Store{Store: store, opts: opts, life: life, end: end}
}

// Close stops s building snapshots: a running build is cancelled and
// waited for, the snapshot is dropped, and from then on every call goes to
// the wrapped store, which Close does not close. Close it before the
// store, so that no build reads a closed store. It returns nil, and may be
// called more than once.
func (s *Store) Close() error {
	s.writeMu.Lock() // a write under way publishes its patch first
	defer s.writeMu.Unlock()
	s.mu.Lock()
	s.closed = true
	b := s.building
	s.mu.Unlock()
	s.end()
	if b != nil {
		<-b.done
	}
	s.snap.Store(nil)
	s.stale.Store(nil)
	return nil
}

// Builds returns the number of snapshots s has built by reading the whole
// store (at start, and after writes it could not patch): an operator's
// measure of what the index costs. Writes through s that patched the
// snapshot are not counted.
func (s *Store) Builds() uint64 { return s.builds.Load() }

// Patches returns the number of snapshots s has patched with the cities
// another instance's writes changed (CityChanges), rather than built.
func (s *Store) Patches() uint64 { return s.patches.Load() }

// RefDataInMemory implements InMemory: a Store answers lists from memory.
func (s *Store) RefDataInMemory() bool { return true }

// ListCurrencies implements refdata.Store: from the snapshot, or the
// wrapped store's answer and error when there is none.
func (s *Store) ListCurrencies(ctx context.Context, f refdata.CurrencyFilter) ([]refdata.Currency, int, error) {
	return list(ctx, s, f, s.Store.ListCurrencies, func(sn *snapshot) ([]refdata.Currency, int) { return sn.currencies.List(f) })
}

// ListCountries implements refdata.Store: from the snapshot, or the
// wrapped store's answer and error when there is none.
func (s *Store) ListCountries(ctx context.Context, f refdata.CountryFilter) ([]refdata.Country, int, error) {
	return list(ctx, s, f, s.Store.ListCountries, func(sn *snapshot) ([]refdata.Country, int) { return sn.countries.List(f) })
}

// ListCities implements refdata.Store: from the snapshot, or the wrapped
// store's answer and error when there is none.
func (s *Store) ListCities(ctx context.Context, f refdata.CityFilter) ([]refdata.City, int, error) {
	return list(ctx, s, f, s.Store.ListCities, func(sn *snapshot) ([]refdata.City, int) { return sn.cities.List(f) })
}

// list answers a list call from the current snapshot, or by the store's
// method when there is none (or the revision cannot be read: the store
// then fails as it does). When the revision cannot be read because the
// store is unavailable (envelope.IsUnavailable), it answers from the
// snapshot it holds, if any (see held). It fails with ctx.Err() when ctx
// has ended.
func list[F, T any](ctx context.Context, s *Store, f F, store func(context.Context, F) ([]T, int, error),
	fromSnapshot func(*snapshot) ([]T, int)) ([]T, int, error) {
	snap, err := s.current(ctx, s.opts.Wait)
	if err != nil && envelope.IsUnavailable(err) && ctx.Err() == nil {
		if held := s.held(); held != nil {
			snap, err = held, nil
		}
	}
	if err != nil || snap == nil {
		return store(ctx, f)
	}
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	if !snap.read.Load() {
		snap.read.Store(true)
	}
	items, total := fromSnapshot(snap)
	return items, total, nil
}

// held returns the snapshot s holds, current or not, for lists to answer
// from while the store is unavailable: the last revision s saw (or, when a
// write or a newer revision made s drop it and no build replaced it yet,
// the one kept for the next build to patch); nil when s holds none with
// cities (never built, too many cities, closed). Such an answer is as
// stale as that revision: it misses what was written after s last read
// the store's revision.
func (s *Store) held() *snapshot {
	for _, p := range []*atomic.Pointer[snapshot]{&s.snap, &s.stale} {
		if snap := p.Load(); snap != nil && snap.cities != nil {
			return snap
		}
	}
	return nil
}

// UpsertCurrencies implements refdata.Store: the wrapped store's, then the
// snapshot is patched (its currencies read again) or dropped (see write).
func (s *Store) UpsertCurrencies(ctx context.Context, cs []refdata.Currency) error {
	return s.write(ctx, func() error { return s.Store.UpsertCurrencies(ctx, cs) }, s.patchTables)
}

// UpsertCountries implements refdata.Store: the wrapped store's, then the
// snapshot is patched (its countries read again) or dropped (see write).
func (s *Store) UpsertCountries(ctx context.Context, cs []refdata.Country) error {
	return s.write(ctx, func() error { return s.Store.UpsertCountries(ctx, cs) }, s.patchTables)
}

// UpsertCities implements refdata.Store: the wrapped store's, then the
// snapshot is patched (cs upserted into a copy of its index, as the memory
// store upserts them) or dropped (see write).
func (s *Store) UpsertCities(ctx context.Context, cs []refdata.City) (int, error) {
	var added int
	err := s.write(ctx, func() error {
		var err error
		added, err = s.Store.UpsertCities(ctx, cs)
		return err
	}, func(_ context.Context, old *snapshot) (*snapshot, error) {
		cities, ok := s.patchCities(old.cities, cs)
		if !ok {
			return nil, ErrTooManyCities
		}
		return &snapshot{currencies: old.currencies, countries: old.countries, cities: cities}, nil
	})
	return added, err
}

// write runs a write of the wrapped store, one at a time. When it
// succeeds on the current snapshot, lists have read that snapshot, and
// the store's revision then shows that write and no other, patch makes the
// snapshot of the new revision from the old one, and it is published
// before write returns: an import that is listed meanwhile does not cost a
// rebuild per batch. In every other case (a failure, a write of another
// instance before or after it, no snapshot, or one nobody listed since
// the last write) the snapshot is dropped, as every write drops it first,
// and the next List call starts a build.
//
// The index adopts a revision only when it holds every change up to it.
// Every write that returns nil advances the store's revision by exactly
// one in its own transaction, also one that changes nothing (the contract
// of refdata.Store.RefDataRevision, which storage/storagetest checks), and
// this store's own write is seen by its next RefDataRevision. So the
// revision read after the write is one above the snapshot's exactly when
// no other write committed between the snapshot's revision and that read:
// the snapshot patched with this write is then the store's data at that
// revision. Any other reading (another instance's write before or after
// this one) drops the snapshot; the next build reads the changes since
// the snapshot's revision from the store (patchFromStore).
func (s *Store) write(ctx context.Context, write func() error, patch func(context.Context, *snapshot) (*snapshot, error)) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	if s.life.Err() != nil { // closed: the store alone answers
		return write()
	}
	old := s.snap.Load()
	current := old != nil && old.cities != nil && old.gen == s.gen.Load()
	patched := false
	defer func() {
		if current && !patched {
			s.stale.CompareAndSwap(nil, old) // the next build may patch it (patchFromStore)
		}
	}()
	if err := write(); err != nil {
		s.invalidate()
		return err
	}
	s.invalidate()
	if !current {
		return nil
	}
	rev, err := s.Store.RefDataRevision(ctx)
	if err != nil || rev != old.rev+1 || !old.read.Load() {
		return nil
	}
	next, err := patch(ctx, old)
	if err != nil {
		return nil // the next List call builds, and meets the error itself
	}
	if after, err := s.Store.RefDataRevision(ctx); err != nil || after != rev {
		return nil
	}
	// A new generation ends a build that a List call started since the
	// write: this snapshot is what it would publish.
	next.rev, next.gen = rev, s.gen.Add(1)
	s.snap.Store(next)
	patched = true
	return nil
}

// patchCities returns a frozen copy of the frozen index base with cs
// upserted, as the memory store upserts them; false when it would hold
// more than Options.MaxCities.
func (s *Store) patchCities(base *CityIndex, cs []refdata.City) (*CityIndex, bool) {
	cities := base.Clone()
	cities.upsertAll(cs)
	if s.opts.MaxCities > 0 && cities.Len() > s.opts.MaxCities {
		return nil, false
	}
	cities.Freeze()
	return cities, true
}

// patchTables returns old with its currencies and countries read again
// from the store; its city index is shared.
func (s *Store) patchTables(ctx context.Context, old *snapshot) (*snapshot, error) {
	currencies, countries, err := s.readTables(ctx)
	if err != nil {
		return nil, err
	}
	return &snapshot{currencies: currencies, countries: countries, cities: old.cities}, nil
}

// invalidate makes every snapshot read before it unusable, and drops the
// current one.
func (s *Store) invalidate() {
	s.gen.Add(1)
	s.snap.Store(nil)
}

// Ready returns once a snapshot of the store's current reference data is
// built, building it if needed: a host calls it at startup to have fast
// lists from the first request. It fails with ErrTooManyCities when the
// store holds more than Options.MaxCities, with the store's error when a
// build fails, and with ctx.Err() when ctx ends first.
func (s *Store) Ready(ctx context.Context) error {
	for {
		rev, err := s.Store.RefDataRevision(ctx)
		if err != nil {
			return err
		}
		gen := s.gen.Load()
		snap := s.snap.Load()
		if snap != nil {
			if snap.rev == rev && snap.gen == gen && snap.failedAt.IsZero() {
				if snap.cities == nil {
					return ErrTooManyCities
				}
				return nil
			}
			s.snap.CompareAndSwap(snap, nil) // stale: the build patches it, or frees it first
		}
		b := s.startBuild(ctx, rev, gen, snap)
		select {
		case <-b.done:
		case <-ctx.Done():
			return ctx.Err()
		}
		if b.err != nil {
			return b.err
		}
	}
}

// Warm reports whether lists are answered from a snapshot of the store's
// current revision now, without waiting: when they are not, it starts the
// build a List call would start and reports false. It fails with
// ErrTooManyCities when the store holds more cities than
// Options.MaxCities (lists are answered by the store for good), with
// ErrClosed after Close, and with the store's error when its revision
// cannot be read. For readiness probes: it costs what a List call's
// check of the revision costs.
func (s *Store) Warm(ctx context.Context) (bool, error) {
	if s.life.Err() != nil {
		return false, ErrClosed
	}
	snap, err := s.current(ctx, false)
	switch {
	case err != nil:
		return false, err
	case snap != nil:
		return true, nil
	}
	if sn := s.snap.Load(); sn != nil && sn.cities == nil && sn.failedAt.IsZero() {
		return false, ErrTooManyCities
	}
	return false, nil
}

// current returns the snapshot of the store's current revision, or nil
// when the store must answer (none yet: a build is started, and waited
// for when wait is set; too many cities; a recent failure). It fails when
// the revision cannot be read.
func (s *Store) current(ctx context.Context, wait bool) (*snapshot, error) {
	rev, err := s.Store.RefDataRevision(ctx)
	if err != nil {
		return nil, err
	}
	gen := s.gen.Load()
	snap := s.snap.Load()
	if snap != nil {
		if snap.rev == rev && snap.gen == gen {
			switch {
			case snap.cities != nil:
				return snap, nil
			case snap.failedAt.IsZero() || s.opts.Clock().Sub(snap.failedAt) < s.opts.RetryDelay:
				return nil, nil
			}
		}
		s.snap.CompareAndSwap(snap, nil) // stale: the build patches it, or frees it first
	}
	b := s.startBuild(ctx, rev, gen, snap)
	if !wait {
		return nil, nil
	}
	select {
	case <-b.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if snap := s.snap.Load(); snap != nil && snap.rev == rev && snap.gen == gen && snap.cities != nil {
		return snap, nil
	}
	return nil, nil
}

// startBuild starts a build unless one is running, and returns the running
// one; after Close, a build that is already done with ErrClosed. rev and
// gen label the failure of a build that cannot read the revision itself;
// stale, when not nil, is the snapshot the build may patch (see
// patchFromStore).
func (s *Store) startBuild(ctx context.Context, rev, gen uint64, stale *snapshot) *build {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.building != nil {
		return s.building
	}
	b := &build{done: make(chan struct{})}
	if s.closed {
		b.err = ErrClosed
		close(b.done)
		return b
	}
	s.building = b
	if stale != nil && stale.cities != nil {
		s.stale.Store(stale)
	}
	go func() {
		defer func() {
			s.mu.Lock()
			s.building = nil
			s.mu.Unlock()
			close(b.done)
		}()
		// The build outlives the call that started it and keeps its
		// values; it ends with s (Close).
		bctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		defer cancel()
		defer context.AfterFunc(s.life, cancel)()
		b.err = s.build(bctx)
		if b.err != nil && s.life.Err() != nil {
			b.err = ErrClosed // cancelled by Close: not a failure to report
			return
		}
		if b.err != nil {
			s.opts.Logger.Warn("refindex: building the reference-data snapshot failed; lists are answered by the store",
				"err", b.err)
			s.snap.CompareAndSwap(nil, &snapshot{rev: rev, gen: gen, failedAt: s.opts.Clock()})
		}
	}()
	return b
}

// build reads the store's reference data between two reads of its
// revision and publishes the snapshot, unless the revision or the writes
// through s changed meanwhile. When startBuild left it a stale snapshot
// that the store can tell the changes since, it patches that instead
// (patchFromStore).
func (s *Store) build(ctx context.Context) error {
	stale := s.stale.Swap(nil)
	gen := s.gen.Load()
	rev, err := s.Store.RefDataRevision(ctx)
	if err != nil {
		return err
	}
	if s.patchFromStore(ctx, stale, rev, gen) {
		return nil
	}
	currencies, countries, err := s.readTables(ctx)
	if err != nil {
		return err
	}
	// Cities are read, prepared and indexed page by page, in three
	// goroutines; a write meanwhile, through s or another instance, ends the build (it
	// would be discarded), so an import elsewhere costs a page a batch.
	var cities *CityIndex
	type batch struct {
		cities []refdata.City
		ready  []prepared
	}
	pages, batches, indexed := make(chan []refdata.City, 1), make(chan batch, 1), make(chan struct{})
	go func() { // prepares a page while the last is indexed
		defer close(batches)
		for page := range pages {
			batches <- batch{page, prepareAll(page)}
		}
	}()
	go func() {
		defer close(indexed)
		for b := range batches {
			cities.upsertPrepared(b.cities, b.ready)
		}
	}()
	err = readAll(s.opts.MaxCities, func(p refdata.Paging) ([]refdata.City, int, error) {
		if s.superseded(ctx, rev, gen) {
			return nil, 0, errSuperseded
		}
		return s.Store.ListCities(ctx, refdata.CityFilter{Sort: refdata.FieldID, Page: p})
	}, func(page []refdata.City, total int) {
		if cities == nil {
			cities = newCityIndexSized(total)
		}
		pages <- page
	})
	close(pages)
	<-indexed
	tooMany := errors.Is(err, ErrTooManyCities)
	switch {
	case errors.Is(err, errSuperseded):
		return nil // not a failure: the next List call starts another build
	case err != nil && !tooMany:
		return fmt.Errorf("refindex: reading cities: %w", err)
	}
	after, err := s.Store.RefDataRevision(ctx)
	if err != nil {
		return err
	}
	if after != rev || s.gen.Load() != gen {
		return nil // not a failure: the next List call starts another build
	}
	snap := &snapshot{rev: rev, gen: gen}
	if !tooMany {
		cities.Freeze() // a write through s patches a copy (Clone)
		snap.currencies, snap.countries, snap.cities = currencies, countries, cities
	}
	s.snap.Store(snap)
	s.builds.Add(1)
	return nil
}

// CityChanges is the optional capability of a refdata.Store that tells
// which cities the writes after a revision inserted or changed (the SQL
// stores of this module have it): a Store then patches a snapshot that
// another instance's write made stale with those cities alone, instead of
// reading every city again.
type CityChanges interface {
	// CitiesChangedSince returns the cities that a write after revision
	// rev inserted or changed, in the order of storage (insertion), the
	// page p of them, and how many there are.
	CitiesChangedSince(ctx context.Context, rev uint64, p refdata.Paging) ([]refdata.City, int, error)
}

// patchFromStore publishes the snapshot of revision rev made from stale
// and the cities changed since stale's revision (CityChanges), and
// reports whether it did, or found the patch superseded by a write: a
// build is then not needed. It does nothing, and reports false, when the
// store cannot tell the changes, stale is missing or not older than rev,
// the changes are more than a quarter of the cities (reading them all
// costs less), or a read fails. The changes since stale's revision are
// every write's, through s or not.
func (s *Store) patchFromStore(ctx context.Context, stale *snapshot, rev, gen uint64) bool {
	changes, ok := s.Store.(CityChanges)
	if !ok || stale == nil || stale.cities == nil || stale.rev >= rev {
		return false
	}
	var changed []refdata.City
	err := readAll(stale.cities.Len()/4+1, func(p refdata.Paging) ([]refdata.City, int, error) {
		if s.superseded(ctx, rev, gen) {
			return nil, 0, errSuperseded
		}
		return changes.CitiesChangedSince(ctx, stale.rev, p)
	}, func(page []refdata.City, _ int) { changed = append(changed, page...) })
	switch {
	case errors.Is(err, errSuperseded):
		return true
	case err != nil:
		return false
	}
	currencies, countries, err := s.readTables(ctx)
	if err != nil {
		return false
	}
	cities, ok := s.patchCities(stale.cities, changed)
	if !ok {
		return false
	}
	if s.superseded(ctx, rev, gen) {
		return true
	}
	s.snap.Store(&snapshot{rev: rev, gen: gen, currencies: currencies, countries: countries, cities: cities})
	s.patches.Add(1)
	return true
}

// errSuperseded ends a build that a write made useless.
var errSuperseded = errors.New("refindex: superseded by a write")

// superseded reports whether a write through s, or a change of the
// store's revision (cheap to read: cached), came since a build read rev
// and gen.
func (s *Store) superseded(ctx context.Context, rev, gen uint64) bool {
	if s.gen.Load() != gen {
		return true
	}
	now, err := s.Store.RefDataRevision(ctx)
	return err == nil && now != rev
}

// readTables reads the store's currencies and countries, in their order
// of storage.
func (s *Store) readTables(ctx context.Context) (*refdata.CurrencyTable, *refdata.CountryTable, error) {
	var currencies []refdata.Currency
	err := readAll(0, func(p refdata.Paging) ([]refdata.Currency, int, error) {
		return s.Store.ListCurrencies(ctx, refdata.CurrencyFilter{Sort: refdata.FieldCreatedDate, Page: p})
	}, func(page []refdata.Currency, _ int) { currencies = append(currencies, page...) })
	if err != nil {
		return nil, nil, fmt.Errorf("refindex: reading currencies: %w", err)
	}
	var countries []refdata.Country
	err = readAll(0, func(p refdata.Paging) ([]refdata.Country, int, error) {
		return s.Store.ListCountries(ctx, refdata.CountryFilter{Sort: refdata.FieldCreatedDate, Page: p})
	}, func(page []refdata.Country, _ int) { countries = append(countries, page...) })
	if err != nil {
		return nil, nil, fmt.Errorf("refindex: reading countries: %w", err)
	}
	return refdata.NewCurrencyTable(currencies), refdata.NewCountryTable(countries), nil
}

// readAll reads every record of a list, page by page in a stable order
// (currencies and countries in their order of storage, which their tables
// keep; cities in insertion order), and
// gives each page to add with the number of records of the list. It fails with the store's error, with
// ErrTooManyCities when the list holds more than limit records (0: no
// limit), and when a page is short of the records the total promises.
func readAll[T any](limit int, list func(refdata.Paging) ([]T, int, error), add func(page []T, total int)) error {
	read := 0
	for n := 0; ; n++ {
		items, total, err := list(refdata.Paging{Number: n, Size: readPageSize})
		if err != nil {
			return err
		}
		if limit > 0 && total > limit {
			return ErrTooManyCities
		}
		add(items, total)
		read += len(items)
		if read >= total {
			return nil
		}
		if len(items) != readPageSize {
			return fmt.Errorf("refindex: a page of %d records where %d were asked: the store changed or clamps pages", len(items), readPageSize)
		}
	}
}
