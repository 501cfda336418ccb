package storagetest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/storage"
)

var integT0 = time.Date(2026, 3, 4, 5, 6, 7, 123456000, time.UTC)

func integPtr[T any](v T) *T { return &v }

// configKind describes one kind of configuration to the scenarios: how to
// make a record of it and how to change every field of its own.
type configKind struct {
	kind    integrations.RecordKind
	appType integrations.Type
	make    func(brandID, appID string, created time.Time) integrations.ConfigRecord
	change  func(r *integrations.ConfigRecord) // changes the body and the secrets
}

var analyticsConfigs = configKind{
	kind:    integrations.KindAnalytics,
	appType: integrations.TypeAnalytics,
	make:    testAnalytics,
	change: func(r *integrations.ConfigRecord) {
		r.Body = mustJSON(integrations.AnalyticsRecord{TrackingID: "G-NEW", AccountConfigNotes: integPtr("n")})
		r.Secrets = map[string][]byte{"apiKey": {7}}
	},
}

var gatewayConfigs = configKind{
	kind:    integrations.KindPaymentGateway,
	appType: integrations.TypePaymentGateway,
	make: func(brandID, appID string, created time.Time) integrations.ConfigRecord {
		return testConfig(integrations.KindPaymentGateway, brandID, appID, created, integrations.PaymentGatewayRecord{
			Name: "Gateway", IPNListenerLink: integPtr("https://shop.example.com/ipn"),
			ReturnLink: integPtr("https://shop.example.com/ok"), PublicKey: integPtr("pk_test"), Notes: integPtr("notes"),
			TestMode: true,
		}, map[string][]byte{"privateKey": {4, 5, 6}})
	},
	change: func(r *integrations.ConfigRecord) {
		r.Body = mustJSON(integrations.PaymentGatewayRecord{Name: "Renamed", CancelLink: integPtr("https://c.example.com"),
			CancelLinkWithoutLogin: integPtr("https://w.example.com"), Description: integPtr("d")})
		r.Secrets = nil
	},
}

// configKinds are the kinds the configuration scenarios run on: the
// library's two, and the suite's own third (thirdkind.go).
var configKinds = []configKind{analyticsConfigs, gatewayConfigs, crm}

// testApp returns an app integration record of brandID.
func testApp(brandID string, typ integrations.Type, created time.Time) integrations.AppIntegration {
	return integrations.AppIntegration{
		ID: uuid.NewString(), BrandID: brandID, Type: typ, Name: "App " + string(typ),
		Domain: "https://app.example.com", Description: "An app", LogoURL: integPtr("https://app.example.com/logo.png"),
		Status: integrations.StatusActive, Version: 1, CreatedAt: created, UpdatedAt: created,
	}
}

// testConfig returns an Active, not default configuration of kind with
// body (encoded as JSON) and secrets.
func testConfig(kind integrations.RecordKind, brandID, appID string, created time.Time, body any,
	secrets map[string][]byte) integrations.ConfigRecord {
	return integrations.ConfigRecord{
		Kind: kind,
		ConfigHeader: integrations.ConfigHeader{
			ID: uuid.NewString(), BrandID: brandID, AppIntegrationID: appID, Status: integrations.StatusActive,
			Version: 1, CreatedAt: created, UpdatedAt: created,
		},
		Body: mustJSON(body), Secrets: secrets,
	}
}

// testAnalytics returns an analytics configuration of brandID.
func testAnalytics(brandID, appID string, created time.Time) integrations.ConfigRecord {
	return testConfig(integrations.KindAnalytics, brandID, appID, created,
		integrations.AnalyticsRecord{TrackingID: "G-TRACK", Metadata: integPtr("env=prod")},
		map[string][]byte{"apiKey": {1, 2, 3, 0, 255}, "apiSecret": {9, 8, 7}})
}

// inTx runs fn in a transaction of s and requires it to succeed.
func inTx(t *testing.T, s storage.Storage, fn func(tx integrations.Tx) error) {
	t.Helper()
	require.NoError(t, s.IntegrationsTx(t.Context(), fn))
}

