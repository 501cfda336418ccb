package envelope

import (
	"context"
	"errors"
	"strings"
	"unicode/utf8"
)

// Kind classifies an [Error]. The set is closed: the HTTP adapter maps each
// kind to exactly one status code.
type Kind string

// The kinds of error. The comment names the HTTP status the adapter answers
// with.
const (
	KindInvalid              Kind = "invalid"                // 400: bad query, body or header
	KindUnauthenticated      Kind = "unauthenticated"        // 401
	KindForbidden            Kind = "forbidden"              // 403
	KindNotFound             Kind = "not_found"              // 404
	KindMethodNotAllowed     Kind = "method_not_allowed"     // 405
	KindConflict             Kind = "conflict"               // 409
	KindPreconditionFailed   Kind = "precondition_failed"    // 412
	KindRequestTimeout       Kind = "request_timeout"        // 408: the request body did not arrive in time
	KindTooLarge             Kind = "too_large"              // 413
	KindUnsupportedMediaType Kind = "unsupported_media_type" // 415
	KindRateLimited          Kind = "rate_limited"           // 429
	KindUnavailable          Kind = "unavailable"            // 503: cancelled or timed out
	KindBadGateway           Kind = "bad_gateway"            // 502: a server the service called (an SMTP server) refused or failed
	KindInternal             Kind = "internal"               // 500
)

// Error is the error type of brandbase. Its Message and Items are safe to
// show to a client; the wrapped cause (Unwrap) is for logs only.
type Error struct {
	// Kind says what class of failure this is.
	Kind Kind
	// Code is a stable machine-readable string, such as "brand_not_found".
	Code string
	// Message sums the failure up in one sentence, safe to show.
	Message string
	// Fields lists the request fields that were wrong, one item each.
	Fields []ErrorItem
	// RetryAfter, when above 0, is the number of seconds after which a
	// retry may succeed; the HTTP adapter sends it as Retry-After.
	RetryAfter int
	// Err is the underlying cause, if any. It is never sent to clients.
	Err error
}

// New returns an error of the given kind, code and message.
func New(kind Kind, code, message string) *Error {
	return &Error{Kind: kind, Code: code, Message: message}
}

// Invalid returns a [KindInvalid] error with the given field items.
func Invalid(message string, fields ...ErrorItem) *Error {
	return &Error{Kind: KindInvalid, Code: "invalid_request", Message: message, Fields: fields}
}

// NotFound returns a [KindNotFound] error with code "not_found".
func NotFound(message string) *Error { return New(KindNotFound, "not_found", message) }

// Conflict returns a [KindConflict] error with code "conflict".
func Conflict(message string) *Error { return New(KindConflict, "conflict", message) }

// The fallback errors of every store contract (auth.Store, refdata.Store,
// integrations.Store): a store returns one of these, possibly as a copy
// carrying the driver's error as its cause ([Error.WithCause]), for a
// failure its contract names no sentinel of its own for, and never writes
// a client-facing sentence itself. Callers match them with errors.Is, or
// by kind. The domain sentinels (auth.ErrUserNotFound,
// integrations.ErrConfigExists, ...) say more and come first.
var (
	// ErrStoreConflict: a write collides with a stored record on a unique
	// key that the contract names no sentinel for (KindConflict, 409).
	ErrStoreConflict = Conflict("The request conflicts with a stored record.")
	// ErrStoreNotFound: a record the call names, or one a write refers
	// to, is not stored, and the contract names no sentinel for it
	// (KindNotFound, 404).
	ErrStoreNotFound = NotFound("A record the request names or refers to does not exist.")
)

// DefaultRetryAfter is the wait, in seconds, that an [Unavailable] error
// advises when its caller names none.
const DefaultRetryAfter = 2

// Unavailable returns a [KindUnavailable] error with code "unavailable":
// a dependency (the store, the password-hash queue) cannot serve the
// request now, and a retry after retryAfter seconds (DefaultRetryAfter when
// retryAfter < 1) may succeed. cause is kept for logs, never sent. The HTTP
// adapter answers it 503 with a Retry-After header.
func Unavailable(cause error, retryAfter int) *Error {
	if retryAfter < 1 {
		retryAfter = DefaultRetryAfter
	}
	return &Error{Kind: KindUnavailable, Code: "unavailable", Message: "The service is unavailable for a moment; retry after the number of seconds in the Retry-After header.", RetryAfter: retryAfter, Err: cause}
}

