package integrations

import "github.com/brandbase/brandbase/envelope"

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
