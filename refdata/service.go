package refdata

import (
	"context"
	"strings"
)

// Service answers the reference-data list queries and imports cities. It
// is safe for concurrent use.
type Service struct {
	store Store
}

// NewService returns a Service on store.
func NewService(store Store) *Service {
	return &Service{store: store}
}

// ListCurrencies returns the page of currencies that q selects. The currency
// whose code is q.DefaultCurrency (the brand's) has IsDefault set. It fails
// with KindInvalid, one field error per bad parameter, when q is invalid, and
// with the store's error otherwise.
func (s *Service) ListCurrencies(ctx context.Context, q CurrencyQuery) (Page[Currency], error) {
	f, err := q.Filter()
	if err != nil {
		return Page[Currency]{}, err
	}
	if f.Nothing {
		return newPage[Currency](nil, 0, f.Page), nil
	}
	items, total, err := s.store.ListCurrencies(ctx, f)
	if err != nil {
		return Page[Currency]{}, err
	}
	for i := range items {
		items[i].IsDefault = strings.EqualFold(items[i].Code, q.DefaultCurrency)
	}
	return newPage(items, total, f.Page), nil
}

// ListCountries returns the page of countries that q selects. It fails with
// KindInvalid, one field error per bad parameter, when q is invalid, and with
// the store's error otherwise.
func (s *Service) ListCountries(ctx context.Context, q CountryQuery) (Page[Country], error) {
	f, err := q.Filter()
	if err != nil {
		return Page[Country]{}, err
	}
	if f.Nothing {
		return newPage[Country](nil, 0, f.Page), nil
	}
	items, total, err := s.store.ListCountries(ctx, f)
	if err != nil {
		return Page[Country]{}, err
	}
	return newPage(items, total, f.Page), nil
}

// ListCities returns the page of cities that q selects. It fails with
// KindInvalid, one field error per bad parameter, when q is invalid, and with
// the store's error otherwise.
func (s *Service) ListCities(ctx context.Context, q CityQuery) (Page[City], error) {
	f, err := q.Filter()
	if err != nil {
		return Page[City]{}, err
	}
	if f.Nothing {
		return newPage[City](nil, 0, f.Page), nil
	}
	items, total, err := s.store.ListCities(ctx, f)
	if err != nil {
		return Page[City]{}, err
	}
	return newPage(items, total, f.Page), nil
}

// Revision returns a number that changes whenever the reference data
// changes (an import), so that a caller may cache answers until it does. It
// fails with the store's error.
func (s *Service) Revision(ctx context.Context) (uint64, error) {
	return s.store.RefDataRevision(ctx)
}

func newPage[T any](items []T, total int, p Paging) Page[T] {
	if items == nil {
		items = []T{}
	}
	return Page[T]{Items: items, TotalItems: total, PageNumber: p.Number, PageSize: p.Size}
}
