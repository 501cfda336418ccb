package refdata

import (
	"context"
)

// Store is what the reference-data service needs from storage: the
// persistence of currencies, countries and cities. Filtering, sorting and
// paging are the Service's (one engine for every store, answering from an
// in-process snapshot of what ReadRefData returns); a store only keeps
// rows in their order of storage and tells what changed since a revision.
//
// Every method is atomic and safe for concurrent use; failures are
// KindInternal *envelope.Error values, envelope.Unavailable errors when
// the store cannot be reached (the Service then answers lists from the
// snapshot it holds, if any), or context errors when ctx ends. The
// records a store is given have been normalised by this package (codes
// upper-case, Tld with its dot, CodePhone with its "+"); a store keeps
// them as they are. storage/storagetest checks every guarantee below.
type Store interface {
	// ReadRefData returns every currency and country in their order of
	// storage (see UpsertCurrencies), every city in insertion order, and
	// the revision (RefDataRevision) they are the data of: all read in one
	// transaction, a consistent snapshot.
	ReadRefData(ctx context.Context) (RefData, error)
	// RefDataChangesSince returns every currency and country (as
	// ReadRefData does), the cities that the writes after revision rev
	// inserted or changed (in insertion order; every city when rev is 0
	// or older than the store can tell), the current revision and the
	// generation: all read in one transaction. Applied in order to the
	// snapshot of revision rev (a changed city replaces the one of the
	// same natural key, a new one is appended), the cities give those of
	// the returned revision. When limit > 0 and more than limit cities
	// changed, it stops reading them: it returns every city instead, as
	// ReadRefData does, with Whole set (one read, in the same
	// transaction, however many changed).
	RefDataChangesSince(ctx context.Context, rev uint64, limit int) (RefData, error)
	// UpsertCurrencies inserts the currencies in order, replacing any with
	// the same ID (of currencies with the same ID in cs, the last). A new
	// currency takes the next place in the order of storage
	// (sort by createdDate); a replaced one keeps its place.
	UpsertCurrencies(ctx context.Context, cs []Currency) error
	// UpsertCountries inserts the countries in order, replacing any with
	// the same ID, and keeps their order of storage as UpsertCurrencies
	// does.
	UpsertCountries(ctx context.Context, cs []Country) error
	// UpsertCities inserts the cities in order, in one transaction. A city
	// whose natural key (country code, state code and folded name) is
	// already stored (or given earlier in cs) replaces the stored name,
	// adds its tags to the stored ones (stored first, then those not
	// already there, compared folded, within 200 bytes; a city without
	// tags keeps the stored ones) and keeps its place in the insertion
	// order: an import never degrades stored data. It returns how many
	// cities were added (not replaced).
	UpsertCities(ctx context.Context, cs []City) (added int, err error)
	// DatasetVersion returns the version of the default dataset the store
	// holds, or "" when it holds none.
	DatasetVersion(ctx context.Context) (string, error)
	// SetDatasetVersion records the version of the default dataset loaded.
	SetDatasetVersion(ctx context.Context, version string) error
	// RefDataRevision returns a number that changes whenever the reference
	// data of the store changes. Every Upsert that returns nil advances it
	// by exactly one, in the transaction of its write, also one that
	// changes nothing; nothing else does. A write is seen by the next
	// RefDataRevision of the same Store at once, and a write of another
	// instance sharing the database within 1 s (see
	// docs/several-instances.md). The Service reads it every 100 ms
	// while lists come, beside them, so it should be cheap (the stores of
	// this module cache it).
	RefDataRevision(ctx context.Context) (uint64, error)
	// RefDataGeneration returns the generation of the reference data
	// (see RefData.Generation) and the revision, read from the database
	// now in one statement, never from a cache: the Service reads it
	// about once a second, beside the lists, to notice on its own a
	// restore or a failover that took the revision back, which no
	// notification tells.
	RefDataGeneration(ctx context.Context) (generation string, revision uint64, err error)
	// RefDataWritten returns the revision of the last reference-data
	// write this Store committed (0 when none): the Service's lists wait
	// for their snapshot to hold it, while they may answer for up to
	// about a second from a snapshot that misses other instances' writes.
	// It reads nothing and does not block.
	RefDataWritten() uint64
}

// RefData is the reference data of one revision of a store, as
// Store.ReadRefData and Store.RefDataChangesSince return it.
type RefData struct {
	// Currencies and Countries are in their order of storage.
	Currencies []Currency
	Countries  []Country
	// Cities are in insertion order: every city (ReadRefData), or those
	// changed since a revision (RefDataChangesSince).
	Cities []City
	// Revision is the store's revision these records are of.
	Revision uint64
	// Generation names the history the revisions count in: a random id
	// written with the revision when the reference data were first
	// written, kept by a dump and its restore, and new when an operator
	// starts one (docs/reliability.md). A snapshot of another generation,
	// or of a revision above the store's, is not patched but read again.
	Generation string
	// Whole is set by RefDataChangesSince when too many cities changed:
	// Cities are then every city, as ReadRefData returns them.
	Whole bool
	// Template is set by a store whose records are a template's that many
	// stores of the process hold (the memory store's, a new SQLite
	// file's): the Services over them may share one city index, built
	// once. A shared index is never written: the first Service to patch
	// it copies it cheaply, any other builds its copy afresh, as costly as
	// the build it did not make.
	Template bool
}
