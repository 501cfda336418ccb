// Command inprocess uses brandbase without HTTP: the host calls the
// services of a brandbase.App directly. It opens a store, creates the first
// brand and its first user, sets up the brand's integrations as the host
// itself (auth.SystemPrincipal), logs the user in and authenticates the
// key to get the user's principal, lists currencies with a filter, and
// updates an integration as that user, printing what happens and who the
// revisions name. docs/in-process.md walks through it.
//
//	go run ./examples/inprocess                 # in memory
//	go run ./examples/inprocess -db demo.db     # in an SQLite file (new or empty), its key ring in demo.key
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/storage/storeurl"
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
	store, err := storeurl.Open(ctx, *db, storeurl.Options{})
	if err != nil {
		return err
	}
	defer store.Close()
	// A store that outlives the process needs the key ring that seals
	// integration secrets (brandbase.New refuses it without): here a file
	// beside the database, created on the first run. The memory store may
	// do without (a key that lives as long as the process).
	var keys *integrations.KeyRing
	if *db != storeurl.MemoryPath {
		if keys, err = integrations.LoadOrCreateKeyRing(strings.TrimSuffix(*db, filepath.Ext(*db)) + ".key"); err != nil {
			return err
		}
	}
	app, err := brandbase.New(store, brandbase.Config{SecretKeys: keys})
	if err != nil {
		return err
	}
	defer app.Close() // before store.Close: stops the reference-data snapshot's reads
	brand, err := app.Auth.CreateBrand(ctx, auth.NewBrand{URL: "https://Shop.Example.com/", Name: "Shop", DefaultCurrency: "EUR"})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "brand: %s (default currency %s)\n", brand.URL, brand.DefaultCurrency)
	setup, err := setUpIntegrations(ctx, app, brand, out)
	if err != nil {
		return err
	}
	alice, err := showAuth(ctx, app, brand, out)
	if err != nil {
		return err
	}
	if err := showRefData(ctx, app, brand, out); err != nil {
		return err
	}
	return showIntegrations(ctx, app, brand, alice, setup, out)
}

// setup is what the host set up as the system principal.
type setup struct {
	analyticsApp, analytics, gatewayApp, gateway string
}

// setUpIntegrations creates the brand's first integrations as the host
// itself: auth.SystemPrincipal holds every permission in the brand and names
// no user, so the revisions of its changes say the system made them.
func setUpIntegrations(ctx context.Context, app *brandbase.App, brand auth.Brand, out io.Writer) (setup, error) {
	system := auth.SystemPrincipal(brand.ID)
	ga, err := app.Integrations.CreateAppIntegration(ctx, system, integrations.AppIntegrationInput{
		Type: integrations.TypeAnalytics, Name: "Google Analytics", Domain: "https://analytics.google.com"})
	if err != nil {
		return setup{}, err
	}
	a, err := app.Integrations.CreateAnalytics(ctx, system, integrations.AnalyticsInput{
		AppIntegrationID: &ga.ID, TrackingID: new("G-12345"), APIKey: new("AIzaSyExample1234")})
	if err != nil {
		return setup{}, err
	}
	fmt.Fprintf(out, "analytics created by the system: %s, apiKey %s, %s\n", a.TrackingID, *a.APIKey, a.Status)
	stripe, err := app.Integrations.CreateAppIntegration(ctx, system, integrations.AppIntegrationInput{
		Type: integrations.TypePaymentGateway, Name: "Stripe", Domain: "https://stripe.com"})
	if err != nil {
		return setup{}, err
	}
	g, err := app.Integrations.CreatePaymentGateway(ctx, system, integrations.PaymentGatewayInput{
		AppIntegrationID: &stripe.ID, Name: new("Stripe"), PrivateKey: new("sk_test_Example5678"),
		ReturnLink: new("https://shop.example.com/checkout/done"), TestMode: new(true), IsDefault: new(true)})
	if err != nil {
		return setup{}, err
	}
	fmt.Fprintf(out, "payment gateway created by the system: %s, privateKey %s, test mode %v\n", *g.Name, *g.PrivateKey, g.TestMode)
	return setup{analyticsApp: ga.ID, analytics: a.ID, gatewayApp: stripe.ID, gateway: g.ID}, nil
}

// showAuth creates the brand's first user in-process, logs in and
// authenticates the key as a request would: the principal a host acts with
// on a user's behalf.
func showAuth(ctx context.Context, app *brandbase.App, brand auth.Brand, out io.Writer) (auth.Principal, error) {
	const password = "correct horse battery"
	user, err := app.Auth.CreateUser(ctx, brand.ID, auth.NewUser{
		Username: "alice", EmailAddress: "alice@shop.example.com", Password: password,
		Permissions: []auth.Permission{auth.PermAnalyticsWrite},
	})
	if err != nil {
		return auth.Principal{}, err
	}
	fmt.Fprintf(out, "user: %s %v\n", user.Username, user.Permissions)

	// Log in, then authenticate the key as a request would.
	_, err = app.Auth.Login(ctx, brand, auth.LoginRequest{Username: "alice", Password: "wrong password"})
	fmt.Fprintf(out, "login with a wrong password: %s (%s)\n", envelope.KindOf(err), envelope.CodeOf(err))
	sess, err := app.Auth.Login(ctx, brand, auth.LoginRequest{EmailAddress: "Alice@Shop.Example.com", Password: password})
	if err != nil {
		return auth.Principal{}, err
	}
	fmt.Fprintf(out, "login: %s, authKey valid for %v\n", sess.User.Username, time.Until(sess.ExpiresAt).Round(time.Hour))
	alice, err := app.Auth.Authenticate(ctx, brand, sess.AuthKey)
	if err != nil {
		return auth.Principal{}, err
	}
	fmt.Fprintf(out, "authenticated: %s, may write analytics: %v, payment gateways: %v\n",
		alice.Username, alice.Can(auth.PermAnalyticsWrite), alice.Can(auth.PermPaymentGatewayWrite))
	return alice, nil
}

