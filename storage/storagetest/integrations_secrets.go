package storagetest

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/storage"
)

// testSealedSecrets checks what the key rotation needs of a store:
// SealedSecrets reads whole brands in ID order, page by page, configurations
// holding a secret only; LockSealedSecrets reads the configurations named,
// in their brand only; UpdateSecrets replaces the secrets and nothing else.
func testSealedSecrets(t *testing.T, s storage.Storage) {
	ctx := t.Context()
	at := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	var brands []string
	for _, url := range []string{"a.example.com", "b.example.com", "c.example.com"} {
		brands = append(brands, integBrand(t, s, url))
	}
	slices.Sort(brands)
	byBrand := map[string][]string{}
	var plain integrations.ConfigRecord
	inTx(t, s, func(tx integrations.Tx) error {
		for i, b := range brands {
			app := testApp(b, integrations.TypeAnalytics, at)
			require.NoError(t, tx.InsertAppIntegration(ctx, app))
			for range i + 1 {
				r := testAnalytics(b, app.ID, at)
				require.NoError(t, tx.InsertConfig(ctx, r))
				byBrand[b] = append(byBrand[b], r.ID)
			}
			if i == 0 {
				plain = testConfig(integrations.KindAnalytics, b, app.ID, at, integrations.AnalyticsRecord{TrackingID: "G-0"}, nil)
				require.NoError(t, tx.InsertConfig(ctx, plain))
			}
		}
		return nil
	})

	var pages [][]string
	after := ""
	for {
		page, err := s.SealedSecrets(ctx, after, 2)
		require.NoError(t, err)
		if len(page) == 0 {
			break
		}
		var ids []string
		for _, sec := range page {
			assert.Equal(t, integrations.KindAnalytics, sec.Kind)
			assert.Equal(t, map[string][]byte{"apiKey": {1, 2, 3, 0, 255}, "apiSecret": {9, 8, 7}}, sec.Secrets)
			ids = append(ids, sec.ID)
		}
		pages = append(pages, ids)
		after = page[len(page)-1].BrandID
	}
	sorted := func(b string) []string { return slices.Sorted(slices.Values(byBrand[b])) }
	require.Len(t, pages, 2, "two brands a page, whole")
	assert.Equal(t, append(sorted(brands[0]), sorted(brands[1])...), pages[0], "by brand, then ID; no configuration without a secret")
	assert.Equal(t, sorted(brands[2]), pages[1])

	target := byBrand[brands[1]][0]
	before, err := s.ConfigByID(ctx, integrations.KindAnalytics, brands[1], target)
	require.NoError(t, err)
	inTx(t, s, func(tx integrations.Tx) error {
		got, err := tx.LockSealedSecrets(ctx, []integrations.ConfigRef{
			{Kind: integrations.KindAnalytics, BrandID: brands[1], ID: target},
			{Kind: integrations.KindAnalytics, BrandID: brands[2], ID: byBrand[brands[0]][0]}, // not its brand
			{Kind: integrations.KindAnalytics, BrandID: brands[0], ID: plain.ID},              // no secret
		})
		require.NoError(t, err)
		require.Len(t, got, 1, "only the configuration named in its own brand, holding a secret")
		assert.Equal(t, target, got[0].ID)
		got[0].Secrets = map[string][]byte{"apiKey": {42}}
		return tx.UpdateSecrets(ctx, got)
	})
	after2, err := s.ConfigByID(ctx, integrations.KindAnalytics, brands[1], target)
	require.NoError(t, err)
	assert.Equal(t, map[string][]byte{"apiKey": {42}}, after2.Secrets)
	after2.Secrets = before.Secrets
	assert.Equal(t, before, after2, "nothing but the secrets changed: not the version nor the update time")
}