// integBrand stores a new brand and returns its ID.
func integBrand(t *testing.T, s storage.Storage, url string) string {
	t.Helper()
	b := testBrand(url)
	require.NoError(t, s.CreateBrand(t.Context(), b))
	return b.ID
}

// integScenario is one named scenario, run on a fresh store.
type integScenario struct {
	name string
	fn   func(t *testing.T, s storage.Storage)
}

func runIntegrations(t *testing.T, newStore NewStore) {
	scenarios := []integScenario{
		{"AppIntegrations", testAppIntegrations},
		{"AppIntegrationErrors", testAppIntegrationErrors},
		{"Revisions", testRevisions},
		{"TxRollsBack", testTxRollsBack},
		{"TxEnds", testTxEnds},
		{"TxSerialised", testTxSerialised},
		{"ConfigKindsApart", testConfigKindsApart},
		{"MissingReadsAlike", testMissingReadsAlike},
		{"SealedSecrets", testSealedSecrets},
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			sc.fn(t, open(t, newStore))
		})
	}
	for _, k := range configKinds {
		for _, sc := range configScenarios {
			t.Run("Configs/"+string(k.kind)+"/"+sc.name, func(t *testing.T) {
				t.Parallel()
				s := open(t, newStore)
				sc.fn(t, s, seedConfigs(t, s, k))
			})
		}
	}
}

func testAppIntegrations(t *testing.T, s storage.Storage) {
	ctx := t.Context()
	brand, other := integBrand(t, s, "a.example.com"), integBrand(t, s, "b.example.com")
	an := testApp(brand, integrations.TypeAnalytics, integT0.Add(time.Second))
	pg := testApp(brand, integrations.TypePaymentGateway, integT0)
	pg.LogoURL = nil
	foreign := testApp(other, integrations.TypeAnalytics, integT0)
	inTx(t, s, func(tx integrations.Tx) error {
		return errors.Join(tx.InsertAppIntegration(ctx, an), tx.InsertAppIntegration(ctx, pg),
			tx.InsertAppIntegration(ctx, foreign))
	})

	got, err := s.AppIntegrationByID(ctx, brand, an.ID)
	require.NoError(t, err)
	assert.Equal(t, an, got)
	got, err = s.AppIntegrationByID(ctx, brand, pg.ID)
	require.NoError(t, err)
	assert.Nil(t, got.LogoURL)

	_, err = s.AppIntegrationByID(ctx, brand, foreign.ID)
	assert.ErrorIs(t, err, integrations.ErrAppIntegrationNotFound, "another brand's ID is not found")
	_, err = s.AppIntegrationByID(ctx, brand, uuid.NewString())
	assert.ErrorIs(t, err, integrations.ErrAppIntegrationNotFound)

	list, err := s.ListAppIntegrations(ctx, integrations.AppIntegrationFilter{BrandID: brand})
	require.NoError(t, err)
	assert.Equal(t, []string{pg.ID, an.ID}, appIDs(list), "ordered by creation")
	list, err = s.ListAppIntegrations(ctx, integrations.AppIntegrationFilter{BrandID: brand, Type: integPtr(integrations.TypeAnalytics)})
	require.NoError(t, err)
	assert.Equal(t, []string{an.ID}, appIDs(list))
	list, err = s.ListAppIntegrations(ctx, integrations.AppIntegrationFilter{})
	require.NoError(t, err)
	assert.Len(t, list, 3, "an empty brand selects every brand")

	up := an
	up.Name, up.Domain, up.Description, up.LogoURL, up.Status = "Renamed", "https://x.example.com", "", nil, integrations.StatusInactive
	up.Version, up.UpdatedAt = 2, integT0.Add(time.Hour)
	up.Type, up.CreatedAt = integrations.TypePaymentGateway, integT0.Add(time.Hour) // ignored
	inTx(t, s, func(tx integrations.Tx) error { return tx.UpdateAppIntegration(ctx, up) })
	got, err = s.AppIntegrationByID(ctx, brand, an.ID)
	require.NoError(t, err)
	want := up
	want.Type, want.CreatedAt = an.Type, an.CreatedAt
	assert.Equal(t, want, got)
}

