package integrations_test

import (
	"context"
	"fmt"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/storage/memory"
)

// A host configures an analytics integration in-process: secrets are
// sealed with its key ring, answers mask them, and every update is
// recorded.
func Example() {
	ctx := context.Background()
	store, _ := memory.New(ctx)
	keys, _ := integrations.NewKeyRing("2026-01", map[string][]byte{"2026-01": []byte("0123456789abcdef0123456789abcdef")})
	svc := integrations.NewService(store, integrations.WithKeyRing(keys))
	brand, _ := auth.NewService(store).CreateBrand(ctx, auth.NewBrand{URL: "shop.example.com", Name: "Shop"})
	admin := auth.Principal{UserID: "admin", BrandID: brand.ID, Permissions: []auth.Permission{auth.PermAll}}

	app, _ := svc.CreateAppIntegration(ctx, admin, integrations.AppIntegrationInput{
		Type: integrations.TypeAnalytics, Name: "Google Analytics", Domain: "https://analytics.google.com",
	})
	str := func(s string) *string { return &s }
	a, err := svc.CreateAnalytics(ctx, admin, integrations.AnalyticsInput{
		AppIntegrationID: &app.ID, TrackingID: str("G-12345"), APIKey: str("AIzaSyExample1234"),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(a.TrackingID, *a.APIKey, a.Status)

	// An update that sends the masked key back keeps the stored key.
	a, _ = svc.UpdateAnalytics(ctx, admin, a.ID, integrations.AnalyticsInput{
		AppIntegrationID: &app.ID, TrackingID: str("G-67890"), APIKey: a.APIKey, IsDefault: new(true),
	}, integrations.IfMatch(a.ETag()))
	secrets, _ := svc.AnalyticsSecrets(ctx, brand.ID, a.ID)
	revs, _ := svc.Revisions(ctx, brand.ID, integrations.KindAnalytics, a.ID)
	fmt.Println(a.TrackingID, a.IsDefault, *secrets.APIKey, revs[0].ActorUserID, revs[0].Fields)
	// Output:
	// G-12345 *************1234 Active
	// G-67890 true AIzaSyExample1234 admin [isDefault trackingId]
}
