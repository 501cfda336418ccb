// Package httpadapter serves brandbase over net/http under /api/v1.
//
// # Mounting
//
// [New] returns an http.Handler for every route of the interface
// specification and its extensions; a host mounts it on its own mux:
//
//	h, err := httpadapter.New(httpadapter.Services{Auth: a, RefData: r, Integrations: i},
//		httpadapter.WithLogger(logger))
//	mux.Handle("/api/v1/", h)
//
// # Behaviour
//
// Every answer, errors included, is an envelope.Envelope: unknown routes get
// a 404 and wrong methods a 405 (with Allow) in the envelope, and a panic in a
// handler becomes a 500 whose details go only to the log. CORS is off
// unless [WithCORS] names the origins allowed. Each domain error
// kind maps to one status (see [StatusOf]). The adapter holds no business
// rule: it decodes the request, calls one domain method and encodes the
// result.
//
// # Metrics and traces
//
// With [WithMeterProvider] and [WithTracerProvider] the handler records
// each request's OpenTelemetry metrics and server span, by route template
// (docs/observability.md lists them); without them it records nothing.
package httpadapter

import (
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"path"
	"strings"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/internal/telemetry"
	"github.com/brandbase/brandbase/mail"
	"github.com/brandbase/brandbase/messages"
	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/webhooks"
)

// Services are the domain services the adapter serves. Auth and RefData are
// required; Integrations may be nil, in which case the integration routes
// answer 404.
type Services struct {
	Auth         *auth.Service
	RefData      *refdata.Service
	Integrations *integrations.Service
	// Messages, when set, serves the email-templates routes.
	Messages *messages.Service
	// Mail sends the test message of POST app-integrations/smtp/test; the
	// route is mounted only with it.
	Mail *mail.Service
	// Webhooks, when set, serves the webhook routes (/api/v1/webhooks...).
	Webhooks *webhooks.Service
}

// Option configures the handler New returns.
type Option func(*Handler)

// WithLogger sets the logger for request logs (one line per request, at
// the level of [WithRequestLogLevel], Debug by default) and internal errors
// (with their causes, at Error). The default is slog.Default(), as for the
// auth service.
func WithLogger(l *slog.Logger) Option {
	return func(h *Handler) {
		if l != nil {
			h.log = l
		}
	}
}

// DefaultRequestLogLevel is the level of the request log line unless
// [WithRequestLogLevel] sets another: Debug, so that a host whose logger
// keeps Info and above (slog's default) writes no line per request; such
// lines run to tens of megabytes under load, and a host usually keeps its
// own access log. Failures are logged apart, whatever this level: 5xx
// answers and panics at Error.
const DefaultRequestLogLevel = slog.LevelDebug

// WithRequestLogLevel sets the level of the one line logged per request
// (DefaultRequestLogLevel when not set): "request" with method, path,
// status, bytes, duration_ms (a float, in milliseconds) and, once the
// Brand-URL header named an active brand, brand (its normalised URL, as
// "shop.example.com"). The logger's handler decides whether a line of that
// level is written.
func WithRequestLogLevel(level slog.Level) Option {
	return func(h *Handler) {
		h.reqLog = requestLog{level: level}
	}
}

// WithoutRequestLog turns the request log line off; 5xx answers and panics
// are still logged at Error.
func WithoutRequestLog() Option {
	return func(h *Handler) {
		h.reqLog = requestLog{off: true}
	}
}

// requestLog is the request log setting of a Handler.
type requestLog struct {
	level slog.Level
	off   bool
}

// Handler is the http.Handler of the /api/v1 routes. Build it with [New].
type Handler struct {
	svc Services
	log *slog.Logger
	// reqLog is the level of the request log line, or off.
	reqLog requestLog
	mux    *http.ServeMux
	// premux holds the routes mounted apart (route.premux), looked up
	// before mux; nil when there is none.
	premux *http.ServeMux
	// patterns are the mounted routes ("METHOD /path"), in mounting order.
	patterns []string
	root     http.Handler // observe(withCORS(dispatch)), built once
	rl       rateLimiting
	cors     corsPolicy
	// lists caches the encoded answers of the list routes.
	lists *listCache
	// openAPIDoc is the OpenAPI document of the mounted routes, built and
	// checked by New, written as JSON at its first use.
	openAPIDoc func() openAPIJSON
	// tel records the metrics and spans of requests; nil without
	// providers.
	tel       *telemetry.HTTPServer
	telConfig telemetry.HTTPConfig
}

// Routes returns the patterns ("METHOD /path") of every mounted route, in
// registration order.
func (h *Handler) Routes() []string {
	return append([]string(nil), h.patterns...)
}

