package httpadapter_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/httpadapter"
	"github.com/brandbase/brandbase/ratelimit"
)

// mailbox is the test's auth.MessageSender: every message sent lands in
// a channel.
type mailbox struct{ sent chan auth.Message }

func newMailbox() *mailbox { return &mailbox{sent: make(chan auth.Message, 64)} }

func (m *mailbox) Send(_ context.Context, msg auth.Message) error {
	m.sent <- msg
	return nil
}

// next waits (at most 5 s: delivery runs on a goroutine of its own) for the
// next message.
func (m *mailbox) next(t testing.TB) auth.Message {
	t.Helper()
	select {
	case msg := <-m.sent:
		return msg
	case <-time.After(5 * time.Second):
		t.Fatal("no message sent")
		return auth.Message{}
	}
}

// none checks that no message was sent so far; delivery being
// asynchronous, a caller first sends a message it waits for, so that a
// message of an earlier request would be ahead of it.
func (m *mailbox) none(t testing.TB) {
	t.Helper()
	select {
	case msg := <-m.sent:
		t.Fatalf("unexpected message to %s", msg.To)
	default:
	}
}

// httpadapterPolicy is a policy of n requests an hour.
func httpadapterPolicy(n int) ratelimit.Policy { return ratelimit.Policy{Limit: n, Per: time.Hour} }

// userData is the data of users/me and of a sign-up.
type userData struct {
	ID           string   `json:"id"`
	BrandID      string   `json:"brandId"`
	Username     string   `json:"username"`
	EmailAddress string   `json:"emailAddress"`
	PhoneNumber  string   `json:"phoneNumber"`
	FirstName    string   `json:"firstName"`
	LastName     string   `json:"lastName"`
	NickName     string   `json:"nickName"`
	Status       string   `json:"status"`
	CreatedDate  string   `json:"createdDate"`
	Permissions  []string `json:"permissions"`
}

// errorsOf returns "field:code" of each error item of e.
func errorsOf(e env) []string {
	var out []string
	for _, it := range e.Errors {
		out = append(out, it.Field+":"+it.Code)
	}
	return out
}

func TestCurrentUserHTTP(t *testing.T) {
	t.Parallel()
	for name, newStore := range stores {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newIntegFixture(t, newStore)
			rec, e := f.do(t, "GET", "/api/v1/users/me", jsonHeaders("shop.example.com", "Auth-Key", f.keys["admin"]), "")
			require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
			assert.Equal(t, "no-store", rec.Header().Get("Cache-Control"))
			var u userData
			require.NoError(t, json.Unmarshal(e.Data, &u))
			assert.Equal(t, userData{ID: f.admin.ID, BrandID: f.brand.ID, Username: "admin", EmailAddress: "admin@shop.example.com",
				PhoneNumber: "+1 555 0100", Status: "Active", CreatedDate: u.CreatedDate, Permissions: []string{"*"}}, u)
			created, err := time.Parse(time.RFC3339, u.CreatedDate)
			require.NoError(t, err)
			assert.True(t, created.Equal(f.admin.CreatedAt))

			_, e = f.do(t, "GET", "/api/v1/users/me", jsonHeaders("shop.example.com", "Auth-Key", f.keys["viewer"]), "")
			require.NoError(t, json.Unmarshal(e.Data, &u))
			assert.Equal(t, "viewer", u.Username)
			assert.Equal(t, []string{}, u.Permissions, "no permission is [], not null")

			rec, _ = f.do(t, "GET", "/api/v1/users/me", jsonHeaders("shop.example.com", "Auth-Key", "nope"), "")
			assert.Equal(t, http.StatusUnauthorized, rec.Code)
			rec, _ = f.do(t, "GET", "/api/v1/users/me", jsonHeaders("other.example.com", "Auth-Key", f.keys["admin"]), "")
			assert.Equal(t, http.StatusUnauthorized, rec.Code, "a key of another brand")
		})
	}
}

func TestCheckAuthKeyAvailableHTTP(t *testing.T) {
	t.Parallel()
	f := newIntegFixture(t, stores["memory"])
	shop := jsonHeaders("shop.example.com")
	revoked := f.login(t, adminLogin(), shop).AuthKey
	rec, _ := f.do(t, "DELETE", "/api/v1/users/auth", jsonHeaders("shop.example.com", "Auth-Key", revoked), "")
	require.Equal(t, http.StatusOK, rec.Code)
	for _, tt := range []struct {
		name, brand, body string
		status            int
		want              string
	}{
		{"live key", "shop.example.com", `{"authKey":"` + f.keys["admin"] + `"}`, 200, "true"},
		{"revoked key", "shop.example.com", `{"authKey":"` + revoked + `"}`, 200, "false"},
		{"unknown key", "shop.example.com", `{"authKey":"no-such-key"}`, 200, "false"},
		{"key of another brand", "other.example.com", `{"authKey":"` + f.keys["admin"] + `"}`, 200, "false"},
		{"no key", "shop.example.com", `{}`, 400, "null"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec, e := f.do(t, "POST", "/api/v1/users/check-auth-key-available", jsonHeaders(tt.brand), tt.body)
			require.Equal(t, tt.status, rec.Code, rec.Body.String())
			assert.JSONEq(t, tt.want, string(e.Data))
		})
	}
}

