package storagetest

import (
	"context"
	"errors"
	"maps"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/outbox"
	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/storage"
)

// promptly is how long a store call under a cancelled context may take.
const promptly = time.Second

// runCancellation checks that every store method, called with a cancelled
// context, fails promptly with the context's error (errors.Is
// context.Canceled, envelope.KindUnavailable, which the HTTP adapter
// answers 503) and writes nothing: a request whose client went away stops
// at its next store call. RefDataRevision may instead answer from memory.
func runCancellation(t *testing.T, newStore NewStore) {
	runScenarios(t, newStore, []scenario{
		{"EveryMethod", testEveryMethodCancelled},
	})
}

// cancelled are the records the cancelled calls act on, all stored, so
// that only the context can make a call fail.
type cancelled struct {
	b   auth.Brand
	u   auth.UserRecord
	k   auth.KeyPair
	d   auth.Device
	app integrations.AppIntegration
	an  integrations.ConfigRecord
}

// seedCancelled stores a brand, a user, a key pair, a device and an
// analytics integration in s.
func seedCancelled(t *testing.T, s storage.Storage) cancelled {
	t.Helper()
	var c cancelled
	c.b, c.u = seedUser(t, s, "cancel")
	c.k = testKey(c.u, "", "")
	require.NoError(t, s.CreateKeyPair(t.Context(), c.k))
	c.d = seedDevice(t, s, c.u, "phone")
	c.app = testApp(c.b.ID, integrations.TypeAnalytics, integT0)
	c.an = testAnalytics(c.b.ID, c.app.ID, integT0)
	inTx(t, s, func(tx integrations.Tx) error {
		require.NoError(t, tx.InsertAppIntegration(t.Context(), c.app))
		return tx.InsertConfig(t.Context(), c.an)
	})
	return c
}

// testEveryMethodCancelled calls every store method under a cancelled
// context (cancellableCalls) and checks the error, its kind, that it came
// promptly, and that nothing was written.
func testEveryMethodCancelled(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	c := seedCancelled(t, s)
	revision, err := s.RefDataRevision(t.Context())
	require.NoError(t, err)

	ctx, cancel := contextCancelled(t)
	defer cancel()
	for name, call := range cancellableCalls(s, c) {
		start := time.Now()
		err := call(ctx)
		took := time.Since(start)
		if err == nil && name == "RefDataRevision" {
			continue // may answer from memory: it neither blocks nor writes
		}
		assert.Truef(t, errors.Is(err, context.Canceled), "%s: the context's error, got %v", name, err)
		assert.Equalf(t, envelope.KindUnavailable, envelope.KindOf(err), "%s", name)
		assert.Lessf(t, took, promptly, "%s returned promptly", name)
	}
	assertNothingWritten(t, s, c, revision)
}

// assertNothingWritten checks that the records of c and the reference
// data (at revision) are as they were stored.
func assertNothingWritten(t *testing.T, s storage.Storage, c cancelled, revision uint64) {
	t.Helper()
	live := t.Context()
	got, err := s.BrandByID(live, c.b.ID)
	require.NoError(t, err)
	assert.Equal(t, c.b, got, "a cancelled UpdateBrand wrote nothing")
	settings, err := s.BrandSettings(live, c.b.ID)
	require.NoError(t, err)
	assert.Equal(t, auth.BrandSettings{}, settings, "a cancelled SetBrandSettings wrote nothing")
	gotUser, err := s.UserByID(live, c.u.ID)
	require.NoError(t, err)
	assert.Equal(t, c.u, gotUser, "a cancelled UpdateUser wrote nothing")
	gotKey, err := s.KeyPairByAuthHash(live, c.k.AuthHash)
	require.NoError(t, err)
	assert.Equal(t, c.k, gotKey, "cancelled rotations and revocations wrote nothing")
	gotAn, err := s.ConfigByID(live, c.an.Kind, c.b.ID, c.an.ID)
	require.NoError(t, err)
	assert.Equal(t, c.an, gotAn, "a cancelled transaction wrote nothing")
	v, err := s.DatasetVersion(live)
	require.NoError(t, err)
	assert.Equal(t, refdata.DatasetVersion, v)
	rev, err := s.RefDataRevision(live)
	require.NoError(t, err)
	assert.Equal(t, revision, rev, "cancelled upserts changed no reference data")
	items, err := s.Items(live, outbox.Filter{BrandID: "b1"})
	require.NoError(t, err)
	assert.Empty(t, items, "a cancelled Enqueue wrote nothing")
}

