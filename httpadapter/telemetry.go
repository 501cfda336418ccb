package httpadapter

import (
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// WithMeterProvider makes the handler record its metrics with mp:
// http.server.request.duration (by method, route template and status) and
// http.server.active_requests, the requests its rate limits refuse (by
// policy), and the logins they refuse (brandbase.auth.logins, outcome
// "limited"). docs/observability.md lists them. Without it, or with nil,
// nothing is recorded; the global otel provider is never read. No
// attribute holds a brand, user, key or raw path: a request no route
// matches is recorded under the route "unmatched".
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(h *Handler) { h.telConfig.MeterProvider = mp }
}

// WithTracerProvider makes the handler start a server span per request
// with tp, named after the method and the route template ("GET
// /api/v1/cities"), with the semantic-convention attributes of the
// request; a 5xx answer marks it an error. It is a child of the trace
// context the request carries (see [WithPropagator]). Without it, or with
// nil, no span is made.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(h *Handler) { h.telConfig.TracerProvider = tp }
}

// WithPropagator sets how the trace context of a request is read from its
// headers; propagation.TraceContext (the W3C traceparent header) when not
// given or nil. It matters only with [WithTracerProvider].
func WithPropagator(p propagation.TextMapPropagator) Option {
	return func(h *Handler) { h.telConfig.Propagator = p }
}
