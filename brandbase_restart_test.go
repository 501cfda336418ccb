package brandbase_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/internal/testkit/teststores"
	"github.com/brandbase/brandbase/storage/sqlite"
)

// A store that outlives the process gets no per-process key without a
// word: New refuses it without Config.SecretKeys, naming the option. The
// memory store may, and any store takes a key ring given explicitly.
func TestNewRefusesAPersistentStoreWithoutSecretKeys(t *testing.T) {
	t.Parallel()
	for name, open := range teststores.All {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			store := open(t)
			defer store.Close()
			app, err := brandbase.New(store, brandbase.Config{})
			if name == "memory" {
				require.NoError(t, err, "the memory store ends with the process: a per-process key is fine")
				require.NoError(t, app.Close())
			} else {
				require.ErrorIs(t, err, brandbase.ErrSecretKeysRequired)
				assert.Contains(t, err.Error(), "Config.SecretKeys")
				assert.Nil(t, app)
			}
			app, err = brandbase.New(store, brandbase.Config{SecretKeys: integrations.EphemeralKeyRing()})
			require.NoError(t, err, "a key ring given explicitly, even a per-process one, is the host's choice")
			require.NoError(t, app.Close())
		})
	}
}

// restartWorld is one brand with an admin and one configuration of each
// kind, made by the first App on an SQLite file.
type restartWorld struct {
	db, keyFile         string
	brand               auth.Brand
	analytics           integrations.Analytics
	gateway             integrations.PaymentGateway
	gatewayApp          string
	analyticsPrivateKey string
}

const restartPassword = "restart password 1"

// openApp opens the SQLite file db and an App on it with keys.
func openApp(t *testing.T, db string, keys *integrations.KeyRing) *brandbase.App {
	t.Helper()
	store, err := sqlite.Open(t.Context(), db)
	require.NoError(t, err)
	t.Cleanup(func() { store.Close() })
	app, err := brandbase.New(store, brandbase.Config{SecretKeys: keys,
		AuthOptions: []auth.Option{auth.WithArgon2Params(fastArgon2)}})
	require.NoError(t, err)
	t.Cleanup(func() { app.Close() })
	return app
}

// seedRestartWorld makes the world with a first App, and closes it and its
// store: the process ends.
func seedRestartWorld(t *testing.T) restartWorld {
	t.Helper()
	dir := t.TempDir()
	w := restartWorld{db: filepath.Join(dir, "app.db"), keyFile: filepath.Join(dir, "app.key")}
	ctx := t.Context()
	keys, err := integrations.LoadOrCreateKeyRing(w.keyFile)
	require.NoError(t, err)
	store, err := sqlite.Open(ctx, w.db)
	require.NoError(t, err)
	defer store.Close()
	app, err := brandbase.New(store, brandbase.Config{SecretKeys: keys, AuthOptions: []auth.Option{auth.WithArgon2Params(fastArgon2)}})
	require.NoError(t, err)
	defer app.Close()

	w.brand, err = app.Auth.CreateBrand(ctx, auth.NewBrand{URL: "restart.example.com", Name: "Restart"})
	require.NoError(t, err)
	_, err = app.Auth.CreateUser(ctx, w.brand.ID, auth.NewUser{Username: "admin", Password: restartPassword,
		Permissions: []auth.Permission{auth.PermAll}})
	require.NoError(t, err)
	host := auth.SystemPrincipal(w.brand.ID)
	aa, err := app.Integrations.CreateAppIntegration(ctx, host, integrations.AppIntegrationInput{
		Type: integrations.TypeAnalytics, Name: "GA", Domain: "https://analytics.google.com"})
	require.NoError(t, err)
	w.analytics, err = app.Integrations.CreateAnalytics(ctx, host, integrations.AnalyticsInput{
		AppIntegrationID: &aa.ID, TrackingID: new("G-RESTART"), APIKey: new("ak_restart_0001"), APISecret: new("as_restart_0002")})
	require.NoError(t, err)
	ga, err := app.Integrations.CreateAppIntegration(ctx, host, integrations.AppIntegrationInput{
		Type: integrations.TypePaymentGateway, Name: "Stripe", Domain: "https://stripe.com"})
	require.NoError(t, err)
	w.gatewayApp = ga.ID
	w.gateway, err = app.Integrations.CreatePaymentGateway(ctx, host, integrations.PaymentGatewayInput{
		AppIntegrationID: &ga.ID, Name: new("Stripe"), PrivateKey: new("sk_restart_0003"), TestMode: new(true)})
	require.NoError(t, err)
	return w
}

// With its key ring file, a second App on the same SQLite file reads every
// secret the first one stored.
func TestSecretsSurviveARestart(t *testing.T) {
	t.Parallel()
	w := seedRestartWorld(t)
	ctx := t.Context()
	keys, err := integrations.LoadOrCreateKeyRing(w.keyFile)
	require.NoError(t, err)
	app := openApp(t, w.db, keys)

	list, err := app.Integrations.ListPaymentGateways(ctx, w.brand.ID)
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.False(t, list[0].SecretsUnreadable)
	assert.Equal(t, w.gateway.PrivateKey, list[0].PrivateKey)
	sec, err := app.Integrations.PaymentGatewaySecrets(ctx, w.brand.ID, w.gateway.ID)
	require.NoError(t, err)
	assert.Equal(t, "sk_restart_0003", *sec.PrivateKey)
	as, err := app.Integrations.AnalyticsSecrets(ctx, w.brand.ID, w.analytics.ID)
	require.NoError(t, err)
	assert.Equal(t, new("ak_restart_0001"), as.APIKey)
}