func TestRegisterHTTP(t *testing.T) {
	t.Parallel()
	for name, newStore := range stores {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newIntegFixture(t, newStore)
			shop := jsonHeaders("shop.example.com")
			body := `{"username":"newbie","emailAddress":"newbie@shop.example.com","password":"a long new password",
				"firstName":"New","lastName":"Bie","nickName":"nb","phoneNumber":"+33 1 23"}`
			rec, e := f.do(t, "POST", "/api/v1/users/register", shop, body)
			require.Equal(t, http.StatusForbidden, rec.Code, "closed by default")
			assert.Equal(t, []string{":registration_closed"}, errorsOf(e))

			require.NoError(t, f.app.Auth.SetBrandSettings(t.Context(), f.brand.ID, auth.BrandSettings{RegistrationOpen: true}))
			rec, e = f.do(t, "POST", "/api/v1/users/register", shop, body)
			require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
			assert.Equal(t, 201, e.StatusCode)
			var u userData
			require.NoError(t, json.Unmarshal(e.Data, &u))
			assert.Equal(t, userData{ID: u.ID, BrandID: f.brand.ID, Username: "newbie", EmailAddress: "newbie@shop.example.com",
				PhoneNumber: "+33 1 23", FirstName: "New", LastName: "Bie", NickName: "nb", Status: "Active",
				CreatedDate: u.CreatedDate, Permissions: []string{}}, u, "a new user holds no permission")
			key := f.login(t, `{"username":"newbie","password":"a long new password"}`, shop).AuthKey
			_, e = f.do(t, "GET", "/api/v1/users/me", jsonHeaders("shop.example.com", "Auth-Key", key), "")
			var me userData
			require.NoError(t, json.Unmarshal(e.Data, &me))
			assert.Equal(t, u, me, "users/me answers the same shape")

			for _, tt := range []struct {
				name, body string
				status     int
				errs       []string
			}{
				{"taken username", `{"username":"NEWBIE","password":"a long new password"}`, 409, []string{"username:taken"}},
				{"taken email", `{"username":"other","emailAddress":"Newbie@Shop.Example.com","password":"a long new password"}`, 409, []string{"emailAddress:taken"}},
				{"email as username", `{"emailAddress":"solo@shop.example.com","password":"a long new password"}`, 201, nil},
				{"no identifier", `{"password":"a long new password"}`, 400, []string{"username:required"}},
				{"no password", `{"username":"nopw"}`, 400, []string{"password:required"}},
				{"short password", `{"username":"shorty","password":"short"}`, 400, []string{"password:too_short"}},
				{"common password", `{"username":"common","password":"Password1"}`, 400, []string{"password:too_common"}},
				{"long password", `{"username":"long","password":"` + fmt.Sprintf("%01025d", 0) + `"}`, 400, []string{"password:too_long"}},
				{"bad email", `{"username":"bad","emailAddress":"not an address","password":"a long new password"}`, 400, []string{"emailAddress:invalid_email"}},
			} {
				t.Run(tt.name, func(t *testing.T) {
					rec, e := f.do(t, "POST", "/api/v1/users/register", shop, tt.body)
					require.Equal(t, tt.status, rec.Code, rec.Body.String())
					assert.Equal(t, tt.errs, errorsOf(e))
				})
			}
		})
	}
}

