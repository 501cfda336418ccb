// Command embed shows brandbase inside an existing application: the host
// keeps its own mux, routes and logger, and mounts the brandbase adapter
// under /api/v1/ beside them.
//
//	go run ./examples/embed                       # 127.0.0.1:8081, ./embed.db
//	go run ./examples/embed -db :memory: -brand shop.example.com
//
// The host creates its brand on start (brands are created in-process;
// there are no brand routes). Integration secrets are encrypted with the
// key ring in the BRANDBASE_SECRET_KEYS environment variable
// ("<id>:<base64 key>" lines, see integrations.ParseKeyRing); without it,
// with the key ring file beside the database (embed.db → embed.key,
// created on the first start, see integrations.LoadOrCreateKeyRing), or for
// :memory: with a key that lives as long as the process (and a warning).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/httpadapter"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/storage/storeurl"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stderr, nil); err != nil {
		fmt.Fprintln(os.Stderr, "embed:", err)
		os.Exit(1)
	}
}

// config is what the flags and environment set.
type config struct {
	addr, db, brand string
	keys            *integrations.KeyRing
}

func parseConfig(args []string, getenv func(string) string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("embed", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.addr, "addr", "127.0.0.1:8081", "address to listen on")
	fs.StringVar(&c.db, "db", "embed.db", "SQLite database file, or :memory: for the in-memory store")
	fs.StringVar(&c.brand, "brand", "shop.example.com", "the host's brand, created on start when missing")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	if text := getenv("BRANDBASE_SECRET_KEYS"); text != "" {
		keys, err := integrations.ParseKeyRing([]byte(text))
		if err != nil {
			return c, fmt.Errorf("BRANDBASE_SECRET_KEYS: %w", err)
		}
		c.keys = keys
	}
	return c, nil
}

// run serves until ctx is done. ready, when not nil, receives the address
// the server listens on.
func run(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer, ready chan<- string) error {
	c, err := parseConfig(args, getenv, stderr)
	if err != nil {
		return err
	}
	// The host's logger: brandbase logs through it too.
	logger := slog.New(slog.NewJSONHandler(stderr, nil)).With("app", "embed")
	if c.keys == nil {
		if c.db == storeurl.MemoryPath {
			logger.Warn("BRANDBASE_SECRET_KEYS is not set: integration secrets live as long as the in-memory store")
		} else {
			// brandbase.New refuses a file store without a key ring: keep
			// one beside the database, created on the first start.
			path := strings.TrimSuffix(c.db, filepath.Ext(c.db)) + ".key"
			if c.keys, err = integrations.LoadOrCreateKeyRing(path); err != nil {
				return err
			}
			logger.Info("secrets key ring", "file", path)
		}
	}

	store, err := storeurl.Open(ctx, c.db, storeurl.Options{})
	if err != nil {
		return err
	}
	defer store.Close()
	app, err := brandbase.New(store, brandbase.Config{
		SecretKeys:  c.keys,
		AuthOptions: []auth.Option{auth.WithLogger(logger)},
	})
	if err != nil {
		return err
	}
	defer app.Close() // before store.Close: stops the reference-data snapshot's reads
	if err := ensureBrand(ctx, app, c.brand); err != nil {
		return err
	}
	// The host keeps INFO and above, and wants one line per request there
	// (brandbase logs them at DEBUG unless told).
	api, err := app.Handler(httpadapter.WithLogger(logger), httpadapter.WithRequestLogLevel(slog.LevelInfo))
	if err != nil {
		return err
	}

	srv := &http.Server{
		Handler:           hostMux(api, c.brand),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       15 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		return err
	}
	logger.Info("listening", "url", "http://"+ln.Addr().String()+"/", "db", c.db, "brand", c.brand)
	if ready != nil {
		ready <- ln.Addr().String()
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return err
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// hostMux is the host's own mux: its routes, and brandbase under /api/v1/.
func hostMux(api http.Handler, brand string) *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintf(w, "The host's own page. brandbase is under /api/v1/ (try /api/v1/openapi.json, "+
			"or /api/v1/currencies with the header Brand-URL: %s).\n", brand)
	})
	mux.Handle("/api/v1/", api)
	return mux
}

// ensureBrand creates the brand unless it exists.
func ensureBrand(ctx context.Context, app *brandbase.App, url string) error {
	_, err := app.Auth.ResolveBrand(ctx, url)
	if envelope.CodeOf(err) == auth.CodeBrandNotFound {
		_, err = app.Auth.CreateBrand(ctx, auth.NewBrand{URL: url, Name: url})
	}
	if err != nil {
		return fmt.Errorf("brand %s: %w", url, err)
	}
	return nil
}