// Without the key that sealed them (the key file lost, or a per-process
// key of the first process), the secrets fail their own records only: a
// list answers every record, the unreadable ones flagged; a read of one is
// a clear 409 secret_unreadable, in-process and over HTTP; an update that
// would keep the secret is refused and one that sends a new value repairs
// the record.
func TestUnreadableSecretsFailTheirRecordOnly(t *testing.T) {
	t.Parallel()
	w := seedRestartWorld(t)
	ctx := t.Context()
	app := openApp(t, w.db, integrations.EphemeralKeyRing()) // not the key that sealed them

	// In-process.
	host := auth.SystemPrincipal(w.brand.ID)
	fresh, err := app.Integrations.CreatePaymentGateway(ctx, host, integrations.PaymentGatewayInput{
		AppIntegrationID: &w.gatewayApp, Name: new("Stripe 2"), PrivateKey: new("sk_fresh_0004"), TestMode: new(true)})
	require.NoError(t, err)
	list, err := app.Integrations.ListPaymentGateways(ctx, w.brand.ID)
	require.NoError(t, err, "one unreadable record never fails the list")
	require.Len(t, list, 2)
	assert.Equal(t, w.gateway.ID, list[0].ID)
	assert.True(t, list[0].SecretsUnreadable)
	assert.Nil(t, list[0].PrivateKey)
	assert.Equal(t, new("Stripe"), list[0].Name, "the rest of the record is there")
	assert.Equal(t, fresh.ID, list[1].ID)
	assert.False(t, list[1].SecretsUnreadable)
	assert.Equal(t, fresh.PrivateKey, list[1].PrivateKey)
	alist, err := app.Integrations.ListAnalytics(ctx, w.brand.ID)
	require.NoError(t, err)
	require.Len(t, alist, 1)
	assert.True(t, alist[0].SecretsUnreadable)

	_, err = app.Integrations.PaymentGateway(ctx, w.brand.ID, w.gateway.ID)
	require.ErrorIs(t, err, integrations.ErrSecretUnreadable)
	assert.Equal(t, envelope.KindConflict, envelope.KindOf(err))
	_, err = app.Integrations.PaymentGatewaySecrets(ctx, w.brand.ID, w.gateway.ID)
	require.ErrorIs(t, err, integrations.ErrSecretUnreadable)

	// Over HTTP.
	h, err := app.Handler(quiet())
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	defer srv.Close()
	call := func(method, path, authKey, body string) (int, map[string]any) {
		t.Helper()
		req, err := http.NewRequestWithContext(ctx, method, srv.URL+path, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Brand-URL", w.brand.URL)
		req.Header.Set("Content-Type", "application/json")
		if authKey != "" {
			req.Header.Set("Auth-Key", authKey)
		}
		resp, err := srv.Client().Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		var env map[string]any
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&env))
		return resp.StatusCode, env
	}
	status, env := call("POST", "/api/v1/users/auth", "", `{"username":"admin","password":"`+restartPassword+`"}`)
	require.Equal(t, 200, status, env)
	key := env["data"].(map[string]any)["authKey"].(string)
	firstError := func(env map[string]any) map[string]any {
		errs := env["errors"].([]any)
		require.NotEmpty(t, errs)
		return errs[0].(map[string]any)
	}

	gw := "/api/v1/app-integrations/payment-gateway/" + w.gateway.ID
	status, env = call("GET", gw, key, "")
	assert.Equal(t, http.StatusConflict, status, env)
	assert.Equal(t, integrations.CodeSecretUnreadable, firstError(env)["code"])
	assert.Equal(t, "privateKey", firstError(env)["field"])
	status, env = call("GET", "/api/v1/app-integrations/analytics/"+w.analytics.ID, key, "")
	assert.Equal(t, http.StatusConflict, status, env)
	assert.Equal(t, integrations.CodeSecretUnreadable, firstError(env)["code"])

	status, env = call("PUT", gw, key, `{"appIntegrationId":"`+w.gatewayApp+`","name":"Renamed","testMode":true,"privateKey":"`+*w.gateway.PrivateKey+`"}`)
	assert.Equal(t, http.StatusConflict, status, "the mask sent back would keep an unreadable key: %v", env)
	_, err = app.Integrations.PaymentGatewaySecrets(ctx, w.brand.ID, w.gateway.ID)
	require.ErrorIs(t, err, integrations.ErrSecretUnreadable, "nothing changed")

	status, env = call("PUT", gw, key, `{"appIntegrationId":"`+w.gatewayApp+`","name":"Renamed","testMode":true,"privateKey":"sk_new_value_0005"}`)
	require.Equal(t, http.StatusOK, status, "a new value repairs the record: %v", env)
	assert.Equal(t, integrations.Mask("sk_new_value_0005"), env["data"].(map[string]any)["privateKey"])
	status, env = call("GET", gw, key, "")
	assert.Equal(t, http.StatusOK, status, env)
	assert.Equal(t, "Renamed", env["data"].(map[string]any)["name"])
}
