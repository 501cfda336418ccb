// Command server is the brandbase demo server: the /api/v1 handler on an
// SQLite file, a PostgreSQL database or in memory, seeded with demo brands
// on first start.
//
//	go run ./examples/server                  # 127.0.0.1:8080, ./brandbase.db
//	go run ./examples/server -db :memory:     # in-memory store
//	go run ./examples/server -db postgres://user@host/db -addr :8081
//	go run ./examples/server -metrics-addr 127.0.0.1:9090  # and /metrics there
//
// On every start it prints one line to stdout, "demo " followed by a JSON
// object with the demo credentials and ids (docs/operations.md lists them).
// Integration secrets are encrypted with the key ring in brandbase.key
// beside the SQLite database, or in the working directory for PostgreSQL
// (created on first start, mode 0600; random per process for :memory:);
// -keyring, or the environment variable BRANDBASE_KEYRING, names another
// file. After the first start the demo object is read back from the file
// beside the key ring named like it, with .demo.json (brandbase.demo.json).
//
// The demo brand has sign-up open and allows password-reset links to its
// own URL and to http://localhost:5173 and http://127.0.0.1:5173; the other
// brand keeps sign-up closed and caps devices at 2 a user (set on every
// start). Every message the server would send is one more line on stdout,
// "mail " followed by a JSON object (to, kind, link, brandUrl, ...).
//
// Several servers may share one PostgreSQL database (see
// docs/several-instances.md): the first to start seeds it, under an
// advisory lock, and every one prints the same demo line as long as they
// share the key ring and demo files (started in one working directory,
// they do with nothing more to do). It stops cleanly on SIGINT or SIGTERM.
//
// With -metrics-addr it serves the App's OpenTelemetry metrics at /metrics
// on that address, a listener apart from the API's, in the Prometheus text
// format (docs/observability.md lists them); off by default.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/httpadapter"
	"github.com/brandbase/brandbase/internal/serve"
	"github.com/brandbase/brandbase/storage"
	"github.com/brandbase/brandbase/storage/storeurl"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr, nil); err != nil {
		fmt.Fprintln(os.Stderr, "server:", err)
		os.Exit(1)
	}
}

// testAuthOptions are added to the server's auth options. Empty in the
// server, which hashes passwords at auth.DefaultArgon2Params; the tests
// (TestMain) make hashing cheap with them, as every other test of the
// module does, for the race detector makes a default hash take seconds.
var testAuthOptions []auth.Option

// options are the command-line flags.
type options struct {
	addr      string
	db        string
	rateLimit bool
	passwords demoPasswords
	cities    string // -import-cities: a cities file to import before serving
	keyring   string // -keyring: the key ring file; "" for the default place
	cors      string // -cors-origins: comma-separated allowed origins, * for any
	// logRequests is -log-requests: the level of the request log line, or
	// off; logLevel is -log-level: the lowest level the log keeps.
	logRequests requestLogFlag
	logLevel    slog.Level
	// metricsAddr is -metrics-addr: where /metrics is served; off when
	// empty.
	metricsAddr string
}

// requestLogFlag is the value of -log-requests: "off", or a slog level name
// (debug, info, warn, error).
type requestLogFlag struct {
	off   bool
	level slog.Level
}

func (f *requestLogFlag) UnmarshalText(b []byte) error {
	if strings.EqualFold(string(b), "off") {
		*f = requestLogFlag{off: true}
		return nil
	}
	*f = requestLogFlag{}
	return f.level.UnmarshalText(b)
}

func (f requestLogFlag) MarshalText() ([]byte, error) {
	if f.off {
		return []byte("off"), nil
	}
	return f.level.MarshalText()
}