// showRefData lists reference data in-process.
func showRefData(ctx context.Context, app *brandbase.App, brand auth.Brand, out io.Writer) error {

	// A filtered list, as GET /api/v1/currencies?IsCoin=true&SortDataField=code&PageSize=5
	// answers it.
	page, err := app.RefData.ListCurrencies(ctx, refdata.CurrencyQuery{
		IsCoin: new(true), SortDataField: new("code"), Page: refdata.Paging{Size: 5},
		DefaultCurrency: brand.DefaultCurrency,
	})
	if err != nil {
		return err
	}
	var codes []string
	for _, c := range page.Items {
		codes = append(codes, c.Code)
	}
	fmt.Fprintf(out, "cryptocurrencies: %d, the first %d: %s\n", page.TotalItems, len(codes), strings.Join(codes, " "))
	_, err = app.RefData.ListCurrencies(ctx, refdata.CurrencyQuery{Page: refdata.Paging{Number: -1}, DefaultCurrency: brand.DefaultCurrency})
	var bad *envelope.Error
	if errors.As(err, &bad) {
		fmt.Fprintf(out, "a negative page: %s, field %s: %s\n", bad.Kind, bad.Fields[0].Field, bad.Fields[0].Code)
	}
	return nil
}

// showIntegrations updates the analytics integration as alice, as
// PUT /api/v1/app-integrations/analytics/{id} would with her Auth-Key, and
// the payment gateway as the system; the revisions name who did which.
func showIntegrations(ctx context.Context, app *brandbase.App, brand auth.Brand, alice auth.Principal, set setup, out io.Writer) error {
	a, err := app.Integrations.Analytics(ctx, brand.ID, set.analytics)
	if err != nil {
		return err
	}
	// The masked key sent back keeps the stored one.
	a, err = app.Integrations.UpdateAnalytics(ctx, alice, a.ID, integrations.AnalyticsInput{
		AppIntegrationID: &set.analyticsApp, TrackingID: new("G-67890"), APIKey: a.APIKey, IsDefault: new(true),
	}, integrations.IfMatch(a.ETag()))
	if err != nil {
		return err
	}
	secrets, err := app.Integrations.AnalyticsSecrets(ctx, brand.ID, a.ID)
	if err != nil {
		return err
	}
	last, err := lastRevision(ctx, app, brand, integrations.KindAnalytics, a.ID)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "analytics updated by alice: %s, default %v, apiKey kept: %v, changed %v\n",
		a.TrackingID, a.IsDefault, secrets.APIKey != nil && *secrets.APIKey == "AIzaSyExample1234", last.Fields)
	fmt.Fprintf(out, "its revision names: %s\n", actor(last, alice))

	// alice may not write payment gateways...
	g, err := app.Integrations.PaymentGateway(ctx, brand.ID, set.gateway)
	if err != nil {
		return err
	}
	in := integrations.PaymentGatewayInput{AppIntegrationID: &set.gatewayApp, Name: g.Name, PrivateKey: g.PrivateKey,
		ReturnLink: g.ReturnLink, TestMode: &g.TestMode, IsDefault: &g.IsDefault, Notes: new("checked by the nightly job")}
	_, err = app.Integrations.UpdatePaymentGateway(ctx, alice, g.ID, in)
	fmt.Fprintf(out, "alice updating the payment gateway: %s (%s)\n", envelope.KindOf(err), envelope.CodeOf(err))
	// ...the host may, as the system.
	if _, err = app.Integrations.UpdatePaymentGateway(ctx, auth.SystemPrincipal(brand.ID), g.ID, in); err != nil {
		return err
	}
	last, err = lastRevision(ctx, app, brand, integrations.KindPaymentGateway, g.ID)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "payment gateway updated, changed %v, its revision names: %s\n", last.Fields, actor(last, alice))
	return nil
}

// lastRevision returns the latest revision of a record.
func lastRevision(ctx context.Context, app *brandbase.App, brand auth.Brand, kind integrations.RecordKind, id string) (integrations.Revision, error) {
	revs, err := app.Integrations.Revisions(ctx, brand.ID, kind, id)
	if err != nil {
		return integrations.Revision{}, err
	}
	if len(revs) == 0 {
		return integrations.Revision{}, errors.New("no revision")
	}
	return revs[len(revs)-1], nil
}

// actor says who a revision names: the system, or a user (alice, here).
func actor(rev integrations.Revision, alice auth.Principal) string {
	switch {
	case rev.ActorSystem:
		return "the system"
	case rev.ActorUserID == alice.UserID:
		return "user " + alice.Username
	}
	return "user " + rev.ActorUserID
}
