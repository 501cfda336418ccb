package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/httpadapter"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/internal/serve"
	"github.com/brandbase/brandbase/storage/storeurl"
)

// serveOptions are the flags of serve (each with its BRANDBASE_*
// variable; see envVars).
type serveOptions struct {
	addr, metricsAddr, cors, proxies string
	logFormat                        string
	logLevel                         slog.Level
	logRequests                      requestLog
	shutdown                         time.Duration
	rateLimit                        bool
}

// requestLog is --log-requests: a level, or off.
type requestLog struct {
	off   bool
	level slog.Level
}

func (r *requestLog) UnmarshalText(b []byte) error {
	if strings.EqualFold(string(b), "off") {
		*r = requestLog{off: true}
		return nil
	}
	*r = requestLog{}
	return r.level.UnmarshalText(b)
}

func (r requestLog) MarshalText() ([]byte, error) {
	if r.off {
		return []byte("off"), nil
	}
	return r.level.MarshalText()
}

func runServe(ctx context.Context, c *cli, args []string) error {
	f := newFlags(c, "serve", "brandbase serve [flags]")
	var o serveOptions
	f.StringVar(&o.addr, "addr", ":8080", "the address of the API (/api/v1/) and the probes (/healthz, /readyz)")
	f.StringVar(&o.metricsAddr, "metrics-addr", "", "the address of a listener of its own serving /metrics; off when empty")
	f.StringVar(&o.cors, "cors-origins", "", "comma-separated origins allowed to call the API from a browser, * for any; off when empty")
	f.StringVar(&o.proxies, "trusted-proxies", "", "comma-separated address prefixes (10.0.0.0/8) of the reverse proxies whose X-Forwarded-For is trusted")
	f.StringVar(&o.logFormat, "log-format", "json", "json or text")
	f.TextVar(&o.logLevel, "log-level", slog.LevelInfo, "the lowest level logged: debug, info, warn or error")
	f.TextVar(&o.logRequests, "log-requests", requestLog{level: slog.LevelInfo}, "the level of the line logged per request, or off")
	f.DurationVar(&o.shutdown, "shutdown-timeout", serve.DefaultShutdownTimeout, "how long requests in flight may finish on SIGINT or SIGTERM")
	f.BoolVar(&o.rateLimit, "rate-limit", true, "the API's rate limits (false turns them off)")
	db, err := f.dbOnly(args)
	if err != nil {
		return err
	}
	var prefixes []netip.Prefix
	for _, p := range splitList(o.proxies) {
		pf, err := netip.ParsePrefix(p)
		if err != nil {
			if a, aerr := netip.ParseAddr(p); aerr == nil {
				pf = netip.PrefixFrom(a, a.BitLen())
			} else {
				return usagef("--trusted-proxies: %q is not an address prefix (10.0.0.0/8) or address", p)
			}
		}
		prefixes = append(prefixes, pf)
	}
	var handler slog.Handler
	switch strings.ToLower(o.logFormat) {
	case "json":
		handler = slog.NewJSONHandler(c.stderr, &slog.HandlerOptions{Level: o.logLevel})
	case "text":
		handler = slog.NewTextHandler(c.stderr, &slog.HandlerOptions{Level: o.logLevel})
	default:
		return usagef("--log-format must be json or text, not %q", o.logFormat)
	}
	// One handler for every line: the App's, the adapter's, the store's
	// (given below), and any a library writes to the default logger.
	logger := slog.New(handler)
	slog.SetDefault(logger)

	keys, source, err := f.keyRing()
	if err != nil {
		return err
	}
	if keys == nil {
		if db != storeurl.MemoryPath {
			return errNoKeyRing
		}
		keys = integrations.EphemeralKeyRing()
		source = "per process (memory store)"
	}
	cfg := brandbase.Config{SecretKeys: keys, Logger: logger}
	storeOpts := storeurl.Options{Logger: logger}
	if o.metricsAddr != "" {
		m, err := serve.StartMetrics(o.metricsAddr, "brandbase", logger)
		if err != nil {
			return err
		}
		go m.Serve(logger)
		defer func() {
			sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			m.Close(sctx)
		}()
		cfg.MeterProvider, storeOpts.MeterProvider = m.Provider, m.Provider
	}
	store, err := storeurl.Open(ctx, db, storeOpts)
	if err != nil {
		return fmt.Errorf("cannot open the database %s: %w (check --db or BRANDBASE_DATABASE_URL)", storeurl.Redact(db), err)
	}
	defer store.Close()
	app, err := brandbase.New(store, cfg)
	if err != nil {
		return err
	}
	defer app.Close()
	if err := app.WarmUp(ctx); err != nil {
		logger.Warn("reading the reference data", "error", err) // readiness fails until it is read
	}
	opts := []httpadapter.Option{httpadapter.WithLogger(logger)}
	if o.logRequests.off {
		opts = append(opts, httpadapter.WithoutRequestLog())
	} else {
		opts = append(opts, httpadapter.WithRequestLogLevel(o.logRequests.level))
	}
	if !o.rateLimit {
		opts = append(opts, httpadapter.WithoutRateLimits())
	}
	if cors := splitList(o.cors); len(cors) > 0 {
		opts = append(opts, httpadapter.WithCORS(cors...))
	}
	if len(prefixes) > 0 {
		opts = append(opts, httpadapter.WithTrustedProxies(prefixes...))
	}
	api, err := app.Handler(opts...)
	if err != nil {
		return err
	}
	ready := app.Readiness(httpadapter.ReadinessConfig{Logger: logger})
	// One probe now: a check failing at start, or a schema newer than
	// this binary (which it serves: a rolling deploy runs both on it), is
	// logged once, here, as later probes log only a change.
	if probe, err := http.NewRequestWithContext(ctx, http.MethodGet, "/readyz", nil); err == nil {
		ready.ServeHTTP(discardResponse{header: http.Header{}}, probe)
	}
	return serve.Run(ctx, serve.Options{
		Addr:            o.addr,
		Handler:         serve.Routes(app.Liveness(), ready, api),
		Logger:          logger,
		ListenAttrs:     []any{"db", storeurl.Redact(db), "keys", source},
		Auth:            app.Auth,
		ShutdownTimeout: o.shutdown,
	})
}

// discardResponse is a ResponseWriter that keeps nothing.
type discardResponse struct{ header http.Header }

func (d discardResponse) Header() http.Header         { return d.header }
func (d discardResponse) Write(b []byte) (int, error) { return len(b), nil }
func (d discardResponse) WriteHeader(int)             {}
