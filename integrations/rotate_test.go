package integrations_test

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/internal/testkit/pgtest"
	"github.com/brandbase/brandbase/storage/postgres"
)

// TestRotateSecretsAtScale rotates the key ring over 20,000 analytics
// configurations (two secrets each) in 2,000 brands on PostgreSQL, seeded
// in bulk (COPY) under key k1:
//   - a rotation to k2 stopped after three batches (its context
//     cancelled, as a crash would stop it) leaves every secret under k1 or
//     k2, both of which the ring holds, and readable;
//   - a second run, while writes go on in other brands, finishes: no
//     secret needs k1 any more, the progress reports count up to the
//     totals, every batch is its own transaction, no write is refused and
//     none waits longer than a few batches;
//   - versions do not move (answers and ETags stay).
func TestRotateSecretsAtScale(t *testing.T) {
	if testing.Short() {
		t.Skip("20,000 configurations: skipped with -short")
	}
	t.Parallel()
	const brands, perBrand = 2000, 10
	const total = brands * perBrand
	url := pgtest.Schema(t)
	ctx := t.Context()
	store, err := postgres.Open(ctx, url)
	require.NoError(t, err)
	t.Cleanup(func() { store.Close() })
	k1, k2 := key(1), key(2)
	ringOld, err := integrations.NewKeyRing("k1", map[string][]byte{"k1": k1})
	require.NoError(t, err)
	ringBoth, err := integrations.NewKeyRing("k2", map[string][]byte{"k1": k1, "k2": k2})
	require.NoError(t, err)
	old := integrations.NewService(store, integrations.WithKeyRing(ringOld))
	svc := integrations.NewService(store, integrations.WithKeyRing(ringBoth))

	began := time.Now()
	seeded := seedConfigs(t, url, store, old, brands, perBrand)
	t.Logf("seeded in %v", time.Since(began).Round(time.Millisecond))

	// A crash part-way: the context ends after the third batch.
	stop, cancel := context.WithCancel(ctx)
	var seen []integrations.RotateReport
	rep, err := svc.RotateSecrets(stop, integrations.RotateOptions{Progress: func(r integrations.RotateReport) {
		if seen = append(seen, r); len(seen) == 3 {
			cancel()
		}
	}})
	cancel()
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, 3, rep.Batches)
	assert.Equal(t, 3*integrations.DefaultRotateBatch, rep.ResealedConfigs, "three whole batches committed")
	usage, err := svc.SecretsByKey(ctx)
	require.NoError(t, err)
	assert.Equal(t, map[string]int{"k1": 2*total - rep.Resealed, "k2": rep.Resealed}, usage,
		"every secret under the old key or the new one")
	for _, c := range []seededConfig{seeded[0], seeded[len(seeded)/2], seeded[len(seeded)-1]} {
		sec, err := svc.AnalyticsSecrets(ctx, c.brandID, c.id)
		require.NoError(t, err, "readable part-way")
		assert.Equal(t, "key-"+c.id, *sec.APIKey)
	}

	// The rerun, with writes going on in brands it has not reached yet and
	// in one it has passed.
	writes := []seededConfig{seeded[0], seeded[len(seeded)*3/4], seeded[len(seeded)-1]}
	var wg sync.WaitGroup
	done := make(chan struct{})
	var mu sync.Mutex
	var slowest time.Duration
	var writeErrs []error
	for _, c := range writes {
		wg.Go(func() {
			admin := auth.Principal{UserID: "admin", BrandID: c.brandID, Permissions: []auth.Permission{auth.PermAll}}
			for i := 0; ; i++ {
				select {
				case <-done:
					return
				default:
				}
				start := time.Now()
				_, err := svc.UpdateAnalytics(ctx, admin, c.id, integrations.AnalyticsInput{
					AppIntegrationID: &c.appID, TrackingID: ptr(fmt.Sprintf("G-%d", i)),
					APIKey: ptr(integrations.Mask("key-" + c.id))}) // kept as stored
				took := time.Since(start)
				mu.Lock()
				slowest = max(slowest, took)
				if err != nil && len(writeErrs) < 5 {
					writeErrs = append(writeErrs, err)
				}
				mu.Unlock()
				if err != nil {
					return
				}
			}
		})
	}
	t.Logf("first run, stopped: %d secrets in %d batches", rep.Resealed, rep.Batches)
	start := time.Now()
	seen = nil
	rep2, err := svc.RotateSecrets(ctx, integrations.RotateOptions{Progress: func(r integrations.RotateReport) {
		seen = append(seen, r)
	}})
	took := time.Since(start)
	close(done)
	wg.Wait()
	require.NoError(t, err)
	t.Logf("rerun: %d secrets of %d configurations in %d batches, %v (%v a configuration); slowest concurrent write %v",
		rep2.Resealed, rep2.ResealedConfigs, rep2.Batches, took.Round(time.Millisecond),
		(took / time.Duration(max(rep2.ResealedConfigs, 1))).Round(time.Microsecond), slowest.Round(time.Millisecond))
	assert.Empty(t, writeErrs, "no write refused while the rotation runs")
	// A batch is about 1% of the run: a write that waited for the whole
	// rotation (one transaction, as before) would take about all of it.
	assert.Less(t, slowest, took/5, "a write waits at most a batch or so, not the whole rotation")
	assert.Equal(t, brands, rep2.Brands)
	assert.Equal(t, total, rep2.Configs)
	assert.LessOrEqual(t, rep.Resealed+rep2.Resealed, 2*total)
	assert.GreaterOrEqual(t, rep.Resealed+rep2.Resealed, 2*total-len(writes),
		"all but the secrets the writes re-sealed themselves, at most one each")
	require.NotEmpty(t, seen)
	assert.Equal(t, len(seen), rep2.Batches, "progress after every batch")
	for i := 1; i < len(seen); i++ {
		assert.GreaterOrEqual(t, seen[i].Resealed, seen[i-1].Resealed)
		assert.LessOrEqual(t, seen[i].ResealedConfigs-seen[i-1].ResealedConfigs, integrations.DefaultRotateBatch)
	}
	assert.Equal(t, rep2, seen[len(seen)-1])

	usage, err = svc.SecretsByKey(ctx)
	require.NoError(t, err)
	assert.Equal(t, map[string]int{"k2": 2 * total}, usage, "no secret needs k1: it can go")
	again, err := svc.RotateSecrets(ctx, integrations.RotateOptions{})
	require.NoError(t, err)
	assert.Zero(t, again.Batches, "nothing left")

	newOnly, err := integrations.NewKeyRing("k2", map[string][]byte{"k2": k2})
	require.NoError(t, err)
	after := integrations.NewService(store, integrations.WithKeyRing(newOnly))
	for _, c := range []seededConfig{seeded[1], seeded[len(seeded)/2], seeded[len(seeded)-2]} {
		sec, err := after.AnalyticsSecrets(ctx, c.brandID, c.id)
		require.NoError(t, err)
		assert.Equal(t, "key-"+c.id, *sec.APIKey)
		assert.Equal(t, "secret-"+c.id, *sec.APISecret)
		a, err := after.Analytics(ctx, c.brandID, c.id)
		require.NoError(t, err)
		assert.EqualValues(t, 1, a.Version, "the rotation does not move versions")
	}
}

