package main

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/storage/storeurl"
)

// keyringEnv is the environment variable that names the key ring file
// when -keyring is not given.
const keyringEnv = "BRANDBASE_KEYRING"

// defaultKeyFile is the key ring file of a PostgreSQL database, in the
// working directory, so that servers started in one directory share it.
const defaultKeyFile = "brandbase.key"

// keyFile returns where the secret-encryption key ring is kept: the
// -keyring file when given, else beside an SQLite database (brandbase.db →
// brandbase.key), defaultKeyFile for a PostgreSQL URL, and "" (a key ring
// per process) for the in-memory store.
func keyFile(db, keyring string) string {
	switch {
	case keyring != "":
		return keyring
	case db == storeurl.MemoryPath:
		return ""
	case storeurl.IsPostgresURL(db):
		return defaultKeyFile
	}
	return sibling(db, ".key")
}

// loadOrCreateKeys reads the key ring at path (see integrations.ParseKeyRing:
// one "<id>:<base64 key>" line per key, the first the primary), or creates
// the file with one random key, mode 0600, when it does not exist. An empty
// path gives a random key ring that lives as long as the process. It fails
// when the file is missing but the database was seeded already: its
// secrets could not be read with a new key.
func loadOrCreateKeys(path string, seeded bool) (*integrations.KeyRing, error) {
	if path == "" {
		return integrations.EphemeralKeyRing(), nil
	}
	if _, err := os.Stat(path); seeded && errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("the key file %s is missing but the database has data encrypted with it (restore it, give its place with -keyring or %s, or empty the database and delete %s to start over)", path, keyringEnv, filepath.Base(demoFile(path)))
	}
	return integrations.LoadOrCreateKeyRing(path)
}

// seedDemoIntegrations creates, in each brand, one Analytics and one
// PaymentGateway app integration with one configuration each (both the
// brand's default), and records their IDs in d.
func seedDemoIntegrations(ctx context.Context, app *brandbase.App, demo, other auth.Brand, d *demoInfo) error {
	for _, b := range []struct {
		brand                   auth.Brand
		analyticsApp, analytics *string
		gatewayApp, gateway     *string
		trackingID, gatewayName string
	}{
		{demo, &d.AnalyticsAppIntegrationID, &d.AnalyticsIntegrationID, &d.PaymentGatewayAppIntegrationID,
			&d.PaymentGatewayIntegrationID, "G-DEMO000001", "Stripe (test mode)"},
		{other, &d.OtherAnalyticsAppIntegrationID, &d.OtherAnalyticsIntegrationID, &d.OtherPaymentGatewayAppIntegrationID,
			&d.OtherPaymentGatewayIntegrationID, "G-OTHER00001", "PayPal (sandbox)"},
	} {
		// The seed acts as the host itself: the system principal.
		host := auth.SystemPrincipal(b.brand.ID)
		aa, err := app.Integrations.CreateAppIntegration(ctx, host, integrations.AppIntegrationInput{
			Type: integrations.TypeAnalytics, Name: "Google Analytics", Domain: "https://analytics.google.com",
			Description: "Web analytics", LogoURL: new("https://www.gstatic.com/analytics-suite/header/suite/v2/ic_analytics.svg"),
		})
		if err != nil {
			return fmt.Errorf("seed analytics app integration in %s: %w", b.brand.URL, err)
		}
		a, err := app.Integrations.CreateAnalytics(ctx, host, integrations.AnalyticsInput{
			AppIntegrationID: &aa.ID, TrackingID: new(b.trackingID), APIKey: new("AIza" + rand.Text()),
			APISecret: new("secret-" + rand.Text()), Metadata: new("environment=demo"), IsDefault: new(true),
		})
		if err != nil {
			return fmt.Errorf("seed analytics integration in %s: %w", b.brand.URL, err)
		}
		ga, err := app.Integrations.CreateAppIntegration(ctx, host, integrations.AppIntegrationInput{
			Type: integrations.TypePaymentGateway, Name: "Stripe", Domain: "https://stripe.com", Description: "Card payments",
		})
		if err != nil {
			return fmt.Errorf("seed payment-gateway app integration in %s: %w", b.brand.URL, err)
		}
		shop := "https://" + b.brand.URL
		g, err := app.Integrations.CreatePaymentGateway(ctx, host, integrations.PaymentGatewayInput{
			AppIntegrationID: &ga.ID, Name: new(b.gatewayName),
			IPNListenerLink: new(shop + "/payments/ipn"), CancelLink: new(shop + "/checkout/cancel"),
			CancelLinkWithoutLogin: new(shop + "/checkout/cancel-guest"), ReturnLink: new(shop + "/checkout/done"),
			PublicKey: new("pk_test_" + rand.Text()), PrivateKey: new("sk_test_" + rand.Text()),
			TestMode: new(true), IsDefault: new(true),
		})
		if err != nil {
			return fmt.Errorf("seed payment-gateway integration in %s: %w", b.brand.URL, err)
		}
		*b.analyticsApp, *b.analytics, *b.gatewayApp, *b.gateway = aa.ID, a.ID, ga.ID, g.ID
	}
	return nil
}
