package telemetry

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// HTTPServer records the requests of an HTTP server whose routes are known
// in advance: the http.server.* metrics, one server span per request, and
// the refusals of its rate limits. Build it with [NewHTTPServer]; a nil
// *HTTPServer records nothing.
type HTTPServer struct {
	tracer   trace.Tracer // nil: no spans
	prop     propagation.TextMapPropagator
	duration metric.Float64Histogram // nil: no metrics
	active   metric.Int64UpDownCounter
	refusals *Counter
	logins   *Counter
	lists    *Counter // list-cache lookups, by result

	// routes are the route templates ("/api/v1/cities") by mux pattern
	// ("GET /api/v1/cities"), read-only after construction.
	routes map[string]string
	// activeOpts are the attribute sets of active_requests by method, and
	// startOpts the options of a server span by method.
	activeOpts map[string][]metric.AddOption
	startOpts  map[string][]trace.SpanStartOption

	mu sync.RWMutex
	// ends are what the end of a request records, by method, route and
	// status, each built once.
	ends map[durKey]*endAttrs
}

// endAttrs are what the end of a request of one method, route and status
// records: the attribute set of request.duration, the span's name and
// attributes.
type endAttrs struct {
	opts  []metric.RecordOption
	name  string
	attrs []attribute.KeyValue
	fail  bool // a 5xx
}

// durKey names one attribute set of request.duration.
type durKey struct {
	method, route string
	status        int
}

// knownMethods are the methods recorded as they are; any other is
// recorded as "_OTHER", as the semantic conventions ask, so that a client
// cannot make series of its own.
var knownMethods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodDelete,
	http.MethodPatch, http.MethodOptions, http.MethodConnect, http.MethodTrace}

// HTTPConfig configures [NewHTTPServer].
type HTTPConfig struct {
	MeterProvider  metric.MeterProvider
	TracerProvider trace.TracerProvider
	// Propagator reads the trace context of incoming requests;
	// propagation.TraceContext (the traceparent header) when nil.
	Propagator propagation.TextMapPropagator
	// Patterns are the server's mux patterns ("METHOD /path").
	Patterns []string
	// Policies are the names of the rate-limit policies.
	Policies []string
}

// NewHTTPServer returns the recorder of a server with cfg's routes, or nil
// when both providers are nil.
func NewHTTPServer(cfg HTTPConfig) *HTTPServer {
	if cfg.MeterProvider == nil && cfg.TracerProvider == nil {
		return nil
	}
	s := &HTTPServer{
		tracer:     Tracer(cfg.TracerProvider),
		prop:       cfg.Propagator,
		routes:     make(map[string]string, len(cfg.Patterns)),
		activeOpts: make(map[string][]metric.AddOption, len(knownMethods)+1),
		startOpts:  make(map[string][]trace.SpanStartOption, len(knownMethods)+1),
		ends:       make(map[durKey]*endAttrs),
	}
	for _, meth := range append(knownMethods, methodOther) {
		s.startOpts[meth] = []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindServer),
			trace.WithAttributes(AttrHTTPMethod.String(meth))}
	}
	if s.prop == nil {
		s.prop = propagation.TraceContext{}
	}
	for _, p := range cfg.Patterns {
		_, path, ok := strings.Cut(p, " ")
		if !ok {
			path = p
		}
		s.routes[p] = path
	}
	if m := meter(cfg.MeterProvider); m != nil {
		s.duration = seconds(m, MetricHTTPDuration, "Duration of HTTP server requests.")
		s.active = upDown(m, MetricHTTPActive, "{request}", "Number of active HTTP server requests.")
		s.refusals = newCounter(counter(m, MetricRateLimitRefusals, "{request}", "Requests refused by a rate limit, by policy."),
			AttrPolicy, cfg.Policies...)
		s.logins = Logins(cfg.MeterProvider)
		s.lists = newCounter(counter(m, MetricListCacheLookups, "{lookup}",
			"Lookups of the list routes' cache of encoded answers, by result (hit or miss)."),
			AttrCacheResult, CacheResultHit, CacheResultMiss)
		for _, meth := range append(knownMethods, methodOther) {
			s.activeOpts[meth] = addOpts(attribute.NewSet(AttrHTTPMethod.String(meth)))
		}
	}
	return s
}

