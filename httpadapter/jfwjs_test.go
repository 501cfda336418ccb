package httpadapter_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/httpadapter"
)

// jfwCall is one request exactly as jfw-js v6.9.3 sends it: the path of
// its paths.ts (under the axios base URL ".../api"), the method and body
// names of its api.ts and types.ts, and the answer fields its types read.
type jfwCall struct {
	fn     string // jfw-js's function
	src    string // the jfw-js files the row comes from
	method string
	path   func() string
	key    func() string // the Auth-Key sent; nil sends none
	body   func() string // nil sends none
	status int
	// data is the JSON type of the envelope's data: "object", "array"
	// (fields are those of its first item), "bool".
	data string
	// fields are the names jfw-js's type reads, each with its JSON type:
	// "string", "string?" (string or null), "number", "bool", "array",
	// "object".
	fields map[string]string
	// then, when set, reads the answer's data (ids the next calls need).
	then func(t *testing.T, data json.RawMessage)
}

// jsonKind names the JSON type of raw as jfwCall's fields do.
func jsonKind(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return "invalid"
	}
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "bool"
	case []any:
		return "array"
	default:
		return "object"
	}
}

// checkFields asserts that obj has each of fields with its JSON type.
func checkFields(t *testing.T, obj json.RawMessage, fields map[string]string) {
	t.Helper()
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(obj, &m), string(obj))
	for name, want := range fields {
		raw, ok := m[name]
		if !assert.True(t, ok, "field %s missing in %s", name, obj) {
			continue
		}
		got := jsonKind(raw)
		if want == "string?" && (got == "string" || got == "null") {
			continue
		}
		assert.Equal(t, want, got, "field %s of %s", name, obj)
	}
}

// The fields of jfw-js's types as brandbase answers them.
var (
	// IUser (src/features/user/types.ts), the names brandbase has;
	// permissions is ours (docs/http-api.md, the account routes).
	jfwUser = map[string]string{"id": "string", "brandId": "string", "username": "string?", "emailAddress": "string?",
		"phoneNumber": "string?", "firstName": "string?", "lastName": "string?", "nickName": "string?",
		"status": "string", "createdDate": "string"}
	// IAuthenticateResponse (src/features/user/types.ts).
	jfwAuth = map[string]string{"id": "string", "username": "string?", "emailAddress": "string?",
		"authKey": "string", "refreshAuthKey": "string", "expiresIn": "string"}
	// IDeviceUser = IDeviceOfUser (src/features/user/types.ts): the nine
	// names docs/http-api.md#devices serves.
	jfwDevice = map[string]string{"id": "string", "code": "string", "name": "string?", "osDevice": "string?",
		"appVersionNumber": "string?", "isMobileApp": "bool", "userDeviceStatus": "string",
		"lastAccessAt": "string?", "createdDate": "string"}
)

