package httpadapter_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
)

// deviceIDByCode returns the ID of userID's signed-in device with code.
func deviceIDByCode(t testing.TB, f *authFixture, userID, code string) string {
	t.Helper()
	devices, err := f.app.Auth.UserDevices(t.Context(), userID)
	require.NoError(t, err)
	for _, d := range devices {
		if d.Code == code {
			return d.ID
		}
	}
	require.Failf(t, "no such device", "user %s has no signed-in device with code %q", userID, code)
	return ""
}

// deviceUser is a device as jfw-js's IDeviceUser reads it.
type deviceUser struct {
	ID               string  `json:"id"`
	Code             string  `json:"code"`
	Name             string  `json:"name"`
	OSDevice         string  `json:"osDevice"`
	AppVersionNumber *string `json:"appVersionNumber"`
	IsMobileApp      bool    `json:"isMobileApp"`
	UserDeviceStatus string  `json:"userDeviceStatus"`
	LastAccessAt     *string `json:"lastAccessAt"`
	CreatedDate      string  `json:"createdDate"`
}

// loginWith logs username in through the handler with extra headers.
func loginWith(t *testing.T, f *authFixture, username, password string, headers ...string) authData {
	t.Helper()
	return f.login(t, `{"username":"`+username+`","password":"`+password+`"}`,
		jsonHeaders("shop.example.com", headers...))
}

const chromeOnLinux = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36"

