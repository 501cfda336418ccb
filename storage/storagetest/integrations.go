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

// testApp returns an app integration record of brandID.
func testApp(brandID string, typ integrations.Type, created time.Time) integrations.AppIntegration {
	return integrations.AppIntegration{
		ID: uuid.NewString(), BrandID: brandID, Type: typ, Name: "App " + string(typ),
		Domain: "https://app.example.com", Description: "An app", LogoURL: integPtr("https://app.example.com/logo.png"),
		Status: auth.StatusActive, Version: 1, CreatedAt: created, UpdatedAt: created,
	}
}

func testHeader(brandID, appID string, created time.Time) integrations.ConfigHeader {
	return integrations.ConfigHeader{
		ID: uuid.NewString(), BrandID: brandID, AppIntegrationID: appID, Status: auth.StatusActive,
		Version: 1, CreatedAt: created, UpdatedAt: created,
	}
}

func testAnalytics(brandID, appID string, created time.Time) integrations.AnalyticsRecord {
	return integrations.AnalyticsRecord{
		ConfigHeader: testHeader(brandID, appID, created), TrackingID: "G-TRACK",
		APIKey: []byte{1, 2, 3, 0, 255}, APISecret: []byte{9, 8, 7}, Metadata: integPtr("env=prod"),
	}
}

