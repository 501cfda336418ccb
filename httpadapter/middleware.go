package httpadapter

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/brandbase/brandbase/auth"
)

// ctxKey is the type of the adapter's context keys.
type ctxKey int

const (
	brandKey ctxKey = iota
	principalKey
	requestKey
)

// brandFrom returns the brand the brand middleware resolved, or the zero
// Brand.
func brandFrom(ctx context.Context) auth.Brand {
	b, _ := ctx.Value(brandKey).(auth.Brand)
	return b
}

// principalFrom returns the principal the auth-key middleware resolved, or
// the zero Principal.
func principalFrom(ctx context.Context) auth.Principal {
	p, _ := ctx.Value(principalKey).(auth.Principal)
	return p
}

// requestInfo is what the request log learns while the request is served.
type requestInfo struct {
	// brandURL is the normalised URL of the brand the request named, once
	// resolved.
	brandURL string
	// pattern is the route pattern that serves the request ("GET
	// /api/v1/cities"), once dispatch found one.
	pattern string
}

func infoFrom(ctx context.Context) *requestInfo {
	ri, _ := ctx.Value(requestKey).(*requestInfo)
	if ri == nil {
		return &requestInfo{}
	}
	return ri
}

// recorder remembers the status and size written through it.
type recorder struct {
	http.ResponseWriter
	status int
	bytes  int
}

func (rec *recorder) WriteHeader(status int) {
	rec.ResponseWriter.WriteHeader(status)
	if rec.status == 0 {
		rec.status = status
	}
}

func (rec *recorder) Write(b []byte) (int, error) {
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	n, err := rec.ResponseWriter.Write(b)
	rec.bytes += n
	return n, err
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (rec *recorder) Unwrap() http.ResponseWriter { return rec.ResponseWriter }

// observe wraps next with panic recovery, one log line per request and,
// when the handler has providers (WithMeterProvider, WithTracerProvider),
// the request's metrics and server span. A panic is answered with a 500
// envelope (when nothing was written yet) and logged with its stack;
// http.ErrAbortHandler is re-raised for net/http.
func (h *Handler) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ri := &requestInfo{}
		ctx, tr := h.tel.Start(r)
		r = r.WithContext(context.WithValue(ctx, requestKey, ri))
		rec := &recorder{ResponseWriter: w}
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				h.log.ErrorContext(r.Context(), "panic serving request",
					"method", r.Method, "path", r.URL.Path, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
				if rec.status == 0 {
					clear(rec.Header()) // drop what the failed answer had set
					h.cors.setHeaders(rec.Header(), r)
					h.fail(rec, r, fmt.Errorf("panic: %v", v))
				}
			}
			tr.End(r.Context(), ri.pattern, cmp.Or(rec.status, http.StatusOK))
			h.logRequest(r, rec, ri, time.Since(start))
		}()
		next.ServeHTTP(rec, r)
	})
}

// logRequest writes the request log line of r (see WithRequestLogLevel),
// unless it is off or the logger does not keep its level.
func (h *Handler) logRequest(r *http.Request, rec *recorder, ri *requestInfo, took time.Duration) {
	ctx := r.Context()
	if h.reqLog.off || !h.log.Enabled(ctx, h.reqLog.level) {
		return
	}
	attrs := make([]slog.Attr, 0, 6)
	attrs = append(attrs, slog.String("method", r.Method), slog.String("path", r.URL.Path),
		slog.Int("status", rec.status), slog.Int("bytes", rec.bytes),
		slog.Float64("duration_ms", durationMillis(took)))
	if ri.brandURL != "" {
		attrs = append(attrs, slog.String("brand", ri.brandURL))
	}
	h.log.LogAttrs(ctx, h.reqLog.level, "request", attrs...)
}

// durationMillis returns d in milliseconds, to the microsecond.
func durationMillis(d time.Duration) float64 {
	return float64(d.Microseconds()) / 1000
}

// withBrand resolves the Brand-URL header to an active brand and stores it
// in the request context; it answers 400, 404 or 403 as auth.Service.ResolveBrand
// decides, and 503 when the store cannot be reached.
func (h *Handler) withBrand(next http.HandlerFunc) http.Handler {
	return h.resolvingBrand(h.svc.Auth.ResolveBrand, next)
}

// withLastKnownBrand is withBrand for routes whose answers hold nothing a
// revocation protects (the reference-data lists): while the store cannot
// be reached, the brand is resolved from the last record of it this
// instance read (auth.Service.ResolveBrandOrLastKnown), so that the lists
// the instance holds keep answering.
func (h *Handler) withLastKnownBrand(next http.HandlerFunc) http.Handler {
	return h.resolvingBrand(h.svc.Auth.ResolveBrandOrLastKnown, next)
}

// resolvingBrand resolves the Brand-URL header with resolve and stores the
// brand in the request context, or answers resolve's error.
func (h *Handler) resolvingBrand(resolve func(context.Context, string) (auth.Brand, error), next http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := resolve(r.Context(), r.Header.Get("Brand-URL"))
		if err != nil {
			h.fail(w, r, err)
			return
		}
		infoFrom(r.Context()).brandURL = b.URL
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), brandKey, b)))
	})
}

// withAuthKey resolves the brand (as withBrand) and then the Auth-Key header
// to a principal of that brand, stored in the request context; it answers
// 401 unauthenticated when the key is missing or not valid. A request that
// carries the Device-Code header of a revoked device of the principal's
// user is answered 403 device_revoked (auth.Service.CheckDevice): this
// holds on every route behind this middleware.
func (h *Handler) withAuthKey(next http.HandlerFunc) http.Handler {
	return h.withBrand(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		p, err := h.svc.Auth.Authenticate(ctx, brandFrom(ctx), r.Header.Get("Auth-Key"))
		if err == nil {
			err = h.svc.Auth.CheckDevice(ctx, p, r.Header.Get("Device-Code"))
		}
		if err != nil {
			h.fail(w, r, err)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(ctx, principalKey, p)))
	})
}
