package integrations_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/internal/testkit/teststores"
	"github.com/brandbase/brandbase/storage"
	"github.com/brandbase/brandbase/storage/sqlite"
)

func key(b byte) []byte { return bytes.Repeat([]byte{b}, integrations.KeySize) }

func TestKeyRing(t *testing.T) {
	t.Parallel()
	k, err := integrations.NewKeyRing("new", map[string][]byte{"old": key(1), "new": key(2)})
	require.NoError(t, err)
	assert.Equal(t, "new", k.Primary())
	assert.Equal(t, []string{"new", "old"}, k.KeyIDs())

	aad := []byte("brand/record/field")
	ct := k.Seal([]byte("s3cret"), aad)
	id, err := integrations.KeyIDOf(ct)
	require.NoError(t, err)
	assert.Equal(t, "new", id, "a ciphertext names its key")
	assert.NotContains(t, string(ct), "s3cret")
	assert.NotEqual(t, ct, k.Seal([]byte("s3cret"), aad), "every seal has a fresh nonce")
	plain, err := k.Open(ct, aad)
	require.NoError(t, err)
	assert.Equal(t, "s3cret", string(plain))

	_, err = k.Open(ct, []byte("brand/other-record/field"))
	assert.Error(t, err, "bound to its associated data")
	tampered := bytes.Clone(ct)
	tampered[len(tampered)-1] ^= 1
	_, err = k.Open(tampered, aad)
	assert.Error(t, err, "tampering is detected")
	_, err = k.Open(ct[:10], aad)
	assert.Error(t, err, "truncation is detected")
	_, err = k.Open([]byte{9, 9}, aad)
	assert.Error(t, err, "garbage is refused")

	oldOnly, err := integrations.NewKeyRing("old", map[string][]byte{"old": key(1)})
	require.NoError(t, err)
	_, err = oldOnly.Open(ct, aad)
	assert.ErrorContains(t, err, `"new"`, "a key the ring does not hold")
	plain, err = k.Open(oldOnly.Seal([]byte("x"), aad), aad)
	require.NoError(t, err, "old keys keep decrypting")
	assert.Equal(t, "x", string(plain))

	for name, tc := range map[string]struct {
		primary string
		keys    map[string][]byte
	}{
		"no key":          {"a", nil},
		"primary missing": {"b", map[string][]byte{"a": key(1)}},
		"short key":       {"a", map[string][]byte{"a": key(1)[:16]}},
		"bad id":          {"a b", map[string][]byte{"a b": key(1)}},
	} {
		_, err := integrations.NewKeyRing(tc.primary, tc.keys)
		assert.Equal(t, envelope.KindInvalid, envelope.KindOf(err), name)
	}
}

func TestParseKeyRing(t *testing.T) {
	t.Parallel()
	text := "# brandbase keys\n" + integrations.FormatKey("k2", key(2)) + "\n" + integrations.FormatKey("k1", key(1))
	k, err := integrations.ParseKeyRing([]byte(text))
	require.NoError(t, err)
	assert.Equal(t, "k2", k.Primary(), "the first key is the primary")
	assert.Equal(t, []string{"k1", "k2"}, k.KeyIDs())

	for name, bad := range map[string]string{
		"empty":        "# nothing\n",
		"no colon":     "k1 AAAA\n",
		"not base64":   "k1:!!!\n",
		"repeated id":  integrations.FormatKey("k1", key(1)) + integrations.FormatKey("k1", key(2)),
		"wrong length": "k1:AAAA\n",
	} {
		_, err := integrations.ParseKeyRing([]byte(bad))
		assert.Equal(t, envelope.KindInvalid, envelope.KindOf(err), name)
	}
}

// secretValues are the plaintext secrets the worlds' inputs carry.
var secretValues = []string{"ak_live_0123456789abcdef", "as_secret_value_987654", "sk_live_private_424242"}

