package sqlite_test

import (
	"database/sql"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/storage/sqlite"
)

// oldMigrations are the migrations of the schema before integration_configs
// (0005), when each configuration kind had its own table.
var oldMigrations = []string{"0001_core.sql", "0002_refdata.sql", "0003_auth.sql", "0004_integrations.sql"}

// integSnapshot is what the service answers about a brand's
// configurations, secrets and revisions.
type integSnapshot struct {
	Analytics        []integrations.Analytics
	Gateways         []integrations.PaymentGateway
	AnalyticsSecrets []integrations.AnalyticsSecrets
	GatewaySecrets   []integrations.PaymentGatewaySecrets
	Revisions        [][]integrations.Revision
}

func snapshot(t *testing.T, svc *integrations.Service, brandID string) integSnapshot {
	ctx := t.Context()
	var s integSnapshot
	var err error
	s.Analytics, err = svc.ListAnalytics(ctx, brandID)
	require.NoError(t, err)
	s.Gateways, err = svc.ListPaymentGateways(ctx, brandID)
	require.NoError(t, err)
	for _, a := range s.Analytics {
		sec, err := svc.AnalyticsSecrets(ctx, brandID, a.ID)
		require.NoError(t, err)
		s.AnalyticsSecrets = append(s.AnalyticsSecrets, sec)
		revs, err := svc.Revisions(ctx, brandID, integrations.KindAnalytics, a.ID)
		require.NoError(t, err)
		s.Revisions = append(s.Revisions, revs)
	}
	for _, p := range s.Gateways {
		sec, err := svc.PaymentGatewaySecrets(ctx, brandID, p.ID)
		require.NoError(t, err)
		s.GatewaySecrets = append(s.GatewaySecrets, sec)
	}
	return s
}

// seedIntegrations makes, through the service, analytics and
// payment-gateway configurations with every field set or left empty, one
// updated (with a revision).
func seedIntegrations(t *testing.T, svc *integrations.Service, admin auth.Principal) {
	ctx := t.Context()
	anApp, err := svc.CreateAppIntegration(ctx, admin, integrations.AppIntegrationInput{
		Type: integrations.TypeAnalytics, Name: "GA", Domain: "https://ga.example.com"})
	require.NoError(t, err)
	pgApp, err := svc.CreateAppIntegration(ctx, admin, integrations.AppIntegrationInput{
		Type: integrations.TypePaymentGateway, Name: "Pay", Domain: "https://pay.example.com"})
	require.NoError(t, err)
	a, err := svc.CreateAnalytics(ctx, admin, integrations.AnalyticsInput{AppIntegrationID: &anApp.ID,
		TrackingID: ptr("G-1"), APIKey: ptr("key-one-123456"), APISecret: ptr("secret-one-123456"),
		Metadata: ptr("env=prod"), AccountConfigNotes: ptr("notes"), IsDefault: ptr(true)})
	require.NoError(t, err)
	_, err = svc.UpdateAnalytics(ctx, admin, a.ID, integrations.AnalyticsInput{AppIntegrationID: &anApp.ID,
		TrackingID: ptr("G-1b"), APIKey: a.APIKey, Metadata: ptr("env=test"), AccountConfigNotes: ptr("notes 2"),
		IsDefault: ptr(true)})
	require.NoError(t, err)
	_, err = svc.CreateAnalytics(ctx, admin, integrations.AnalyticsInput{AppIntegrationID: &anApp.ID,
		TrackingID: ptr("G-2"), APIKey: ptr("key-two-123456")})
	require.NoError(t, err)
	_, err = svc.CreatePaymentGateway(ctx, admin, integrations.PaymentGatewayInput{AppIntegrationID: &pgApp.ID,
		Name: ptr("Live"), IPNListenerLink: ptr("https://shop.example.com/ipn"), CancelLink: ptr("https://shop.example.com/c"),
		CancelLinkWithoutLogin: ptr("https://shop.example.com/w"), ReturnLink: ptr("https://shop.example.com/r"),
		PublicKey: ptr("pk_live"), PrivateKey: ptr("sk_live_123456789"), Description: ptr("d"), Notes: ptr("n"),
		IsDefault: ptr(true)})
	require.NoError(t, err)
	_, err = svc.CreatePaymentGateway(ctx, admin, integrations.PaymentGatewayInput{AppIntegrationID: &pgApp.ID,
		Name: ptr("Sandbox"), TestMode: ptr(true), Status: ptr(integrations.StatusInactive)})
	require.NoError(t, err)
}