// cancellableCalls returns one call of every store method, named, on the
// records of c (refdataCalls, authCalls and the integrations.Store calls).
func cancellableCalls(s storage.Storage, c cancelled) map[string]func(ctx context.Context) error {
	b, app, an := c.b, c.app, c.an
	calls := map[string]func(ctx context.Context) error{
		// integrations.Store
		"AppIntegrationByID": func(ctx context.Context) error {
			_, err := s.AppIntegrationByID(ctx, b.ID, app.ID)
			return err
		},
		"ListAppIntegrations": func(ctx context.Context) error {
			_, err := s.ListAppIntegrations(ctx, integrations.AppIntegrationFilter{BrandID: b.ID})
			return err
		},
		"ConfigByID": func(ctx context.Context) error { _, err := s.ConfigByID(ctx, an.Kind, b.ID, an.ID); return err },
		"ListConfigs": func(ctx context.Context) error {
			_, err := s.ListConfigs(ctx, integrations.ConfigFilter{BrandID: b.ID})
			return err
		},
		"ListRevisions": func(ctx context.Context) error {
			_, err := s.ListRevisions(ctx, integrations.RevisionFilter{BrandID: b.ID})
			return err
		},
		"IntegrationsTx": func(ctx context.Context) error {
			changedAn := an
			changedAn.Body, changedAn.Version = []byte(`{"trackingId":"G-CANCELLED"}`), an.Version+1
			return s.IntegrationsTx(ctx, func(tx integrations.Tx) error { return tx.UpdateConfig(ctx, changedAn) })
		},
	}
	maps.Copy(calls, refdataCalls(s))
	maps.Copy(calls, authCalls(s, c))
	maps.Copy(calls, accountCalls(s, c))
	maps.Copy(calls, outboxCalls(s))
	return calls
}

// refdataCalls returns one call of every refdata.Store method, named.
func refdataCalls(s storage.Storage) map[string]func(ctx context.Context) error {
	return map[string]func(ctx context.Context) error{
		// refdata.Store
		"ReadRefData": func(ctx context.Context) error {
			_, err := s.ReadRefData(ctx)
			return err
		},
		"UpsertCurrencies": func(ctx context.Context) error {
			return s.UpsertCurrencies(ctx, []refdata.Currency{{ID: refdata.CurrencyID("XTS"), Code: "XTS", Name: "Test"}})
		},
		"RefDataChangesSince": func(ctx context.Context) error {
			_, err := s.RefDataChangesSince(ctx, 0, 0)
			return err
		},
		"UpsertCountries": func(ctx context.Context) error {
			return s.UpsertCountries(ctx, []refdata.Country{{ID: refdata.CountryID("XT"), CodeAlpha2: "XT", Name: "Test"}})
		},
		"UpsertCities": func(ctx context.Context) error {
			_, err := s.UpsertCities(ctx, []refdata.City{{CountryCode: "BR", StateCode: "SP", Name: "Cancelled City"}})
			return err
		},
		"RefDataRevision":   func(ctx context.Context) error { _, err := s.RefDataRevision(ctx); return err },
		"RefDataGeneration": func(ctx context.Context) error { _, _, err := s.RefDataGeneration(ctx); return err },
		"DatasetVersion":    func(ctx context.Context) error { _, err := s.DatasetVersion(ctx); return err },
		"SetDatasetVersion": func(ctx context.Context) error { return s.SetDatasetVersion(ctx, "cancelled") },
	}
}

