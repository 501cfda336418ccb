// Package integrations holds app integrations and the analytics and
// payment-gateway configurations attached to them, with their rules: the
// status rule, one default per brand and kind, secrets encrypted at rest and
// masked in answers, and a revision for every update.
//
// The package declares the [Store] it needs; storage/memory and
// storage/sqlite implement it. Every failure is an *envelope.Error.
package integrations

// Store is what the integrations service needs from storage. Every method is
// atomic and safe for concurrent use; failures are *envelope.Error values.
type Store interface{}
