package postgres_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/internal/testkit/pgtest"
	"github.com/brandbase/brandbase/internal/testkit/teststores"
	"github.com/brandbase/brandbase/storage/postgres"
)

// TestIntegrationUpdatesAcrossInstances updates one analytics integration
// through three stores on one schema (three instances), 50 concurrent
// updates each, every one through integrations.Service and retried as a
// client retries a 503 with Retry-After (under load a store gives up on a
// lock wait; nothing was written then): no update is lost (150 revisions,
// one per version, and the version advanced by 150) and the record is one
// of the updates, whole.
func TestIntegrationUpdatesAcrossInstances(t *testing.T) {
	t.Parallel()
	url := pgtest.Schema(t)
	ctx := t.Context()
	keys, err := integrations.NewKeyRing("k1", map[string][]byte{"k1": []byte("0123456789abcdef0123456789abcdef")})
	require.NoError(t, err)
	const instances, updates = 3, 50
	svcs := make([]*integrations.Service, instances)
	for i := range svcs {
		svcs[i] = integrations.NewService(open(t, url), integrations.WithKeyRing(keys))
	}
	store := open(t, url)
	b, err := auth.NewService(store).CreateBrand(ctx, auth.NewBrand{URL: "shop.example.com", Name: "Shop"})
	require.NoError(t, err)
	admin := auth.Principal{UserID: "admin", BrandID: b.ID, Permissions: []auth.Permission{auth.PermAll}}
	app, err := svcs[0].CreateAppIntegration(ctx, admin, integrations.AppIntegrationInput{
		Type: integrations.TypeAnalytics, Name: "Analytics app", Domain: "https://analytics.example.com"})
	require.NoError(t, err)
	str := func(s string) *string { return &s }
	input := func(tracking string) integrations.AnalyticsInput {
		return integrations.AnalyticsInput{AppIntegrationID: &app.ID, TrackingID: str(tracking),
			APIKey: str("ak_" + tracking + "_0123456789"), Metadata: str("from " + tracking)}
	}
	created, err := svcs[0].CreateAnalytics(ctx, admin, input("G-0"))
	require.NoError(t, err)
	before, err := store.ConfigByID(ctx, integrations.KindAnalytics, b.ID, created.ID)
	require.NoError(t, err)

	var wg sync.WaitGroup
	var retried atomic.Int64
	for i, svc := range svcs {
		for j := range updates {
			wg.Go(func() {
				r, err := teststores.RetryUnavailable(func() error {
					_, err := svc.UpdateAnalytics(ctx, admin, created.ID, input(fmt.Sprintf("G-%d-%d", i, j)))
					return err
				})
				retried.Add(int64(r))
				assert.NoError(t, err)
			})
		}
	}
	wg.Wait()
	t.Logf("503s retried: %d", retried.Load())

	after, err := store.ConfigByID(ctx, integrations.KindAnalytics, b.ID, created.ID)
	require.NoError(t, err)
	assert.Equal(t, before.Version+instances*updates, after.Version, "the version advanced once per update")
	revs, err := store.ListRevisions(ctx, integrations.RevisionFilter{BrandID: b.ID, Kind: integrations.KindAnalytics,
		RecordID: created.ID})
	require.NoError(t, err)
	require.Len(t, revs, instances*updates, "one revision per update")
	for k, r := range revs {
		assert.Equal(t, before.Version+int64(k)+1, r.Version, "revisions in version order, none twice")
	}
	got, err := svcs[1].Analytics(ctx, b.ID, created.ID)
	require.NoError(t, err)
	var i, j int
	_, err = fmt.Sscanf(got.TrackingID, "G-%d-%d", &i, &j)
	require.NoError(t, err, "the record is one of the updates: %s", got.TrackingID)
	assert.Equal(t, "from "+got.TrackingID, *got.Metadata, "the record is whole")
	secrets, err := svcs[2].AnalyticsSecrets(ctx, b.ID, created.ID)
	require.NoError(t, err)
	assert.Equal(t, new("ak_"+got.TrackingID+"_0123456789"), secrets.APIKey, "its secret is of the same update")

	var dump string
	require.NoError(t, store.Pool().QueryRow(ctx, `SELECT concat_ws(' ',
		(SELECT string_agg(c::text, ' ') FROM integration_configs c),
		(SELECT string_agg(r::text, ' ') FROM integration_revisions r))`).Scan(&dump))
	assert.Contains(t, dump, got.TrackingID, "the dump holds the records")
	assert.NotContains(t, dump, "ak_", "no plaintext secret is stored")
}

// integFixture is a brand with an analytics and a payment-gateway
// configuration, made through integrations.Service.
type integFixture struct {
	brand, analytics, gateway string
	admin                     auth.Principal
	analyticsIn               func(tracking string) integrations.AnalyticsInput
	gatewayIn                 func(name string) integrations.PaymentGatewayInput
}

