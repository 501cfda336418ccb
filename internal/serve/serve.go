// Package serve is the wiring that the demo server (examples/server) and
// the brandbase command's serve (cmd/brandbase) share: the http.Server
// and its timeouts, the probes beside the API, the metrics listener, the
// purge of expired keys, the cities import by file name, and the run loop
// that drains requests within a bound on shutdown. What differs between
// the two (demo data and its key file; production defaults and the
// BRANDBASE_* environment) stays in each program.
package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/refdata"
)

// DefaultShutdownTimeout bounds how long Run waits, on shutdown, for the
// requests in flight to finish.
const DefaultShutdownTimeout = 10 * time.Second

// NewHTTPServer returns the http.Server of handler. Every timeout is set,
// so that a slow or idle client cannot hold a connection: the request
// headers must arrive within 5 s of the first byte (slowloris), the whole
// request within 15 s, the answer be written within 30 s, and an idle
// keep-alive connection is closed after 120 s. Headers are limited to 64
// KiB; the server's own errors go to logger. Requests are not tied to the
// process's signal context, so Shutdown lets those in flight finish.
func NewHTTPServer(handler http.Handler, logger *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       15 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
}

// Routes returns the server's handler: the liveness and readiness probes
// at /healthz and /readyz (outside the API: no Brand-URL, no rate limit,
// plain JSON), and api for every other path, which api answers as it
// would alone (a ServeMux in front would redirect unclean paths itself).
func Routes(live, ready, api http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/healthz":
			live.ServeHTTP(w, r)
		case "/readyz":
			ready.ServeHTTP(w, r)
		default:
			api.ServeHTTP(w, r)
		}
	})
}

// Options are what Run serves.
type Options struct {
	// Addr is the address to listen on.
	Addr string
	// Handler answers every request (Routes).
	Handler http.Handler
	// Logger receives the server's lines.
	Logger *slog.Logger
	// ListenAttrs are added to the "listening" line (the database, say).
	ListenAttrs []any
	// Auth, when set, has its expired keys purged at start and hourly.
	Auth *auth.Service
	// ShutdownTimeout bounds the drain of requests in flight once ctx
	// ends; DefaultShutdownTimeout when 0. Past it, the connections left
	// are closed and Run fails.
	ShutdownTimeout time.Duration
	// Ready, when not nil, receives the address listened on.
	Ready chan<- string
}

// Run listens on o.Addr and serves o.Handler until ctx ends, then stops
// taking connections and waits for the requests in flight, at most
// o.ShutdownTimeout. It fails when the address cannot be listened on, the
// server fails, or the drain runs out of time.
func Run(ctx context.Context, o Options) error {
	srv := NewHTTPServer(o.Handler, o.Logger)
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return err
	}
	o.Logger.Info("listening", append([]any{"url", "http://" + ln.Addr().String() + "/api/v1"}, o.ListenAttrs...)...)
	if o.Ready != nil {
		o.Ready <- ln.Addr().String()
	}
	if o.Auth != nil {
		purgeCtx, stopPurge := context.WithCancel(ctx)
		purged := make(chan struct{})
		go func() { defer close(purged); PurgeExpiredKeys(purgeCtx, o.Auth, time.Hour, o.Logger) }()
		defer func() { stopPurge(); <-purged }()
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	o.Logger.Info("shutting down")
	bound := o.ShutdownTimeout
	if bound <= 0 {
		bound = DefaultShutdownTimeout
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		srv.Close()
		return fmt.Errorf("requests still in flight after %s, closed: %w", bound, err)
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// PurgeExpiredKeys deletes the key pairs that have expired, at once and
// then every interval, until ctx is done: nothing else removes them.
func PurgeExpiredKeys(ctx context.Context, a *auth.Service, every time.Duration, logger *slog.Logger) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		PurgeOnce(ctx, a, logger)
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// PurgeOnce deletes the expired key pairs and logs how many, or why not.
func PurgeOnce(ctx context.Context, a *auth.Service, logger *slog.Logger) {
	n, err := a.DeleteExpiredKeys(ctx)
	switch {
	case err != nil && ctx.Err() == nil:
		logger.Warn("deleting expired keys", "error", err)
	case n > 0:
		logger.Info("expired keys deleted", "count", n)
	}
}

// ImportCities loads a CSV or JSON cities file into the app's store,
// telling the format by the file's extension (.csv, .json) or else by its
// content (refdata.Service.ImportCities). Bad rows are skipped and
// reported; an unreadable file fails. read, when not nil, wraps the file
// (to count the bytes read, for a progress bar).
func ImportCities(ctx context.Context, app *brandbase.App, path string, opts refdata.ImportOptions,
	read func(io.Reader) io.Reader) (refdata.ImportReport, error) {
	f, err := os.Open(path)
	if err != nil {
		return refdata.ImportReport{}, fmt.Errorf("import cities: %w", err)
	}
	defer f.Close()
	var r io.Reader = f
	if read != nil {
		r = read(f)
	}
	var report refdata.ImportReport
	switch strings.ToLower(filepath.Ext(path)) {
	case ".csv":
		report, err = app.RefData.ImportCitiesCSV(ctx, r, opts)
	case ".json":
		report, err = app.RefData.ImportCitiesJSON(ctx, r, opts)
	default:
		report, err = app.RefData.ImportCities(ctx, r, opts)
	}
	if err != nil {
		return report, fmt.Errorf("import cities from %s: %w", path, err)
	}
	return report, nil
}
