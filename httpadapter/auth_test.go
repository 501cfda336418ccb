package httpadapter_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/storage"
)

// testArgon2 keeps password hashing cheap in HTTP tests (newFixture uses
// it); the real cost is measured in package auth.
var testArgon2 = auth.Argon2Params{Memory: 64, Iterations: 1, Parallelism: 1, SaltLen: 16, KeyLen: 32}

const (
	adminPassword = "correct horse battery"
	otherPassword = "other brand's secret"
)

// authFixture is a fixture with users: in shop.example.com an admin (every
// permission, admin@shop.example.com) and a viewer; in other.example.com
// another user named admin.
type authFixture struct {
	*fixture
	admin, viewer, stray auth.User
	other                auth.Brand
}

func newAuthFixture(t testing.TB, newStore func(t testing.TB) storage.Storage) *authFixture {
	t.Helper()
	f := &authFixture{fixture: newFixture(t, newStore)}
	ctx := t.Context()
	a := f.app.Auth
	var err error
	f.other, err = a.CreateBrand(ctx, auth.NewBrand{URL: "other.example.com", Name: "Other"})
	require.NoError(t, err)
	f.admin, err = a.CreateUser(ctx, f.brand.ID, auth.NewUser{Username: "admin", EmailAddress: "admin@shop.example.com",
		PhoneNumber: "+1 555 0100", Password: adminPassword, Permissions: []auth.Permission{auth.PermAll}})
	require.NoError(t, err)
	f.viewer, err = a.CreateUser(ctx, f.brand.ID, auth.NewUser{Username: "viewer", Password: "viewer password"})
	require.NoError(t, err)
	f.stray, err = a.CreateUser(ctx, f.other.ID, auth.NewUser{Username: "admin", Password: otherPassword})
	require.NoError(t, err)
	return f
}

// authData is the data of a login or refresh answer.
type authData struct {
	ID             string `json:"id"`
	Username       string `json:"username"`
	EmailAddress   string `json:"emailAddress"`
	PhoneNumber    string `json:"phoneNumber"`
	AuthKey        string `json:"authKey"`
	RefreshAuthKey string `json:"refreshAuthKey"`
	ExpiresIn      string `json:"expiresIn"`
	DeviceCode     string `json:"deviceCode"`
}

// jsonHeaders returns the headers of a JSON request to brand, plus extra
// "name", "value" pairs.
func jsonHeaders(brand string, extra ...string) map[string]string {
	h := map[string]string{"Brand-URL": brand, "Content-Type": "application/json"}
	for i := 0; i+1 < len(extra); i += 2 {
		h[extra[i]] = extra[i+1]
	}
	return h
}

// login logs in through the handler and returns the pair; it fails the test
// unless the answer is 200.
func (f *authFixture) login(t testing.TB, body string, headers map[string]string) authData {
	t.Helper()
	rec, e := f.do(t, "POST", "/api/v1/users/auth", headers, body)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	var d authData
	require.NoError(t, json.Unmarshal(e.Data, &d))
	return d
}

func adminLogin() string {
	return `{"username":"admin","password":"` + adminPassword + `"}`
}