func newIntegFixture(t testing.TB, store *postgres.Store, svc *integrations.Service, url string) integFixture {
	t.Helper()
	ctx := context.Background()
	b, err := auth.NewService(store).CreateBrand(ctx, auth.NewBrand{URL: url, Name: "Shop"})
	require.NoError(t, err)
	f := integFixture{brand: b.ID, admin: auth.Principal{UserID: "admin", BrandID: b.ID, Permissions: []auth.Permission{auth.PermAll}}}
	an, err := svc.CreateAppIntegration(ctx, f.admin, integrations.AppIntegrationInput{
		Type: integrations.TypeAnalytics, Name: "Analytics app", Domain: "https://analytics.example.com"})
	require.NoError(t, err)
	pg, err := svc.CreateAppIntegration(ctx, f.admin, integrations.AppIntegrationInput{
		Type: integrations.TypePaymentGateway, Name: "Gateway app", Domain: "https://pay.example.com"})
	require.NoError(t, err)
	str := func(s string) *string { return &s }
	yes := true
	f.analyticsIn = func(tracking string) integrations.AnalyticsInput {
		return integrations.AnalyticsInput{AppIntegrationID: &an.ID, TrackingID: str(tracking), APIKey: str("ak_0123456789"), IsDefault: &yes}
	}
	f.gatewayIn = func(name string) integrations.PaymentGatewayInput {
		return integrations.PaymentGatewayInput{AppIntegrationID: &pg.ID, Name: str(name), IsDefault: &yes}
	}
	a, err := svc.CreateAnalytics(ctx, f.admin, f.analyticsIn("G-0"))
	require.NoError(t, err)
	g, err := svc.CreatePaymentGateway(ctx, f.admin, f.gatewayIn("gw-0"))
	require.NoError(t, err)
	f.analytics, f.gateway = a.ID, g.ID
	return f
}

// TestIntegrationLocksArePerBrandAndIntegration holds a transaction open
// that updated brand A's analytics configuration (on another instance):
// meanwhile writes to brand B's analytics and to brand A's payment gateway
// complete, while a write to brand A's analytics, and the key rotation
// (which locks brand A whole to re-seal its secrets), wait until it ends.
func TestIntegrationLocksArePerBrandAndIntegration(t *testing.T) {
	t.Parallel()
	url := pgtest.Schema(t)
	ctx := t.Context()
	holder, other := open(t, url), open(t, url)
	k1, k2 := []byte("0123456789abcdef0123456789abcdef"), []byte("fedcba9876543210fedcba9876543210")
	old, err := integrations.NewKeyRing("k1", map[string][]byte{"k1": k1})
	require.NoError(t, err)
	both, err := integrations.NewKeyRing("k2", map[string][]byte{"k1": k1, "k2": k2})
	require.NoError(t, err)
	svc := integrations.NewService(other, integrations.WithKeyRing(old))
	rotating := integrations.NewService(other, integrations.WithKeyRing(both))
	a := newIntegFixture(t, other, svc, "a.example.com")
	b := newIntegFixture(t, other, svc, "b.example.com")

	held, release, ended := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	var releaseOnce sync.Once
	letGo := func() { releaseOnce.Do(func() { close(release) }) }
	t.Cleanup(letGo) // before the stores close, however the test ends
	go func() {
		ended <- holder.IntegrationsTx(ctx, func(tx integrations.Tx) error {
			r, err := tx.ConfigByID(ctx, integrations.KindAnalytics, a.brand, a.analytics)
			if err != nil {
				return err
			}
			r.Version++
			if err := tx.UpdateConfig(ctx, r); err != nil {
				return err
			}
			close(held)
			<-release
			return nil
		})
	}()
	<-held

	bound, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_, err = svc.UpdateAnalytics(bound, b.admin, b.analytics, b.analyticsIn("G-b"))
	require.NoError(t, err, "another brand's analytics does not wait")
	_, err = svc.UpdatePaymentGateway(bound, a.admin, a.gateway, a.gatewayIn("gw-a"))
	require.NoError(t, err, "the brand's other integration does not wait")
	_, err = svc.CreateAnalytics(bound, b.admin, b.analyticsIn("G-b2"))
	require.NoError(t, err, "a create in another brand does not wait")

	same, rotate := make(chan error, 1), make(chan error, 1)
	go func() {
		_, err := svc.UpdateAnalytics(ctx, a.admin, a.analytics, a.analyticsIn("G-a"))
		same <- err
	}()
	go func() {
		_, err := rotating.RotateSecrets(ctx, integrations.RotateOptions{})
		rotate <- err
	}()
	select {
	case err := <-same:
		t.Fatalf("a write to the same integration did not wait: %v", err)
	case err := <-rotate:
		t.Fatalf("the key rotation did not wait: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	letGo()
	require.NoError(t, <-ended)
	require.NoError(t, <-same)
	require.NoError(t, <-rotate)

	got, err := rotating.Analytics(ctx, a.brand, a.analytics)
	require.NoError(t, err)
	assert.Equal(t, int64(3), got.Version, "created, then the held update, then the one that waited")
	assert.Equal(t, "G-a", got.TrackingID)
	defaults, err := other.ListConfigs(ctx, integrations.ConfigFilter{BrandID: b.brand, Kind: integrations.KindAnalytics})
	require.NoError(t, err)
	n := 0
	for _, r := range defaults {
		if r.IsDefault {
			n++
		}
	}
	assert.Equal(t, 1, n, "one default per brand and kind")
}