func testAppIntegrationErrors(t *testing.T, s storage.Storage) {
	ctx := t.Context()
	brand, other := integBrand(t, s, "a.example.com"), integBrand(t, s, "b.example.com")
	an := testApp(brand, integrations.TypeAnalytics, integT0)
	foreign := testApp(other, integrations.TypeAnalytics, integT0)
	inTx(t, s, func(tx integrations.Tx) error {
		return errors.Join(tx.InsertAppIntegration(ctx, an), tx.InsertAppIntegration(ctx, foreign))
	})
	err := s.IntegrationsTx(ctx, func(tx integrations.Tx) error {
		return tx.InsertAppIntegration(ctx, an)
	})
	assert.ErrorIs(t, err, integrations.ErrAppIntegrationExists, "an ID is unique")
	err = s.IntegrationsTx(ctx, func(tx integrations.Tx) error {
		return tx.InsertAppIntegration(ctx, testApp(uuid.NewString(), integrations.TypeAnalytics, integT0))
	})
	assert.ErrorIs(t, err, auth.ErrBrandNotFound, "the brand must exist")
	moved := foreign
	moved.BrandID = brand
	err = s.IntegrationsTx(ctx, func(tx integrations.Tx) error { return tx.UpdateAppIntegration(ctx, moved) })
	assert.ErrorIs(t, err, integrations.ErrAppIntegrationNotFound, "an update stays in its brand")
}

func testRevisions(t *testing.T, s storage.Storage) {
	ctx := t.Context()
	brand, other := integBrand(t, s, "a.example.com"), integBrand(t, s, "b.example.com")
	recID, crmID := uuid.NewString(), uuid.NewString()
	rev := func(brandID string, kind integrations.RecordKind, id string, v int64, fields ...string) integrations.Revision {
		if fields == nil {
			fields = []string{}
		}
		return integrations.Revision{ID: uuid.NewString(), BrandID: brandID, Kind: kind, RecordID: id, Version: v,
			ActorUserID: "user-1", At: integT0.Add(time.Duration(v) * time.Second), Fields: fields}
	}
	// Written out of time order: lists keep the order written.
	revs := []integrations.Revision{
		rev(brand, integrations.KindAnalytics, recID, 3, "apiKey", "status"),
		rev(brand, integrations.KindAnalytics, recID, 2),
		rev(brand, integrations.KindAppIntegration, recID, 2, "name"),
		rev(brand, kindCRM, crmID, 2, "pipeline", "token"),
		rev(other, integrations.KindAnalytics, uuid.NewString(), 2, "trackingId"),
	}
	inTx(t, s, func(tx integrations.Tx) error {
		for _, r := range revs {
			if err := tx.InsertRevision(ctx, r); err != nil {
				return err
			}
		}
		return nil
	})
	got, err := s.ListRevisions(ctx, integrations.RevisionFilter{BrandID: brand, Kind: integrations.KindAnalytics, RecordID: recID})
	require.NoError(t, err)
	assert.Equal(t, revs[:2], got)
	got, err = s.ListRevisions(ctx, integrations.RevisionFilter{BrandID: brand, Kind: kindCRM})
	require.NoError(t, err)
	assert.Equal(t, revs[3:4], got, "a revision of the suite's own kind")
	got, err = s.ListRevisions(ctx, integrations.RevisionFilter{BrandID: brand})
	require.NoError(t, err)
	assert.Equal(t, revs[:4], got)
	got, err = s.ListRevisions(ctx, integrations.RevisionFilter{BrandID: other, RecordID: recID})
	require.NoError(t, err)
	assert.Empty(t, got, "another brand's revisions are not listed")

	dup := rev(brand, integrations.KindAnalytics, recID, 3)
	err = s.IntegrationsTx(ctx, func(tx integrations.Tx) error { return tx.InsertRevision(ctx, dup) })
	assert.ErrorIs(t, err, integrations.ErrRevisionExists, "one revision per record and version")
	dup = revs[0]
	dup.Version = 9
	err = s.IntegrationsTx(ctx, func(tx integrations.Tx) error { return tx.InsertRevision(ctx, dup) })
	assert.ErrorIs(t, err, integrations.ErrRevisionExists, "an ID is unique")
	err = s.IntegrationsTx(ctx, func(tx integrations.Tx) error {
		return tx.InsertRevision(ctx, rev(uuid.NewString(), integrations.KindAnalytics, recID, 7))
	})
	assert.ErrorIs(t, err, auth.ErrBrandNotFound, "the brand must exist")
}

