package refdata

import "context"

// Store is what the reference-data service needs from storage. Every method
// is atomic and safe for concurrent use; failures are *envelope.Error values.
type Store interface {
	// ListCurrencies returns the page of currencies that q selects, ordered
	// by ID, and the number of currencies that match q as a whole. q has
	// been normalised by the Service (page size set and clamped).
	ListCurrencies(ctx context.Context, q CurrencyQuery) ([]Currency, int, error)
	// UpsertCurrencies inserts the currencies, replacing any with the same ID.
	UpsertCurrencies(ctx context.Context, cs []Currency) error
	// DatasetVersion returns the version of the default dataset the store
	// holds, or "" when it holds none.
	DatasetVersion(ctx context.Context) (string, error)
	// SetDatasetVersion records the version of the default dataset loaded.
	SetDatasetVersion(ctx context.Context, version string) error
}
