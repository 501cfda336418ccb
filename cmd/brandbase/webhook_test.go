package main_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/outbox"
	"github.com/brandbase/brandbase/storage/storeurl"
	"github.com/brandbase/brandbase/webhooks"
)

// TestWebhookCommand makes, lists, rotates and deletes a webhook endpoint
// with the command, and checks that keys rotate re-seals its signing
// secrets: after the old key is retired, a delivery is still signed with
// the secrets the command showed (verified here from the spec's
// algorithm, with crypto/hmac alone).
func TestWebhookCommand(t *testing.T) {
	t.Parallel()
	for name, newDB := range stores(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			db := newDB(t, dir)
			env := []string{"BRANDBASE_DATABASE_URL=" + db, "BRANDBASE_SECRET_KEYS_FILE=keys"}
			var gen struct{ ID string }
			// An ID of its own: keys rotate names its key by the second.
			okJSON(t, dir, env, "", &gen, "keys", "generate", "--out", "keys", "--id", "k-first")
			ok(t, dir, env, "", "migrate", "up")
			ok(t, dir, env, "", "brand", "create", "shop.example.com", "--name", "Shop")
			brand := []string{"--brand", "shop.example.com"}

			var made webhooks.EndpointWithSecret
			okJSON(t, dir, env, "", &made, append([]string{"webhook", "create", "--url", "https://hooks.example.com/in",
				"--events", "user.created,user.updated"}, brand...)...)
			require.True(t, strings.HasPrefix(made.Secret, "whsec_"))
			assert.Equal(t, []string{"user.created", "user.updated"}, made.EventTypes)
			failsWith(t, dir, env, "", 1, "The url must be https", append([]string{"webhook", "create", "--url", "http://hooks.example.com/"}, brand...)...)
			assert.Contains(t, ok(t, dir, env, "", append([]string{"webhook", "list"}, brand...)...), "https://hooks.example.com/in")
			var rotated webhooks.EndpointWithSecret
			okJSON(t, dir, env, "", &rotated, append([]string{"webhook", "rotate-secret", made.ID}, brand...)...)
			require.NotEqual(t, made.Secret, rotated.Secret)

			var rot struct {
				Primary     string
				Reencrypted int
				Retired     []string
			}
			okJSON(t, dir, env, "", &rot, "keys", "rotate")
			assert.Equal(t, 2, rot.Reencrypted, "the endpoint's secret and its old one")
			okJSON(t, dir, env, "", &rot, "keys", "rotate", "--retire")
			assert.Equal(t, []string{gen.ID}, rot.Retired)

			keys, err := integrations.LoadOrCreateKeyRing(filepath.Join(dir, "keys"))
			require.NoError(t, err)
			assert.Equal(t, []string{rot.Primary}, keys.KeyIDs(), "only the new key is left")
			verifiedBy := deliverOnce(t, db, keys, made.ID, map[string]string{"first": made.Secret, "rotated": rotated.Secret})
			assert.ElementsMatch(t, []string{"first", "rotated"}, verifiedBy, "both secrets still sign, under the new key")

			ok(t, dir, env, "", append([]string{"webhook", "delete", made.ID}, brand...)...)
			assert.NotContains(t, ok(t, dir, env, "", append([]string{"webhook", "list"}, brand...)...), made.ID)
		})
	}
}

// deliverOnce delivers one event to the endpoint id (its url pointed at a
// receiver on loopback first) with an App on db under keys, and returns
// the names of the secrets whose signature the request carried.
func deliverOnce(t *testing.T, db string, keys *integrations.KeyRing, id string, secrets map[string]string) []string {
	t.Helper()
	ctx := t.Context()
	var got http.Header
	var body []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		body = readAll(t, r)
	}))
	t.Cleanup(srv.Close)
	store, err := storeurl.Open(ctx, db, storeurl.Options{})
	require.NoError(t, err)
	defer store.Close()
	app, err := brandbase.New(store, brandbase.Config{SecretKeys: keys, OutboundPolicy: brandbase.OutboundPolicy{AllowLoopback: true}})
	require.NoError(t, err)
	defer app.Close()
	b, err := app.Auth.ResolveBrand(ctx, "shop.example.com")
	require.NoError(t, err)
	_, err = app.Store.UpdateWebhook(ctx, b.ID, id, func(r *webhooks.Record) error { r.URL = srv.URL; return nil })
	require.NoError(t, err)
	res := app.Webhooks.DeliveryHandler().Deliver(ctx, outbox.Item{ID: "evt_cmd", BrandID: b.ID, Channel: outbox.ChannelWebhook,
		Topic: "user.created", Target: id, Payload: []byte(`{"type":"user.created"}`)})
	require.NoError(t, res.Err)
	var names []string
	for name, s := range secrets {
		if signedBy(t, s, got, body) {
			names = append(names, name)
		}
	}
	return names
}

// readAll reads r's body.
func readAll(t *testing.T, r *http.Request) []byte {
	b, err := io.ReadAll(r.Body)
	require.NoError(t, err)
	return b
}

// signedBy reports whether one of h's webhook-signature values is the
// HMAC-SHA256 of "id.timestamp.body" under the whsec_ secret.
func signedBy(t *testing.T, secret string, h http.Header, body []byte) bool {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	require.NoError(t, err)
	m := hmac.New(sha256.New, key)
	m.Write([]byte(h.Get("webhook-id") + "." + h.Get("webhook-timestamp") + "."))
	m.Write(body)
	want := "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil))
	for _, sig := range strings.Fields(h.Get("webhook-signature")) {
		if hmac.Equal([]byte(sig), []byte(want)) {
			return true
		}
	}
	return false
}