// seedTxRecord stores an app integration and an analytics configuration
// of a new brand.
func seedTxRecord(t *testing.T, s storage.Storage) (integrations.AppIntegration, integrations.ConfigRecord) {
	brand := integBrand(t, s, "a.example.com")
	app := testApp(brand, integrations.TypeAnalytics, integT0)
	return app, testAnalytics(brand, app.ID, integT0)
}

func testTxRollsBack(t *testing.T, s storage.Storage) {
	ctx := t.Context()
	app, rec := seedTxRecord(t, s)
	brand := app.BrandID
	boom := errors.New("boom")
	err := s.IntegrationsTx(ctx, func(tx integrations.Tx) error {
		require.NoError(t, tx.InsertAppIntegration(ctx, app))
		require.NoError(t, tx.InsertConfig(ctx, rec))
		r, err := tx.ConfigByID(ctx, rec.Kind, brand, rec.ID)
		require.NoError(t, err, "a transaction reads its own writes")
		assert.Equal(t, rec, r)
		require.NoError(t, tx.InsertRevision(ctx, integrations.Revision{ID: uuid.NewString(), BrandID: brand,
			Kind: integrations.KindAnalytics, RecordID: rec.ID, Version: 1, At: integT0, Fields: []string{}}))
		return boom
	})
	assert.ErrorIs(t, err, boom, "fn's error is returned as is")
	_, err = s.AppIntegrationByID(ctx, brand, app.ID)
	assert.ErrorIs(t, err, integrations.ErrAppIntegrationNotFound, "nothing of a failed transaction stays")
	_, err = s.ConfigByID(ctx, rec.Kind, brand, rec.ID)
	assert.ErrorIs(t, err, integrations.ErrConfigNotFound)
	revs, err := s.ListRevisions(ctx, integrations.RevisionFilter{BrandID: brand})
	require.NoError(t, err)
	assert.Empty(t, revs)

	// A refused write inside a transaction that goes on to fail leaves
	// the earlier state; an update that is undone restores the old record.
	inTx(t, s, func(tx integrations.Tx) error {
		return errors.Join(tx.InsertAppIntegration(ctx, app), tx.InsertConfig(ctx, rec))
	})
	changed := rec
	changed.Body, changed.Version = []byte(`{"trackingId":"G-CHANGED"}`), 2
	err = s.IntegrationsTx(ctx, func(tx integrations.Tx) error {
		require.NoError(t, tx.UpdateConfig(ctx, changed))
		return boom
	})
	require.ErrorIs(t, err, boom)
	got, err := s.ConfigByID(ctx, rec.Kind, brand, rec.ID)
	require.NoError(t, err)
	assert.Equal(t, rec, got)

	cctx, cancel := context.WithCancel(ctx)
	err = s.IntegrationsTx(cctx, func(tx integrations.Tx) error {
		require.NoError(t, tx.UpdateConfig(ctx, changed))
		cancel()
		return nil
	})
	assert.Error(t, err, "a transaction whose context is cancelled does not commit")
	got, err = s.ConfigByID(ctx, rec.Kind, brand, rec.ID)
	require.NoError(t, err)
	assert.Equal(t, rec.Body, got.Body)

	assert.Panics(t, func() {
		_ = s.IntegrationsTx(ctx, func(tx integrations.Tx) error {
			require.NoError(t, tx.UpdateConfig(ctx, changed))
			panic("boom")
		})
	})
	got, err = s.ConfigByID(ctx, rec.Kind, brand, rec.ID)
	require.NoError(t, err, "the store still works after a panicking transaction")
	assert.Equal(t, rec.Body, got.Body, "a panicking transaction writes nothing")
}