// method returns the method as recorded: known, else "_OTHER".
func method(m string) string {
	for _, k := range knownMethods {
		if m == k {
			return k
		}
	}
	return methodOther
}

// Request is the record of one request under way, from [HTTPServer.Start]
// to [Request.End]. Its zero value (a nil server's) records nothing.
type Request struct {
	s      *HTTPServer
	start  time.Time
	method string
	span   trace.Span
}

// Start begins the record of r: it counts r as active and, when traces
// are on, starts its server span, a child of the trace context r carries
// (the traceparent header). The span's name is the method until End names
// the route. It returns the context to serve r with.
func (s *HTTPServer) Start(r *http.Request) (context.Context, Request) {
	ctx := r.Context()
	if s == nil {
		return ctx, Request{}
	}
	rq := Request{s: s, start: time.Now(), method: method(r.Method)}
	if s.active != nil {
		s.active.Add(ctx, 1, s.activeOpts[rq.method]...)
	}
	if s.tracer != nil {
		ctx = s.prop.Extract(ctx, propagation.HeaderCarrier(r.Header))
		ctx, rq.span = s.tracer.Start(ctx, rq.method, s.startOpts[rq.method]...)
	}
	return ctx, rq
}

// End records the end of the request: pattern is the mux pattern that
// served it ("" when none matched: route "unmatched"), status the status
// answered. A 5xx marks the span an error and sets error.type to the
// status code.
func (rq Request) End(ctx context.Context, pattern string, status int) {
	s := rq.s
	if s == nil {
		return
	}
	route, ok := s.routes[pattern]
	if !ok {
		route = RouteUnmatched
	}
	e := s.endAttrs(rq.method, route, status)
	if s.duration != nil {
		s.duration.Record(ctx, Since(rq.start), e.opts...)
		s.active.Add(ctx, -1, s.activeOpts[rq.method]...)
	}
	if rq.span != nil {
		rq.span.SetName(e.name)
		rq.span.SetAttributes(e.attrs...)
		if e.fail {
			rq.span.SetStatus(codes.Error, "")
		}
		rq.span.End()
	}
}

// endAttrs returns what the end of a request records, built once per
// method, route and status.
func (s *HTTPServer) endAttrs(method, route string, status int) *endAttrs {
	k := durKey{method, route, status}
	s.mu.RLock()
	e, ok := s.ends[k]
	s.mu.RUnlock()
	if ok {
		return e
	}
	attrs := []attribute.KeyValue{AttrHTTPMethod.String(method), AttrHTTPRoute.String(route), AttrHTTPStatus.Int(status)}
	if status >= 500 {
		attrs = append(attrs, AttrErrorType.String(strconv.Itoa(status)))
	}
	// The span has the method from its start; NewSet sorts the slice it
	// is given, so it gets a copy.
	e = &endAttrs{attrs: attrs[1:], name: method + " " + route, fail: status >= 500}
	e.opts = recordOpts(attribute.NewSet(slices.Clone(attrs)...))
	s.mu.Lock()
	s.ends[k] = e
	s.mu.Unlock()
	return e
}

// Refused counts a request refused by the rate-limit policy named policy;
// login says whether the request was a login, which then counts as a
// login of outcome "limited" too.
func (s *HTTPServer) Refused(ctx context.Context, policy string, login bool) {
	if s == nil {
		return
	}
	s.refusals.Add(ctx, policy)
	if login {
		s.logins.Add(ctx, LoginLimited)
	}
}

// ListCacheLookup counts one lookup of the list routes' cache of encoded
// answers: a hit or a miss.
func (s *HTTPServer) ListCacheLookup(ctx context.Context, hit bool) {
	if s == nil {
		return
	}
	if hit {
		s.lists.Add(ctx, CacheResultHit)
	} else {
		s.lists.Add(ctx, CacheResultMiss)
	}
}
