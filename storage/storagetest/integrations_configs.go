package storagetest

import (
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/storage"
)

// configWorld is what the configuration scenarios start from: in brand,
// two app integrations of the kind's type and three configurations
// (b the default, created first; a and c on app1); in other, one default
// configuration f.
type configWorld struct {
	s                      storage.Storage
	k                      configKind
	brand, other           string
	app1, app2, foreignApp integrations.AppIntegration
	a, b, c, f             integrations.ConfigRecord
}

// configScenarios run on every kind of configKinds.
var configScenarios = []struct {
	name string
	fn   func(t *testing.T, s storage.Storage, w *configWorld)
}{
	{"ReadBack", testConfigReadBack},
	{"List", testConfigList},
	{"Update", testConfigUpdate},
	{"OneDefault", testConfigOneDefault},
	{"References", testConfigReferences},
	{"Delete", testConfigDelete},
}

// seedConfigs stores the configWorld of kind k.
func seedConfigs(t *testing.T, s storage.Storage, k configKind) *configWorld {
	ctx := t.Context()
	w := &configWorld{s: s, k: k, brand: integBrand(t, s, "a.example.com"), other: integBrand(t, s, "b.example.com")}
	w.app1, w.app2 = testApp(w.brand, k.appType, integT0), testApp(w.brand, k.appType, integT0)
	w.foreignApp = testApp(w.other, k.appType, integT0)
	inTx(t, s, func(tx integrations.Tx) error {
		return errors.Join(tx.InsertAppIntegration(ctx, w.app1), tx.InsertAppIntegration(ctx, w.app2),
			tx.InsertAppIntegration(ctx, w.foreignApp))
	})
	w.a = k.make(w.brand, w.app1.ID, integT0.Add(2*time.Second))
	w.b = k.make(w.brand, w.app2.ID, integT0.Add(time.Second))
	w.b.IsDefault = true
	w.c = k.make(w.brand, w.app1.ID, integT0.Add(3*time.Second))
	k.change(&w.c) // nil secrets and null body fields round-trip too
	w.f = k.make(w.other, w.foreignApp.ID, integT0)
	w.f.IsDefault = true
	for _, r := range []integrations.ConfigRecord{w.a, w.b, w.c, w.f} {
		require.NoError(t, w.insert(t, r))
	}
	return w
}

func (w *configWorld) insert(t *testing.T, r integrations.ConfigRecord) error {
	return w.s.IntegrationsTx(t.Context(), func(tx integrations.Tx) error { return tx.InsertConfig(t.Context(), r) })
}

func (w *configWorld) update(t *testing.T, r integrations.ConfigRecord) error {
	return w.s.IntegrationsTx(t.Context(), func(tx integrations.Tx) error { return tx.UpdateConfig(t.Context(), r) })
}

// list returns the IDs of the configurations of the world's kind that f
// selects.
func (w *configWorld) list(t *testing.T, f integrations.ConfigFilter) []string {
	t.Helper()
	f.Kind = w.k.kind
	list, err := w.s.ListConfigs(t.Context(), f)
	require.NoError(t, err)
	var out []string
	for _, r := range list {
		assert.Equal(t, w.k.kind, r.Kind)
		out = append(out, r.ID)
	}
	return out
}

func testConfigReadBack(t *testing.T, s storage.Storage, w *configWorld) {
	ctx := t.Context()
	for _, r := range []integrations.ConfigRecord{w.a, w.b, w.c} {
		got, err := s.ConfigByID(ctx, w.k.kind, w.brand, r.ID)
		require.NoError(t, err)
		assert.Equal(t, r, got)
		assert.JSONEq(t, string(r.Body), string(got.Body))
	}
	_, err := s.ConfigByID(ctx, w.k.kind, w.brand, w.f.ID)
	assert.ErrorIs(t, err, integrations.ErrConfigNotFound, "another brand's ID is not found")
	err = s.IntegrationsTx(ctx, func(tx integrations.Tx) error {
		got, err := tx.ConfigByID(ctx, w.k.kind, w.brand, w.a.ID)
		assert.Equal(t, w.a, got, "a transaction reads as the store does")
		return err
	})
	require.NoError(t, err)
}

