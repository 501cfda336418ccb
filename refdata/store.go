package refdata

import (
	"cmp"
	"context"
	"slices"
)

// Store is what the reference-data service needs from storage. Every method
// is atomic and safe for concurrent use; failures are KindInternal
// *envelope.Error values (or context errors when ctx ends). No failure of
// this contract is one a caller must tell apart (a list that matches
// nothing is empty, not an error), so the package declares no sentinel
// errors for it, and a store writes no client-facing text of its own.
//
// List methods receive a filter the Service has validated and normalised
// (see CurrencyFilter, CountryFilter, CityFilter): they return the page it
// selects, ordered as it says with ties broken by ID (cities: by insertion
// order), and the number of records that match the whole filter.
// FieldCreatedDate sorts currencies and countries in the order they were
// stored (see UpsertCurrencies). A page past
// the end is empty. The records a store is given have been normalised by
// this package (codes upper-case, Tld with its dot, CodePhone with its "+");
// stores compare filter values with stored values as they are. The
// reference implementation of every list is in this package
// (CurrencyTable, CountryTable, SelectCities); storage/storagetest checks
// stores against it.
type Store interface {
	// ListCurrencies returns the page of currencies f selects and the
	// number of matches.
	ListCurrencies(ctx context.Context, f CurrencyFilter) ([]Currency, int, error)
	// UpsertCurrencies inserts the currencies in order, replacing any with
	// the same ID (of currencies with the same ID in cs, the last). A new
	// currency takes the next place in the order of storage
	// (FieldCreatedDate); a replaced one keeps its place.
	UpsertCurrencies(ctx context.Context, cs []Currency) error
	// ListCountries returns the page of countries f selects and the number
	// of matches.
	ListCountries(ctx context.Context, f CountryFilter) ([]Country, int, error)
	// UpsertCountries inserts the countries in order, replacing any with
	// the same ID, and keeps their order of storage as UpsertCurrencies
	// does.
	UpsertCountries(ctx context.Context, cs []Country) error
	// ListCities returns the page of cities f selects and the number of
	// matches.
	ListCities(ctx context.Context, f CityFilter) ([]City, int, error)
	// UpsertCities inserts the cities in order, in one transaction. A city
	// whose natural key (CityKey) is already stored (or given earlier in
	// cs) replaces the stored name, adds its tags to the stored ones
	// (MergeTags: stored first, then those not already there; a city
	// without tags keeps the stored ones) and keeps its place in the
	// insertion order: an import never degrades stored data. It returns
	// how many cities were added (not replaced).
	UpsertCities(ctx context.Context, cs []City) (added int, err error)
	// DatasetVersion returns the version of the default dataset the store
	// holds, or "" when it holds none.
	DatasetVersion(ctx context.Context) (string, error)
	// SetDatasetVersion records the version of the default dataset loaded.
	SetDatasetVersion(ctx context.Context, version string) error
	// RefDataRevision returns a number that changes whenever the reference
	// data of the store changes, so that answers computed from it can be
	// cached until then. Every Upsert that returns nil advances it by
	// exactly one, in the transaction of its write, also one that changes
	// nothing; nothing else does. A write is seen by the next
	// RefDataRevision of the same Store at once. An index in front of the
	// store (refindex) relies on this to tell its own write from another
	// instance's: see docs/several-instances.md.
	RefDataRevision(ctx context.Context) (uint64, error)
}

// DatasetOrder returns ids (of stored currencies or countries) in the order
// of storage (FieldCreatedDate) a store gives records it held before it
// recorded that order: the embedded dataset's records first, in the
// dataset's order (as LoadDefault stores them), then the others in the
// order given. It fails when the embedded dataset cannot be read.
func DatasetOrder(ids []string) ([]string, error) {
	currencies, err := defaultCurrencies()
	if err != nil {
		return nil, err
	}
	countries, err := defaultCountries()
	if err != nil {
		return nil, err
	}
	place := make(map[string]int, len(currencies)+len(countries))
	for i, c := range currencies {
		place[c.ID] = i
	}
	for i, c := range countries {
		place[c.ID] = i
	}
	out := slices.Clone(ids)
	slices.SortStableFunc(out, func(a, b string) int {
		pa, ina := place[a]
		pb, inb := place[b]
		switch {
		case ina && inb:
			return cmp.Compare(pa, pb)
		case ina:
			return -1
		case inb:
			return 1
		}
		return 0
	})
	return out, nil
}