// TestRegisterLookAlikesHTTP signs up with look-alikes of the admin
// (username admin, email admin@shop.example.com): the admin's
// address as username is a 400 on username, a look-alike of a name or
// address a 409 on the field it takes, what RFC 8265 refuses a 400
// invalid_format; after them the admin's address sent as username signs in
// the admin, and no newcomer.
func TestRegisterLookAlikesHTTP(t *testing.T) {
	t.Parallel()
	for name, newStore := range stores {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newIntegFixture(t, newStore)
			shop := jsonHeaders("shop.example.com")
			require.NoError(t, f.app.Auth.SetBrandSettings(t.Context(), f.brand.ID, auth.BrandSettings{RegistrationOpen: true}))
			for _, tt := range []struct {
				name, body string
				status     int
				errs       []string
			}{
				{"admin's address as username", `{"username":"ADMIN@shop.example.com ","password":"the newcomer's password"}`,
					400, []string{"username:not_own_address"}},
				{"admin's address as username, another address",
					`{"username":"ADMIN@shop.example.com","emailAddress":"newcomer@example.com","password":"the newcomer's password"}`,
					400, []string{"username:not_own_address"}},
				{"fullwidth admin", `{"username":"ａdmin","password":"the newcomer's password"}`, 409, []string{"username:taken"}},
				{"fullwidth address", `{"emailAddress":"ａdmin@shop.example.com","password":"the newcomer's password"}`,
					409, []string{"emailAddress:taken"}},
				{"ligature", `{"username":"ﬁle","password":"the newcomer's password"}`, 400, []string{"username:invalid_format"}},
				{"inner space", `{"username":"ad min","password":"the newcomer's password"}`, 400, []string{"username:invalid_format"}},
			} {
				t.Run(tt.name, func(t *testing.T) {
					rec, e := f.do(t, "POST", "/api/v1/users/register", shop, tt.body)
					require.Equal(t, tt.status, rec.Code, rec.Body.String())
					assert.Equal(t, tt.errs, errorsOf(e))
				})
			}
			rec, _ := f.do(t, "POST", "/api/v1/users/auth", shop,
				`{"username":"admin@shop.example.com","password":"the newcomer's password"}`)
			assert.Equal(t, http.StatusUnauthorized, rec.Code, "no newcomer holds the admin's address")
			s := f.login(t, `{"username":"ADMIN@shop.example.com","password":"`+adminPassword+`"}`, shop)
			assert.Equal(t, f.admin.ID, s.ID, "the admin's address in username signs in the admin")
		})
	}
}

// TestRegisterTakesNoPermissionOrStatusHTTP: a sign-up body that names
// permissions, a status, a brand or an id sets none of them: the new user
// is an active user of the request's brand holding no permission.
func TestRegisterTakesNoPermissionOrStatusHTTP(t *testing.T) {
	t.Parallel()
	for name, newStore := range stores {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newIntegFixture(t, newStore)
			require.NoError(t, f.app.Auth.SetBrandSettings(t.Context(), f.brand.ID, auth.BrandSettings{RegistrationOpen: true}))
			for i, extra := range []string{
				`"permissions":["*"]`,
				`"Permissions":"*"`,
				`"permissions":["users.write","integrations.analytics.write"],"roles":["admin"],"isAdmin":true`,
				`"status":"Inactive"`,
				`"status":"Active","permissions":["*"],"brandId":"` + f.other.ID + `","id":"` + f.admin.ID + `"`,
			} {
				username := fmt.Sprintf("sneaky%d", i)
				rec, e := f.do(t, "POST", "/api/v1/users/register", jsonHeaders("shop.example.com"),
					`{"username":"`+username+`","password":"a long new password",`+extra+`}`)
				require.Equal(t, http.StatusCreated, rec.Code, "%s: %s", extra, rec.Body.String())
				var u userData
				require.NoError(t, json.Unmarshal(e.Data, &u))
				assert.Empty(t, u.Permissions, extra)
				assert.Equal(t, "Active", u.Status, extra)
				assert.Equal(t, f.brand.ID, u.BrandID, extra)
				assert.NotEqual(t, f.admin.ID, u.ID, extra)
				stored, err := f.app.Auth.User(t.Context(), u.ID)
				require.NoError(t, err)
				assert.Empty(t, stored.Permissions, "stored: %s", extra)
				assert.Equal(t, auth.StatusActive, stored.Status, "stored: %s", extra)
				f.login(t, `{"username":"`+username+`","password":"a long new password"}`, jsonHeaders("shop.example.com"))
			}
		})
	}
}

func TestRegisterIsLimitedPerIP(t *testing.T) {
	t.Parallel()
	clock := newClock()
	limits := httpadapter.RateLimits{Register: httpadapterPolicy(2)}
	f := newIntegFixture(t, stores["memory"], httpadapter.WithRateLimits(limits), httpadapter.WithClock(clock.Now))
	require.NoError(t, f.app.Auth.SetBrandSettings(t.Context(), f.brand.ID, auth.BrandSettings{RegistrationOpen: true}))
	for i, want := range []int{201, 201, 429} {
		rec, _ := f.do(t, "POST", "/api/v1/users/register", jsonHeaders("shop.example.com"),
			fmt.Sprintf(`{"username":"u%d","password":"a long new password"}`, i))
		assert.Equal(t, want, rec.Code, "sign-up %d", i)
	}
	rec, _ := f.do(t, "POST", "/api/v1/users/register", jsonHeaders("other.example.com"), `{"username":"u9","password":"a long new password"}`)
	assert.Equal(t, http.StatusTooManyRequests, rec.Code, "per client IP, across brands")
}

