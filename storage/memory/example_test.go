package memory_test

import (
	"context"
	"fmt"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/storage/memory"
)

// The in-memory store: every brandbase feature, nothing on disk. Its data
// ends with the process, so it suits tests and throwaway demos.
func ExampleNew() {
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
	brand, err := app.Auth.CreateBrand(ctx, auth.NewBrand{URL: "Shop.Example.com", Name: "Shop"})
	fmt.Println(brand.URL, brand.Status, brand.DefaultCurrency, err)
	// Output: shop.example.com Active USD <nil>
}
