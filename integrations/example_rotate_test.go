package integrations_test

import (
	"context"
	"fmt"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/storage/memory"
)

// Rotate the key that encrypts integration secrets: put the new key first
// in the ring (keeping the old one, which still decrypts), re-encrypt
// everything under it (brand by brand, resumable), check that no secret
// needs the old key, then drop it.
func ExampleService_RotateSecrets() {
	ctx := context.Background()
	store, err := memory.New(ctx)
	if err != nil {
		panic(err)
	}
	defer store.Close()
	oldKey, newKey := integrations.GenerateKey(), integrations.GenerateKey()

	// Secrets written under the 2025 key.
	ring2025, _ := integrations.NewKeyRing("2025", map[string][]byte{"2025": oldKey})
	svc := integrations.NewService(store, integrations.WithKeyRing(ring2025))
	brand, _ := auth.NewService(store).CreateBrand(ctx, auth.NewBrand{URL: "shop.example.com", Name: "Shop"})
	host := auth.Principal{UserID: "host", BrandID: brand.ID, Permissions: []auth.Permission{auth.PermAll}}
	app, _ := svc.CreateAppIntegration(ctx, host, integrations.AppIntegrationInput{
		Type: integrations.TypeAnalytics, Name: "Analytics", Domain: "https://analytics.example.com"})
	a, _ := svc.CreateAnalytics(ctx, host, integrations.AnalyticsInput{
		AppIntegrationID: &app.ID, TrackingID: new("G-1"), APIKey: new("ak_live_123456789"), APISecret: new("s3cret-value")})

	// 1. The new key first, the old one kept: the ring file would read
	//    "2026:<base64>\n2025:<base64>\n" (see ParseKeyRing).
	both, err := integrations.ParseKeyRing([]byte(integrations.FormatKey("2026", newKey) + integrations.FormatKey("2025", oldKey)))
	if err != nil {
		panic(err)
	}
	svc = integrations.NewService(store, integrations.WithKeyRing(both))
	report, err := svc.RotateSecrets(ctx, integrations.RotateOptions{
		Progress: func(r integrations.RotateReport) { /* draw r.Configs, r.Resealed */ },
	})
	fmt.Println("re-encrypted:", report.Resealed, err)

	// 2. The old key can go once no secret needs it.
	left, err := svc.SecretsByKey(ctx)
	fmt.Println("sealed with 2025:", left["2025"], err)
	ring2026, _ := integrations.NewKeyRing("2026", map[string][]byte{"2026": newKey})
	svc = integrations.NewService(store, integrations.WithKeyRing(ring2026))
	secrets, err := svc.AnalyticsSecrets(ctx, brand.ID, a.ID)
	fmt.Println(*secrets.APIKey, *secrets.APISecret, err)
	// Output:
	// re-encrypted: 2 <nil>
	// sealed with 2025: 0 <nil>
	// ak_live_123456789 s3cret-value <nil>
}
