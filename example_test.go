package brandbase_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/storage/memory"
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