// TestDeviceRoutesHTTP calls the device routes as jfw-js does
// (getDevicesFromUser, removeDeviceFromUser, getCurrentDeviceOfUserAuthorized),
// on every store: a scenario table on one fixture per store, then the
// DELETE flow.
func TestDeviceRoutesHTTP(t *testing.T) {
	t.Parallel()
	for storeName, newStore := range stores {
		t.Run(storeName, func(t *testing.T) {
			t.Parallel()
			f := newAuthFixture(t, newStore)
			phone := loginWith(t, f, "admin", adminPassword, "X-Device-Code", "PHONE-1", "X-Device-Name", "Pixel 9",
				"X-Os-Device", "Android", "X-App-Version-Number", "6.9.3")
			browser := loginWith(t, f, "admin", adminPassword, "User-Agent", chromeOnLinux)
			viewer := loginWith(t, f, "viewer", "viewer password")
			stray := f.login(t, `{"username":"admin","password":"`+otherPassword+`"}`, jsonHeaders("other.example.com"))
			assert.Equal(t, "PHONE-1", phone.DeviceCode, "the login answers its device's code")
			assert.Len(t, browser.DeviceCode, 43, "a login without X-Device-Code gets a code the server made")

			as := func(key string) map[string]string { return jsonHeaders("shop.example.com", "Auth-Key", key) }
			adminDevices := "/api/v1/users/" + f.admin.ID + "/devices"
			for _, sc := range []struct {
				name    string
				path    string
				headers map[string]string
				status  int
				errCode string
				codes   []string // the device codes listed, in order
			}{
				{"own devices", adminDevices, as(phone.AuthKey), 200, "", []string{"PHONE-1", browser.DeviceCode}},
				{"apps only", adminDevices + "?isMobileApp=true", as(phone.AuthKey), 200, "", []string{"PHONE-1"}},
				{"browsers only, any case", adminDevices + "?ismobileapp=FALSE", as(browser.AuthKey), 200, "", []string{browser.DeviceCode}},
				{"bad filter", adminDevices + "?isMobileApp=maybe", as(phone.AuthKey), 400, "invalid_type", nil},
				{"another user's, no permission", adminDevices, as(viewer.AuthKey), 403, auth.CodeAccessDenied, nil},
				{"own, no permission needed", "/api/v1/users/" + f.viewer.ID + "/devices", as(viewer.AuthKey), 200, "", []string{viewer.DeviceCode}},
				{"with users.write (admin holds *)", "/api/v1/users/" + f.viewer.ID + "/devices", as(phone.AuthKey), 200, "", []string{viewer.DeviceCode}},
				{"a user of another brand", "/api/v1/users/" + f.stray.ID + "/devices", as(phone.AuthKey), 404, "not_found", nil},
				{"an unknown user", "/api/v1/users/nobody/devices", as(phone.AuthKey), 404, "not_found", nil},
				{"the other brand's key", adminDevices, jsonHeaders("shop.example.com", "Auth-Key", stray.AuthKey), 401, auth.CodeUnauthenticated, nil},
				{"no key", adminDevices, jsonHeaders("shop.example.com"), 401, auth.CodeUnauthenticated, nil},
			} {
				t.Run(sc.name, func(t *testing.T) {
					rec, e := f.do(t, "GET", sc.path, sc.headers, "")
					require.Equal(t, sc.status, rec.Code, rec.Body.String())
					if sc.errCode != "" {
						assert.Equal(t, sc.errCode, e.Errors[0].Code)
						return
					}
					assert.Equal(t, "no-store", rec.Header().Get("Cache-Control"))
					var got []deviceUser
					require.NoError(t, json.Unmarshal(e.Data, &got), "a bare array in data")
					var codes []string
					for _, d := range got {
						codes = append(codes, d.Code)
					}
					assert.Equal(t, sc.codes, codes)
				})
			}

			_, e := f.do(t, "GET", adminDevices, as(phone.AuthKey), "")
			var got []deviceUser
			require.NoError(t, json.Unmarshal(e.Data, &got))
			require.Len(t, got, 2)
			v := "6.9.3"
			p, b := got[0], got[1]
			assert.Equal(t, deviceUser{ID: p.ID, Code: "PHONE-1", Name: "Pixel 9", OSDevice: "Android", AppVersionNumber: &v,
				IsMobileApp: true, UserDeviceStatus: "Online", LastAccessAt: p.LastAccessAt, CreatedDate: p.CreatedDate}, p)
			assert.Equal(t, deviceUser{ID: b.ID, Code: browser.DeviceCode, Name: "Chrome on Linux", OSDevice: "Linux",
				IsMobileApp: false, UserDeviceStatus: "Online", LastAccessAt: b.LastAccessAt, CreatedDate: b.CreatedDate}, b)
			require.NotNil(t, p.LastAccessAt)
			assert.Regexp(t, `\+00:00$`, *p.LastAccessAt)
			assert.Regexp(t, `\+00:00$`, p.CreatedDate, "createdDate with a numeric offset")

			// GET devices/current: the caller's own.
			rec, e := f.do(t, "GET", "/api/v1/devices/current", as(browser.AuthKey), "")
			require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
			var cur deviceUser
			require.NoError(t, json.Unmarshal(e.Data, &cur))
			assert.Equal(t, b.ID, cur.ID)
			assert.Equal(t, "Chrome on Linux", cur.Name)

			// DELETE: another user's device without the permission, an
			// unknown device, then the browser's, from the phone.
			rec, e = f.do(t, "DELETE", adminDevices+"/"+b.ID, as(viewer.AuthKey), "")
			require.Equal(t, http.StatusForbidden, rec.Code)
			assert.Equal(t, auth.CodeAccessDenied, e.Errors[0].Code)
			rec, e = f.do(t, "DELETE", adminDevices+"/"+viewerDevice(t, f), as(phone.AuthKey), "")
			require.Equal(t, http.StatusNotFound, rec.Code, "the viewer's device is not the admin's")
			assert.Equal(t, "not_found", e.Errors[0].Code)
			rec, e = f.do(t, "DELETE", adminDevices+"/"+b.ID, as(phone.AuthKey), "")
			require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
			assert.JSONEq(t, `true`, string(e.Data), "data: true, as jfw-js reads it")
			rec, _ = f.do(t, "GET", "/api/v1/devices/current", as(browser.AuthKey), "")
			assert.Equal(t, http.StatusUnauthorized, rec.Code, "the ended device's key is refused at once")
			_, e = f.do(t, "GET", adminDevices, as(phone.AuthKey), "")
			require.NoError(t, json.Unmarshal(e.Data, &got))
			require.Len(t, got, 1, "and it leaves the list")
			rec, e = f.do(t, "DELETE", adminDevices+"/"+b.ID, as(phone.AuthKey), "")
			assert.Equal(t, http.StatusOK, rec.Code, "ending it again answers true again")
			assert.JSONEq(t, `true`, string(e.Data))

			// The user may sign in from it again, with its code.
			again := loginWith(t, f, "admin", adminPassword, "X-Device-Code", browser.DeviceCode)
			assert.Equal(t, browser.DeviceCode, again.DeviceCode)
			assert.Equal(t, b.ID, deviceIDByCode(t, f, f.admin.ID, browser.DeviceCode))
		})
	}
}