// TestMigrationKeepsIntegrations opens a database at the schema before
// integration_configs, holding configurations in the per-kind tables, and
// checks that the migration keeps every one: fields, sealed secrets (which
// still open with the key ring), defaults, versions and revisions.
func TestMigrationKeepsIntegrations(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	keys, err := integrations.NewKeyRing("k1", map[string][]byte{"k1": []byte("0123456789abcdef0123456789abcdef")})
	require.NoError(t, err)

	// The records, made by today's service on a current database.
	cur, err := sqlite.Open(ctx, ":memory:")
	require.NoError(t, err)
	defer cur.Close()
	brand, err := auth.NewService(cur).CreateBrand(ctx, auth.NewBrand{URL: "shop.example.com", Name: "Shop"})
	require.NoError(t, err)
	admin := auth.Principal{UserID: "admin", BrandID: brand.ID, Permissions: []auth.Permission{auth.PermAll}}
	svc := integrations.NewService(cur, integrations.WithKeyRing(keys))
	seedIntegrations(t, svc, admin)
	want := snapshot(t, svc, brand.ID)
	require.Len(t, want.Analytics, 2)
	require.Len(t, want.Gateways, 2)

	// The same records in a database at the old schema.
	path := filepath.Join(t.TempDir(), "old.db")
	old := oldDatabase(t, path, oldMigrations)
	copyToOldSchema(t, cur, old, brand)
	require.NoError(t, old.Close())

	migrated, err := sqlite.Open(ctx, path)
	require.NoError(t, err)
	defer migrated.Close()
	got := snapshot(t, integrations.NewService(migrated, integrations.WithKeyRing(keys)), brand.ID)
	assert.Equal(t, want, got, "every configuration reads back after the migration")

	// The per-kind rules hold on the migrated data: one default per brand
	// and kind.
	for _, kind := range []integrations.RecordKind{integrations.KindAnalytics, integrations.KindPaymentGateway} {
		defaults, err := migrated.ListConfigs(ctx, integrations.ConfigFilter{Kind: kind, BrandID: brand.ID, IsDefault: ptr(true)})
		require.NoError(t, err)
		assert.Len(t, defaults, 1, kind)
	}
}

// copyToOldSchema writes the brand, app integrations, configurations and
// revisions of cur into old, a database at the schema of oldMigrations.
func copyToOldSchema(t *testing.T, cur *sqlite.Store, old *sql.DB, brand auth.Brand) {
	ctx := t.Context()
	exec := func(query string, args ...any) {
		t.Helper()
		_, err := old.ExecContext(ctx, query, args...)
		require.NoError(t, err)
	}
	exec(`INSERT INTO brands (id, url, name, status, default_currency, created_at, seq) VALUES (?, ?, ?, ?, ?, ?, 1)`,
		brand.ID, brand.URL, brand.Name, string(brand.Status), brand.DefaultCurrency, brand.CreatedAt.UnixMicro())
	apps, err := cur.ListAppIntegrations(ctx, integrations.AppIntegrationFilter{BrandID: brand.ID})
	require.NoError(t, err)
	for _, a := range apps {
		exec(`INSERT INTO app_integrations (id, brand_id, type, name, domain, description, logo_url, status, version,
			created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, a.ID, a.BrandID, string(a.Type), a.Name,
			a.Domain, a.Description, a.LogoURL, string(a.Status), a.Version, a.CreatedAt.UnixMicro(), a.UpdatedAt.UnixMicro())
	}
	recs, err := cur.ListConfigs(ctx, integrations.ConfigFilter{BrandID: brand.ID})
	require.NoError(t, err)
	for _, r := range recs {
		h := []any{r.ID, r.BrandID, r.AppIntegrationID, r.IsDefault, string(r.Status), r.Version,
			r.CreatedAt.UnixMicro(), r.UpdatedAt.UnixMicro()}
		switch r.Kind {
		case integrations.KindAnalytics:
			var b integrations.AnalyticsRecord
			require.NoError(t, json.Unmarshal(r.Body, &b))
			exec(`INSERT INTO analytics_integrations (id, brand_id, app_integration_id, is_default, status, version,
				created_at, updated_at, tracking_id, api_key, api_secret, metadata, account_config_notes)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, append(h, b.TrackingID, r.Secrets["apiKey"],
				blobOrNil(r.Secrets["apiSecret"]), b.Metadata, b.AccountConfigNotes)...)
		case integrations.KindPaymentGateway:
			var b integrations.PaymentGatewayRecord
			require.NoError(t, json.Unmarshal(r.Body, &b))
			exec(`INSERT INTO payment_gateway_integrations (id, brand_id, app_integration_id, is_default, status, version,
				created_at, updated_at, name, ipn_listener_link, cancel_link_without_login, cancel_link, return_link,
				public_key, private_key, description, notes, test_mode) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				append(h, b.Name, b.IPNListenerLink, b.CancelLinkWithoutLogin, b.CancelLink, b.ReturnLink, b.PublicKey,
					blobOrNil(r.Secrets["privateKey"]), b.Description, b.Notes, b.TestMode)...)
		default:
			t.Fatalf("unexpected kind %s", r.Kind)
		}
	}
	revs, err := cur.ListRevisions(ctx, integrations.RevisionFilter{BrandID: brand.ID})
	require.NoError(t, err)
	for i, rev := range revs {
		exec(`INSERT INTO integration_revisions (seq, id, brand_id, kind, record_id, version, actor_user_id, at, fields)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, i+1, rev.ID, rev.BrandID, string(rev.Kind), rev.RecordID, rev.Version,
			rev.ActorUserID, rev.At.UnixMicro(), strings.Join(rev.Fields, ","))
	}
}

// blobOrNil binds b as a BLOB, or NULL when nil.
func blobOrNil(b []byte) any {
	if b == nil {
		return nil
	}
	return b
}

func ptr[T any](v T) *T { return &v }