func TestChangePasswordHTTP(t *testing.T) {
	t.Parallel()
	for name, newStore := range stores {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newIntegFixture(t, newStore)
			shop := jsonHeaders("shop.example.com")
			caller := f.login(t, `{"username":"viewer","password":"viewer password"}`, jsonHeaders("shop.example.com", "X-Device-Code", "phone-1"))
			other := f.login(t, `{"username":"viewer","password":"viewer password"}`, shop)
			as := jsonHeaders("shop.example.com", "Auth-Key", caller.AuthKey)
			for _, tt := range []struct {
				name, body string
				errs       []string
			}{
				{"wrong old password", `{"oldPassword":"nope nope nope","newPassword":"a fresh passphrase","confirmPassword":"a fresh passphrase"}`, []string{"oldPassword:incorrect_password"}},
				{"mismatch", `{"oldPassword":"viewer password","newPassword":"a fresh passphrase","confirmPassword":"another one"}`, []string{"confirmPassword:mismatch"}},
				{"common", `{"oldPassword":"viewer password","newPassword":"iloveyou","confirmPassword":"iloveyou"}`, []string{"newPassword:too_common"}},
				{"missing", `{}`, []string{"oldPassword:required", "newPassword:required"}},
			} {
				rec, e := f.do(t, "PUT", "/api/v1/users/change-password", as, tt.body)
				require.Equal(t, http.StatusBadRequest, rec.Code, tt.name)
				assert.Equal(t, tt.errs, errorsOf(e), tt.name)
			}
			rec, e := f.do(t, "PUT", "/api/v1/users/change-password", as,
				`{"oldPassword":"viewer password","newPassword":"a fresh passphrase","confirmPassword":"a fresh passphrase"}`)
			require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
			var next authData
			require.NoError(t, json.Unmarshal(e.Data, &next))
			assert.NotEmpty(t, next.AuthKey)
			assert.NotEmpty(t, next.RefreshAuthKey)
			assert.Equal(t, f.viewer.ID, next.ID)

			me := func(key string) int {
				rec, _ := f.do(t, "GET", "/api/v1/users/me", jsonHeaders("shop.example.com", "Auth-Key", key), "")
				return rec.Code
			}
			assert.Equal(t, http.StatusOK, me(next.AuthKey), "the caller stays signed in with the new pair")
			assert.Equal(t, http.StatusUnauthorized, me(caller.AuthKey), "its old pair ends")
			assert.Equal(t, http.StatusUnauthorized, me(other.AuthKey), "every other session ends")
			rec, _ = f.do(t, "POST", "/api/v1/users/auth/refresh-auth-key", shop, `{"refreshAuthKey":"`+other.RefreshAuthKey+`"}`)
			assert.Equal(t, http.StatusUnauthorized, rec.Code, "and cannot be refreshed")
			rec, _ = f.do(t, "POST", "/api/v1/users/auth", shop, `{"username":"viewer","password":"viewer password"}`)
			assert.Equal(t, http.StatusUnauthorized, rec.Code, "the old password no longer logs in")
			f.login(t, `{"username":"viewer","password":"a fresh passphrase"}`, shop)
			rec, _ = f.do(t, "POST", "/api/v1/users/auth/refresh-auth-key", shop, `{"refreshAuthKey":"`+next.RefreshAuthKey+`"}`)
			assert.Equal(t, http.StatusOK, rec.Code, "the new pair refreshes")
		})
	}
}

// TestChangePasswordIsLimitedLikeALogin: a guess of the old password
// spends the user's login budget.
func TestChangePasswordIsLimitedLikeALogin(t *testing.T) {
	t.Parallel()
	clock := newClock()
	// 3: the fixture's login of the viewer took one.
	limits := httpadapter.RateLimits{LoginPerIdentifier: httpadapterPolicy(3)}
	f := newIntegFixture(t, stores["memory"], httpadapter.WithRateLimits(limits), httpadapter.WithClock(clock.Now))
	as := jsonHeaders("shop.example.com", "Auth-Key", f.keys["viewer"])
	guess := `{"oldPassword":"guess guess","newPassword":"a fresh passphrase","confirmPassword":"a fresh passphrase"}`
	for i, want := range []int{400, 400, 429} {
		rec, _ := f.do(t, "PUT", "/api/v1/users/change-password", as, guess)
		assert.Equal(t, want, rec.Code, "guess %d", i)
	}
	rec, _ := f.do(t, "POST", "/api/v1/users/auth", jsonHeaders("shop.example.com"), `{"username":"viewer","password":"viewer password"}`)
	assert.Equal(t, http.StatusTooManyRequests, rec.Code, "the user's logins share the budget")
}