// viewerDevice returns the ID of one of the viewer's signed-in devices.
func viewerDevice(t *testing.T, f *authFixture) string {
	t.Helper()
	devices, err := f.app.Auth.UserDevices(t.Context(), f.viewer.ID)
	require.NoError(t, err)
	require.NotEmpty(t, devices)
	return devices[0].ID
}

// TestLoginDeviceAllowance checks the device allowance: 10 wrong passwords
// from 10 addresses exhaust the account's login budget, yet the owner
// still logs in from a device they logged in from before (its code the
// login answered), while a login from an unknown device, or without a
// code, is still refused; and the known device's own budget still holds.
func TestLoginDeviceAllowance(t *testing.T) {
	t.Parallel()
	for storeName, newStore := range stores {
		t.Run(storeName, func(t *testing.T) {
			t.Parallel()
			clock := newClock()
			f := limitedAuthFixture(t, newStore, clock)
			// The owner logged in from this browser yesterday.
			owner := loginFrom(t, f, "203.0.113.7:1", adminLogin(), "User-Agent", chromeOnLinux)
			require.Equal(t, http.StatusOK, owner.Code, owner.Body.String())
			var od authData
			_, oe := decode(t, owner)
			require.NoError(t, json.Unmarshal(oe.Data, &od))
			clock.Advance(24 * 60 * 60 * 1e9)

			wrong := `{"username":"admin","password":"wrong password"}`
			for i := range 10 {
				rec := loginFrom(t, f, "198.51.100."+strconv.Itoa(i)+":1", wrong)
				require.Equal(t, http.StatusUnauthorized, rec.Code, "guess %d", i+1)
			}
			for _, tc := range []struct {
				name    string
				headers []string
				status  int
			}{
				{"no device code", nil, http.StatusTooManyRequests},
				{"an unknown device code", []string{"X-Device-Code", "attacker-made"}, http.StatusTooManyRequests},
				{"another user's device code", []string{"X-Device-Code", "PHONE-OF-VIEWER"}, http.StatusTooManyRequests},
				{"the owner's known device", []string{"X-Device-Code", od.DeviceCode}, http.StatusOK},
			} {
				rec := loginFrom(t, f, "203.0.113.7:1", adminLogin(), tc.headers...)
				assert.Equal(t, tc.status, rec.Code, "%s: %s", tc.name, rec.Body.String())
			}

			// The known device's allowance is a budget of its own, not a
			// way around the limit: guesses with its code are limited too.
			for i := range 9 {
				rec := loginFrom(t, f, "198.51.100.50:1", wrong, "X-Device-Code", od.DeviceCode)
				require.Equal(t, http.StatusUnauthorized, rec.Code, "guess %d with the known code", i+1)
			}
			rec := loginFrom(t, f, "198.51.100.51:1", adminLogin(), "X-Device-Code", od.DeviceCode)
			assert.Equal(t, http.StatusTooManyRequests, rec.Code, "the device's own budget of 10 is spent")
		})
	}
}

// loginFrom posts a login body from remoteAddr with extra headers.
func loginFrom(t *testing.T, f *authFixture, remoteAddr, body string, headers ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest("POST", "/api/v1/users/auth", strings.NewReader(body))
	req.RemoteAddr = remoteAddr
	for k, v := range jsonHeaders("shop.example.com", headers...) {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	f.handler.ServeHTTP(rec, req)
	return rec
}

// decode decodes rec's envelope.
func decode(t *testing.T, rec *httptest.ResponseRecorder) (*httptest.ResponseRecorder, env) {
	t.Helper()
	e, err := decodeEnvelope(rec.Code, rec.Header(), rec.Body.Bytes())
	require.NoError(t, err)
	return rec, e
}