func TestLoginHTTP(t *testing.T) {
	t.Parallel()
	shop := jsonHeaders("shop.example.com")
	scenarios := []struct {
		name     string
		headers  map[string]string
		body     string
		status   int
		errCode  string
		errField string
	}{
		{name: "username", headers: shop, body: adminLogin(), status: 200},
		{name: "username any case, spaces", headers: shop, body: `{"username":"  ADMIN ","password":"` + adminPassword + `"}`, status: 200},
		{name: "email any case", headers: shop, body: `{"emailAddress":"Admin@Shop.Example.com","password":"` + adminPassword + `"}`, status: 200},
		{name: "both, same user", headers: shop, body: `{"username":"admin","emailAddress":"admin@shop.example.com","password":"` + adminPassword + `"}`, status: 200},
		{name: "unknown fields ignored", headers: shop, body: `{"username":"admin","password":"` + adminPassword + `","x":1}`, status: 200},
		{name: "both, different users", headers: shop, body: `{"username":"viewer","emailAddress":"admin@shop.example.com","password":"viewer password"}`,
			status: 401, errCode: "invalid_credentials"},
		{name: "wrong password", headers: shop, body: `{"username":"admin","password":"nope nope"}`, status: 401, errCode: "invalid_credentials"},
		{name: "unknown user", headers: shop, body: `{"username":"ghost","password":"nope nope"}`, status: 401, errCode: "invalid_credentials"},
		{name: "other brand's user", headers: shop, body: `{"username":"admin","password":"` + otherPassword + `"}`, status: 401, errCode: "invalid_credentials"},
		{name: "in the other brand", headers: jsonHeaders("other.example.com"), body: `{"username":"admin","password":"` + otherPassword + `"}`, status: 200},
		{name: "no password", headers: shop, body: `{"username":"admin"}`, status: 400, errCode: "required", errField: "password"},
		{name: "no identifier", headers: shop, body: `{"password":"x"}`, status: 400, errCode: "required", errField: "username"},
		{name: "password not a string", headers: shop, body: `{"username":"admin","password":12}`, status: 400, errCode: "invalid_type", errField: "password"},
		{name: "malformed", headers: shop, body: `{"username":`, status: 400, errCode: "malformed_json"},
		{name: "not JSON", headers: map[string]string{"Brand-URL": "shop.example.com", "Content-Type": "text/plain"}, body: adminLogin(),
			status: 415, errCode: "unsupported_media_type"},
		{name: "no Brand-URL", headers: map[string]string{"Content-Type": "application/json"}, body: adminLogin(),
			status: 400, errCode: "brand_url_required", errField: "Brand-URL"},
		{name: "unknown brand", headers: jsonHeaders("ghost.example.com"), body: adminLogin(), status: 404, errCode: "brand_not_found"},
		{name: "inactive brand", headers: jsonHeaders("closed.example.com"), body: adminLogin(), status: 403, errCode: "brand_inactive"},
		{name: "device code too long", headers: jsonHeaders("shop.example.com", "X-Device-Code", strings.Repeat("d", 201)), body: adminLogin(),
			status: 400, errCode: "too_long", errField: "X-Device-Code"},
	}
	for storeName, newStore := range stores {
		for _, sc := range scenarios {
			t.Run(storeName+"/"+sc.name, func(t *testing.T) {
				t.Parallel()
				f := newAuthFixture(t, newStore)
				rec, e := f.do(t, "POST", "/api/v1/users/auth", sc.headers, sc.body)
				require.Equal(t, sc.status, rec.Code, rec.Body.String())
				if sc.status != 200 {
					assert.Equal(t, sc.errCode, e.Errors[0].Code)
					assert.Equal(t, sc.errField, e.Errors[0].Field)
					if sc.errCode == "invalid_credentials" {
						assert.Equal(t, "The username or password is incorrect.", e.Message, "one message for every wrong identifier or password")
					}
					return
				}
				assert.Equal(t, "no-store", rec.Header().Get("Cache-Control"))
				var data map[string]any
				require.NoError(t, json.Unmarshal(e.Data, &data))
				assert.ElementsMatch(t, []string{"id", "username", "emailAddress", "phoneNumber", "authKey", "refreshAuthKey", "expiresIn",
					"deviceCode"}, keysOf(data), "the fields of a login answer (deviceCode: every login is a device, docs/authentication.md)")
				var d authData
				require.NoError(t, json.Unmarshal(e.Data, &d))
				assert.Len(t, d.AuthKey, 43)
				assert.Len(t, d.RefreshAuthKey, 43)
				exp, err := time.Parse(time.RFC3339, d.ExpiresIn)
				require.NoError(t, err)
				assert.True(t, strings.HasSuffix(d.ExpiresIn, "Z"), "expiresIn is in UTC: %s", d.ExpiresIn)
				assert.WithinDuration(t, time.Now().Add(auth.DefaultAuthKeyTTL), exp, time.Minute)
			})
		}
	}
}