func TestSetUserPasswordHTTP(t *testing.T) {
	t.Parallel()
	for name, newStore := range stores {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newIntegFixture(t, newStore)
			shop := jsonHeaders("shop.example.com")
			viewerKey := f.login(t, `{"username":"viewer","password":"viewer password"}`, shop).AuthKey
			path := "/api/v1/users/" + f.viewer.ID + "/change-password"
			body := `{"newPassword":"set by the admin","confirmPassword":"set by the admin"}`
			rec, e := f.do(t, "PUT", path, jsonHeaders("shop.example.com", "Auth-Key", f.keys["analyst"]), body)
			assert.Equal(t, http.StatusForbidden, rec.Code, "without users.write")
			assert.Equal(t, []string{":access_denied"}, errorsOf(e))
			rec, _ = f.do(t, "PUT", "/api/v1/users/"+f.stray.ID+"/change-password", jsonHeaders("shop.example.com", "Auth-Key", f.keys["admin"]), body)
			assert.Equal(t, http.StatusNotFound, rec.Code, "a user of another brand")
			rec, e = f.do(t, "PUT", path, jsonHeaders("shop.example.com", "Auth-Key", f.keys["admin"]), `{"newPassword":"set by the admin","confirmPassword":"x"}`)
			assert.Equal(t, http.StatusBadRequest, rec.Code)
			assert.Equal(t, []string{"confirmPassword:mismatch"}, errorsOf(e))

			rec, e = f.do(t, "PUT", path, jsonHeaders("shop.example.com", "Auth-Key", f.keys["admin"]), body)
			require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
			assert.JSONEq(t, "true", string(e.Data))
			rec, _ = f.do(t, "GET", "/api/v1/users/me", jsonHeaders("shop.example.com", "Auth-Key", viewerKey), "")
			assert.Equal(t, http.StatusUnauthorized, rec.Code, "the user's sessions end")
			f.login(t, `{"username":"viewer","password":"set by the admin"}`, shop)
			rec, _ = f.do(t, "PUT", path, jsonHeaders("shop.example.com", "Auth-Key", f.keys["admin"]), `{"newPassword":"set by the admin"}`)
			assert.Equal(t, http.StatusOK, rec.Code, "confirmPassword is optional")
		})
	}
}

// TestActingOnAUserNeedsItsPermissionsHTTP: a holder of users.write alone
// neither sets the password of a "*" admin (and so signs in as it), nor
// lists or ends its devices, nor those of a user holding a permission it
// lacks; it still acts on a user whose permissions it holds.
func TestActingOnAUserNeedsItsPermissionsHTTP(t *testing.T) {
	t.Parallel()
	for name, newStore := range stores {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newIntegFixture(t, newStore)
			shop := jsonHeaders("shop.example.com")
			_, err := f.app.Auth.CreateUser(t.Context(), f.brand.ID, auth.NewUser{Username: "manager", Password: "manager password",
				Permissions: []auth.Permission{auth.PermUsersWrite}})
			require.NoError(t, err)
			manager := jsonHeaders("shop.example.com", "Auth-Key", f.login(t, `{"username":"manager","password":"manager password"}`, shop).AuthKey)
			analyst, err := f.app.Auth.UserByUsername(t.Context(), f.brand.ID, "analyst")
			require.NoError(t, err)
			firstDevice := func(path string) string {
				_, e := f.do(t, "GET", path, jsonHeaders("shop.example.com", "Auth-Key", f.keys["admin"]), "")
				var devices []deviceUser
				require.NoError(t, json.Unmarshal(e.Data, &devices))
				require.NotEmpty(t, devices)
				return devices[0].ID
			}
			analystDevices := "/api/v1/users/" + analyst.ID + "/devices"
			adminDevices := "/api/v1/users/" + f.admin.ID + "/devices"
			for _, sc := range []struct{ name, method, path, body string }{
				{"set the admin's password", "PUT", "/api/v1/users/" + f.admin.ID + "/change-password", `{"newPassword":"taken over by manager"}`},
				{"list the admin's devices", "GET", adminDevices, ""},
				{"end the admin's device", "DELETE", adminDevices + "/" + firstDevice(adminDevices), ""},
				{"set the analyst's password", "PUT", "/api/v1/users/" + analyst.ID + "/change-password", `{"newPassword":"taken over by manager"}`},
				{"list the analyst's devices", "GET", analystDevices, ""},
				{"end the analyst's device", "DELETE", analystDevices + "/" + firstDevice(analystDevices), ""},
			} {
				rec, e := f.do(t, sc.method, sc.path, manager, sc.body)
				assert.Equal(t, http.StatusForbidden, rec.Code, sc.name)
				assert.Equal(t, []string{":access_denied"}, errorsOf(e), sc.name)
			}
			rec, _ := f.do(t, "POST", "/api/v1/users/auth", shop, `{"username":"admin","password":"taken over by manager"}`)
			assert.Equal(t, http.StatusUnauthorized, rec.Code, "the manager never signs in as the admin")
			rec, _ = f.do(t, "GET", "/api/v1/users/me", jsonHeaders("shop.example.com", "Auth-Key", f.keys["analyst"]), "")
			assert.Equal(t, http.StatusOK, rec.Code, "the analyst's session stands")
			rec, _ = f.do(t, "GET", "/api/v1/users/me", jsonHeaders("shop.example.com", "Auth-Key", f.keys["admin"]), "")
			assert.Equal(t, http.StatusOK, rec.Code, "the admin's session stands")

			rec, e := f.do(t, "PUT", "/api/v1/users/"+f.viewer.ID+"/change-password", manager, `{"newPassword":"set by the manager"}`)
			assert.Equal(t, http.StatusOK, rec.Code, "a user whose permissions it holds (none): %v", errorsOf(e))
			rec, _ = f.do(t, "GET", "/api/v1/users/"+f.viewer.ID+"/devices", manager, "")
			assert.Equal(t, http.StatusOK, rec.Code)
		})
	}
}

