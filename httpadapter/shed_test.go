package httpadapter_test

import (
	"bytes"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/argon2"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/httpadapter"
)

// slowArgon2 makes one hash take a tenth of a second or more (seconds
// under the race detector), to hold the only hashing slot while a login
// is refused.
var slowArgon2 = auth.Argon2Params{Memory: 16 << 10, Iterations: 8, Parallelism: 1, SaltLen: 16, KeyLen: 32}

// slowHashBound returns a wait bound a quarter of the fastest of two
// slowArgon2 hashes on this machine, in this build, at least 20 ms: a
// login waiting for a slot that such a hash holds is refused at the bound,
// long before the hash ends, however fast the machine (a fixed bound was
// passed by a quick machine's hash without the race detector).
func slowHashBound() time.Duration {
	fastest := time.Hour
	for range 2 {
		start := time.Now()
		argon2.IDKey([]byte("password"), make([]byte, slowArgon2.SaltLen), slowArgon2.Iterations, slowArgon2.Memory,
			slowArgon2.Parallelism, slowArgon2.KeyLen)
		fastest = min(fastest, time.Since(start))
	}
	return max(fastest/4, 20*time.Millisecond)
}

// With the only password hashing slot busy with a real hash (a new user's
// password, in-process), a login through the adapter is answered 503
// unavailable with Retry-After, and a list and an integration read answer
// 200 meanwhile. Config.MaxConcurrentHashes and Config.MaxHashWait set the
// slot count and the bound. Both refusals are seen: the timed wait (no
// hash measured yet, so the login waits its turn, and is refused once the
// bound runs out), then the up-front refusal (hashes now measured to take
// far longer than the bound: refused before the bound runs out).
func TestLoginShedWhileHashingIsBusyHTTP(t *testing.T) {
	t.Parallel()
	store := stores["memory"](t)
	t.Cleanup(func() { store.Close() })
	// Far below a slow hash, far above a login's store calls on a quiet
	// machine.
	bound := slowHashBound()
	app, err := brandbase.New(store, brandbase.Config{MaxConcurrentHashes: 1, MaxHashWait: bound,
		AuthOptions: []auth.Option{auth.WithArgon2Params(slowArgon2)}})
	require.NoError(t, err)
	b, err := app.Auth.CreateBrand(t.Context(), auth.NewBrand{URL: "shop.example.com", Name: "Shop"})
	require.NoError(t, err)
	logs := &bytes.Buffer{}
	h, err := app.Handler(withTestLogger(logs), httpadapter.WithoutRateLimits())
	require.NoError(t, err)
	f := &fixture{app: app, handler: h, brand: b, logs: logs}

	// The admin is made, and logged in, by a service on the same store
	// with cheap hashing, so that the app's service has measured no hash
	// when the first login comes.
	cheap := auth.NewService(store, auth.WithArgon2Params(testArgon2))
	_, err = cheap.CreateUser(t.Context(), b.ID, auth.NewUser{Username: "admin", Password: adminPassword,
		Permissions: []auth.Permission{auth.PermAll}})
	require.NoError(t, err)
	a, _ := seedIntegrations(t, app.Integrations, b.ID)
	key, err := cheap.Login(t.Context(), b, auth.LoginRequest{Username: "admin", Password: adminPassword})
	require.NoError(t, err)

	hold := func(name string) chan error {
		hashed := make(chan error, 1)
		go func() {
			_, err := app.Auth.CreateUser(t.Context(), b.ID, auth.NewUser{Username: name, Password: "a new password"})
			hashed <- err
		}()
		require.Eventually(t, func() bool { return app.Auth.HashLoad().InUse == 1 }, 10*time.Second, time.Millisecond,
			"the new user's hash holds the slot")
		return hashed
	}
	login := func(what string) {
		t.Helper()
		rec, e := f.do(t, "POST", "/api/v1/users/auth", jsonHeaders("shop.example.com"), adminLogin())
		assert.Equal(t, http.StatusServiceUnavailable, rec.Code, "%s: %s", what, rec.Body.String())
		assert.Equal(t, "1", rec.Header().Get("Retry-After"), what)
		if assert.NotEmpty(t, e.Errors, what) {
			assert.Equal(t, "unavailable", e.Errors[0].Code, what)
		}
	}

	hashed := hold("newcomer")
	start := time.Now()
	login("the timed wait")
	took := time.Since(start)
	assert.GreaterOrEqual(t, took, bound, "refused by the timed wait, once the bound ran out")
	assert.Less(t, took, bound+time.Second, "answered once the bound ran out")

	rec, _ := f.do(t, "GET", "/api/v1/currencies?PageSize=2", map[string]string{"Brand-URL": "shop.example.com"}, "")
	assert.Equal(t, http.StatusOK, rec.Code, "lists do not wait for hashing")
	rec, _ = f.do(t, "GET", analyticsPath(a.ID), jsonHeaders("shop.example.com", "Auth-Key", key.AuthKey), "")
	assert.Equal(t, http.StatusOK, rec.Code, "integration reads do not wait for hashing")
	assert.Equal(t, 1, app.Auth.HashLoad().InUse, "the slot was still held: the 503 was the shedding")
	require.NoError(t, <-hashed)

	// A slow hash is measured now: the next login is refused up front.
	hashed = hold("second")
	login("the up-front refusal")
	assert.Equal(t, 1, app.Auth.HashLoad().InUse, "refused before the slot came free")
	require.NoError(t, <-hashed)

	// A free slot serves logins again. A login's store calls share the
	// bound, which a machine loaded enough can pass: such a 503 is
	// retried, as a client retries it after Retry-After.
	require.Eventually(t, func() bool {
		rec, _ = f.do(t, "POST", "/api/v1/users/auth", jsonHeaders("shop.example.com"), adminLogin())
		return rec.Code == http.StatusOK || rec.Code != http.StatusServiceUnavailable
	}, 30*time.Second, 10*time.Millisecond)
	assert.Equal(t, http.StatusOK, rec.Code, "a free slot serves logins again: %s", rec.Body.String())
}