func testConfigList(t *testing.T, _ storage.Storage, w *configWorld) {
	assert.Equal(t, []string{w.b.ID, w.a.ID, w.c.ID}, w.list(t, integrations.ConfigFilter{BrandID: w.brand}),
		"ordered by creation")
	assert.Equal(t, []string{w.a.ID, w.c.ID}, w.list(t, integrations.ConfigFilter{BrandID: w.brand, AppIntegrationID: &w.app1.ID}))
	assert.Equal(t, []string{w.b.ID}, w.list(t, integrations.ConfigFilter{BrandID: w.brand, IsDefault: integPtr(true)}))
	assert.Equal(t, []string{w.a.ID, w.c.ID}, w.list(t, integrations.ConfigFilter{BrandID: w.brand, IsDefault: integPtr(false)}))
	assert.Len(t, w.list(t, integrations.ConfigFilter{IsDefault: integPtr(true)}), 2, "an empty brand selects every brand")
	all, err := w.s.ListConfigs(t.Context(), integrations.ConfigFilter{BrandID: w.brand})
	require.NoError(t, err)
	assert.Equal(t, []integrations.ConfigRecord{w.b, w.a, w.c}, all, "an empty kind selects every kind")
}

func testConfigUpdate(t *testing.T, s storage.Storage, w *configWorld) {
	// Every field but CreatedAt changes; the kind, ID and brand stay.
	up := w.a
	w.k.change(&up)
	up.AppIntegrationID, up.Status, up.Version, up.UpdatedAt = w.app2.ID, integrations.StatusInactive, 2, integT0.Add(time.Hour)
	up.CreatedAt = integT0.Add(time.Hour) // ignored
	require.NoError(t, w.update(t, up))
	got, err := s.ConfigByID(t.Context(), w.k.kind, w.brand, up.ID)
	require.NoError(t, err)
	up.CreatedAt = w.a.CreatedAt
	assert.Equal(t, up, got)

	back := w.c // secrets come back after being cleared
	back.Secrets, back.Version = w.a.Secrets, 2
	require.NoError(t, w.update(t, back))
	got, err = s.ConfigByID(t.Context(), w.k.kind, w.brand, back.ID)
	require.NoError(t, err)
	assert.Equal(t, back, got)
}

func testConfigOneDefault(t *testing.T, s storage.Storage, w *configWorld) {
	second := w.k.make(w.brand, w.app1.ID, integT0)
	second.IsDefault = true
	assert.ErrorIs(t, w.insert(t, second), integrations.ErrDefaultTaken, "a second default is refused")
	cDefault := w.c
	cDefault.IsDefault = true
	assert.ErrorIs(t, w.update(t, cDefault), integrations.ErrDefaultTaken)
	bDefault := w.b // the default stays the default
	bDefault.Version = 2
	require.NoError(t, w.update(t, bDefault))

	err := s.IntegrationsTx(t.Context(), func(tx integrations.Tx) error {
		bb := w.b
		bb.IsDefault = false
		return errors.Join(tx.UpdateConfig(t.Context(), bb), tx.UpdateConfig(t.Context(), cDefault))
	})
	require.NoError(t, err, "moving the default in one transaction")
	assert.Equal(t, []string{w.c.ID}, w.list(t, integrations.ConfigFilter{BrandID: w.brand, IsDefault: integPtr(true)}))
}

