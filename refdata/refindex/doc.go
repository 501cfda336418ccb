// Package refindex answers reference-data lists (currencies, countries,
// cities) from memory, for any store.
//
// # The city index
//
// [CityIndex] holds cities in insertion order with posting lists by
// country, state and both, by rune, bigram and trigram of the folded names
// (Name), and by the first runes of each word of the search text
// (Keywords), plus lazily built orders by every sortable field. It answers
// a refdata.CityFilter exactly as refdata.SelectCities does; storage/memory
// keeps its cities in one, and currencies and countries in
// refdata.CurrencyTable and refdata.CountryTable.
//
// # Lists in front of a persistent store
//
// [Wrap] puts a [Store] in front of a refdata.Store that does not hold its
// reference data in memory (SQLite, PostgreSQL; a store that does reports
// it through [InMemory]): its List methods are answered from a snapshot of
// the whole reference data, read once through the store's own List methods
// and labelled with the store's RefDataRevision. Every List call compares
// that label with the store's current revision, so an answer is never
// older than the last write that returned (on this instance: at once; on
// another: as soon as the store's revision shows it, within 1 s on the
// stores of this module). While no snapshot of the current revision is
// ready, lists are answered by the store itself (the same answers, slower),
// or wait for it with [Options].Wait; one build runs at a time.
//
// Costs, for the default dataset plus 150,000 cities on SQLite: a build
// reads and indexes everything in about 0.7 s (up to 2.6 s on a loaded
// 2-core machine) and the snapshot holds about 54 MiB (60 MiB once every
// sort order is built). A write through the Store patches a copy of the
// snapshot (about 0.1 s for 5,000 cities) when lists read it since the
// last write; a write of another instance is patched in by the next build
// with the cities changed since (CityChanges), or the whole store is read
// again when the store cannot tell them.
package refindex
