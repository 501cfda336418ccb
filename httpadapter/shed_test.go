package httpadapter_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/httpadapter"
)

// slowArgon2 makes one hash take about half a second on a current core,
// long enough to hold the only hashing slot while a login is refused.
var slowArgon2 = auth.Argon2Params{Memory: 16 << 10, Iterations: 8, Parallelism: 1, SaltLen: 16, KeyLen: 32}

// With the only password hashing slot busy with a real hash (a new user's
// password, in-process), a login through the adapter is answered at once
// with 503 unavailable and Retry-After instead of queueing, and a list
// and an integration read answer 200 meanwhile. Config.MaxConcurrentHashes and Config.MaxHashWait
// set the slot count and the bound.
func TestLoginShedWhileHashingIsBusyHTTP(t *testing.T) {
	t.Parallel()
	store := stores["memory"](t)
	t.Cleanup(func() { store.Close() })
	const bound = 20 * time.Millisecond
	app, err := brandbase.New(store, brandbase.Config{MaxConcurrentHashes: 1, MaxHashWait: bound,
		AuthOptions: []auth.Option{auth.WithArgon2Params(slowArgon2)}})
	require.NoError(t, err)
	b, err := app.Auth.CreateBrand(t.Context(), auth.NewBrand{URL: "shop.example.com", Name: "Shop"})
	require.NoError(t, err)
	logs := &bytes.Buffer{}
	h, err := app.Handler(withTestLogger(logs), httpadapter.WithoutRateLimits())
	require.NoError(t, err)
	f := &fixture{app: app, handler: h, brand: b, logs: logs}

	// The admin's hash is made cheap by a service on the same store, so
	// that logging in before the hold costs one slow hash (the dummy
	// every first login makes), not two.
	cheap := auth.NewService(store, auth.WithArgon2Params(testArgon2))
	_, err = cheap.CreateUser(t.Context(), b.ID, auth.NewUser{Username: "admin", Password: adminPassword,
		Permissions: []auth.Permission{auth.PermAll}})
	require.NoError(t, err)
	a, _ := seedIntegrations(t, app.Integrations, b.ID)
	rec, e := f.do(t, "POST", "/api/v1/users/auth", jsonHeaders("shop.example.com"), adminLogin())
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	var key authData
	require.NoError(t, json.Unmarshal(e.Data, &key))

	hashed := make(chan error, 1)
	go func() {
		_, err := app.Auth.CreateUser(t.Context(), b.ID, auth.NewUser{Username: "newcomer", Password: "a new password"})
		hashed <- err
	}()
	require.Eventually(t, func() bool { return app.Auth.HashLoad().InUse == 1 }, 10*time.Second, time.Millisecond,
		"the new user's hash holds the slot")

	start := time.Now()
	rec, e = f.do(t, "POST", "/api/v1/users/auth", jsonHeaders("shop.example.com"), adminLogin())
	took := time.Since(start)
	assert.Equal(t, http.StatusServiceUnavailable, rec.Code, rec.Body.String())
	assert.Equal(t, "1", rec.Header().Get("Retry-After"))
	require.NotEmpty(t, e.Errors)
	assert.Equal(t, "unavailable", e.Errors[0].Code)
	assert.Less(t, took, bound+time.Second, "answered once the bound ran out")

	rec, _ = f.do(t, "GET", "/api/v1/currencies?PageSize=2", map[string]string{"Brand-URL": "shop.example.com"}, "")
	assert.Equal(t, http.StatusOK, rec.Code, "lists do not wait for hashing")
	rec, _ = f.do(t, "GET", analyticsPath(a.ID), jsonHeaders("shop.example.com", "Auth-Key", key.AuthKey), "")
	assert.Equal(t, http.StatusOK, rec.Code, "integration reads do not wait for hashing")
	assert.Equal(t, 1, app.Auth.HashLoad().InUse, "the slot was still held: the 503 was the shedding")

	require.NoError(t, <-hashed)
	rec, _ = f.do(t, "POST", "/api/v1/users/auth", jsonHeaders("shop.example.com"), adminLogin())
	assert.Equal(t, http.StatusOK, rec.Code, "a free slot serves logins again: %s", rec.Body.String())
}
