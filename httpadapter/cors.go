package httpadapter

import (
	"net/http"
	"slices"
	"strings"
)

// corsMethods are the methods a preflight allows: every method a route of
// the adapter is mounted with.
const corsMethods = "GET, HEAD, POST, PUT, DELETE"

// corsMaxAge is how long (seconds) a browser may cache a preflight answer.
const corsMaxAge = "600"

// corsRequestHeaders are the request headers a preflight allows before
// any the host adds ([WithCORSHeaders]): those the routes read, and every
// header the origin's own browser client sends, so that it works from
// another origin with its default options.
//
// The origin's client is jfw-js (github.com/1Byte-Software/jfw-js, read at
// commit a50a5e5 of 2025-12-22, version 6.9.3). Its src/index.ts sets
// Brand-URL and Content-Type on every request and, unless the option
// allowTracking is false (it is true by default), X-Current-URL (the page's
// address) through a request interceptor; src/features/user/client.ts sets
// Auth-Key after a login; src/features/user/api.ts documents the X-Device-*
// and X-App-Version-Number / X-Os-Device headers a caller adds after one.
// Browsers send Accept and Accept-Language themselves; those need no
// preflight permission.
var corsRequestHeaders = []string{
	"Brand-URL", "Auth-Key", "Content-Type", "If-Match", "If-None-Match", "Device-Code",
	"X-Device-Code", "X-Device-Token", "X-Device-Name", "X-App-Version-Number", "X-Os-Device",
	"X-Current-URL",
}

// corsExposedHeaders are the answer headers a browser lets the calling
// page read, beyond the CORS-safelisted ones.
const corsExposedHeaders = "ETag, Retry-After, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, RateLimit-Policy"

// WithCORS lets browsers on other origins call the API (CORS, which is off
// by default). origins are the allowed origins as a browser sends them
// ("https://app.example.com", scheme and host, the port when not the
// default), matched case-insensitively; "*" allows any origin. Every answer
// to a request from an allowed origin, errors included, carries
// Access-Control-Allow-Origin (the origin, or * when any is allowed) and
// exposes ETag, Retry-After and the RateLimit-* headers; a preflight
// (OPTIONS with Origin and Access-Control-Request-Method) is answered 204
// with the allowed methods and request headers, needs no Brand-URL and is
// never rate limited. A request from another origin gets no CORS header.
// Every answer carries Vary: Origin. Repeated, the options add up; empty
// origins are ignored.
func WithCORS(origins ...string) Option {
	return func(h *Handler) {
		for _, o := range origins {
			o = strings.ToLower(strings.TrimRight(strings.TrimSpace(o), "/"))
			switch {
			case o == "":
			case o == "*":
				h.cors.any = true
			default:
				h.cors.origins = append(h.cors.origins, o)
			}
		}
	}
}

// WithCORSHeaders adds request headers that a preflight allows, beyond
// those allowed by default: the headers the routes read (Brand-URL,
// Auth-Key, Content-Type, If-Match, If-None-Match, Device-Code and the
// device headers X-Device-Code, X-Device-Token, X-Device-Name,
// X-App-Version-Number, X-Os-Device) and X-Current-URL, which the origin's
// browser client (jfw-js) sends on every request by default. Add those the
// host's own middleware reads. It has no effect without [WithCORS].
func WithCORSHeaders(headers ...string) Option {
	return func(h *Handler) {
		for _, name := range headers {
			if name = strings.TrimSpace(name); name != "" {
				h.cors.headers = append(h.cors.headers, http.CanonicalHeaderKey(name))
			}
		}
	}
}

// corsPolicy is the CORS configuration of a Handler.
type corsPolicy struct {
	any     bool
	origins []string // lower-cased, without a trailing slash
	headers []string // added by the host
	// allowHeaders is the Access-Control-Allow-Headers value, built once.
	allowHeaders string
}

// enabled reports whether any origin is allowed.
func (c *corsPolicy) enabled() bool { return c.any || len(c.origins) > 0 }

// init builds what the answers carry once the options are applied.
func (c *corsPolicy) init() {
	all := slices.Concat(corsRequestHeaders, c.headers)
	slices.Sort(all)
	c.allowHeaders = strings.Join(slices.Compact(all), ", ")
}

// allowOrigin returns the Access-Control-Allow-Origin value for a request
// with that Origin header, or "" when it is not allowed.
func (c *corsPolicy) allowOrigin(origin string) string {
	switch {
	case origin == "":
		return ""
	case c.any:
		return "*"
	case slices.Contains(c.origins, strings.ToLower(strings.TrimRight(origin, "/"))):
		return origin
	}
	return ""
}

// setHeaders sets the CORS headers of the answer to r in hd, and reports
// whether r's origin is allowed. Without CORS it does nothing.
func (c *corsPolicy) setHeaders(hd http.Header, r *http.Request) bool {
	if !c.enabled() {
		return false
	}
	hd.Add("Vary", "Origin")
	allow := c.allowOrigin(r.Header.Get("Origin"))
	if allow == "" {
		return false
	}
	hd.Set("Access-Control-Allow-Origin", allow)
	hd.Set("Access-Control-Expose-Headers", corsExposedHeaders)
	return true
}

// withCORS wraps next with the CORS headers of every answer, and answers
// preflights itself (before any route, so without Brand-URL and outside
// every rate limit).
func (h *Handler) withCORS(next http.Handler) http.Handler {
	if !h.cors.enabled() {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		allowed := h.cors.setHeaders(w.Header(), r)
		if allowed && r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			hd := w.Header()
			hd.Add("Vary", "Access-Control-Request-Method")
			hd.Add("Vary", "Access-Control-Request-Headers")
			hd.Set("Access-Control-Allow-Methods", corsMethods)
			hd.Set("Access-Control-Allow-Headers", h.cors.allowHeaders)
			hd.Set("Access-Control-Max-Age", corsMaxAge)
			w.WriteHeader(http.StatusNoContent)
			return
		}
		next.ServeHTTP(w, r)
	})
}
