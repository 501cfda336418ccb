package refdata

import "context"

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
// order), and the number of records that match the whole filter. A page past
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
	// UpsertCurrencies inserts the currencies, replacing any with the same ID.
	UpsertCurrencies(ctx context.Context, cs []Currency) error
	// ListCountries returns the page of countries f selects and the number
	// of matches.
	ListCountries(ctx context.Context, f CountryFilter) ([]Country, int, error)
	// UpsertCountries inserts the countries, replacing any with the same ID.
	UpsertCountries(ctx context.Context, cs []Country) error
	// ListCities returns the page of cities f selects and the number of
	// matches.
	ListCities(ctx context.Context, f CityFilter) ([]City, int, error)
	// UpsertCities inserts the cities in order, in one transaction. A city
	// whose natural key (CityKey) is already stored replaces the stored
	// name and tags and keeps its place in the insertion order. It returns
	// how many cities were added (not replaced).
	UpsertCities(ctx context.Context, cs []City) (added int, err error)
	// DatasetVersion returns the version of the default dataset the store
	// holds, or "" when it holds none.
	DatasetVersion(ctx context.Context) (string, error)
	// SetDatasetVersion records the version of the default dataset loaded.
	SetDatasetVersion(ctx context.Context, version string) error
	// RefDataRevision returns a number that changes whenever the reference
	// data of the store changes (any Upsert that changes something), so
	// that answers computed from it can be cached until then.
	RefDataRevision(ctx context.Context) (uint64, error)
}