func TestSecretsEncryptedAtRest(t *testing.T) {
	t.Parallel()
	t.Run("sqlite file", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "rest.db")
		store, err := sqlite.Open(t.Context(), path)
		require.NoError(t, err)
		w := newWorld(t, func(testing.TB) storage.Storage { return store })
		w.analytics(t)
		p := w.gateway(t)
		// An update that keeps the secrets writes no plaintext either.
		in := w.gatewayInput(w.gatewayApp.ID)
		in.PrivateKey = p.PrivateKey
		_, err = w.svc.UpdatePaymentGateway(t.Context(), w.admin, p.ID, in)
		require.NoError(t, err)
		require.NoError(t, store.Close())

		var raw []byte
		files, err := filepath.Glob(path + "*") // the database, and any -wal or -shm left
		require.NoError(t, err)
		for _, f := range files {
			b, err := os.ReadFile(f)
			require.NoError(t, err)
			raw = append(raw, b...)
		}
		require.Contains(t, string(raw), "G-12345", "the file holds the configurations")
		require.Contains(t, string(raw), "pk_live_abc")
		for _, s := range secretValues {
			assert.NotContains(t, string(raw), s, "no plaintext secret in the file")
			assert.NotContains(t, string(raw), s[:12], "not even a prefix")
		}
	})
	forEachStore(t, func(t *testing.T, w *world) {
		ctx := t.Context()
		a := w.analytics(t)
		p := w.gateway(t)
		ra, err := w.store.ConfigByID(ctx, integrations.KindAnalytics, w.brand, a.ID)
		require.NoError(t, err)
		rp, err := w.store.ConfigByID(ctx, integrations.KindPaymentGateway, w.brand, p.ID)
		require.NoError(t, err)
		require.Len(t, ra.Secrets, 2)
		require.Len(t, rp.Secrets, 1)
		for _, ct := range [][]byte{ra.Secrets["apiKey"], ra.Secrets["apiSecret"], rp.Secrets["privateKey"]} {
			require.NotEmpty(t, ct)
			id, err := integrations.KeyIDOf(ct)
			require.NoError(t, err)
			assert.Equal(t, "k1", id)
			for _, s := range secretValues {
				assert.NotContains(t, string(ct), s, "the store sees ciphertext only")
			}
		}
		// A ciphertext moved to another record does not decrypt.
		b := w.analytics(t)
		err = w.store.IntegrationsTx(ctx, func(tx integrations.Tx) error {
			rb, err := tx.ConfigByID(ctx, integrations.KindAnalytics, w.brand, b.ID)
			if err != nil {
				return err
			}
			rb.Secrets["apiKey"] = ra.Secrets["apiKey"]
			return tx.UpdateConfig(ctx, rb)
		})
		require.NoError(t, err)
		_, err = w.svc.AnalyticsSecrets(ctx, w.brand, b.ID)
		assert.ErrorIs(t, err, integrations.ErrSecretUnreadable)
		assert.Equal(t, envelope.KindConflict, envelope.KindOf(err))
	})
}

