package memory

import (
	"context"
	"sync"

	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/refdata/refindex"
)

// refData is the reference data of a Store. Currencies and countries are
// immutable tables replaced on write; cities are an index updated in place.
// The default dataset's tables and index are built once per process and
// shared by every Store until it writes (copy on write), so opening a
// Store costs next to nothing.
type refData struct {
	currencies *refdata.CurrencyTable
	countries  *refdata.CountryTable
	cities     *refindex.CityIndex
	dataset    string
	revision   uint64
}

var _ refindex.InMemory = (*Store)(nil)

// RefDataInMemory implements refindex.InMemory: a memory Store answers its
// lists from its own index and needs no snapshot in front of it.
func (s *Store) RefDataInMemory() bool { return true }

// defaultRefData is the embedded default dataset, built once.
var defaultRefData = sync.OnceValues(func() (refData, error) {
	currencies, err := refdata.DefaultCurrencies()
	if err != nil {
		return refData{}, err
	}
	countries, err := refdata.DefaultCountries()
	if err != nil {
		return refData{}, err
	}
	cities, err := refdata.DefaultCities()
	if err != nil {
		return refData{}, err
	}
	idx := refindex.Of(cities)
	idx.Freeze()
	return refData{
		currencies: refdata.NewCurrencyTable(currencies),
		countries:  refdata.NewCountryTable(countries),
		cities:     idx,
		dataset:    refdata.DatasetVersion,
		revision:   1,
	}, nil
})

// ListCurrencies implements refdata.Store.
func (s *Store) ListCurrencies(ctx context.Context, f refdata.CurrencyFilter) ([]refdata.Currency, int, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	s.mu.RLock()
	t := s.ref.currencies
	s.mu.RUnlock()
	items, total := t.List(f)
	return items, total, nil
}

// UpsertCurrencies implements refdata.Store.
func (s *Store) UpsertCurrencies(ctx context.Context, cs []refdata.Currency) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	all := s.ref.currencies.Records()
	for _, c := range cs {
		c.IsDefault = false
		all = append(all, c)
	}
	s.ref.currencies = refdata.NewCurrencyTable(all)
	s.ref.revision++
	return nil
}

// ListCountries implements refdata.Store.
func (s *Store) ListCountries(ctx context.Context, f refdata.CountryFilter) ([]refdata.Country, int, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	s.mu.RLock()
	t := s.ref.countries
	s.mu.RUnlock()
	items, total := t.List(f)
	return items, total, nil
}

// UpsertCountries implements refdata.Store.
func (s *Store) UpsertCountries(ctx context.Context, cs []refdata.Country) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ref.countries = refdata.NewCountryTable(append(s.ref.countries.Records(), cs...))
	s.ref.revision++
	return nil
}

// ListCities implements refdata.Store.
func (s *Store) ListCities(ctx context.Context, f refdata.CityFilter) ([]refdata.City, int, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	items, total := s.ref.cities.List(f)
	return items, total, nil
}

// UpsertCities implements refdata.Store.
func (s *Store) UpsertCities(ctx context.Context, cs []refdata.City) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ref.cities.Shared() {
		s.ref.cities = s.ref.cities.Clone()
	}
	added := 0
	for _, c := range cs {
		if s.ref.cities.Upsert(c) {
			added++
		}
	}
	s.ref.cities.FinishBatch()
	s.ref.revision++
	return added, nil
}

// DatasetVersion implements refdata.Store.
func (s *Store) DatasetVersion(ctx context.Context) (string, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.ref.dataset, ctx.Err()
}

// SetDatasetVersion implements refdata.Store.
func (s *Store) SetDatasetVersion(ctx context.Context, version string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ref.dataset = version
	return nil
}

// RefDataRevision implements refdata.Store.
func (s *Store) RefDataRevision(ctx context.Context) (uint64, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.ref.revision, ctx.Err()
}
