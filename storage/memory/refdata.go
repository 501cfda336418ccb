package memory

import (
	"context"
	"maps"
	"slices"
	"sync"

	"github.com/brandbase/brandbase/internal/refrows"
	"github.com/brandbase/brandbase/refdata"
)

// refData is the reference data of a Store: rows in their order of
// storage, the place of each by its key, and the revision of the write
// that last inserted or changed each city. The default dataset's is built
// once per process and shared by every Store until it writes (copy on
// write: see own), so opening a Store costs next to nothing.
type refData struct {
	currencies []refdata.Currency
	currencyAt map[string]int // by ID
	countries  []refdata.Country
	countryAt  map[string]int // by ID
	cities     []refdata.City
	cityRev    []uint64       // the revision that last wrote cities[i]
	cityAt     map[string]int // by natural key (refrows.CityKey)
	dataset    string
	revision   uint64
	shared     bool // the default dataset's: copied before a write
}

// defaultRefData is the embedded default dataset, stored once.
var defaultRefData = sync.OnceValues(func() (refData, error) {
	r := refData{currencyAt: map[string]int{}, countryAt: map[string]int{}, cityAt: map[string]int{},
		dataset: refdata.DatasetVersion}
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
	r.upsertCurrencies(currencies)
	r.upsertCountries(countries)
	r.upsertCities(cities) // at revision 1, as one write
	r.revision, r.shared = 1, true
	return r, nil
})

// own makes r a private copy before a write, when it is shared.
func (r *refData) own() {
	if !r.shared {
		return
	}
	r.currencies, r.currencyAt = slices.Clone(r.currencies), maps.Clone(r.currencyAt)
	r.countries, r.countryAt = slices.Clone(r.countries), maps.Clone(r.countryAt)
	r.cities, r.cityRev, r.cityAt = slices.Clone(r.cities), slices.Clone(r.cityRev), maps.Clone(r.cityAt)
	r.shared = false
}

// upsert stores rec under id: in its place when id is stored, else at the
// end of recs.
func upsert[T any](recs []T, at map[string]int, id string, rec T) []T {
	if i, ok := at[id]; ok {
		recs[i] = rec
		return recs
	}
	at[id] = len(recs)
	return append(recs, rec)
}

func (r *refData) upsertCurrencies(cs []refdata.Currency) {
	for _, c := range cs {
		c.IsDefault = false
		r.currencies = upsert(r.currencies, r.currencyAt, c.ID, c)
	}
}

func (r *refData) upsertCountries(cs []refdata.Country) {
	for _, c := range cs {
		r.countries = upsert(r.countries, r.countryAt, c.ID, c)
	}
}

// upsertCities upserts cs as refdata.Store.UpsertCities says, at the
// revision the write bumps to, and returns how many were added.
func (r *refData) upsertCities(cs []refdata.City) int {
	rev, added := r.revision+1, 0
	for _, c := range cs {
		k := refrows.CityKey(c.CountryCode, c.StateCode, c.Name)
		i, ok := r.cityAt[k]
		if !ok {
			r.cityAt[k] = len(r.cities)
			r.cities = append(r.cities, c)
			r.cityRev = append(r.cityRev, rev)
			added++
			continue
		}
		old := r.cities[i]
		c.Tags = refrows.MergeTags(old.Tags, c.Tags)
		if c != old {
			r.cities[i], r.cityRev[i] = c, rev
		}
	}
	return added
}

// ReadRefData implements refdata.Store: copies of the rows, under the
// store's lock.
func (s *Store) ReadRefData(ctx context.Context) (refdata.RefData, error) {
	if err := ctx.Err(); err != nil {
		return refdata.RefData{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return refdata.RefData{Currencies: slices.Clone(s.ref.currencies), Countries: slices.Clone(s.ref.countries),
		Cities: slices.Clone(s.ref.cities), Revision: s.ref.revision}, nil
}

// RefDataChangesSince implements refdata.Store.
func (s *Store) RefDataChangesSince(ctx context.Context, rev uint64) (refdata.RefData, error) {
	if err := ctx.Err(); err != nil {
		return refdata.RefData{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := refdata.RefData{Currencies: slices.Clone(s.ref.currencies), Countries: slices.Clone(s.ref.countries),
		Cities: []refdata.City{}, Revision: s.ref.revision}
	for i, r := range s.ref.cityRev {
		if r > rev {
			out.Cities = append(out.Cities, s.ref.cities[i])
		}
	}
	return out, nil
}

// write runs fn on the store's reference data under its lock, and bumps
// the revision.
func (s *Store) writeRefData(ctx context.Context, fn func(r *refData)) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ref.own()
	fn(&s.ref)
	s.ref.revision++
	return nil
}

// UpsertCurrencies implements refdata.Store.
func (s *Store) UpsertCurrencies(ctx context.Context, cs []refdata.Currency) error {
	return s.writeRefData(ctx, func(r *refData) { r.upsertCurrencies(cs) })
}

// UpsertCountries implements refdata.Store.
func (s *Store) UpsertCountries(ctx context.Context, cs []refdata.Country) error {
	return s.writeRefData(ctx, func(r *refData) { r.upsertCountries(cs) })
}

// UpsertCities implements refdata.Store.
func (s *Store) UpsertCities(ctx context.Context, cs []refdata.City) (int, error) {
	added := 0
	err := s.writeRefData(ctx, func(r *refData) { added = r.upsertCities(cs) })
	return added, err
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