func TestRotateSecrets(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, w *world) {
		ctx := t.Context()
		a := w.analytics(t)
		p := w.gateway(t)
		noSecret := w.gateway(t, func(in *integrations.PaymentGatewayInput) { in.PrivateKey = nil })
		before, err := w.svc.AnalyticsSecrets(ctx, w.brand, a.ID)
		require.NoError(t, err)

		both, err := integrations.NewKeyRing("k2", map[string][]byte{
			"k1": []byte("0123456789abcdef0123456789abcdef"), "k2": key(7)})
		require.NoError(t, err)
		rotating := integrations.NewService(w.store, integrations.WithKeyRing(both))
		got, err := rotating.Analytics(ctx, w.brand, a.ID)
		require.NoError(t, err, "the old key still decrypts")
		assert.Equal(t, a.APIKey, got.APIKey)

		rep, err := rotating.RotateSecrets(ctx, integrations.RotateOptions{})
		require.NoError(t, err)
		assert.Equal(t, 3, rep.Resealed, "apiKey, apiSecret and privateKey")
		assert.Equal(t, 2, rep.ResealedConfigs)
		rep, err = rotating.RotateSecrets(ctx, integrations.RotateOptions{})
		require.NoError(t, err)
		assert.Zero(t, rep.Resealed, "nothing left to rotate")
		assert.Zero(t, rep.Batches, "and no transaction for it")
		usage, err := rotating.SecretsByKey(ctx)
		require.NoError(t, err)
		assert.Equal(t, map[string]int{"k2": 3}, usage, "no secret needs k1 any more")

		newOnly, err := integrations.NewKeyRing("k2", map[string][]byte{"k2": key(7)})
		require.NoError(t, err)
		after := integrations.NewService(w.store, integrations.WithKeyRing(newOnly))
		sec, err := after.AnalyticsSecrets(ctx, w.brand, a.ID)
		require.NoError(t, err, "the old key can go")
		assert.Equal(t, before, sec)
		gotA, err := after.Analytics(ctx, w.brand, a.ID)
		require.NoError(t, err)
		assert.Equal(t, a.ETag(), gotA.ETag(), "rotation does not change the answer")
		gotP, err := after.PaymentGateway(ctx, w.brand, p.ID)
		require.NoError(t, err)
		assert.Equal(t, p.PrivateKey, gotP.PrivateKey)
		gotN, err := after.PaymentGateway(ctx, w.brand, noSecret.ID)
		require.NoError(t, err)
		assert.Nil(t, gotN.PrivateKey)

		_, err = w.svc.Analytics(ctx, w.brand, a.ID)
		assert.ErrorIs(t, err, integrations.ErrSecretUnreadable, "the removed key no longer decrypts")
		rep, err = w.svc.RotateSecrets(ctx, integrations.RotateOptions{})
		assert.ErrorIs(t, err, integrations.ErrSecretUnreadable, "rotating without the sealing key fails")
		assert.Equal(t, 3, rep.Unreadable)
		assert.Len(t, rep.UnreadableConfigs, 2)
		sec, err = after.AnalyticsSecrets(ctx, w.brand, a.ID)
		require.NoError(t, err, "and changes nothing")
		assert.Equal(t, before, sec)
	})
}

// TestConcurrentUpdates: 50 concurrent updates of one record, each
// retried as a client retries a 503 with Retry-After (a store may give up
// on a lock wait under load; nothing was written then): every update
// lands once, none is lost.
func TestConcurrentUpdates(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, w *world) {
		ctx := t.Context()
		a := w.analytics(t)
		const n = 50
		var wg sync.WaitGroup
		var retried atomic.Int64
		for i := range n {
			wg.Go(func() {
				in := w.analyticsInput(w.analyticsApp.ID)
				in.TrackingID, in.APIKey = ptr(fmt.Sprintf("G-%d", i)), ptr(fmt.Sprintf("key-%d-abcdefgh", i))
				in.IsDefault = ptr(true)
				r, err := teststores.RetryUnavailable(func() error {
					_, err := w.svc.UpdateAnalytics(ctx, w.admin, a.ID, in)
					return err
				})
				retried.Add(int64(r))
				assert.NoError(t, err)
			})
		}
		wg.Wait()
		t.Logf("503s retried: %d", retried.Load())

		got, err := w.svc.Analytics(ctx, w.brand, a.ID)
		require.NoError(t, err)
		assert.EqualValues(t, n+1, got.Version, "no update lost")
		assert.True(t, got.IsDefault)
		sec, err := w.svc.AnalyticsSecrets(ctx, w.brand, a.ID)
		require.NoError(t, err)
		i := strings.TrimPrefix(got.TrackingID, "G-")
		assert.Equal(t, ptr("key-"+i+"-abcdefgh"), sec.APIKey, "trackingId and apiKey come from the same update")

		revs, err := w.svc.Revisions(ctx, w.brand, integrations.KindAnalytics, a.ID)
		require.NoError(t, err)
		require.Len(t, revs, n, "one revision per update")
		for j, r := range revs {
			assert.EqualValues(t, j+2, r.Version, "one revision per version, in order")
			assert.Subset(t, r.Fields, []string{"apiKey", "trackingId"})
			assert.Equal(t, "admin", r.ActorUserID)
		}
	})
}