func keysOf(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestLoginResultFields(t *testing.T) {
	t.Parallel()
	f := newAuthFixture(t, stores["memory"])
	d := f.login(t, adminLogin(), jsonHeaders("shop.example.com"))
	assert.Equal(t, authData{ID: f.admin.ID, Username: "admin", EmailAddress: "admin@shop.example.com", PhoneNumber: "+1 555 0100",
		AuthKey: d.AuthKey, RefreshAuthKey: d.RefreshAuthKey, ExpiresIn: d.ExpiresIn, DeviceCode: d.DeviceCode}, d)
	assert.Len(t, d.DeviceCode, 43, "a login without X-Device-Code answers the code the server made")
	assert.NotEqual(t, d.AuthKey, d.RefreshAuthKey)
}

func TestKeyPairLifecycleHTTP(t *testing.T) {
	t.Parallel()
	for storeName, newStore := range stores {
		t.Run(storeName, func(t *testing.T) {
			t.Parallel()
			f := newAuthFixture(t, newStore)
			shop := jsonHeaders("shop.example.com")
			withKey := func(key string, extra ...string) map[string]string {
				return jsonHeaders("shop.example.com", append([]string{"Auth-Key", key}, extra...)...)
			}
			expectStatus := func(t *testing.T, method, path string, headers map[string]string, body string, status int, code string) env {
				t.Helper()
				rec, e := f.do(t, method, path, headers, body)
				require.Equal(t, status, rec.Code, rec.Body.String())
				if code != "" {
					assert.Equal(t, code, e.Errors[0].Code)
				}
				return e
			}

			first := f.login(t, adminLogin(), shop)
			// Refresh rotates the pair.
			e := expectStatus(t, "POST", "/api/v1/users/auth/refresh-auth-key", shop,
				`{"refreshAuthKey":"`+first.RefreshAuthKey+`"}`, 200, "")
			var second authData
			require.NoError(t, json.Unmarshal(e.Data, &second))
			assert.Equal(t, f.admin.ID, second.ID)
			assert.NotEqual(t, first.AuthKey, second.AuthKey)
			expectStatus(t, "DELETE", "/api/v1/users/auth", withKey(first.AuthKey), "", 401, "unauthenticated")

			// The second pair logs out; its keys stop working.
			expectStatus(t, "DELETE", "/api/v1/users/auth", withKey(second.AuthKey), "", 200, "")
			expectStatus(t, "DELETE", "/api/v1/users/auth", withKey(second.AuthKey), "", 401, "unauthenticated")
			expectStatus(t, "POST", "/api/v1/users/auth/refresh-auth-key", shop,
				`{"refreshAuthKey":"`+second.RefreshAuthKey+`"}`, 401, "unauthenticated")

			// Reusing a rotated refresh key at once (a second tab, a retry)
			// answers another working pair of the family; past the reuse
			// interval it revokes the whole family
			// (TestRefreshReuseIntervalHTTP).
			third := f.login(t, adminLogin(), shop)
			e = expectStatus(t, "POST", "/api/v1/users/auth/refresh-auth-key", shop,
				`{"refreshAuthKey":"`+third.RefreshAuthKey+`"}`, 200, "")
			var fourth, sibling authData
			require.NoError(t, json.Unmarshal(e.Data, &fourth))
			e = expectStatus(t, "POST", "/api/v1/users/auth/refresh-auth-key", shop,
				`{"refreshAuthKey":"`+third.RefreshAuthKey+`"}`, 200, "")
			require.NoError(t, json.Unmarshal(e.Data, &sibling))
			assert.NotEqual(t, fourth.AuthKey, sibling.AuthKey, "a pair of its own")
			expectStatus(t, "DELETE", "/api/v1/users/auth", withKey(fourth.AuthKey), "", 200, "")
			expectStatus(t, "DELETE", "/api/v1/users/auth", withKey(sibling.AuthKey), "", 200, "")

			// Keys are bound to their brand.
			stray := f.login(t, `{"username":"admin","password":"`+otherPassword+`"}`, jsonHeaders("other.example.com"))
			expectStatus(t, "DELETE", "/api/v1/users/auth", withKey(stray.AuthKey), "", 401, "unauthenticated")
			expectStatus(t, "POST", "/api/v1/users/auth/refresh-auth-key", shop,
				`{"refreshAuthKey":"`+stray.RefreshAuthKey+`"}`, 401, "unauthenticated")

			// Bad requests.
			expectStatus(t, "DELETE", "/api/v1/users/auth", shop, "", 401, "unauthenticated")
			expectStatus(t, "DELETE", "/api/v1/users/auth", withKey("garbage"), "", 401, "unauthenticated")
			e = expectStatus(t, "POST", "/api/v1/users/auth/refresh-auth-key", shop, `{}`, 400, "required")
			assert.Equal(t, "refreshAuthKey", e.Errors[0].Field)
			expectStatus(t, "POST", "/api/v1/users/auth/refresh-auth-key", shop, `{"refreshAuthKey":7}`, 400, "invalid_type")
			// GET users/{id} answers GET users/auth (a user named by the id
			// "auth", none): PATCH is a method no route of the path has.
			expectStatus(t, "PATCH", "/api/v1/users/auth", shop, "", 405, "method_not_allowed")
		})
	}
}

func TestRevocationInProcessSeenOverHTTP(t *testing.T) {
	t.Parallel()
	f := newAuthFixture(t, stores["sqlite"])
	shop := jsonHeaders("shop.example.com")
	a := f.login(t, adminLogin(), shop)
	b := f.login(t, adminLogin(), shop)
	for _, k := range []string{a.AuthKey, b.AuthKey} {
		_, err := f.app.Auth.Authenticate(t.Context(), f.brand, k)
		require.NoError(t, err, "the handler's service has the key cached")
	}
	n, err := f.app.Auth.RevokeUserKeys(t.Context(), f.admin.ID)
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	for _, k := range []string{a.AuthKey, b.AuthKey} {
		rec, e := f.do(t, "DELETE", "/api/v1/users/auth", jsonHeaders("shop.example.com", "Auth-Key", k), "")
		assert.Equal(t, 401, rec.Code)
		assert.Equal(t, "unauthenticated", e.Errors[0].Code)
	}
}

func TestDevicesHTTP(t *testing.T) {
	t.Parallel()
	for storeName, newStore := range stores {
		t.Run(storeName, func(t *testing.T) {
			t.Parallel()
			f := newAuthFixture(t, newStore)
			ctx := t.Context()
			device := func(code string) map[string]string {
				return jsonHeaders("shop.example.com", "X-Device-Code", code, "X-Device-Token", "push-token",
					"X-Device-Name", "iPhone 15", "X-App-Version-Number", "4.2.0", "X-Os-Device", "iOS")
			}
			onPhone := f.login(t, adminLogin(), device("PHONE-1"))
			onTablet := f.login(t, adminLogin(), device("TABLET-1"))

			list, err := f.app.Auth.Devices(ctx, f.admin.ID)
			require.NoError(t, err)
			require.Len(t, list, 2)
			phone := list[0]
			assert.Equal(t, auth.Device{ID: phone.ID, BrandID: f.brand.ID, UserID: f.admin.ID, Code: "PHONE-1", Token: "push-token",
				Name: "iPhone 15", AppVersion: "4.2.0", OS: "iOS", CreatedAt: phone.CreatedAt, LastSeenAt: phone.LastSeenAt,
				LastAccessAt: phone.LastSeenAt}, phone)

			withKey := func(key string, extra ...string) map[string]string {
				return jsonHeaders("shop.example.com", append([]string{"Auth-Key", key}, extra...)...)
			}
			// Before revocation the Device-Code passes.
			rec, _ := f.do(t, "POST", "/api/v1/users/auth/refresh-auth-key", jsonHeaders("shop.example.com", "Device-Code", "PHONE-1"),
				`{"refreshAuthKey":"`+onTablet.RefreshAuthKey+`"}`)
			require.Equal(t, 200, rec.Code, rec.Body.String())
			tablet2 := f.login(t, adminLogin(), device("TABLET-1"))

			_, err = f.app.Auth.RevokeDevice(ctx, f.admin.ID, phone.ID)
			require.NoError(t, err)

			rec, e := f.do(t, "DELETE", "/api/v1/users/auth", withKey(tablet2.AuthKey, "Device-Code", "PHONE-1"), "")
			assert.Equal(t, 403, rec.Code)
			assert.Equal(t, "device_revoked", e.Errors[0].Code)
			rec, e = f.do(t, "POST", "/api/v1/users/auth", device("PHONE-1"), adminLogin())
			assert.Equal(t, 403, rec.Code, "a revoked device cannot log in")
			assert.Equal(t, "device_revoked", e.Errors[0].Code)
			rec, e = f.do(t, "POST", "/api/v1/users/auth/refresh-auth-key", jsonHeaders("shop.example.com", "Device-Code", "PHONE-1"),
				`{"refreshAuthKey":"`+tablet2.RefreshAuthKey+`"}`)
			assert.Equal(t, 403, rec.Code)
			assert.Equal(t, "device_revoked", e.Errors[0].Code)
			rec, _ = f.do(t, "DELETE", "/api/v1/users/auth", withKey(onPhone.AuthKey), "")
			assert.Equal(t, 401, rec.Code, "the device's keys are revoked with it")

			rec, _ = f.do(t, "DELETE", "/api/v1/users/auth", withKey(tablet2.AuthKey, "Device-Code", "TABLET-1"), "")
			assert.Equal(t, 200, rec.Code, "another device is fine")
		})
	}
}

func TestConcurrentLoginsHTTP(t *testing.T) {
	t.Parallel()
	f := newAuthFixture(t, stores["sqlite"])
	const n = 12
	var wg sync.WaitGroup
	keys := make(chan string, n)
	for i := range n {
		wg.Go(func() {
			body := adminLogin()
			if i%3 == 0 {
				body = `{"username":"viewer","password":"viewer password"}`
			}
			rec, e := f.do(t, "POST", "/api/v1/users/auth", jsonHeaders("shop.example.com"), body)
			if assert.Equal(t, 200, rec.Code, rec.Body.String()) {
				var d authData
				assert.NoError(t, json.Unmarshal(e.Data, &d))
				keys <- d.AuthKey
			}
		})
	}
	wg.Wait()
	close(keys)
	seen := map[string]bool{}
	for k := range keys {
		seen[k] = true
		rec, _ := f.do(t, "DELETE", "/api/v1/users/auth", jsonHeaders("shop.example.com", "Auth-Key", k), "")
		assert.Equal(t, 200, rec.Code)
	}
	assert.Len(t, seen, n, "every login got its own pair")
}

// TestRefreshReuseIntervalHTTP: a refresh key sent again within
// Config.RefreshReuseInterval of its rotation answers a working pair and
// the first refresh's pair keeps working; sent again at the interval's end
// it is refused and the family revoked (docs/authentication.md, Refresh
// key reuse).
func TestRefreshReuseIntervalHTTP(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		interval time.Duration // Config.RefreshReuseInterval
		wait     time.Duration // between the refresh and its reuse
		want     int
	}{
		{"default, at once", 0, 0, 200},
		{"default, just before its end", 0, auth.DefaultRefreshReuseInterval - time.Millisecond, 200},
		{"default, at its end", 0, auth.DefaultRefreshReuseInterval, 401},
		{"a minute, within", time.Minute, 59 * time.Second, 200},
		{"a minute, after", time.Minute, time.Minute, 401},
		{"off, at once", -1, 0, 401},
	} {
		for storeName, newStore := range stores {
			t.Run(tc.name+"/"+storeName, func(t *testing.T) {
				t.Parallel()
				var mu sync.Mutex
				now := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
				clock := func() time.Time {
					mu.Lock()
					defer mu.Unlock()
					return now
				}
				store := newStore(t)
				t.Cleanup(func() { store.Close() })
				app, err := brandbase.New(store, brandbase.Config{
					SecretKeys: integrations.EphemeralKeyRing(), Clock: clock, RefreshReuseInterval: tc.interval, MaxHashWait: time.Minute,
					AuthOptions: []auth.Option{auth.WithArgon2Params(testArgon2)},
				})
				require.NoError(t, err)
				ctx := t.Context()
				b, err := app.Auth.CreateBrand(ctx, auth.NewBrand{URL: "shop.example.com", Name: "Shop"})
				require.NoError(t, err)
				_, err = app.Auth.CreateUser(ctx, b.ID, auth.NewUser{Username: "admin", Password: adminPassword})
				require.NoError(t, err)
				h, err := app.Handler(withTestLogger(&bytes.Buffer{}))
				require.NoError(t, err)
				f := &fixture{app: app, handler: h, brand: b}
				shop := jsonHeaders("shop.example.com")
				refresh := func(key string) (int, authData) {
					rec, e := f.do(t, "POST", "/api/v1/users/auth/refresh-auth-key", shop, `{"refreshAuthKey":"`+key+`"}`)
					var d authData
					if rec.Code == 200 {
						require.NoError(t, json.Unmarshal(e.Data, &d))
					}
					return rec.Code, d
				}
				me := func(key string) int {
					rec, _ := f.do(t, "GET", "/api/v1/users/me", jsonHeaders("shop.example.com", "Auth-Key", key), "")
					return rec.Code
				}

				rec, e := f.do(t, "POST", "/api/v1/users/auth", shop, adminLogin())
				require.Equal(t, 200, rec.Code, rec.Body.String())
				var first authData
				require.NoError(t, json.Unmarshal(e.Data, &first))
				status, w := refresh(first.RefreshAuthKey)
				require.Equal(t, 200, status)
				mu.Lock()
				now = now.Add(tc.wait)
				mu.Unlock()

				status, r := refresh(first.RefreshAuthKey)
				require.Equal(t, tc.want, status, "the reuse")
				if tc.want == 200 {
					assert.Equal(t, 200, me(r.AuthKey), "the reuse's pair works")
					assert.Equal(t, 200, me(w.AuthKey), "the first refresh's pair keeps working")
					status, _ = refresh(r.RefreshAuthKey)
					assert.Equal(t, 200, status, "the reuse's refresh key works")
				} else {
					assert.Equal(t, 401, me(w.AuthKey), "the family is revoked")
				}
			})
		}
	}
}

