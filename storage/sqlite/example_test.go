package sqlite_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/storage/sqlite"
)

// Open a database file (created and migrated on first open, with the
// reference dataset loaded), check its integrity, and build the services
// on it. Pass ":memory:" for a private in-memory database instead.
func ExampleOpen() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "brandbase-sqlite")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)

	store, err := sqlite.Open(ctx, filepath.Join(dir, "brandbase.db"))
	if err != nil {
		panic(err)
	}
	defer store.Close()
	fmt.Println("integrity:", store.Check(ctx))

	// The key ring that seals integration secrets: a file kept beside, but
	// apart from, the database (brandbase.New refuses a file store without one).
	keys, err := integrations.LoadOrCreateKeyRing(filepath.Join(dir, "brandbase.key"))
	if err != nil {
		panic(err)
	}
	app, err := brandbase.New(store, brandbase.Config{SecretKeys: keys})
	if err != nil {
		panic(err)
	}
	brand, err := app.Auth.CreateBrand(ctx, auth.NewBrand{URL: "shop.example.com", Name: "Shop"})
	if err != nil {
		panic(err)
	}
	page, err := app.RefData.ListCurrencies(ctx, refdata.CurrencyQuery{Page: refdata.Paging{Size: 1}, DefaultCurrency: brand.DefaultCurrency})
	fmt.Println("currencies loaded:", err == nil && page.TotalItems > 100, "page size:", page.PageSize)
	// Output:
	// integrity: <nil>
	// currencies loaded: true page size: 1
}
