package refdata

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/brandbase/brandbase/internal/telemetry"
)

// Service answers the reference-data list queries and imports cities. It
// is safe for concurrent use.
//
// Every list is answered in process from a snapshot of the store's
// reference data (filtering, sorting and paging are the same for every
// store). The snapshot is read whole at the first list (or Ready), in one
// transaction of the store. A list never waits on the store for a
// snapshot it holds: checks run beside the lists (from the first list
// until Close, or until the Service is garbage), each read bounded: the
// store's revision every 100 ms (every 500 ms after 30 s without a list),
// its generation and revision uncached once a second; a list uses what they last learned. A write through this
// store since the snapshot makes the list wait for the snapshot to be
// patched with the cities changed since (Store.RefDataChangesSince), so
// that an answer is never older than the last write that returned;
// another instance's writes are patched in the background, at most once a
// second, while lists answer from the snapshot held. A snapshot of
// another history (a restore, a failover) is read whole again, and lists
// wait for it. While the store is unavailable, lists are answered from
// the snapshot held, if any; a failed read is retried after a backoff
// (100 ms, doubling to 5 s). The snapshot takes about 400 bytes a city
// (see docs/performance.md).
type Service struct {
	store   Store
	ix      *index
	tel     telemetryOptions
	stopLag func() // unregisters the lag gauge
}

// Option configures a Service (NewService).
type Option func(*Service)

// WithLogger sends the failures of the snapshot's reads (at WARN) to l;
// slog.Default() when l is nil or the option is not given.
func WithLogger(l *slog.Logger) Option {
	return func(s *Service) {
		if l != nil {
			s.ix.logger = l
		}
	}
}

// NewService returns a Service on store. Nothing is read until the first
// list (or Ready).
func NewService(store Store, opts ...Option) *Service {
	s := &Service{store: store, ix: newIndex(store, nil)}
	for _, o := range opts {
		o(s)
	}
	s.ix.rec = telemetry.NewRefData(s.tel.mp, s.tel.tp, time.Now())
	s.stopLag = s.ix.rec.ObserveLag(s.ix.lag)
	return s
}

// WithMeterProvider records the Service's metrics with mp: snapshots
// built and patched, the time to the first snapshot, the lists answered
// from a current snapshot or the one held during an outage, and the
// revisions the snapshot is behind the store (observed at each
// collection, with a read of the store's revision). Nil records nothing.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(s *Service) { s.tel.mp = mp }
}

// WithTracerProvider records a span per snapshot built ("refdata.build")
// or patched ("refdata.patch") with tp, a child of the request whose list
// started it. Nil records nothing.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(s *Service) { s.tel.tp = tp }
}

// telemetryOptions are the providers the options set.
type telemetryOptions struct {
	mp metric.MeterProvider
	tp trace.TracerProvider
}

// Ready returns once the snapshot of the store's current reference data
// is held, reading it if needed: a host calls it at startup so that the
// first list does not wait. It fails with the store's error when the read
// fails, with ctx.Err() when ctx ends first, and with an unavailable
// error (envelope.IsUnavailable) after Close.
func (s *Service) Ready(ctx context.Context) error {
	_, err := s.ix.current(ctx)
	return err
}

// Warm reports whether lists are answered now without waiting (a
// snapshot is held that holds this store's last write and is of the
// store's history); when they are not, it starts the read a list would
// start and reports false. It fails after
// Close, and with the store's error when its revision cannot be read. For
// readiness probes: it costs one read of the store's revision (cached by
// the stores), which, unlike a list, it waits for.
func (s *Service) Warm(ctx context.Context) (bool, error) { return s.ix.warm(ctx) }

// Builds returns the number of snapshots read whole from the store (at
// start, and after changes too many to patch): an operator's measure of
// what the snapshot costs.
func (s *Service) Builds() uint64 { return s.ix.builds.Load() }

// Patches returns the number of snapshots patched with the cities changed
// since their revision (writes through this Service or elsewhere).
func (s *Service) Patches() uint64 { return s.ix.patches.Load() }

// Close stops the Service reading the store: a running read and the
// checks are cancelled and waited for, the snapshot is dropped, and lists
// then fail with an unavailable error (503). Close it before the store.
// It may be called more than once.
func (s *Service) Close() {
	s.stopLag()
	s.ix.close()
}

// ListCurrencies returns the page of currencies that q selects. The currency
// whose code is q.DefaultCurrency (the brand's) has IsDefault set. It fails
// with KindInvalid, one field error per bad parameter, when q is invalid, and
// with the store's error otherwise.
func (s *Service) ListCurrencies(ctx context.Context, q CurrencyQuery) (Page[Currency], error) {
	f, err := q.filter()
	if err != nil {
		return Page[Currency]{}, err
	}
	sn, err := s.snapshot(ctx, f.Nothing)
	if err != nil || sn == nil {
		return newPage[Currency](nil, 0, f.Page), err
	}
	items, total := sn.currencies.list(f)
	for i := range items {
		items[i].IsDefault = strings.EqualFold(items[i].Code, q.DefaultCurrency)
	}
	return newPage(items, total, f.Page), nil
}

// ListCountries returns the page of countries that q selects. It fails with
// KindInvalid, one field error per bad parameter, when q is invalid, and with
// the store's error otherwise.
func (s *Service) ListCountries(ctx context.Context, q CountryQuery) (Page[Country], error) {
	f, err := q.filter()
	if err != nil {
		return Page[Country]{}, err
	}
	sn, err := s.snapshot(ctx, f.Nothing)
	if err != nil || sn == nil {
		return newPage[Country](nil, 0, f.Page), err
	}
	items, total := sn.countries.list(f)
	return newPage(items, total, f.Page), nil
}

// ListCities returns the page of cities that q selects. It fails with
// KindInvalid, one field error per bad parameter, when q is invalid, and with
// the store's error otherwise.
func (s *Service) ListCities(ctx context.Context, q CityQuery) (Page[City], error) {
	f, err := q.filter()
	if err != nil {
		return Page[City]{}, err
	}
	sn, err := s.snapshot(ctx, f.Nothing)
	if err != nil || sn == nil {
		return newPage[City](nil, 0, f.Page), err
	}
	items, total := sn.cities.list(f)
	return newPage(items, total, f.Page), nil
}

// snapshot returns the snapshot a list answers from, or nil (and no error)
// when nothing can match.
func (s *Service) snapshot(ctx context.Context, nothing bool) (*snapshot, error) {
	if nothing {
		return nil, nil
	}
	sn, held, err := s.ix.currentOrHeld(ctx)
	if err == nil {
		s.ix.rec.Listed(ctx, held)
	}
	return sn, err
}

// Revision returns a number that changes whenever the reference data
// changes (an import), so that a caller may cache answers until it does. It
// fails with ctx's error once ctx is done (even where the store caches its
// revision), and with the store's error.
func (s *Service) Revision(ctx context.Context) (uint64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return s.store.RefDataRevision(ctx)
}

func newPage[T any](items []T, total int, p Paging) Page[T] {
	if items == nil {
		items = []T{}
	}
	return Page[T]{Items: items, TotalItems: total, PageNumber: p.Number, PageSize: p.Size}
}