// TestConfigWiresAuthOptions checks that brandbase.Config reaches the auth
// service: key lifetimes, the event hook and the clock.
func TestConfigWiresAuthOptions(t *testing.T) {
	t.Parallel()
	store := stores["memory"](t)
	now := time.Date(2026, 7, 1, 12, 0, 0, 0, time.FixedZone("CEST", 2*3600))
	var mu sync.Mutex
	var events []auth.EventType
	app, err := brandbase.New(store, brandbase.Config{
		SecretKeys: integrations.EphemeralKeyRing(),
		Clock:      func() time.Time { return now },
		AuthKeyTTL: time.Hour, RefreshKeyTTL: 2 * time.Hour, MaxConcurrentHashes: 1, KeyCacheTTL: -1,
		OnAuthEvent: func(_ context.Context, e auth.Event) {
			mu.Lock()
			defer mu.Unlock()
			events = append(events, e.Type)
		},
		AuthOptions: []auth.Option{auth.WithArgon2Params(testArgon2)},
	})
	require.NoError(t, err)
	ctx := t.Context()
	b, err := app.Auth.CreateBrand(ctx, auth.NewBrand{URL: "shop.example.com", Name: "Shop"})
	require.NoError(t, err)
	_, err = app.Auth.CreateUser(ctx, b.ID, auth.NewUser{Username: "admin", Password: adminPassword})
	require.NoError(t, err)
	h, err := app.Handler()
	require.NoError(t, err)
	f := &fixture{app: app, handler: h, brand: b}

	rec, e := f.do(t, "POST", "/api/v1/users/auth", jsonHeaders("shop.example.com"), adminLogin())
	require.Equal(t, 200, rec.Code, rec.Body.String())
	var d authData
	require.NoError(t, json.Unmarshal(e.Data, &d))
	assert.Equal(t, "2026-07-01T11:00:00Z", d.ExpiresIn, "now (10:00 UTC) + AuthKeyTTL, in UTC")
	mu.Lock()
	assert.Equal(t, []auth.EventType{auth.EventUserCreated, auth.EventDeviceRegistered, auth.EventUserAuthenticated}, events,
		"the user's creation, then the login: every login is a device")
	mu.Unlock()
}