// TestSetOwnPasswordRefusedHTTP: a key of the user, even a "*" admin's,
// does not set the user's own password through the administrator's route,
// which skips the old-password check and the login limits; the answer
// names the route that checks it.
func TestSetOwnPasswordRefusedHTTP(t *testing.T) {
	t.Parallel()
	for name, newStore := range stores {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newIntegFixture(t, newStore)
			rec, e := f.do(t, "PUT", "/api/v1/users/"+f.admin.ID+"/change-password", jsonHeaders("shop.example.com", "Auth-Key", f.keys["admin"]),
				`{"newPassword":"set with a stolen key","confirmPassword":"set with a stolen key"}`)
			require.Equal(t, http.StatusForbidden, rec.Code)
			assert.Equal(t, []string{":access_denied"}, errorsOf(e))
			require.NotNil(t, e.Errors[0].Message)
			assert.Contains(t, *e.Errors[0].Message, "PUT users/change-password")
			rec, _ = f.do(t, "GET", "/api/v1/users/me", jsonHeaders("shop.example.com", "Auth-Key", f.keys["admin"]), "")
			assert.Equal(t, http.StatusOK, rec.Code, "the session stands: nothing changed")
			f.login(t, adminLogin(), jsonHeaders("shop.example.com"))
		})
	}
}