// Every route jfw-js's account, device, list, brand and integration
// functions call answers, in the envelope, the fields jfw-js's types read,
// with their JSON types; on every store. Where brandbase deliberately
// differs from jfw-js's type, the row asserts docs/http-api.md and says so.
func TestJFWJSCalls(t *testing.T) {
	t.Parallel()
	for storeName, newStore := range stores {
		t.Run(storeName, func(t *testing.T) {
			t.Parallel()
			f := newIntegFixture(t, newStore)
			require.NoError(t, f.app.Auth.SetBrandSettings(t.Context(), f.brand.ID, auth.BrandSettings{RegistrationOpen: true}))
			const email, pw1, pw2, pw3, pw4 = "newbie@example.com", "a fresh long passphrase", "a second long passphrase",
				"a third long passphrase", "a fourth long passphrase"
			var userID, userKey, deviceID, resetToken, analyticsID, gatewayID string
			admin := func() string { return f.keys["admin"] }
			user := func() string { return userKey }
			fixed := func(s string) func() string { return func() string { return s } }
			calls := []jfwCall{
				{fn: "registerNewUser", src: "user/{paths,api,types}.ts: REGISTER_NEW_USER, IRegisterNewUserParams -> IUser",
					method: "POST", path: fixed("v1/users/register"),
					body: fixed(`{"username":"newbie","phoneNumber":"+15550111","password":"` + pw1 + `","emailAddress":"` + email +
						`","firstName":"New","lastName":"Bie","nickName":"nb","referralCode":null}`),
					status: http.StatusCreated, data: "object", fields: jfwUser,
					then: func(t *testing.T, d json.RawMessage) {
						var u userData
						require.NoError(t, json.Unmarshal(d, &u))
						userID = u.ID
					}},
				{fn: "authentication", src: "user/{paths,api,types}.ts: AUTHENTICATION, IAuthenticationParams -> IAuthenticateResponse",
					method: "POST", path: fixed("v1/users/auth"), body: fixed(`{"username":"newbie","password":"` + pw1 + `"}`),
					status: http.StatusOK, data: "object", fields: jfwAuth,
					then: func(t *testing.T, d json.RawMessage) { userKey = decodeAuth(t, d).AuthKey }},
				{fn: "getCurrentUserLoggedIn", src: "user/{paths,api}.ts: GET_CURRENT_USER_LOGGED_IN -> IUser",
					method: "GET", path: fixed("v1/users/me"), key: user, status: http.StatusOK, data: "object", fields: jfwUser},
				{fn: "checkAuthKeyAvailable", src: "user/{paths,api,types}.ts: CHECK_AUTH_KEY_AVAILABLE, ICheckAuthKeyAvailableParams -> boolean",
					method: "POST", path: fixed("v1/users/check-auth-key-available"),
					body: func() string { return `{"authKey":"` + userKey + `"}` }, status: http.StatusOK, data: "bool"},
				// jfw-js types the answer `true`; brandbase answers a new key
				// pair in the login's shape (docs/http-api.md, PUT
				// users/change-password): the old key stops working.
				{fn: "changePassword", src: "user/{paths,api,types}.ts: CHANGE_PASSWORD, IChangePasswordParams -> true (deliberately: IAuthenticateResponse)",
					method: "PUT", path: fixed("v1/users/change-password"), key: user,
					body:   fixed(`{"oldPassword":"` + pw1 + `","newPassword":"` + pw2 + `","confirmPassword":"` + pw2 + `"}`),
					status: http.StatusOK, data: "object", fields: jfwAuth,
					then: func(t *testing.T, d json.RawMessage) { userKey = decodeAuth(t, d).AuthKey }},
				{fn: "getDevicesFromUser", src: "user/{paths,api,types}.ts: GET_DEVICES_FROM_USER -> IDeviceOfUser[]",
					method: "GET", path: func() string { return "v1/users/" + userID + "/devices" }, key: user,
					status: http.StatusOK, data: "array", fields: jfwDevice,
					then: func(t *testing.T, d json.RawMessage) {
						var ds []struct {
							ID string `json:"id"`
						}
						require.NoError(t, json.Unmarshal(d, &ds))
						deviceID = ds[0].ID
					}},
				{fn: "getCurrentDeviceOfUserAuthorized", src: "device/{paths,api}.ts: GET_CURRENT_DEVICE_OF_USER_AUTHORIZED -> IDevice",
					method: "GET", path: fixed("v1/devices/current"), key: user, status: http.StatusOK, data: "object", fields: jfwDevice},
				{fn: "changePasswordForAnotherUser", src: "user/{paths,api,types}.ts: CHANGE_PASSWORD_FOR_ANOTHER_USER, IChangePasswordForAnotherUserParams -> true",
					method: "PUT", path: func() string { return "v1/users/" + userID + "/change-password" }, key: admin,
					body: fixed(`{"newPassword":"` + pw3 + `","confirmPassword":"` + pw3 + `"}`), status: http.StatusOK, data: "bool"},
				{fn: "forgotPassword", src: "user/{paths,api,types}.ts: FORGOT_PASSWORD, IForgotPasswordParams -> boolean",
					method: "POST", path: fixed("v1/users/forgot-password"),
					body:   fixed(`{"emailAddress":"` + email + `","resetPasswordLink":"https://shop.example.com/reset"}`),
					status: http.StatusOK, data: "bool",
					then: func(t *testing.T, _ json.RawMessage) {
						link, err := url.Parse(f.mail.next(t).Link)
						require.NoError(t, err)
						resetToken = link.Query().Get("token")
						require.NotEmpty(t, resetToken)
					}},
				{fn: "resetPassword", src: "user/{paths,api,types}.ts: RESET_PASSWORD, IResetPasswordParams -> boolean",
					method: "POST", path: fixed("v1/users/reset-password"),
					body: func() string {
						return `{"emailAddress":"` + email + `","token":"` + resetToken + `","newPassword":"` + pw4 + `"}`
					},
					status: http.StatusOK, data: "bool"},
				{fn: "authentication (after the reset)", src: "user/{paths,api,types}.ts: AUTHENTICATION",
					method: "POST", path: fixed("v1/users/auth"), body: fixed(`{"username":"newbie","password":"` + pw4 + `"}`),
					status: http.StatusOK, data: "object", fields: jfwAuth,
					then: func(t *testing.T, d json.RawMessage) { userKey = decodeAuth(t, d).AuthKey }},
				{fn: "removeDeviceFromUser", src: "user/{paths,api,types}.ts: REMOVE_DEVICE_FROM_USER, IRemoveDeviceFromUserParams -> boolean",
					method: "DELETE", path: func() string { return "v1/users/" + userID + "/devices/" + deviceID }, key: user,
					status: http.StatusOK, data: "bool"},
				// IState.tags is `string | null` in jfw-js; brandbase answers
				// an array (docs/http-api.md, states).
				{fn: "getStates", src: "state/{paths,api,types}.ts: GET_STATES -> IState[]",
					method: "GET", path: fixed("v1/states"), status: http.StatusOK, data: "array",
					fields: map[string]string{"countryCode": "string", "code": "string", "name": "string",
						"administrativeDivision": "string?", "tags": "array"}},
				{fn: "getTimezones", src: "timezone/{paths,api,types}.ts: GET_TIMEZONES -> ITimezone[]",
					method: "GET", path: fixed("v1/timezones"), status: http.StatusOK, data: "array",
					fields: map[string]string{"id": "string", "code": "string", "countryCode": "string?", "name": "string",
						"value": "string", "displayName": "string", "description": "string?"}},
				// ILanguage.dateFormat is `string` in jfw-js; brandbase answers
				// null: no embedded source has it (docs/http-api.md, languages).
				{fn: "getLanguages", src: "language/{paths,api,types}.ts: GET_LANGUAGES -> ILanguage[]",
					method: "GET", path: fixed("v1/languages"), status: http.StatusOK, data: "array",
					fields: map[string]string{"id": "string", "countryCode": "string?", "code": "string", "name": "string?",
						"nativeName": "string?", "dateFormat": "string?"}},
				{fn: "getAppIntegrations", src: "appIntegration/{paths,api,types}.ts: GET_APP_INTEGRATIONS -> IAppIntegration[]",
					method: "GET", path: fixed("v1/app-integrations"), key: admin, status: http.StatusOK, data: "array",
					fields: map[string]string{"id": "string", "type": "string", "name": "string", "domain": "string",
						"description": "string?", "logoURL": "string?", "status": "string"}},
				// IBrand's other fields are the origin's; brandbase answers
				// its own (docs/http-api.md, brands/by-url).
				{fn: "getBrandByURL", src: "brand/{paths,api,types}.ts: GET_BRAND_BY_URL -> IBrand",
					method: "GET", path: fixed("v1/brands/by-url"), status: http.StatusOK, data: "object",
					fields: map[string]string{"id": "string", "name": "string", "status": "string", "url": "string",
						"defaultCurrency": "string?", "registrationOpen": "bool"}},
				{fn: "createAppIntegrationAnalytics", src: "appIntegration/analytics/{paths,api,types}.ts: CREATE_APP_INTEGRATION_ANALYTICS",
					method: "POST", path: fixed("v1/app-integrations/analytics"), key: admin,
					body:   func() string { return analyticsBody(f.analytics.AppIntegration.ID, nil) },
					status: http.StatusCreated, data: "object", fields: map[string]string{"id": "string", "trackingId": "string?", "isDefault": "bool"},
					then: func(t *testing.T, d json.RawMessage) { analyticsID = idOf(t, d) }},
				{fn: "deleteAppIntegrationAnalytics", src: "appIntegration/analytics/{paths,api}.ts: DELETE_APP_INTEGRATION_ANALYTICS -> boolean",
					method: "DELETE", path: func() string { return "v1/app-integrations/analytics/" + analyticsID }, key: admin,
					status: http.StatusOK, data: "bool"},
				{fn: "createAppIntegrationPaymentGateway", src: "appIntegration/paymentGateway/{paths,api,types}.ts: CREATE_APP_INTEGRATION_PAYMENT_GATEWAY",
					method: "POST", path: fixed("v1/app-integrations/payment-gateway"), key: admin,
					body:   func() string { return gatewayBody(f.gateway.AppIntegration.ID, nil) },
					status: http.StatusCreated, data: "object", fields: map[string]string{"id": "string", "name": "string?", "isDefault": "bool"},
					then: func(t *testing.T, d json.RawMessage) { gatewayID = idOf(t, d) }},
				{fn: "deleteAppIntegrationPaymentGateway", src: "appIntegration/paymentGateway/{paths,api}.ts: DELETE_APP_INTEGRATION_PAYMENT_GATEWAY -> boolean",
					method: "DELETE", path: func() string { return "v1/app-integrations/payment-gateway/" + gatewayID }, key: admin,
					status: http.StatusOK, data: "bool"},
				// The administration of users (docs/administration.md), as
				// jfw-js's UserAPI sends it; the admin acts on newbie.
				{fn: "getUsers", src: "user/{paths,api,types}.ts: GET_USERS, IGetUsersParams (IPageable, ISortable) -> HttpResponseList<IUser>",
					method: "GET", path: fixed("v1/users?pageSize=2&pageNumber=0&sortDataField=createdDate&sortOrder=DESC&username=newbie"), key: admin,
					status: http.StatusOK, data: "object",
					fields: map[string]string{"items": "array", "totalItems": "number", "pageNumber": "number", "pageSize": "number"}},
				{fn: "getUser", src: "user/{paths,api}.ts: GET_USER -> IUser",
					method: "GET", path: func() string { return "v1/users/" + userID }, key: admin, status: http.StatusOK, data: "object", fields: jfwUser},
				{fn: "getUserByUsername", src: "user/{paths,api}.ts: GET_USER_BY_USERNAME -> IUser",
					method: "GET", path: fixed("v1/users/by-username/newbie"), key: admin, status: http.StatusOK, data: "object", fields: jfwUser},
				{fn: "getUsersByListIDs", src: "user/{paths,api}.ts: GET_USERS_BY_LIST_IDS, ids with indexes: true -> IUser[]",
					method: "GET", path: func() string { return "v1/users/by-list-id?ids%5B0%5D=" + userID + "&ids%5B1%5D=" + f.admin.ID }, key: admin,
					status: http.StatusOK, data: "array", fields: jfwUser},
				{fn: "updateUser", src: "user/{paths,api,types}.ts: UPDATE_USER, IUpdateUserParams -> IUser",
					method: "PUT", path: func() string { return "v1/users/" + userID }, key: admin,
					body: fixed(`{"username":"newbie","emailAddress":"` + email + `","nickName":"nb2","firstName":"New","lastName":"Bie",` +
						`"languageCode":"en-US","timeZoneId":null,"phoneNumber":"+15550111","avatar":null}`),
					status: http.StatusOK, data: "object", fields: jfwUser},
				{fn: "lockUser", src: "user/{paths,api}.ts: LOCK_USER -> boolean", method: "POST",
					path: func() string { return "v1/users/" + userID + "/lock" }, key: admin, status: http.StatusOK, data: "bool"},
				{fn: "unlockUser", src: "user/{paths,api}.ts: UNLOCK_USER -> boolean", method: "POST",
					path: func() string { return "v1/users/" + userID + "/unlock" }, key: admin, status: http.StatusOK, data: "bool"},
				{fn: "suspendUser", src: "user/{paths,api}.ts: SUSPEND_USER -> true", method: "POST",
					path: func() string { return "v1/users/" + userID + "/suspend" }, key: admin, status: http.StatusOK, data: "bool"},
				{fn: "unsuspendUser", src: "user/{paths,api}.ts: UNSUSPEND_USER -> boolean", method: "POST",
					path: func() string { return "v1/users/" + userID + "/unsuspend" }, key: admin, status: http.StatusOK, data: "bool"},
				{fn: "deactivateUser", src: "user/{paths,api}.ts: DEACTIVATE_USER -> boolean", method: "POST",
					path: func() string { return "v1/users/" + userID + "/deactivate" }, key: admin, status: http.StatusOK, data: "bool"},
				{fn: "activateUser", src: "user/{paths,api}.ts: ACTIVATE_USER -> boolean", method: "POST",
					path: func() string { return "v1/users/" + userID + "/activate" }, key: admin, status: http.StatusOK, data: "bool"},
				{fn: "statisticUsers", src: "user/{paths,api,types}.ts: STATISTIC_USERS, IStatisticsUsersParams -> IStatisticsUsers[]",
					method: "GET", path: func() string {
						day := time.Now().UTC().Format(time.DateOnly)
						return "v1/users/statistics?startDate=" + day + "+00%3A00%3A00&endDate=" + day + "+23%3A59%3A59&typeResponse=DATE"
					}, key: admin, status: http.StatusOK, data: "array", fields: map[string]string{"date": "string", "quantity": "number"}},
				{fn: "deleteUser", src: "user/{paths,api}.ts: DELETE_USER -> boolean", method: "DELETE",
					path: func() string { return "v1/users/" + userID }, key: admin, status: http.StatusOK, data: "bool"},
			}
			for _, c := range calls { // in order: each may use what an earlier one answered
				h := jsonHeaders("shop.example.com")
				if c.key != nil {
					h["Auth-Key"] = c.key()
				}
				body := ""
				if c.body != nil {
					body = c.body()
				}
				rec, e := f.do(t, c.method, "/api/"+c.path(), h, body)
				require.Equal(t, c.status, rec.Code, "%s (%s): %s", c.fn, c.src, rec.Body.String())
				require.Equal(t, c.data, jsonKind(e.Data), "%s: data %s", c.fn, e.Data)
				switch c.data {
				case "bool":
					assert.Equal(t, "true", string(e.Data), c.fn)
				case "array":
					var items []json.RawMessage
					require.NoError(t, json.Unmarshal(e.Data, &items))
					require.NotEmpty(t, items, c.fn)
					checkFields(t, items[0], c.fields)
				default:
					checkFields(t, e.Data, c.fields)
				}
				if c.then != nil {
					c.then(t, e.Data)
				}
			}
		})
	}
}