// IsUnavailable reports whether err's chain holds an error made by
// [Unavailable]: a dependency that cannot serve now, as opposed to a bad
// request or a fault.
func IsUnavailable(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Kind == KindUnavailable && e.Code == "unavailable"
}

// Internal wraps cause as a [KindInternal] error with a generic message.
func Internal(cause error) *Error {
	return &Error{Kind: KindInternal, Code: "internal_error", Message: "An internal error occurred.", Err: cause}
}

// Field returns the error item for one request field; details is both its
// Message and its Details.
func Field(field, code, details string) ErrorItem {
	return ErrorItem{Code: code, Field: field, Message: details, Details: details}
}

// Error returns the message, the field details and the cause, for logs.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Message)
	for _, f := range e.Fields {
		b.WriteString("; ")
		if f.Field != "" {
			b.WriteString(f.Field)
			b.WriteString(": ")
		}
		b.WriteString(f.Details)
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is an *Error of the same kind, code and
// message as e. It lets a domain package declare sentinel errors (such as
// auth.ErrUserNotFound) that callers match with errors.Is, even when a
// store returns a copy of the sentinel carrying a cause ([Error.WithCause]).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Kind == e.Kind && t.Code == e.Code && t.Message == e.Message
}

// WithCause returns a copy of e that wraps cause.
func (e *Error) WithCause(cause error) *Error {
	c := *e
	c.Err = cause
	return &c
}

// Items returns the envelope items of e: its field items, or one item with
// its code and message when it has none. The result is never nil.
func (e *Error) Items() []ErrorItem {
	if len(e.Fields) > 0 {
		return e.Fields
	}
	return []ErrorItem{{Code: e.Code, Message: e.Message, Details: e.Message}}
}

// As returns the *Error in err's chain. For any other non-nil error it returns
// [Internal](err), and for context cancellation a [KindUnavailable] error, so
// that the result is always safe to show. It returns nil for a nil err.
func As(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return &Error{Kind: KindUnavailable, Code: "request_cancelled", Message: "The request was cancelled or timed out.", Err: err}
	}
	return Internal(err)
}

// KindOf returns the kind of err: the kind of the *Error in its chain,
// KindUnavailable for context cancellation, KindInternal for any other error,
// and "" for nil.
func KindOf(err error) Kind {
	if e := As(err); e != nil {
		return e.Kind
	}
	return ""
}

// CodeOf returns the code of err as [As] sees it, or "" for nil.
func CodeOf(err error) string {
	if e := As(err); e != nil {
		return e.Code
	}
	return ""
}

// Validation collects field errors; its zero value is ready to use.
//
//	var v envelope.Validation
//	if name == "" { v.Add("name", "required", "name is required") }
//	return v.Err()
type Validation struct {
	items []ErrorItem
}

// Add records one bad field.
func (v *Validation) Add(field, code, details string) {
	v.items = append(v.items, Field(field, code, details))
}

// Merge records the field items of err when it is a KindInvalid *Error, and
// reports whether it did so.
func (v *Validation) Merge(err error) bool {
	var e *Error
	if errors.As(err, &e) && e.Kind == KindInvalid {
		v.items = append(v.items, e.Items()...)
		return true
	}
	return false
}

// Text records an invalid_format error for field when s is not text that
// every store can hold: invalid UTF-8, or a NUL character (which
// PostgreSQL's text refuses; a JSON body can carry it as \u0000). It
// reports whether s passed.
func (v *Validation) Text(field, s string) bool {
	if utf8.ValidString(s) && strings.IndexByte(s, 0) < 0 {
		return true
	}
	v.Add(field, "invalid_format", "The field "+field+" must be UTF-8 text without NUL characters.")
	return false
}

// Has reports whether a field error was recorded for field.
func (v *Validation) Has(field string) bool {
	for _, it := range v.items {
		if it.Field == field {
			return true
		}
	}
	return false
}

// Err returns nil when no field error was recorded, else a KindInvalid
// *Error listing them all.
func (v *Validation) Err() error {
	if len(v.items) == 0 {
		return nil
	}
	msg := "The request has an invalid field."
	if len(v.items) > 1 {
		msg = "The request has invalid fields."
	}
	return Invalid(msg, v.items...)
}