func TestPasswordResetHTTP(t *testing.T) {
	t.Parallel()
	for name, newStore := range stores {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newIntegFixture(t, newStore)
			shop := jsonHeaders("shop.example.com")
			adminKey := f.keys["admin"]
			forgot := func(email, link string) (*int, env) {
				rec, e := f.do(t, "POST", "/api/v1/users/forgot-password", shop,
					fmt.Sprintf(`{"emailAddress":%q,"resetPasswordLink":%q}`, email, link))
				return &rec.Code, e
			}
			code, e := forgot("nobody@shop.example.com", "https://shop.example.com/reset")
			require.Equal(t, http.StatusOK, *code)
			assert.JSONEq(t, "true", string(e.Data))
			code, e = forgot("Admin@Shop.Example.com", "https://shop.example.com/reset?lang=fr#top")
			require.Equal(t, http.StatusOK, *code)
			assert.JSONEq(t, "true", string(e.Data), "the same answer, known address or not")
			msg := f.mail.next(t)
			f.mail.none(t) // the unknown address got nothing: its message would be ahead
			assert.Equal(t, auth.MessagePasswordReset, msg.Kind)
			assert.Equal(t, "admin@shop.example.com", msg.To)
			assert.Equal(t, "shop.example.com", msg.BrandURL)
			link, err := url.Parse(msg.Link)
			require.NoError(t, err)
			assert.Equal(t, "https", link.Scheme)
			assert.Equal(t, "/reset", link.Path)
			assert.Equal(t, "top", link.Fragment)
			assert.Equal(t, "fr", link.Query().Get("lang"), "the link's own query is kept")
			assert.Equal(t, "Admin@Shop.Example.com", link.Query().Get("emailAddress"))
			token := link.Query().Get("token")
			assert.Len(t, token, 43, "256 bits, base64url")

			for _, tt := range []struct{ name, email, link, err string }{
				{"another origin", "admin@shop.example.com", "https://evil.example.com/reset", "resetPasswordLink:origin_not_allowed"},
				{"http to the brand", "admin@shop.example.com", "http://shop.example.com/reset", "resetPasswordLink:origin_not_allowed"},
				{"not yet allowed dev origin", "admin@shop.example.com", "http://localhost:5173/reset", "resetPasswordLink:origin_not_allowed"},
				{"relative link", "admin@shop.example.com", "/reset", "resetPasswordLink:invalid_url"},
				{"javascript", "admin@shop.example.com", "javascript:alert(1)", "resetPasswordLink:invalid_url"},
				{"no link", "admin@shop.example.com", "", "resetPasswordLink:required"},
				{"bad address", "admin", "https://shop.example.com/reset", "emailAddress:invalid_email"},
			} {
				code, e := forgot(tt.email, tt.link)
				assert.Equal(t, http.StatusBadRequest, *code, tt.name)
				assert.Equal(t, []string{tt.err}, errorsOf(e), tt.name)
			}
			require.NoError(t, f.app.Auth.SetBrandSettings(t.Context(), f.brand.ID,
				auth.BrandSettings{ResetLinkOrigins: []string{"http://localhost:5173"}}))
			code, _ = forgot("admin@shop.example.com", "http://localhost:5173/reset")
			assert.Equal(t, http.StatusOK, *code, "an origin the brand allows")
			newer := f.mail.next(t)
			newerLink, err := url.Parse(newer.Link)
			require.NoError(t, err)
			assert.Equal(t, "localhost:5173", newerLink.Host)

			reset := func(tok, pw string) (int, env) {
				rec, e := f.do(t, "POST", "/api/v1/users/reset-password", shop,
					fmt.Sprintf(`{"emailAddress":"admin@shop.example.com","token":%q,"newPassword":%q}`, tok, pw))
				return rec.Code, e
			}
			c, e := reset(token, "reset passphrase")
			assert.Equal(t, http.StatusBadRequest, c, "a newer token replaced it")
			assert.Equal(t, []string{"token:invalid_token"}, errorsOf(e))
			token = newerLink.Query().Get("token")
			c, e = reset(token, "passw")
			assert.Equal(t, http.StatusBadRequest, c)
			assert.Equal(t, []string{"newPassword:too_short"}, errorsOf(e), "and the token stays usable")
			rec, e := f.do(t, "POST", "/api/v1/users/reset-password", shop,
				fmt.Sprintf(`{"emailAddress":"viewer@shop.example.com","token":%q,"newPassword":"reset passphrase"}`, token))
			assert.Equal(t, http.StatusBadRequest, rec.Code, "another address")
			assert.Equal(t, []string{"token:invalid_token"}, errorsOf(e))
			c, e = reset(token, "reset passphrase")
			require.Equal(t, http.StatusOK, c, "%v", errorsOf(e))
			assert.JSONEq(t, "true", string(e.Data))
			c, e = reset(token, "reset passphrase 2")
			assert.Equal(t, http.StatusBadRequest, c, "a token works once")
			assert.Equal(t, []string{"token:invalid_token"}, errorsOf(e))

			rec, _ = f.do(t, "GET", "/api/v1/users/me", jsonHeaders("shop.example.com", "Auth-Key", adminKey), "")
			assert.Equal(t, http.StatusUnauthorized, rec.Code, "every session ends")
			f.login(t, `{"username":"admin","password":"reset passphrase"}`, shop)
		})
	}
}