func decodeAuth(t *testing.T, d json.RawMessage) authData {
	t.Helper()
	var a authData
	require.NoError(t, json.Unmarshal(d, &a))
	require.NotEmpty(t, a.AuthKey)
	return a
}

func idOf(t *testing.T, d json.RawMessage) string {
	t.Helper()
	var v struct {
		ID string `json:"id"`
	}
	require.NoError(t, json.Unmarshal(d, &v))
	require.NotEmpty(t, v.ID)
	return v.ID
}

// jfwBundleEnv names the browser build of jfw-js (an IIFE exposing its
// exports as the global JFW) that TestJFWJSInBrowser loads; it is built
// from jfw-js's source outside this repository (docs/testing.md).
const jfwBundleEnv = "BRANDBASE_JFWJS_BUNDLE"

// jfwPage calls the API through jfw-js's own functions, from the page's
// origin, and writes each call's outcome into the page for --dump-dom:
// "name status kind" or "name error status code".
const jfwPage = `<!doctype html><html><body><pre id="out">running</pre>
<script src="/jfw.js"></script><script>
const api = %s, email = "newbie@example.com";
const res = [];
const kind = (d) => d === true ? "true" : d === false ? "false" : Array.isArray(d) ? (d.length ? "array" : "empty") : d === null ? "null" : typeof d;
const step = async (name, fn) => {
  try {
    const r = await fn();
    res.push(name + " " + r.statusCode + " " + kind(r.data));
    return r.data;
  } catch (e) {
    const er = e.response ? e.response.status + " " + ((e.response.data.errors || [])[0] || {}).code : String(e);
    res.push(name + " error " + er);
    return null;
  }
};
(async () => {
  try {
    const c = JFW.createJFWClient({brandURL: "shop.example.com", protocolDomain: "unused.invalid"});
    c.jfwAxios.defaults.baseURL = api + "/api";
    const u = c.user;
    const user = await step("registerNewUser", () => u.registerNewUser({username: "newbie", emailAddress: email,
      password: "a fresh long passphrase", firstName: "New", lastName: "Bie", nickName: "nb"}));
    await step("authentication", () => u.authentication({username: "newbie", password: "a fresh long passphrase"}));
    const me = await step("getCurrentUserLoggedIn", () => u.getCurrentUserLoggedIn());
    res.push("me " + (me && me.username) + " " + (me && user && me.id === user.id));
    const pair = await step("changePassword", () => u.changePassword({oldPassword: "a fresh long passphrase",
      newPassword: "a second long passphrase", confirmPassword: "a second long passphrase"}));
    if (pair) c.changeAuthKey(pair.authKey);
    await step("getCurrentUserLoggedIn(new key)", () => u.getCurrentUserLoggedIn());
    await step("forgotPassword", () => u.forgotPassword({emailAddress: email, resetPasswordLink: location.origin + "/reset"}));
    const token = await (await fetch("/token")).text();
    await step("resetPassword", () => u.resetPassword({emailAddress: email, token: token, newPassword: "a third long passphrase"}));
    await step("getCurrentUserLoggedIn(after reset)", () => u.getCurrentUserLoggedIn());
    await step("authentication(new password)", () => u.authentication({username: "newbie", password: "a third long passphrase"}));
    const devices = await step("getDevicesFromUser", () => u.getDevicesFromUser(user.id));
    await step("getAppIntegrations", () => c.appIntegration.getAppIntegrations());
    await step("getStates", () => c.state.getStates());
    await step("getTimezones", () => c.timezone.getTimezones());
    await step("getLanguages", () => c.language.getLanguages());
    const brand = await step("getBrandByURL", () => c.brand.getBrandByURL());
    res.push("brand " + (brand && brand.name));
    await step("removeDeviceFromUser", () => u.removeDeviceFromUser({userId: user.id, deviceId: devices[devices.length - 1].id}));
    await step("getCurrentUserLoggedIn(device removed)", () => u.getCurrentUserLoggedIn());
  } catch (e) {
    res.push("error " + e);
  }
  document.getElementById("out").textContent = "RESULT " + res.join(";") + " END";
})();
</script></body></html>`