func testGateway(brandID, appID string, created time.Time) integrations.PaymentGatewayRecord {
	return integrations.PaymentGatewayRecord{
		ConfigHeader: testHeader(brandID, appID, created), Name: "Gateway",
		IPNListenerLink: integPtr("https://shop.example.com/ipn"), ReturnLink: integPtr("https://shop.example.com/ok"),
		PublicKey: integPtr("pk_test"), PrivateKey: []byte{4, 5, 6}, Notes: integPtr("notes"), TestMode: true,
	}
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

func runIntegrations(t *testing.T, newStore NewStore) {
	t.Run("AppIntegrations", func(t *testing.T) {
		t.Parallel()
		s := open(t, newStore)
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
		assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err), "another brand's ID is not found")
		_, err = s.AppIntegrationByID(ctx, brand, uuid.NewString())
		assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err))

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
		up.Name, up.Domain, up.Description, up.LogoURL, up.Status = "Renamed", "https://x.example.com", "", nil, auth.StatusInactive
		up.Version, up.UpdatedAt = 2, integT0.Add(time.Hour)
		up.Type, up.CreatedAt = integrations.TypePaymentGateway, integT0.Add(time.Hour) // ignored
		inTx(t, s, func(tx integrations.Tx) error { return tx.UpdateAppIntegration(ctx, up) })
		got, err = s.AppIntegrationByID(ctx, brand, an.ID)
		require.NoError(t, err)
		want := up
		want.Type, want.CreatedAt = an.Type, an.CreatedAt
		assert.Equal(t, want, got)

		err = s.IntegrationsTx(ctx, func(tx integrations.Tx) error {
			return tx.InsertAppIntegration(ctx, an)
		})
		assert.Equal(t, envelope.KindConflict, envelope.KindOf(err), "an ID is unique")
		err = s.IntegrationsTx(ctx, func(tx integrations.Tx) error {
			return tx.InsertAppIntegration(ctx, testApp(uuid.NewString(), integrations.TypeAnalytics, integT0))
		})
		assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err), "the brand must exist")
		moved := foreign
		moved.BrandID = brand
		err = s.IntegrationsTx(ctx, func(tx integrations.Tx) error { return tx.UpdateAppIntegration(ctx, moved) })
		assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err), "an update stays in its brand")
	})

	t.Run("Analytics", func(t *testing.T) {
		t.Parallel()
		s := open(t, newStore)
		runConfigKind(t, s, configKindOps[integrations.AnalyticsRecord]{
			appType: integrations.TypeAnalytics,
			make:    testAnalytics,
			header:  func(r *integrations.AnalyticsRecord) *integrations.ConfigHeader { return &r.ConfigHeader },
			change: func(r *integrations.AnalyticsRecord) {
				r.TrackingID, r.APIKey, r.APISecret, r.Metadata, r.AccountConfigNotes = "G-NEW", []byte{7}, nil, nil, integPtr("n")
			},
			byID:   storage.Storage.AnalyticsByID,
			list:   storage.Storage.ListAnalytics,
			insert: integrations.Tx.InsertAnalytics,
			update: integrations.Tx.UpdateAnalytics,
		})
	})

	t.Run("PaymentGateways", func(t *testing.T) {
		t.Parallel()
		s := open(t, newStore)
		runConfigKind(t, s, configKindOps[integrations.PaymentGatewayRecord]{
			appType: integrations.TypePaymentGateway,
			make:    testGateway,
			header:  func(r *integrations.PaymentGatewayRecord) *integrations.ConfigHeader { return &r.ConfigHeader },
			change: func(r *integrations.PaymentGatewayRecord) {
				r.Name, r.IPNListenerLink, r.CancelLink, r.CancelLinkWithoutLogin = "Renamed", nil, integPtr("https://c.example.com"), integPtr("https://w.example.com")
				r.PublicKey, r.PrivateKey, r.Description, r.Notes, r.TestMode = nil, nil, integPtr("d"), nil, false
			},
			byID:   storage.Storage.PaymentGatewayByID,
			list:   storage.Storage.ListPaymentGateways,
			insert: integrations.Tx.InsertPaymentGateway,
			update: integrations.Tx.UpdatePaymentGateway,
		})
	})

	t.Run("Revisions", func(t *testing.T) {
		t.Parallel()
		s := open(t, newStore)
		ctx := t.Context()
		brand, other := integBrand(t, s, "a.example.com"), integBrand(t, s, "b.example.com")
		recID := uuid.NewString()
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
		got, err = s.ListRevisions(ctx, integrations.RevisionFilter{BrandID: brand})
		require.NoError(t, err)
		assert.Equal(t, revs[:3], got)
		got, err = s.ListRevisions(ctx, integrations.RevisionFilter{BrandID: other, RecordID: recID})
		require.NoError(t, err)
		assert.Empty(t, got, "another brand's revisions are not listed")

		dup := rev(brand, integrations.KindAnalytics, recID, 3)
		err = s.IntegrationsTx(ctx, func(tx integrations.Tx) error { return tx.InsertRevision(ctx, dup) })
		assert.Equal(t, envelope.KindConflict, envelope.KindOf(err), "one revision per record and version")
		dup = revs[0]
		dup.Version = 9
		err = s.IntegrationsTx(ctx, func(tx integrations.Tx) error { return tx.InsertRevision(ctx, dup) })
		assert.Equal(t, envelope.KindConflict, envelope.KindOf(err), "an ID is unique")
	})

	t.Run("TxRollsBack", func(t *testing.T) {
		t.Parallel()
		s := open(t, newStore)
		ctx := t.Context()
		brand := integBrand(t, s, "a.example.com")
		app := testApp(brand, integrations.TypeAnalytics, integT0)
		rec := testAnalytics(brand, app.ID, integT0)
		boom := errors.New("boom")
		err := s.IntegrationsTx(ctx, func(tx integrations.Tx) error {
			require.NoError(t, tx.InsertAppIntegration(ctx, app))
			require.NoError(t, tx.InsertAnalytics(ctx, rec))
			r, err := tx.AnalyticsByID(ctx, brand, rec.ID)
			require.NoError(t, err, "a transaction reads its own writes")
			assert.Equal(t, rec, r)
			require.NoError(t, tx.InsertRevision(ctx, integrations.Revision{ID: uuid.NewString(), BrandID: brand,
				Kind: integrations.KindAnalytics, RecordID: rec.ID, Version: 1, At: integT0, Fields: []string{}}))
			return boom
		})
		assert.ErrorIs(t, err, boom, "fn's error is returned as is")
		_, err = s.AppIntegrationByID(ctx, brand, app.ID)
		assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err), "nothing of a failed transaction stays")
		_, err = s.AnalyticsByID(ctx, brand, rec.ID)
		assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err))
		revs, err := s.ListRevisions(ctx, integrations.RevisionFilter{BrandID: brand})
		require.NoError(t, err)
		assert.Empty(t, revs)

		// A refused write inside a transaction that goes on to fail leaves
		// the earlier state; an update that is undone restores the old record.
		inTx(t, s, func(tx integrations.Tx) error {
			return errors.Join(tx.InsertAppIntegration(ctx, app), tx.InsertAnalytics(ctx, rec))
		})
		changed := rec
		changed.TrackingID, changed.Version = "G-CHANGED", 2
		err = s.IntegrationsTx(ctx, func(tx integrations.Tx) error {
			require.NoError(t, tx.UpdateAnalytics(ctx, changed))
			return boom
		})
		require.ErrorIs(t, err, boom)
		got, err := s.AnalyticsByID(ctx, brand, rec.ID)
		require.NoError(t, err)
		assert.Equal(t, rec, got)

		cctx, cancel := context.WithCancel(ctx)
		err = s.IntegrationsTx(cctx, func(tx integrations.Tx) error {
			require.NoError(t, tx.UpdateAnalytics(ctx, changed))
			cancel()
			return nil
		})
		assert.Error(t, err, "a transaction whose context is cancelled does not commit")
		got, err = s.AnalyticsByID(ctx, brand, rec.ID)
		require.NoError(t, err)
		assert.Equal(t, "G-TRACK", got.TrackingID)

		assert.Panics(t, func() {
			_ = s.IntegrationsTx(ctx, func(tx integrations.Tx) error {
				require.NoError(t, tx.UpdateAnalytics(ctx, changed))
				panic("boom")
			})
		})
		got, err = s.AnalyticsByID(ctx, brand, rec.ID)
		require.NoError(t, err, "the store still works after a panicking transaction")
		assert.Equal(t, "G-TRACK", got.TrackingID, "a panicking transaction writes nothing")

		var kept integrations.Tx
		inTx(t, s, func(tx integrations.Tx) error { kept = tx; return nil })
		_, err = kept.AnalyticsByID(ctx, brand, rec.ID)
		assert.Error(t, err, "a transaction cannot be used after it ended")
	})

	t.Run("TxSerialised", func(t *testing.T) {
		t.Parallel()
		s := open(t, newStore)
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
	})
}