// New returns the handler of every /api/v1 route. It fails when a required
// service is missing; it never panics at request time for a configuration
// error.
func New(s Services, opts ...Option) (*Handler, error) {
	if s.Auth == nil {
		return nil, errors.New("httpadapter: Services.Auth is required")
	}
	if s.RefData == nil {
		return nil, errors.New("httpadapter: Services.RefData is required")
	}
	h := &Handler{
		svc:    s,
		log:    slog.Default(),
		reqLog: requestLog{level: DefaultRequestLogLevel},
		mux:    http.NewServeMux(),
		lists:  newListCache(listCacheBytes),
	}
	for _, o := range opts {
		o(h)
	}
	if err := h.rl.init(); err != nil {
		return nil, err
	}
	h.cors.init()
	h.root = h.observe(h.withCORS(http.HandlerFunc(h.dispatch)))
	doc, err := h.openAPI()
	if err != nil {
		return nil, err
	}
	h.openAPIDoc = writeOpenAPI(doc)
	h.mount()
	h.telConfig.Patterns = h.patterns
	for _, np := range h.rl.limits.all() {
		if !np.p.IsZero() {
			h.telConfig.Policies = append(h.telConfig.Policies, np.p.Name)
		}
	}
	h.tel = telemetry.NewHTTPServer(h.telConfig)
	return h, nil
}

// ServeHTTP answers one request: it recovers panics, logs the request and
// dispatches it to its route, answering 404 and 405 in the envelope.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.root.ServeHTTP(w, r)
}

// dispatch routes r. A path that is not in canonical form (see
// [redirectTarget]) is redirected (307) to its cleaned form when that
// stays under /api/v1/, and answered 404 route_not_found otherwise; a
// request that no pattern matches is answered with the status the mux
// would give it (404, or 405 with its Allow header). All in the envelope,
// none of them a success.
func (h *Handler) dispatch(w http.ResponseWriter, r *http.Request) {
	if clean := cleanPath(r.URL.Path); clean != r.URL.Path {
		loc, ok := redirectTarget(clean, r.URL.RawQuery)
		if !ok {
			h.fail(w, r, errRouteNotFound)
			return
		}
		w.Header().Set("Location", loc)
		h.writeEnvelope(w, r, envelope.Failure(http.StatusTemporaryRedirect, envelope.New("", "path_not_canonical",
			"The path is not canonical: use "+loc+".")))
		return
	}
	allow := ""
	if h.premux != nil {
		pre, pattern := h.premux.Handler(r)
		if pattern != "" {
			infoFrom(r.Context()).pattern = pattern
			h.premux.ServeHTTP(w, r)
			return
		}
		allow = methodsAllowed(pre, r)
	}
	fallback, pattern := h.mux.Handler(r)
	if pattern != "" {
		infoFrom(r.Context()).pattern = pattern
		h.mux.ServeHTTP(w, r)
		return
	}
	if more := methodsAllowed(fallback, r); more != "" {
		allow = strings.Trim(allow+", "+more, ", ")
	}
	if allow != "" {
		w.Header().Set("Allow", allow)
		h.fail(w, r, errMethodNotAllowed)
		return
	}
	h.fail(w, r, errRouteNotFound)
}

// methodsAllowed returns the Allow header a mux's fallback handler sets
// for r: the methods of the routes whose path r's matches, when its method
// is none of them; "" when no route's path matches.
func methodsAllowed(fallback http.Handler, r *http.Request) string {
	probe := &statusProbe{header: http.Header{}}
	fallback.ServeHTTP(probe, r)
	if probe.status != http.StatusMethodNotAllowed {
		return ""
	}
	return probe.header.Get("Allow")
}

// cleanPath returns the canonical form of a URL path, as net/http's mux
// computes it: rooted, without . and .. elements or repeated slashes, a
// trailing slash kept.
func cleanPath(p string) string {
	if p == "" {
		return "/"
	}
	if p[0] != '/' {
		p = "/" + p
	}
	np := path.Clean(p)
	if p[len(p)-1] == '/' && np != "/" {
		np += "/"
	}
	return np
}

// apiPrefix is the path every route of the adapter is under.
const apiPrefix = "/api/v1/"

// redirectTarget returns the Location of the redirect from an unclean path
// to clean, its cleaned form (with the raw query, when not empty), and
// whether there may be one. A redirect never leaves this server and never
// leaves the adapter's own routes: clean must be under /api/v1/ and hold no
// backslash (which browsers read as a slash, so that "/\evil.example"
// would be "//evil.example"), and the Location is the path escaped, so
// it is a path on this host whatever bytes clean holds.
func redirectTarget(clean, rawQuery string) (string, bool) {
	if !strings.HasPrefix(clean, apiPrefix) || strings.ContainsRune(clean, '\\') {
		return "", false
	}
	loc := (&url.URL{Path: clean, RawQuery: rawQuery}).String()
	if len(loc) < 2 || loc[0] != '/' || loc[1] == '/' || loc[1] == '\\' {
		return "", false // cannot happen after the checks above; kept as the rule itself
	}
	return loc, true
}

// statusProbe records what the mux's own fallback handler would answer.
type statusProbe struct {
	header http.Header
	status int
}

func (p *statusProbe) Header() http.Header         { return p.header }
func (p *statusProbe) Write(b []byte) (int, error) { return len(b), nil }
func (p *statusProbe) WriteHeader(status int)      { p.status = status }
