package brandbase_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/httpadapter"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/storage/memory"
	"github.com/brandbase/brandbase/storage/sqlite"
)

// Mount the adapter on a host's own mux and serve a currency list.
func Example() {
	ctx := context.Background()
	store, err := memory.New(ctx)
	if err != nil {
		panic(err)
	}
	defer store.Close()

	app, err := brandbase.New(store, brandbase.Config{})
	if err != nil {
		panic(err)
	}
	defer app.Close() // before store.Close: stops the reference-data index
	if _, err := app.Auth.CreateBrand(ctx, auth.NewBrand{URL: "shop.example.com", Name: "Shop"}); err != nil {
		panic(err)
	}
	api, err := app.Handler()
	if err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/api/v1/", api)

	req := httptest.NewRequest("GET", "/api/v1/currencies?PageSize=1", nil)
	req.Header.Set("Brand-URL", "https://Shop.Example.com/")
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, req)
	fmt.Println(rec.Code, rec.Header().Get("Content-Type"))
	// Output: 200 application/json; charset=utf-8
}

// Choose a store: storage/sqlite keeps everything in one file across
// restarts (storage/memory keeps it in maps, for tests and throwaway use).
// Integration secrets are encrypted with Config.SecretKeys, so a persistent
// store needs a key ring that outlives the process.
func Example_sqlite() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "brandbase-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "app.db")
	keys, err := integrations.NewKeyRing("k1", map[string][]byte{"k1": integrations.GenerateKey()})
	if err != nil {
		panic(err)
	}

	store, err := sqlite.Open(ctx, path)
	if err != nil {
		panic(err)
	}
	app, err := brandbase.New(store, brandbase.Config{SecretKeys: keys})
	if err != nil {
		panic(err)
	}
	if _, err := app.Auth.CreateBrand(ctx, auth.NewBrand{URL: "shop.example.com", Name: "Shop", DefaultCurrency: "EUR"}); err != nil {
		panic(err)
	}
	app.Close()
	store.Close()

	// A restart: the brand is still there.
	store, err = sqlite.Open(ctx, path)
	if err != nil {
		panic(err)
	}
	defer store.Close()
	app, err = brandbase.New(store, brandbase.Config{SecretKeys: keys})
	if err != nil {
		panic(err)
	}
	defer app.Close()
	brand, err := app.Auth.ResolveBrand(ctx, "https://Shop.Example.com/")
	fmt.Println(brand.Name, brand.DefaultCurrency, err)
	_, err = app.Auth.ResolveBrand(ctx, "nobody.example.com")
	fmt.Println(envelope.KindOf(err), envelope.CodeOf(err))
	// Output:
	// Shop EUR <nil>
	// not_found brand_not_found
}

// Mount the adapter beside the host's own routes, with the host's logger
// and options: the host's routes stay the host's, everything under
// /api/v1/ answers in the envelope, and the OpenAPI document needs no
// Brand-URL.
func ExampleApp_Handler() {
	ctx := context.Background()
	store, err := memory.New(ctx)
	if err != nil {
		panic(err)
	}
	defer store.Close()
	app, err := brandbase.New(store, brandbase.Config{})
	if err != nil {
		panic(err)
	}
	defer app.Close() // before store.Close: stops the reference-data index

	logger := slog.New(slog.DiscardHandler) // the host's logger
	api, err := app.Handler(httpadapter.WithLogger(logger), httpadapter.WithoutRateLimits())
	if err != nil {
		panic(err)
	}

	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "ok") })
	mux.Handle("/api/v1/", api)

	for _, path := range []string{"/healthz", "/api/v1/openapi.json", "/api/v1/currencies", "/api/v1/nothing"} {
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		fmt.Println(path, rec.Code)
	}
	// Output:
	// /healthz 200
	// /api/v1/openapi.json 200
	// /api/v1/currencies 400
	// /api/v1/nothing 404
}
