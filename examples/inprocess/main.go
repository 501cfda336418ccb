// Command inprocess uses brandbase without HTTP: the host calls the
// services of a brandbase.App directly. It opens a store, creates a brand
// and a user, logs the user in, lists currencies with a filter, and updates
// an analytics integration as that user, printing what happens.
//
//	go run ./examples/inprocess                 # in memory
//	go run ./examples/inprocess -db demo.db     # in an SQLite file (new or empty)
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/refdata"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "inprocess:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("inprocess", flag.ContinueOnError)
	fs.SetOutput(out)
	db := fs.String("db", ":memory:", "SQLite database file, or :memory: for the in-memory store")
	if err := fs.Parse(args); err != nil {
		return err
	}
	store, err := brandbase.OpenStore(ctx, *db)
	if err != nil {
		return err
	}
	defer store.Close()
	app, err := brandbase.New(store, brandbase.Config{})
	if err != nil {
		return err
	}
	defer app.Close() // before store.Close: stops the reference-data index
	brand, alice, err := showAuth(ctx, app, out)
	if err != nil {
		return err
	}
	if err := showRefData(ctx, app, brand, out); err != nil {
		return err
	}
	return showIntegrations(ctx, app, brand, alice, out)
}

// showAuth creates a brand and a user in-process, logs in and
// authenticates the key as a request would.
func showAuth(ctx context.Context, app *brandbase.App, out io.Writer) (auth.Brand, auth.Principal, error) {
	// Brands and users are created in-process.
	brand, err := app.Auth.CreateBrand(ctx, auth.NewBrand{URL: "https://Shop.Example.com/", Name: "Shop", DefaultCurrency: "EUR"})
	if err != nil {
		return auth.Brand{}, auth.Principal{}, err
	}
	fmt.Fprintf(out, "brand: %s (default currency %s)\n", brand.URL, brand.DefaultCurrency)
	const password = "correct horse battery"
	user, err := app.Auth.CreateUser(ctx, brand.ID, auth.NewUser{
		Username: "alice", EmailAddress: "alice@shop.example.com", Password: password,
		Permissions: []auth.Permission{auth.PermAnalyticsWrite},
	})
	if err != nil {
		return auth.Brand{}, auth.Principal{}, err
	}
	fmt.Fprintf(out, "user: %s %v\n", user.Username, user.Permissions)

	// Log in, then authenticate the key as a request would.
	_, err = app.Auth.Login(ctx, brand, auth.LoginRequest{Username: "alice", Password: "wrong password"})
	fmt.Fprintf(out, "login with a wrong password: %s (%s)\n", envelope.KindOf(err), envelope.CodeOf(err))
	sess, err := app.Auth.Login(ctx, brand, auth.LoginRequest{EmailAddress: "Alice@Shop.Example.com", Password: password})
	if err != nil {
		return auth.Brand{}, auth.Principal{}, err
	}
	fmt.Fprintf(out, "login: %s, authKey valid for %v\n", sess.User.Username, time.Until(sess.ExpiresAt).Round(time.Hour))
	alice, err := app.Auth.Authenticate(ctx, brand, sess.AuthKey)
	if err != nil {
		return auth.Brand{}, auth.Principal{}, err
	}
	fmt.Fprintf(out, "authenticated: %s, may write analytics: %v, payment gateways: %v\n",
		alice.Username, alice.Can(auth.PermAnalyticsWrite), alice.Can(auth.PermPaymentGatewayWrite))
	return brand, alice, nil
}

// showRefData lists reference data in-process.
func showRefData(ctx context.Context, app *brandbase.App, brand auth.Brand, out io.Writer) error {

	// A filtered list, as GET /api/v1/currencies?IsCoin=true&SortDataField=code&PageSize=5
	// answers it.
	page, err := app.RefData.ListCurrencies(ctx, brand.DefaultCurrency, refdata.CurrencyQuery{
		IsCoin: new(true), SortDataField: new("code"), Page: refdata.Paging{Size: 5},
	})
	if err != nil {
		return err
	}
	var codes []string
	for _, c := range page.Items {
		codes = append(codes, c.Code)
	}
	fmt.Fprintf(out, "cryptocurrencies: %d, the first %d: %s\n", page.TotalItems, len(codes), strings.Join(codes, " "))
	_, err = app.RefData.ListCurrencies(ctx, brand.DefaultCurrency, refdata.CurrencyQuery{Page: refdata.Paging{Number: -1}})
	var bad *envelope.Error
	if errors.As(err, &bad) {
		fmt.Fprintf(out, "a negative page: %s, field %s: %s\n", bad.Kind, bad.Fields[0].Field, bad.Fields[0].Code)
	}
	return nil
}

// showIntegrations sets up an analytics integration as the host, and
// updates it as alice.
func showIntegrations(ctx context.Context, app *brandbase.App, brand auth.Brand, alice auth.Principal, out io.Writer) error {

	// The host sets up an integration with a principal of its own...
	host := auth.Principal{UserID: "host", BrandID: brand.ID, Permissions: []auth.Permission{auth.PermAll}}
	ga, err := app.Integrations.CreateAppIntegration(ctx, host, brand.ID, integrations.AppIntegrationInput{
		Type: integrations.TypeAnalytics, Name: "Google Analytics", Domain: "https://analytics.google.com"})
	if err != nil {
		return err
	}
	a, err := app.Integrations.CreateAnalytics(ctx, host, brand.ID, integrations.AnalyticsInput{
		AppIntegrationID: &ga.ID, TrackingID: new("G-12345"), APIKey: new("AIzaSyExample1234")})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "analytics created: %s, apiKey %s, %s\n", a.TrackingID, a.APIKey, a.Status)

	// ...and alice updates it, as PUT /api/v1/app-integrations/analytics/{id}
	// would with her Auth-Key. The masked key sent back keeps the stored one.
	a, err = app.Integrations.UpdateAnalytics(ctx, alice, brand.ID, a.ID, integrations.AnalyticsInput{
		AppIntegrationID: &ga.ID, TrackingID: new("G-67890"), APIKey: &a.APIKey, IsDefault: new(true),
	}, integrations.IfMatch(a.ETag()))
	if err != nil {
		return err
	}
	secrets, err := app.Integrations.AnalyticsSecrets(ctx, brand.ID, a.ID)
	if err != nil {
		return err
	}
	revs, err := app.Integrations.Revisions(ctx, brand.ID, integrations.KindAnalytics, a.ID)
	if err != nil {
		return err
	}
	last := revs[len(revs)-1]
	fmt.Fprintf(out, "analytics updated by %s: %s, default %v, apiKey kept: %v, changed %v\n",
		alice.Username, a.TrackingID, a.IsDefault, secrets.APIKey == "AIzaSyExample1234", last.Fields)

	// Without the permission the update is refused.
	_, err = app.Integrations.UpdateAnalytics(ctx, auth.Principal{UserID: "bob", BrandID: brand.ID}, brand.ID, a.ID,
		integrations.AnalyticsInput{AppIntegrationID: &ga.ID, TrackingID: new("G-0")}, nil)
	fmt.Fprintf(out, "update without permission: %s (%s)\n", envelope.KindOf(err), envelope.CodeOf(err))
	return nil
}
