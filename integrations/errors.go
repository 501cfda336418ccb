package integrations

import (
	"fmt"

	"github.com/brandbase/brandbase/envelope"
)

// The errors of the [Store] contract. A store returns these (possibly as a
// copy carrying a cause, see [envelope.Error.WithCause]) and writes no
// client-facing text of its own, so that one failure reads the same on
// every store; callers match them with errors.Is. A write naming a brand
// that does not exist fails with auth.ErrBrandNotFound.
var (
	// ErrAppIntegrationNotFound: the brand has no app integration with that
	// ID (also when a configuration names one of another brand).
	ErrAppIntegrationNotFound = envelope.NotFound("The app integration does not exist.")
	// ErrConfigNotFound: the brand has no configuration of that kind with
	// that ID. One message for every kind.
	ErrConfigNotFound = envelope.NotFound("The integration does not exist.")
	// ErrAppIntegrationExists: an app integration with that ID is stored.
	ErrAppIntegrationExists = envelope.Conflict("An app integration with this ID exists.")
	// ErrConfigExists: a configuration with that ID is stored.
	ErrConfigExists = envelope.Conflict("An integration with this ID exists.")
	// ErrDefaultTaken: another configuration of the brand and kind is the
	// default.
	ErrDefaultTaken = envelope.Conflict("Another integration of this brand is the default.")
	// ErrRevisionExists: a revision with that ID, or of that record and
	// version, is stored.
	ErrRevisionExists = envelope.Conflict("This revision exists.")
)

// CodeSecretUnreadable is the code of [ErrSecretUnreadable].
const CodeSecretUnreadable = "secret_unreadable"

// ErrSecretUnreadable: a stored secret of the integration does not decrypt
// with the service's key ring, because the key that sealed it is not in
// the ring (a lost or rotated-out key, or a per-process key of an earlier
// process) or the ciphertext was altered. It fails that record only (KindConflict,
// HTTP 409), never a list: reading it ([Service.Analytics],
// [Service.PaymentGateway], their GET routes and the *Secrets methods),
// and an update that would keep the unreadable secret (not sent, or sent
// back masked). An update that sends a new value replaces it and repairs
// the record. Its field item names the secret; its cause, for logs, names
// the record and the key.
var ErrSecretUnreadable = envelope.New(envelope.KindConflict, CodeSecretUnreadable,
	"A secret of this integration cannot be decrypted with the server's key ring (the key that sealed it is not configured); send a new value for it to replace it.")

// secretUnreadable returns ErrSecretUnreadable for field f, with cause.
func secretUnreadable(f secretField, cause error) error {
	e := ErrSecretUnreadable.WithCause(fmt.Errorf("integrations: %s %s of brand %s, field %s: %w", f.kind, f.recordID, f.brandID, f.field, cause))
	e.Fields = []envelope.ErrorItem{envelope.Field(f.field, CodeSecretUnreadable,
		"This secret cannot be decrypted with the server's key ring; send a new value.")}
	return e
}