// seededConfig is one configuration seedConfigs wrote.
type seededConfig struct {
	brandID, appID, id string
}

// seedConfigs writes brands brands, each with an analytics app
// integration and perBrand analytics configurations whose apiKey and
// apiSecret ("key-<id>", "secret-<id>") svc seals, in bulk: the rows of one
// configuration made through svc, copied. It returns the configurations in
// brand order.
func seedConfigs(t *testing.T, url string, store *postgres.Store, svc *integrations.Service, brands, perBrand int) []seededConfig {
	t.Helper()
	ctx := t.Context()
	b, err := auth.NewService(store).CreateBrand(ctx, auth.NewBrand{URL: "template.example.com", Name: "Template"})
	require.NoError(t, err)
	admin := auth.Principal{UserID: "admin", BrandID: b.ID, Permissions: []auth.Permission{auth.PermAll}}
	app, err := svc.CreateAppIntegration(ctx, admin, integrations.AppIntegrationInput{
		Type: integrations.TypeAnalytics, Name: "Analytics", Domain: "https://analytics.example.com"})
	require.NoError(t, err)
	tmpl, err := svc.CreateAnalytics(ctx, admin, integrations.AnalyticsInput{AppIntegrationID: &app.ID, TrackingID: ptr("G-1"),
		APIKey: ptr("template-key")})
	require.NoError(t, err)

	conn, err := pgx.Connect(ctx, url) // the store's schema
	require.NoError(t, err)
	defer conn.Close(context.Background())

	_, err = conn.Exec(ctx, `INSERT INTO brands (id, url, name, status, default_currency, created_at)
		SELECT 'brand-' || lpad(g::text, 5, '0'), 'b' || g || '.example.com', name, status, default_currency, created_at
		FROM brands, generate_series(1, $2) g WHERE id = $1`, b.ID, brands)
	require.NoError(t, err)
	_, err = conn.Exec(ctx, `INSERT INTO app_integrations (id, brand_id, type, name, domain, description, logo_url, status, version, created_at, updated_at)
		SELECT 'app-' || lpad(g::text, 5, '0'), 'brand-' || lpad(g::text, 5, '0'), type, name, domain, description, logo_url, status, version, created_at, updated_at
		FROM app_integrations, generate_series(1, $2) g WHERE id = $1`, app.ID, brands)
	require.NoError(t, err)
	var status, body string
	var createdAt time.Time
	require.NoError(t, conn.QueryRow(ctx, `SELECT status, body, created_at FROM integration_configs WHERE id = $1`, tmpl.ID).
		Scan(&status, &body, &createdAt))

	var out []seededConfig
	rows := make([][]any, 0, brands*perBrand)
	for i := 1; i <= brands; i++ {
		brandID, appID := fmt.Sprintf("brand-%05d", i), fmt.Sprintf("app-%05d", i)
		for j := range perBrand {
			id := fmt.Sprintf("cfg-%05d-%02d", i, j)
			secrets, err := json.Marshal(map[string]string{
				"apiKey":    hex.EncodeToString(svc.SealSecret(integrations.KindAnalytics, brandID, id, "apiKey", "key-"+id)),
				"apiSecret": hex.EncodeToString(svc.SealSecret(integrations.KindAnalytics, brandID, id, "apiSecret", "secret-"+id)),
			})
			require.NoError(t, err)
			rows = append(rows, []any{id, string(integrations.KindAnalytics), brandID, appID, false, status, int64(1), body,
				string(secrets), createdAt, createdAt})
			out = append(out, seededConfig{brandID: brandID, appID: appID, id: id})
		}
	}
	n, err := conn.CopyFrom(ctx, pgx.Identifier{"integration_configs"}, []string{"id", "kind", "brand_id", "app_integration_id",
		"is_default", "status", "version", "body", "secrets", "created_at", "updated_at"}, pgx.CopyFromRows(rows))
	require.NoError(t, err)
	require.EqualValues(t, len(rows), n)
	// The template's own configuration takes no part.
	_, err = conn.Exec(ctx, `DELETE FROM integration_configs WHERE id = $1`, tmpl.ID)
	require.NoError(t, err)
	_, err = conn.Exec(ctx, `ANALYZE`)
	require.NoError(t, err)
	return out
}