// TestPasswordChangeEndsResetTokenHTTP: a reset link asked for before the
// owner changed its password (or an administrator set it) no longer resets
// it: whoever read the mail cannot take the account back.
func TestPasswordChangeEndsResetTokenHTTP(t *testing.T) {
	t.Parallel()
	for name, newStore := range stores {
		for _, tc := range []struct {
			name   string
			change func(t *testing.T, f *integFixture) int
		}{
			{"own change", func(t *testing.T, f *integFixture) int {
				rec, _ := f.do(t, "PUT", "/api/v1/users/change-password", jsonHeaders("shop.example.com", "Auth-Key", f.keys["admin"]),
					`{"oldPassword":"`+adminPassword+`","newPassword":"secured by the owner","confirmPassword":"secured by the owner"}`)
				return rec.Code
			}},
			{"set by another admin", func(t *testing.T, f *integFixture) int {
				_, err := f.app.Auth.CreateUser(t.Context(), f.brand.ID, auth.NewUser{Username: "second", Password: "second admin password",
					Permissions: []auth.Permission{auth.PermAll}})
				require.NoError(t, err)
				key := f.login(t, `{"username":"second","password":"second admin password"}`, jsonHeaders("shop.example.com")).AuthKey
				rec, _ := f.do(t, "PUT", "/api/v1/users/"+f.admin.ID+"/change-password", jsonHeaders("shop.example.com", "Auth-Key", key),
					`{"newPassword":"secured by an admin"}`)
				return rec.Code
			}},
		} {
			t.Run(name+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				f := newIntegFixture(t, newStore)
				shop := jsonHeaders("shop.example.com")
				rec, _ := f.do(t, "POST", "/api/v1/users/forgot-password", shop,
					`{"emailAddress":"admin@shop.example.com","resetPasswordLink":"https://shop.example.com/reset"}`)
				require.Equal(t, http.StatusOK, rec.Code)
				link, err := url.Parse(f.mail.next(t).Link)
				require.NoError(t, err)
				require.Equal(t, http.StatusOK, tc.change(t, f))
				rec, e := f.do(t, "POST", "/api/v1/users/reset-password", shop, fmt.Sprintf(
					`{"emailAddress":"admin@shop.example.com","token":%q,"newPassword":"taken back by the reader"}`, link.Query().Get("token")))
				assert.Equal(t, http.StatusBadRequest, rec.Code, "the change ended the token")
				assert.Equal(t, []string{"token:invalid_token"}, errorsOf(e))
				rec, _ = f.do(t, "POST", "/api/v1/users/auth", shop, `{"username":"admin","password":"taken back by the reader"}`)
				assert.Equal(t, http.StatusUnauthorized, rec.Code, "the reader's password was never set")
			})
		}
	}
}

// TestPasswordResetRoutesNeedASender: without a message sender the two
// routes are not mounted.
func TestPasswordResetRoutesNeedASender(t *testing.T) {
	t.Parallel()
	f := newIntegFixture(t, stores["memory"])
	h, err := httpadapter.New(httpadapter.Services{Auth: auth.NewService(f.app.Store), RefData: f.app.RefData})
	require.NoError(t, err)
	assert.NotContains(t, h.Routes(), "POST /api/v1/users/forgot-password")
	assert.NotContains(t, h.Routes(), "POST /api/v1/users/reset-password")
	assert.Contains(t, h.Routes(), "POST /api/v1/users/register")
	full, err := f.app.Handler()
	require.NoError(t, err)
	assert.Contains(t, full.Routes(), "POST /api/v1/users/forgot-password")
}

func TestBrandByURLHTTP(t *testing.T) {
	t.Parallel()
	for name, newStore := range stores {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newIntegFixture(t, newStore)
			rec, e := f.do(t, "GET", "/api/v1/brands/by-url", jsonHeaders("https://Shop.Example.com/"), "")
			require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
			var got map[string]any
			require.NoError(t, json.Unmarshal(e.Data, &got))
			assert.Equal(t, map[string]any{"id": f.brand.ID, "url": "shop.example.com", "name": "Shop", "status": "Active",
				"defaultCurrency": "EUR", "registrationOpen": false}, got, "the public face, nothing more")
			etag := rec.Header().Get("ETag")
			require.NotEmpty(t, etag)
			rec, _ = f.do(t, "GET", "/api/v1/brands/by-url", map[string]string{"Brand-URL": "shop.example.com", "If-None-Match": etag}, "")
			assert.Equal(t, http.StatusNotModified, rec.Code)

			require.NoError(t, f.app.Auth.SetBrandSettings(t.Context(), f.brand.ID, auth.BrandSettings{RegistrationOpen: true}))
			rec, e = f.do(t, "GET", "/api/v1/brands/by-url", map[string]string{"Brand-URL": "shop.example.com", "If-None-Match": etag}, "")
			require.Equal(t, http.StatusOK, rec.Code, "a changed setting changes the ETag")
			require.NoError(t, json.Unmarshal(e.Data, &got))
			assert.Equal(t, true, got["registrationOpen"])
			rec, _ = f.do(t, "GET", "/api/v1/brands/by-url", map[string]string{"Brand-URL": "closed.example.com"}, "")
			assert.Equal(t, http.StatusForbidden, rec.Code, "an inactive brand")
			rec, _ = f.do(t, "GET", "/api/v1/brands/by-url", map[string]string{"Brand-URL": "nobody.example.com"}, "")
			assert.Equal(t, http.StatusNotFound, rec.Code)
		})
	}
}