// configKindOps lets one test run on both configuration kinds.
type configKindOps[R any] struct {
	appType integrations.Type
	make    func(brandID, appID string, created time.Time) R
	header  func(*R) *integrations.ConfigHeader
	change  func(*R) // changes every kind-specific field
	byID    func(storage.Storage, context.Context, string, string) (R, error)
	list    func(storage.Storage, context.Context, integrations.ConfigFilter) ([]R, error)
	insert  func(integrations.Tx, context.Context, R) error
	update  func(integrations.Tx, context.Context, R) error
}

func runConfigKind[R any](t *testing.T, s storage.Storage, k configKindOps[R]) {
	ctx := t.Context()
	brand, other := integBrand(t, s, "a.example.com"), integBrand(t, s, "b.example.com")
	app1, app2 := testApp(brand, k.appType, integT0), testApp(brand, k.appType, integT0)
	foreignApp := testApp(other, k.appType, integT0)
	inTx(t, s, func(tx integrations.Tx) error {
		return errors.Join(tx.InsertAppIntegration(ctx, app1), tx.InsertAppIntegration(ctx, app2),
			tx.InsertAppIntegration(ctx, foreignApp))
	})
	insert := func(r R) error {
		return s.IntegrationsTx(ctx, func(tx integrations.Tx) error { return k.insert(tx, ctx, r) })
	}
	update := func(r R) error {
		return s.IntegrationsTx(ctx, func(tx integrations.Tx) error { return k.update(tx, ctx, r) })
	}
	ids := func(rs []R) []string {
		var out []string
		for i := range rs {
			out = append(out, k.header(&rs[i]).ID)
		}
		return out
	}

	a := k.make(brand, app1.ID, integT0.Add(2*time.Second))
	b := k.make(brand, app2.ID, integT0.Add(time.Second))
	k.header(&b).IsDefault = true
	c := k.make(brand, app1.ID, integT0.Add(3*time.Second))
	k.change(&c) // nil secrets and pointers round-trip too
	f := k.make(other, foreignApp.ID, integT0)
	k.header(&f).IsDefault = true
	for _, r := range []R{a, b, c, f} {
		require.NoError(t, insert(r))
	}
	for _, r := range []R{a, b, c} {
		got, err := k.byID(s, ctx, brand, k.header(&r).ID)
		require.NoError(t, err)
		assert.Equal(t, r, got)
	}
	_, err := k.byID(s, ctx, brand, k.header(&f).ID)
	assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err), "another brand's ID is not found")

	list, err := k.list(s, ctx, integrations.ConfigFilter{BrandID: brand})
	require.NoError(t, err)
	assert.Equal(t, []string{k.header(&b).ID, k.header(&a).ID, k.header(&c).ID}, ids(list), "ordered by creation")
	list, err = k.list(s, ctx, integrations.ConfigFilter{BrandID: brand, AppIntegrationID: &app1.ID})
	require.NoError(t, err)
	assert.Equal(t, []string{k.header(&a).ID, k.header(&c).ID}, ids(list))
	list, err = k.list(s, ctx, integrations.ConfigFilter{BrandID: brand, IsDefault: integPtr(true)})
	require.NoError(t, err)
	assert.Equal(t, []string{k.header(&b).ID}, ids(list))
	list, err = k.list(s, ctx, integrations.ConfigFilter{IsDefault: integPtr(true)})
	require.NoError(t, err)
	assert.Len(t, list, 2, "an empty brand selects every brand")

	// Updates: every field but CreatedAt changes; the brand stays.
	up := a
	k.change(&up)
	h := k.header(&up)
	h.AppIntegrationID, h.Status, h.Version, h.UpdatedAt = app2.ID, auth.StatusInactive, 2, integT0.Add(time.Hour)
	h.CreatedAt = integT0.Add(time.Hour) // ignored
	require.NoError(t, update(up))
	got, err := k.byID(s, ctx, brand, h.ID)
	require.NoError(t, err)
	k.header(&up).CreatedAt = k.header(&a).CreatedAt
	assert.Equal(t, up, got)

	// At most one default per brand.
	second := k.make(brand, app1.ID, integT0)
	k.header(&second).IsDefault = true
	assert.Equal(t, envelope.KindConflict, envelope.KindOf(insert(second)), "a second default is refused")
	cDefault := c
	k.header(&cDefault).IsDefault = true
	assert.Equal(t, envelope.KindConflict, envelope.KindOf(update(cDefault)))
	err = s.IntegrationsTx(ctx, func(tx integrations.Tx) error {
		bb := b
		k.header(&bb).IsDefault = false
		return errors.Join(k.update(tx, ctx, bb), k.update(tx, ctx, cDefault))
	})
	require.NoError(t, err, "moving the default in one transaction")
	list, err = k.list(s, ctx, integrations.ConfigFilter{BrandID: brand, IsDefault: integPtr(true)})
	require.NoError(t, err)
	assert.Equal(t, []string{k.header(&c).ID}, ids(list))

	// References stay in the brand.
	dup := k.make(brand, app1.ID, integT0)
	k.header(&dup).ID = k.header(&a).ID
	assert.Equal(t, envelope.KindConflict, envelope.KindOf(insert(dup)), "an ID is unique")
	assert.Equal(t, envelope.KindNotFound, envelope.KindOf(insert(k.make(brand, uuid.NewString(), integT0))),
		"the app integration must exist")
	assert.Equal(t, envelope.KindNotFound, envelope.KindOf(insert(k.make(brand, foreignApp.ID, integT0))),
		"the app integration must be of the same brand")
	assert.Equal(t, envelope.KindNotFound, envelope.KindOf(insert(k.make(uuid.NewString(), app1.ID, integT0))),
		"the brand must exist")
	moved := a
	k.header(&moved).AppIntegrationID = foreignApp.ID
	assert.Equal(t, envelope.KindNotFound, envelope.KindOf(update(moved)))
	stolen := f
	k.header(&stolen).BrandID, k.header(&stolen).AppIntegrationID, k.header(&stolen).IsDefault = brand, app1.ID, false
	assert.Equal(t, envelope.KindNotFound, envelope.KindOf(update(stolen)), "another brand's record cannot be updated")
	assert.Equal(t, envelope.KindNotFound, envelope.KindOf(update(k.make(brand, app1.ID, integT0))), "an update needs a record")
}

func appIDs(list []integrations.AppIntegration) []string {
	var out []string
	for _, a := range list {
		out = append(out, a.ID)
	}
	return out
}