func testConfigReferences(t *testing.T, _ storage.Storage, w *configWorld) {
	dup := w.k.make(w.brand, w.app1.ID, integT0)
	dup.ID = w.a.ID
	assert.ErrorIs(t, w.insert(t, dup), integrations.ErrConfigExists, "an ID is unique")
	assert.ErrorIs(t, w.insert(t, w.k.make(w.brand, uuid.NewString(), integT0)), integrations.ErrAppIntegrationNotFound,
		"the app integration must exist")
	assert.ErrorIs(t, w.insert(t, w.k.make(w.brand, w.foreignApp.ID, integT0)), integrations.ErrAppIntegrationNotFound,
		"the app integration must be of the same brand")
	assert.ErrorIs(t, w.insert(t, w.k.make(uuid.NewString(), w.app1.ID, integT0)), auth.ErrBrandNotFound,
		"the brand must exist")
	moved := w.a
	moved.AppIntegrationID = w.foreignApp.ID
	assert.ErrorIs(t, w.update(t, moved), integrations.ErrAppIntegrationNotFound)
	stolen := w.f
	stolen.BrandID, stolen.AppIntegrationID, stolen.IsDefault = w.brand, w.app1.ID, false
	assert.ErrorIs(t, w.update(t, stolen), integrations.ErrConfigNotFound, "another brand's record cannot be updated")
	assert.ErrorIs(t, w.update(t, w.k.make(w.brand, w.app1.ID, integT0)), integrations.ErrConfigNotFound,
		"an update needs a record")
}

// testConfigKindsApart checks that kinds share the store but not their
// records: IDs are unique across kinds, a record is read and updated only
// as its own kind, and each kind has its own default per brand.
func testConfigKindsApart(t *testing.T, s storage.Storage) {
	ctx := t.Context()
	brand := integBrand(t, s, "a.example.com")
	var recs []integrations.ConfigRecord
	inTx(t, s, func(tx integrations.Tx) error {
		for i, k := range configKinds {
			app := testApp(brand, k.appType, integT0)
			r := k.make(brand, app.ID, integT0.Add(time.Duration(i)*time.Second))
			r.IsDefault = true
			recs = append(recs, r)
			if err := errors.Join(tx.InsertAppIntegration(ctx, app), tx.InsertConfig(ctx, r)); err != nil {
				return err
			}
		}
		return nil
	})
	all, err := s.ListConfigs(ctx, integrations.ConfigFilter{BrandID: brand, IsDefault: integPtr(true)})
	require.NoError(t, err)
	assert.Equal(t, recs, all, "one default per brand and kind")
	for i, k := range configKinds {
		other := recs[(i+1)%len(recs)]
		_, err := s.ConfigByID(ctx, k.kind, brand, other.ID)
		assert.ErrorIs(t, err, integrations.ErrConfigNotFound, "a record is read as its own kind only")
		list, err := s.ListConfigs(ctx, integrations.ConfigFilter{Kind: k.kind})
		require.NoError(t, err)
		assert.Equal(t, recs[i:i+1], list)

		clash := k.make(brand, recs[i].AppIntegrationID, integT0)
		clash.ID = other.ID
		err = s.IntegrationsTx(ctx, func(tx integrations.Tx) error { return tx.InsertConfig(ctx, clash) })
		assert.ErrorIs(t, err, integrations.ErrConfigExists, "IDs are unique across kinds")
		err = s.IntegrationsTx(ctx, func(tx integrations.Tx) error { return tx.UpdateConfig(ctx, clash) })
		assert.ErrorIs(t, err, integrations.ErrConfigNotFound, "a record is updated as its own kind only")
	}
}

