package main

import (
	"context"
	"fmt"
	"io"
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
	outboundAllow                    string
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

// runServe is brandbase serve: it opens the store, builds the App and its
// adapter from the flags, and serves until ctx ends.
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
	f.StringVar(&o.outboundAllow, "outbound-allow", "", "comma-separated address ranges an SMTP server may be in beyond the public internet: loopback, private")
	db, err := f.dbOnly(args)
	if err != nil {
		return err
	}
	prefixes, err := parseTrustedProxies(o.proxies)
	if err != nil {
		return err
	}
	logger, err := newServeLogger(c.stderr, o.logFormat, o.logLevel)
	if err != nil {
		return err
	}
	// One handler for every line: the App's, the adapter's, the store's
	// (given below), and any a library writes to the default logger.
	slog.SetDefault(logger)

	keys, source, err := serveKeyRing(f, db)
	if err != nil {
		return err
	}
	policy, err := parseAllow(o.outboundAllow)
	if err != nil {
		return err
	}
	cfg := brandbase.Config{SecretKeys: keys, Logger: logger, OutboundPolicy: policy}
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
	api, err := app.Handler(o.adapterOptions(logger, prefixes)...)
	if err != nil {
		return err
	}
	ready := app.Readiness(httpadapter.ReadinessConfig{Logger: logger})
	probeOnce(ctx, ready)
	return serve.Run(ctx, serve.Options{
		Addr:            o.addr,
		Handler:         serve.Routes(app.Liveness(), ready, api),
		Logger:          logger,
		ListenAttrs:     []any{"db", storeurl.Redact(db), "keys", source},
		Auth:            app.Auth,
		ShutdownTimeout: o.shutdown,
	})
}

// serveKeyRing is the key ring serve seals secrets with, and where it
// came from: the one the flags or environment name, or, for the memory
// store only, one made for this process. A file store without one is
// errNoKeyRing.
func serveKeyRing(f *flags, db string) (*integrations.KeyRing, string, error) {
	keys, source, err := f.keyRing()
	if err != nil {
		return nil, "", err
	}
	if keys == nil {
		if db != storeurl.MemoryPath {
			return nil, "", errNoKeyRing
		}
		keys, source = integrations.EphemeralKeyRing(), "per process (memory store)"
	}
	return keys, source, nil
}

// parseTrustedProxies reads --trusted-proxies: comma-separated address
// prefixes, or addresses (each its own prefix). It returns a usage error
// naming the first that is neither.
func parseTrustedProxies(list string) ([]netip.Prefix, error) {
	var prefixes []netip.Prefix
	for _, p := range splitList(list) {
		pf, err := netip.ParsePrefix(p)
		if err != nil {
			if a, aerr := netip.ParseAddr(p); aerr == nil {
				pf = netip.PrefixFrom(a, a.BitLen())
			} else {
				return nil, usagef("--trusted-proxies: %q is not an address prefix (10.0.0.0/8) or address", p)
			}
		}
		prefixes = append(prefixes, pf)
	}
	return prefixes, nil
}

// newServeLogger is the logger of --log-format and --log-level, writing to
// w. It returns a usage error for a format other than json or text.
func newServeLogger(w io.Writer, format string, level slog.Level) (*slog.Logger, error) {
	var handler slog.Handler
	switch strings.ToLower(format) {
	case "json":
		handler = slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level})
	case "text":
		handler = slog.NewTextHandler(w, &slog.HandlerOptions{Level: level})
	default:
		return nil, usagef("--log-format must be json or text, not %q", format)
	}
	return slog.New(handler), nil
}

// adapterOptions are the adapter's options that the flags choose: the
// logger, the request log, rate limits, CORS and trusted proxies.
func (o serveOptions) adapterOptions(logger *slog.Logger, prefixes []netip.Prefix) []httpadapter.Option {
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
	return opts
}

// probeOnce asks the readiness probe once, at start: a check failing then,
// or a schema newer than this binary (which it serves: a rolling deploy
// runs both on it), is logged once, here, as later probes log only a
// change.
func probeOnce(ctx context.Context, ready http.Handler) {
	if probe, err := http.NewRequestWithContext(ctx, http.MethodGet, "/readyz", nil); err == nil {
		ready.ServeHTTP(discardResponse{header: http.Header{}}, probe)
	}
}

// discardResponse is a ResponseWriter that keeps nothing.
type discardResponse struct{ header http.Header }

func (d discardResponse) Header() http.Header         { return d.header }
func (d discardResponse) Write(b []byte) (int, error) { return len(b), nil }
func (d discardResponse) WriteHeader(int)             {}