func TestConcurrentDefaults(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, w *world) {
		ctx := t.Context()
		var ids []string
		for range 5 {
			ids = append(ids, w.analytics(t).ID)
		}
		var wg sync.WaitGroup
		for i := range 30 {
			wg.Go(func() {
				in := w.analyticsInput(w.analyticsApp.ID)
				in.IsDefault = ptr(true)
				_, err := teststores.RetryUnavailable(func() error { // as TestConcurrentUpdates
					_, err := w.svc.UpdateAnalytics(ctx, w.admin, ids[i%len(ids)], in)
					return err
				})
				assert.NoError(t, err)
			})
		}
		wg.Wait()
		list, err := w.svc.ListAnalytics(ctx, w.brand)
		require.NoError(t, err)
		defaults := 0
		for _, x := range list {
			if x.IsDefault {
				defaults++
			}
		}
		assert.Equal(t, 1, defaults, "exactly one default")
	})
}

// A secret whose key left the ring too early must not block the fix:
// sending a new value replaces it, sending the mask back keeps it.
func TestNewSecretReplacesOneThatNoLongerDecrypts(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, w *world) {
		ctx := t.Context()
		a := w.analytics(t)
		other, err := integrations.NewKeyRing("k9", map[string][]byte{"k9": key(9)})
		require.NoError(t, err)
		lost := integrations.NewService(w.store, integrations.WithKeyRing(other))
		_, err = lost.Analytics(ctx, w.brand, a.ID)
		require.ErrorIs(t, err, integrations.ErrSecretUnreadable, "precondition: the stored secrets do not decrypt")
		assert.Equal(t, envelope.KindConflict, envelope.KindOf(err), "a 409 for this record, not a 500")
		assert.Equal(t, "apiKey", envelope.As(err).Fields[0].Field, "the error names the secret")

		// Sending the mask back (or no secret) would keep a secret that no
		// answer could show: refused, and nothing changes.
		in := w.analyticsInput(w.analyticsApp.ID)
		in.APIKey, in.APISecret = a.APIKey, a.APISecret
		in.TrackingID = ptr("G-CHANGED")
		_, err = lost.UpdateAnalytics(ctx, w.admin, a.ID, in)
		require.ErrorIs(t, err, integrations.ErrSecretUnreadable)
		same, err := w.svc.Analytics(ctx, w.brand, a.ID)
		require.NoError(t, err)
		assert.Equal(t, a.ETag(), same.ETag(), "the refused update changed nothing")

		// A list flags the record instead of failing.
		list, err := lost.ListAnalytics(ctx, w.brand)
		require.NoError(t, err, "one unreadable record never fails the list")
		require.Len(t, list, 1)
		assert.True(t, list[0].SecretsUnreadable)
		assert.Empty(t, list[0].APIKey)
		assert.Nil(t, list[0].APISecret)
		assert.Equal(t, a.TrackingID, list[0].TrackingID, "the rest of the record is there")

		in = w.analyticsInput(w.analyticsApp.ID)
		in.APIKey, in.APISecret = ptr("ak_new_value_0000000001"), ptr("as_new_value_0000000002")
		got, err := lost.UpdateAnalytics(ctx, w.admin, a.ID, in)
		require.NoError(t, err, "new values replace secrets that no longer decrypt")
		assert.Equal(t, ptr(integrations.Mask("ak_new_value_0000000001")), got.APIKey)

		sec, err := lost.AnalyticsSecrets(ctx, w.brand, a.ID)
		require.NoError(t, err)
		assert.Equal(t, ptr("ak_new_value_0000000001"), sec.APIKey)
	})
}
