// Package brandbase is an embeddable library that gives a host application,
// for each of its brands (tenants): user authentication with expiring key
// pairs, paginated and filterable reference data (currencies, countries,
// cities), and the configuration of analytics and payment-gateway
// integrations, with an optional net/http adapter that serves all of it
// under /api/v1.
//
// # Packages
//
//   - [github.com/brandbase/brandbase/envelope]: the response envelope and
//     the one error type (kinds, codes, field errors).
//   - [github.com/brandbase/brandbase/auth]: brands, users, passwords, key
//     pairs, devices, permissions.
//   - [github.com/brandbase/brandbase/refdata]: currencies, countries,
//     cities, the embedded dataset and importers.
//   - [github.com/brandbase/brandbase/integrations]: app integrations and
//     their analytics and payment-gateway configurations.
//   - [github.com/brandbase/brandbase/storage]: the backend interface, with
//     storage/memory, storage/sqlite and the conformance suite
//     storage/storagetest.
//   - [github.com/brandbase/brandbase/httpadapter]: the /api/v1 handler.
//
// This package wires them: [New] builds every service on one store, and
// [App.Handler] serves them over HTTP.
//
// # Choosing a store
//
// storage/sqlite keeps data in a file (or ":memory:"); storage/memory keeps
// it in maps for tests and throwaway use; storage/postgres keeps it in a
// PostgreSQL database that several instances of a host share and behave as
// one: [New] subscribes each instance's caches to the store's change
// notifications (LISTEN/NOTIFY), so a change made by one instance is seen by
// every other within about a second, and the login and refresh limits are
// counted in the database. Import only the store you use (the root package
// links no SQL driver); storage/storeurl picks the store a path or URL names.
// Every store loads the embedded reference dataset when opened.
//
// # Errors
//
// Every failure of a domain method is an *envelope.Error; use
// envelope.KindOf(err) to tell not found from invalid input from a
// permission problem, and errors.Is with the sentinels the domain packages
// declare (auth.ErrUserNotFound, integrations.ErrConfigNotFound, ...) to
// tell one record's failure from another's. The HTTP adapter maps each kind to one status code.
package brandbase