func testTxEnds(t *testing.T, s storage.Storage) {
	ctx := t.Context()
	app, rec := seedTxRecord(t, s)
	inTx(t, s, func(tx integrations.Tx) error {
		return errors.Join(tx.InsertAppIntegration(ctx, app), tx.InsertConfig(ctx, rec))
	})
	var kept integrations.Tx
	inTx(t, s, func(tx integrations.Tx) error { kept = tx; return nil })
	_, err := kept.ConfigByID(ctx, rec.Kind, rec.BrandID, rec.ID)
	assert.Error(t, err, "a transaction cannot be used after it ended")
	_, err = kept.ListConfigs(ctx, integrations.ConfigFilter{BrandID: rec.BrandID})
	assert.Error(t, err)
	assert.Error(t, kept.UpdateConfig(ctx, rec))
}

func testTxSerialised(t *testing.T, s storage.Storage) {
	ctx := t.Context()
	brand := integBrand(t, s, "a.example.com")
	app := testApp(brand, integrations.TypeAnalytics, integT0)
	inTx(t, s, func(tx integrations.Tx) error { return tx.InsertAppIntegration(ctx, app) })
	// Each transaction reads the version and writes version+1: with
	// serialised transactions no increment is lost.
	const n = 30
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			assert.NoError(t, s.IntegrationsTx(ctx, func(tx integrations.Tx) error {
				a, err := tx.AppIntegrationByID(ctx, brand, app.ID)
				if err != nil {
					return err
				}
				a.Version++
				return tx.UpdateAppIntegration(ctx, a)
			}))
		})
	}
	wg.Wait()
	got, err := s.AppIntegrationByID(ctx, brand, app.ID)
	require.NoError(t, err)
	assert.EqualValues(t, n+1, got.Version)
}

// testMissingReadsAlike checks that a missing record fails with the
// contract's sentinel, so that its public message, kind and code are the
// same on every store that runs the suite.
func testMissingReadsAlike(t *testing.T, s storage.Storage) {
	ctx := t.Context()
	brand := integBrand(t, s, "a.example.com")
	app := testApp(brand, integrations.TypeAnalytics, integT0)
	inTx(t, s, func(tx integrations.Tx) error { return tx.InsertAppIntegration(ctx, app) })
	same := func(t *testing.T, want *envelope.Error, err error) {
		t.Helper()
		require.Error(t, err)
		got := envelope.As(err)
		assert.Equal(t, [3]string{string(want.Kind), want.Code, want.Message},
			[3]string{string(got.Kind), got.Code, got.Message})
		assert.ErrorIs(t, err, want)
	}
	for _, k := range configKinds {
		_, err := s.ConfigByID(ctx, k.kind, brand, uuid.NewString())
		same(t, integrations.ErrConfigNotFound, err)
		err = s.IntegrationsTx(ctx, func(tx integrations.Tx) error {
			return tx.UpdateConfig(ctx, k.make(brand, app.ID, integT0))
		})
		same(t, integrations.ErrConfigNotFound, err)
	}
	assert.Equal(t, envelope.KindNotFound, integrations.ErrConfigNotFound.Kind)
	assert.Equal(t, "not_found", integrations.ErrConfigNotFound.Code)
	_, err := s.AppIntegrationByID(ctx, brand, uuid.NewString())
	same(t, integrations.ErrAppIntegrationNotFound, err)
}

func appIDs(list []integrations.AppIntegration) []string {
	var out []string
	for _, a := range list {
		out = append(out, a.ID)
	}
	return out
}