// authCalls returns one call of every auth.Store method, named, on the
// records of c.
func authCalls(s storage.Storage, c cancelled) map[string]func(ctx context.Context) error {
	b, u, k, d := c.b, c.u, c.k, c.d
	changed := b
	changed.Name = "Renamed"
	next := testKey(u, k.FamilyID, "")
	return map[string]func(ctx context.Context) error{
		// auth.Store
		"CreateBrand": func(ctx context.Context) error { return s.CreateBrand(ctx, testBrand("cancelled.example.com")) },
		"UpdateBrand": func(ctx context.Context) error { return s.UpdateBrand(ctx, changed) },
		"BrandByID":   func(ctx context.Context) error { _, err := s.BrandByID(ctx, b.ID); return err },
		"BrandByURL":  func(ctx context.Context) error { _, err := s.BrandByURL(ctx, b.URL); return err },
		"ListBrands":  func(ctx context.Context) error { _, err := s.ListBrands(ctx); return err },
		"CreateUser":  func(ctx context.Context) error { return s.CreateUser(ctx, testUser(b.ID, "late", "")) },
		"UpdateUser": func(ctx context.Context) error {
			_, err := s.UpdateUser(ctx, u.ID, func(r *auth.UserRecord) error { r.PhoneNumber = "changed"; return nil })
			return err
		},
		"UserByID":       func(ctx context.Context) error { _, err := s.UserByID(ctx, u.ID); return err },
		"UserByUsername": func(ctx context.Context) error { _, err := s.UserByUsername(ctx, b.ID, u.UsernameKey); return err },
		"UserByEmail":    func(ctx context.Context) error { _, err := s.UserByEmail(ctx, b.ID, u.EmailKey); return err },
		"ListUsers":      func(ctx context.Context) error { _, err := s.ListUsers(ctx, b.ID); return err },
		"CreateKeyPair":  func(ctx context.Context) error { return s.CreateKeyPair(ctx, testKey(u, "", "")) },
		"KeyPairByAuthHash": func(ctx context.Context) error {
			_, err := s.KeyPairByAuthHash(ctx, k.AuthHash)
			return err
		},
		"KeyPairByRefreshHash": func(ctx context.Context) error {
			_, err := s.KeyPairByRefreshHash(ctx, k.RefreshHash)
			return err
		},
		"RotateKeyPair": func(ctx context.Context) error { return s.RotateKeyPair(ctx, k.ID, t0.Add(time.Hour), next) },
		"ReissueKeyPair": func(ctx context.Context) error {
			return s.ReissueKeyPair(ctx, k.ID, t0.Add(-time.Hour), testKey(u, k.FamilyID, ""))
		},
		"RevokeKeyPairs": func(ctx context.Context) error {
			_, err := s.RevokeKeyPairs(ctx, auth.KeySelector{UserID: u.ID}, t0.Add(time.Hour))
			return err
		},
		"DeleteKeyPairs": func(ctx context.Context) error {
			_, err := s.DeleteKeyPairs(ctx, t0.Add(365*24*time.Hour))
			return err
		},
		"UpsertDevice": func(ctx context.Context) error {
			_, _, err := s.UpsertDevice(ctx, auth.Device{ID: uuid.NewString(), BrandID: b.ID, UserID: u.ID, Code: "tablet",
				CreatedAt: t0, LastSeenAt: t0})
			return err
		},
		"DeviceByCode": func(ctx context.Context) error { _, err := s.DeviceByCode(ctx, u.ID, d.Code); return err },
		"ListDevices":  func(ctx context.Context) error { _, err := s.ListDevices(ctx, u.ID); return err },
		"RevokeDevice": func(ctx context.Context) error {
			_, err := s.RevokeDevice(ctx, u.ID, d.ID, t0.Add(time.Hour))
			return err
		},
	}
}
