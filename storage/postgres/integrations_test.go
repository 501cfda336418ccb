package postgres_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/internal/pgtest"
)

// TestIntegrationUpdatesAcrossInstances updates one analytics integration
// through three stores on one schema (three instances), 50 concurrent
// updates each, every one through integrations.Service: no update is lost
// (150 revisions, one per version, and the version advanced by 150) and
// the record is one of the updates, whole.
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
	app, err := svcs[0].CreateAppIntegration(ctx, admin, b.ID, integrations.AppIntegrationInput{
		Type: integrations.TypeAnalytics, Name: "Analytics app", Domain: "https://analytics.example.com"})
	require.NoError(t, err)
	str := func(s string) *string { return &s }
	input := func(tracking string) integrations.AnalyticsInput {
		return integrations.AnalyticsInput{AppIntegrationID: &app.ID, TrackingID: str(tracking),
			APIKey: str("ak_" + tracking + "_0123456789"), Metadata: str("from " + tracking)}
	}
	created, err := svcs[0].CreateAnalytics(ctx, admin, b.ID, input("G-0"))
	require.NoError(t, err)
	before, err := store.ConfigByID(ctx, integrations.KindAnalytics, b.ID, created.ID)
	require.NoError(t, err)

	var wg sync.WaitGroup
	for i, svc := range svcs {
		for j := range updates {
			wg.Go(func() {
				_, err := svc.UpdateAnalytics(ctx, admin, b.ID, created.ID, input(fmt.Sprintf("G-%d-%d", i, j)), nil)
				assert.NoError(t, err)
			})
		}
	}
	wg.Wait()

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
	assert.Equal(t, "ak_"+got.TrackingID+"_0123456789", secrets.APIKey, "its secret is of the same update")

	var dump string
	require.NoError(t, store.Pool().QueryRow(ctx, `SELECT concat_ws(' ',
		(SELECT string_agg(c::text, ' ') FROM integration_configs c),
		(SELECT string_agg(r::text, ' ') FROM integration_revisions r))`).Scan(&dump))
	assert.Contains(t, dump, got.TrackingID, "the dump holds the records")
	assert.NotContains(t, dump, "ak_", "no plaintext secret is stored")
}