// testConfigDelete checks DeleteConfig: the row goes whole (its secrets
// with it: no record of any brand or kind holds them after), the brand's
// default goes with the default's row (another may become the default),
// the revision written beside it stays, a refused transaction deletes
// nothing, and only a record of that brand and kind is found.
func testConfigDelete(t *testing.T, s storage.Storage, w *configWorld) {
	ctx := t.Context()
	del := func(kind integrations.RecordKind, brandID, id string) error {
		return s.IntegrationsTx(ctx, func(tx integrations.Tx) error { return tx.DeleteConfig(ctx, kind, brandID, id) })
	}
	assert.ErrorIs(t, del(w.k.kind, w.brand, w.f.ID), integrations.ErrConfigNotFound, "another brand's record is not found")
	assert.ErrorIs(t, del(w.k.kind, w.brand, uuid.NewString()), integrations.ErrConfigNotFound)
	for _, k := range configKinds {
		if k.kind != w.k.kind {
			assert.ErrorIs(t, del(k.kind, w.brand, w.a.ID), integrations.ErrConfigNotFound, "a record is deleted as its own kind only")
		}
	}
	boom := errors.New("refused")
	err := s.IntegrationsTx(ctx, func(tx integrations.Tx) error {
		require.NoError(t, tx.DeleteConfig(ctx, w.k.kind, w.brand, w.b.ID))
		_, err := tx.ConfigByID(ctx, w.k.kind, w.brand, w.b.ID)
		assert.ErrorIs(t, err, integrations.ErrConfigNotFound, "the transaction sees its delete")
		return boom
	})
	require.ErrorIs(t, err, boom)
	assert.Equal(t, []string{w.b.ID, w.a.ID, w.c.ID}, w.list(t, integrations.ConfigFilter{BrandID: w.brand}),
		"a refused transaction deletes nothing")

	// b's secrets, made unique to it, must be in no row after the delete.
	unique := w.b
	unique.Secrets, unique.Version = map[string][]byte{}, w.b.Version+1
	for name := range w.b.Secrets {
		unique.Secrets[name] = []byte(uuid.NewString())
	}
	require.NoError(t, w.update(t, unique))
	rev := integrations.Revision{ID: uuid.NewString(), BrandID: w.brand, Kind: w.k.kind, RecordID: w.b.ID,
		Version: unique.Version + 1, ActorUserID: uuid.NewString(), At: integT0.Add(time.Hour), Fields: []string{integrations.FieldDeleted}}
	inTx(t, s, func(tx integrations.Tx) error {
		return errors.Join(tx.DeleteConfig(ctx, w.k.kind, w.brand, w.b.ID), tx.InsertRevision(ctx, rev))
	})
	_, err = s.ConfigByID(ctx, w.k.kind, w.brand, w.b.ID)
	assert.ErrorIs(t, err, integrations.ErrConfigNotFound, "the record is gone")
	assert.ErrorIs(t, del(w.k.kind, w.brand, w.b.ID), integrations.ErrConfigNotFound, "a second delete finds nothing")
	all, err := s.ListConfigs(ctx, integrations.ConfigFilter{})
	require.NoError(t, err)
	for _, r := range all {
		assert.NotEqual(t, w.b.ID, r.ID, "no row of any brand or kind holds the record or its secrets")
		for name, ct := range r.Secrets {
			for _, old := range unique.Secrets {
				assert.NotEqual(t, old, ct, "secret %s of %s", name, r.ID)
			}
		}
	}
	assert.Empty(t, w.list(t, integrations.ConfigFilter{BrandID: w.brand, IsDefault: integPtr(true)}), "the default went with its row")
	assert.Equal(t, []string{w.f.ID}, w.list(t, integrations.ConfigFilter{BrandID: w.other, IsDefault: integPtr(true)}),
		"another brand keeps its default")
	next := w.c
	next.IsDefault, next.Version = true, 2
	require.NoError(t, w.update(t, next), "another record may become the default")
	revs, err := s.ListRevisions(ctx, integrations.RevisionFilter{BrandID: w.brand, Kind: w.k.kind, RecordID: w.b.ID})
	require.NoError(t, err)
	if assert.Len(t, revs, 1, "the revision of the deletion stays") {
		assert.Equal(t, rev.ActorUserID, revs[0].ActorUserID, "it names who deleted")
		assert.True(t, revs[0].Deleted())
	}
}