// Headless Chromium, on a page of another origin, calls the API through
// jfw-js's own functions (a browser build of its source, named by
// BRANDBASE_JFWJS_BUNDLE) with CORS on: sign-up, login, users/me, change
// of password, forgotten password and its reset (the token read from the
// host's message sender), devices, the lists, the brand. It skips without
// the bundle or without Debian's chromium.
func TestJFWJSInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	bundlePath := os.Getenv(jfwBundleEnv)
	if bundlePath == "" {
		t.Skip("no " + jfwBundleEnv + ": a browser build of jfw-js exposing the global JFW")
	}
	bundle, err := os.ReadFile(bundlePath)
	require.NoError(t, err)
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Skip("no " + chromiumPath)
	}
	t.Parallel()
	var html atomic.Pointer[string] // the page, written once the API's address is known
	var f *integFixture
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, *html.Load())
		case "/jfw.js":
			w.Header().Set("Content-Type", "text/javascript")
			w.Write(bundle)
		case "/token": // the reset token of the link the host's sender got
			select {
			case msg := <-f.mail.sent:
				link, err := url.Parse(msg.Link)
				if err != nil {
					http.Error(w, err.Error(), http.StatusInternalServerError)
					return
				}
				fmt.Fprint(w, link.Query().Get("token"))
			case <-time.After(5 * time.Second):
				http.Error(w, "no message", http.StatusGatewayTimeout)
			}
		default:
			http.NotFound(w, r)
		}
	}))
	defer page.Close()

	f = newIntegFixture(t, stores["memory"], httpadapter.WithoutRateLimits(), httpadapter.WithCORS(page.URL))
	require.NoError(t, f.app.Auth.SetBrandSettings(t.Context(), f.brand.ID,
		auth.BrandSettings{RegistrationOpen: true, ResetLinkOrigins: []string{page.URL}}))
	api := httptest.NewServer(f.handler)
	defer api.Close()
	h := fmt.Sprintf(jfwPage, strconv.Quote(api.URL))
	html.Store(&h)

	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, chromiumPath, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+t.TempDir(), "--virtual-time-budget=15000", "--dump-dom", page.URL+"/").Output()
	require.NoError(t, err, "chromium: %s", out)
	m := regexp.MustCompile(`RESULT (.*?) END`).FindSubmatch(out)
	require.NotNil(t, m, "the page finished: %s", out)
	want := []string{
		"registerNewUser 201 object",
		"authentication 200 object",
		"getCurrentUserLoggedIn 200 object",
		"me newbie true",
		"changePassword 200 object", // jfw-js types it true; brandbase answers the new key pair (docs/http-api.md)
		"getCurrentUserLoggedIn(new key) 200 object",
		"forgotPassword 200 true",
		"resetPassword 200 true",
		"getCurrentUserLoggedIn(after reset) error 401 unauthenticated", // the reset ended every session
		"authentication(new password) 200 object",
		"getDevicesFromUser 200 array",
		"getAppIntegrations 200 array",
		"getStates 200 array",
		"getTimezones 200 array",
		"getLanguages 200 array",
		"getBrandByURL 200 object",
		"brand Shop",
		"removeDeviceFromUser 200 true",
		"getCurrentUserLoggedIn(device removed) error 401 unauthenticated", // the device's session ended
	}
	require.Equal(t, strings.Join(want, ";"), string(m[1]),
		"each jfw-js call from the other origin; the adapter's log:\n%s", f.logs.String())
}