// option returns the adapter option the flag stands for.
func (f requestLogFlag) option() httpadapter.Option {
	if f.off {
		return httpadapter.WithoutRequestLog()
	}
	return httpadapter.WithRequestLogLevel(f.level)
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.addr, "addr", "127.0.0.1:8080", "address to listen on")
	fs.StringVar(&o.db, "db", "brandbase.db", "SQLite database file, :memory: for the in-memory store, or a postgres:// URL")
	fs.StringVar(&o.keyring, "keyring", os.Getenv(keyringEnv),
		"secrets key ring file (default: beside the SQLite file, or brandbase.key in the working directory for PostgreSQL; env "+keyringEnv+")")
	fs.BoolVar(&o.rateLimit, "rate-limit", true, "rate limiting (turn off for load tests)")
	fs.StringVar(&o.passwords.admin, "password", "", "demo admin password: set on the first start (random when empty) and on any later start that names it")
	fs.StringVar(&o.passwords.viewer, "viewer-password", "", "demo viewer password: set on the first start (random when empty) and on any later start that names it")
	fs.StringVar(&o.passwords.other, "other-password", "", "second brand's admin password: set on the first start (random when empty) and on any later start that names it")
	fs.StringVar(&o.cities, "import-cities", "", "CSV or JSON cities file to import before serving (progress on stderr)")
	fs.StringVar(&o.cors, "cors-origins", "", "comma-separated origins allowed to call the API from a browser (CORS), * for any; off when empty")
	o.logRequests.level = httpadapter.DefaultRequestLogLevel
	fs.TextVar(&o.logRequests, "log-requests", o.logRequests,
		"level of the line logged per request (debug, info, warn, error), or off; shown when -log-level keeps it")
	fs.TextVar(&o.logLevel, "log-level", slog.LevelInfo, "lowest level the log (stderr) keeps: debug, info, warn or error")
	fs.StringVar(&o.metricsAddr, "metrics-addr", "",
		"address of a listener of its own serving "+serve.MetricsPath+" (Prometheus text format, OpenTelemetry metrics); off when empty")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	return o, nil
}

// run serves until ctx is done. ready, when not nil, receives the address
// the server listens on.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, ready chan<- string) error {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: o.logLevel}))
	stdout = &lineWriter{w: stdout}

	cfg := brandbase.Config{AuthOptions: append([]auth.Option{auth.WithMessageSender(mailSender(stdout))}, testAuthOptions...),
		OutboundPolicy: brandbase.OutboundPolicy{AllowLoopback: true}} // an SMTP server on this machine, for development
	var storeOpts storeurl.Options
	if o.metricsAddr != "" {
		m, err := serve.StartMetrics(o.metricsAddr, "brandbase-server", logger)
		if err != nil {
			return err
		}
		go m.Serve(logger)
		defer func() {
			shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			m.Close(shutdownCtx)
		}()
		cfg.MeterProvider = m.Provider
		storeOpts.MeterProvider = m.Provider
	}
	store, err := storeurl.Open(ctx, o.db, storeOpts)
	if err != nil {
		return err
	}
	defer store.Close()
	app, demo, err := setUp(ctx, o, cfg, store, stderr)
	if err != nil {
		return err
	}
	defer app.Close()
	if err := printDemo(stdout, demo); err != nil {
		return err
	}

	opts := []httpadapter.Option{httpadapter.WithLogger(logger), o.logRequests.option()}
	if !o.rateLimit {
		opts = append(opts, httpadapter.WithoutRateLimits())
	}
	if o.cors != "" {
		opts = append(opts, httpadapter.WithCORS(strings.Split(o.cors, ",")...))
	}
	api, err := app.Handler(opts...)
	if err != nil {
		return err
	}
	return serve.Run(ctx, serve.Options{
		Addr:        o.addr,
		Handler:     serve.Routes(app.Liveness(), app.Readiness(httpadapter.ReadinessConfig{Logger: logger}), api),
		Logger:      logger,
		ListenAttrs: []any{"db", storeurl.Redact(o.db)},
		Auth:        app.Auth,
		Ready:       ready,
	})
}

// setUp makes the App on store: it reads or creates the key ring, imports
// the -import-cities file, and seeds the demo data or reads the demo object
// back. On PostgreSQL it does all of it holding the database's demo lock,
// so that of several servers starting at once exactly one seeds and the
// others wait for its key ring and demo files. cfg holds the App's settings
// but its key ring, which setUp reads.
func setUp(ctx context.Context, o options, cfg brandbase.Config, store storage.Storage, stderr io.Writer) (*brandbase.App, demoInfo, error) {
	unlock, err := lockDemo(ctx, o.db)
	if err != nil {
		return nil, demoInfo{}, err
	}
	defer unlock()
	brands, err := store.ListBrands(ctx)
	if err != nil {
		return nil, demoInfo{}, err
	}
	keyPath := keyFile(o.db, o.keyring)
	keys, err := loadOrCreateKeys(keyPath, len(brands) > 0)
	if err != nil {
		return nil, demoInfo{}, err
	}
	cfg.SecretKeys = keys
	app, err := brandbase.New(store, cfg)
	if err != nil {
		return nil, demoInfo{}, err
	}
	if o.cities != "" {
		if err := importCities(ctx, app, o.cities, stderr); err != nil {
			app.Close()
			return nil, demoInfo{}, err
		}
	}
	demo, err := loadOrSeedDemo(ctx, app, len(brands) > 0, demoFile(keyPath), o.passwords)
	if err != nil {
		app.Close()
		return nil, demoInfo{}, fmt.Errorf("demo data: %w", err)
	}
	return app, demo, nil
}
