package httpadapter

import (
	"crypto/sha256"
	"encoding/base64"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/brandbase/brandbase/envelope"
)

var (
	errRouteNotFound    = envelope.New(envelope.KindNotFound, "route_not_found", "No route matches this path.")
	errMethodNotAllowed = envelope.New(envelope.KindMethodNotAllowed, "method_not_allowed", "This method is not allowed on this path.")
)

// statusByKind is the one table from error kind to HTTP status.
var statusByKind = map[envelope.Kind]int{
	envelope.KindInvalid:              http.StatusBadRequest,
	envelope.KindUnauthenticated:      http.StatusUnauthorized,
	envelope.KindForbidden:            http.StatusForbidden,
	envelope.KindNotFound:             http.StatusNotFound,
	envelope.KindMethodNotAllowed:     http.StatusMethodNotAllowed,
	envelope.KindConflict:             http.StatusConflict,
	envelope.KindPreconditionFailed:   http.StatusPreconditionFailed,
	envelope.KindRequestTimeout:       http.StatusRequestTimeout,
	envelope.KindTooLarge:             http.StatusRequestEntityTooLarge,
	envelope.KindUnsupportedMediaType: http.StatusUnsupportedMediaType,
	envelope.KindRateLimited:          http.StatusTooManyRequests,
	envelope.KindUnavailable:          http.StatusServiceUnavailable,
	envelope.KindBadGateway:           http.StatusBadGateway,
	envelope.KindInternal:             http.StatusInternalServerError,
}

// StatusOf returns the HTTP status the adapter answers an error of kind k
// with; 500 for a kind it does not know.
func StatusOf(k envelope.Kind) int {
	if s, ok := statusByKind[k]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// fail answers r with err in the envelope. An internal error is logged in
// full at ERROR and answered with a generic message. A request whose own
// context ended (the client went away, or the server is shutting down)
// and that stopped for it is answered 503 request_cancelled and logged at
// INFO: it is not a fault. An Unavailable error (the store cannot be
// reached, or a wait on it ran out) is answered 503 with Retry-After and
// logged at DEBUG only: the store logs the outage once when it starts and
// once when it ends, so that an outage does not write a line a request. A
// BadGateway error (502: a server the caller named, the SMTP test's,
// failed) is logged at INFO: the caller's server, not this service, failed.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	e := envelope.As(err)
	status := StatusOf(e.Kind)
	switch {
	case e.Kind == envelope.KindUnavailable && r.Context().Err() != nil:
		h.log.InfoContext(r.Context(), "request cancelled", "method", r.Method, "path", r.URL.Path, "error", err)
	case envelope.IsUnavailable(err):
		h.log.DebugContext(r.Context(), "request unavailable", "method", r.Method, "path", r.URL.Path, "error", err)
	case e.Kind == envelope.KindBadGateway: // a server the caller named failed (an SMTP test): not this service's fault
		h.log.InfoContext(r.Context(), "request: the server called failed", "method", r.Method, "path", r.URL.Path, "error", err)
	case status >= 500:
		h.log.ErrorContext(r.Context(), "request failed", "method", r.Method, "path", r.URL.Path, "error", err)
		if e.Kind == envelope.KindInternal {
			e = envelope.Internal(nil)
		}
	}
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(e.RetryAfter))
	}
	h.writeEnvelope(w, r, envelope.Failure(status, e))
}

// faultLevel is the level at which the adapter logs a failure it does not
// answer with: ERROR, or DEBUG for an Unavailable error (the store that
// cannot be reached logs the outage once when it starts and once when it
// ends; a line a request would flood the log).
func faultLevel(err error) slog.Level {
	if envelope.IsUnavailable(err) {
		return slog.LevelDebug
	}
	return slog.LevelError
}

// ok answers r with status 200 and data.
func (h *Handler) ok(w http.ResponseWriter, r *http.Request, data any) {
	h.writeEnvelope(w, r, envelope.Success(http.StatusOK, "", data))
}

// writeEnvelope encodes and writes env, logging an encoding failure.
func (h *Handler) writeEnvelope(w http.ResponseWriter, r *http.Request, env envelope.Envelope) {
	if err := envelope.Write(w, env); err != nil {
		h.log.ErrorContext(r.Context(), "encode response", "path", r.URL.Path, "error", err)
	}
}

// okEncoded answers r with status 200 and body, an encoded envelope, under
// its strong ETag etag; a matching If-None-Match gets 304 Not Modified.
// cacheControl, when not empty, is sent as Cache-Control on both, with
// Vary: Brand-URL, since the answer depends on the brand (isDefault, and
// whether the brand may be served at all).
func (h *Handler) okEncoded(w http.ResponseWriter, r *http.Request, body []byte, etag, cacheControl string) {
	hd := w.Header()
	hd.Set("ETag", etag)
	hd.Add("Vary", "Brand-URL") // after Vary: Origin, when CORS is on
	if cacheControl != "" {
		hd.Set("Cache-Control", cacheControl)
	}
	if etagMatches(r.Header.Get("If-None-Match"), etag, true) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	envelope.WriteJSON(w, http.StatusOK, body)
}

// bodyETag returns a strong entity tag for body.
func bodyETag(body []byte) string {
	sum := sha256.Sum256(body)
	return `"` + base64.RawURLEncoding.EncodeToString(sum[:18]) + `"`
}

// etagMatches reports whether an If-None-Match (weak comparison) or If-Match
// (strong comparison) header value lists etag or is "*" (RFC 9110 8.8.3.2).
func etagMatches(header, etag string, weak bool) bool {
	for part := range strings.SplitSeq(header, ",") {
		part = strings.TrimSpace(part)
		if weak {
			part = strings.TrimPrefix(part, "W/")
		}
		if part == "*" || part == etag {
			return true
		}
	}
	return false
}
