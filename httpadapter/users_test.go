package httpadapter_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/storage"
)

// adminUserFixture is the integrations fixture with users of its own: a
// reader (users.read), a manager (users.write), and a key of each.
type adminUserFixture struct {
	*integFixture
	reader, manager auth.User
}

func newAdminUserFixture(t *testing.T, newStore func(t testing.TB) storage.Storage) *adminUserFixture {
	t.Helper()
	f := &adminUserFixture{integFixture: newIntegFixture(t, newStore)}
	ctx := t.Context()
	var err error
	for _, u := range []struct {
		dst   *auth.User
		name  string
		perms []auth.Permission
		first string
	}{
		{&f.reader, "reader", []auth.Permission{auth.PermUsersRead}, "Rüdiger"},
		{&f.manager, "manager", []auth.Permission{auth.PermUsersWrite}, "Manon"},
	} {
		*u.dst, err = f.app.Auth.CreateUser(ctx, f.brand.ID, auth.NewUser{Username: u.name, Password: u.name + " password",
			FirstName: u.first, Permissions: u.perms})
		require.NoError(t, err)
		f.keys[u.name] = f.login(t, `{"username":"`+u.name+`","password":"`+u.name+` password"}`, jsonHeaders("shop.example.com")).AuthKey
	}
	return f
}

// as returns the headers of a request of shop.example.com with the key of
// role.
func (f *adminUserFixture) as(role string) map[string]string {
	return jsonHeaders("shop.example.com", "Auth-Key", f.keys[role])
}

// userPage decodes a page of users.
type userPage struct {
	Items []struct {
		ID, Username, FirstName, Status string
	} `json:"items"`
	TotalItems int `json:"totalItems"`
	PageSize   int `json:"pageSize"`
}

func names(p userPage) []string {
	out := []string{}
	for _, u := range p.Items {
		out = append(out, u.Username)
	}
	return out
}

// TestUsersListHTTP: GET users as jfw-js's getUsers sends it: paging,
// sorting, filters, keywords; users.read; the brand's users only.
func TestUsersListHTTP(t *testing.T) {
	t.Parallel()
	for name, newStore := range stores {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newAdminUserFixture(t, newStore)
			all := []string{"admin", "viewer", "analyst", "reader", "manager"}
			tests := []struct {
				name, query string
				want        []string
				total       int
			}{
				{"created order", "sortDataField=createdDate&sortOrder=asc", all, 5},
				{"newest first", "sortDataField=createdDate&sortOrder=DESC", reversedStrings(all), 5},
				{"by username", "SortDataField=username", []string{"admin", "analyst", "manager", "reader", "viewer"}, 5},
				{"a page", "sortDataField=createdDate&pageSize=2&pageNumber=1", []string{"analyst", "reader"}, 5},
				{"past the end", "pageSize=2&pageNumber=9", []string{}, 5},
				{"keywords, accents ignored", "keywords=RUDI", []string{"reader"}, 1},
				{"keywords, the address's words", "keywords=shop%20example&sortDataField=createdDate", []string{"admin"}, 1},
				{"username", "username=MANAGER", []string{"manager"}, 1},
				{"status", "status=active&sortDataField=createdDate", all, 5},
				{"ids", "ids=" + f.reader.ID + "," + f.stray.ID + "&sortDataField=createdDate", []string{"reader"}, 1},
				{"role: not yet", "roleId=owner", []string{}, 0},
				{"created to yesterday", "createdDateTo=" + time.Now().AddDate(0, 0, -1).Format(time.DateOnly), []string{}, 0},
			}
			for _, tc := range tests {
				rec, e := f.do(t, "GET", "/api/v1/users?"+tc.query, f.as("reader"), "")
				require.Equal(t, http.StatusOK, rec.Code, "%s: %s", tc.name, rec.Body.String())
				var p userPage
				require.NoError(t, json.Unmarshal(e.Data, &p))
				assert.Equal(t, tc.want, names(p), tc.name)
				assert.Equal(t, tc.total, p.TotalItems, tc.name)
			}
			for _, tc := range []struct{ query, field, code string }{
				{"sortDataField=code", "sortDataField", "invalid_enum"},
				{"pageSize=-1", "pageSize", "out_of_range"},
				{"pageNumber=x", "pageNumber", "invalid_type"},
				{"status=Deleted", "status", "invalid_enum"},
				{"createdDateFrom=yesterday", "createdDateFrom", "invalid_format"},
			} {
				rec, e := f.do(t, "GET", "/api/v1/users?"+tc.query, f.as("reader"), "")
				require.Equal(t, http.StatusBadRequest, rec.Code, tc.query)
				assert.Equal(t, tc.field, e.Errors[0].Field, tc.query)
				assert.Equal(t, tc.code, e.Errors[0].Code, tc.query)
			}
			for _, role := range []string{"viewer", "manager"} {
				rec, e := f.do(t, "GET", "/api/v1/users", f.as(role), "")
				assert.Equal(t, http.StatusForbidden, rec.Code, role)
				assert.Equal(t, auth.CodeAccessDenied, e.Errors[0].Code, role)
			}
		})
	}
}

func reversedStrings(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[len(ss)-1-i] = s
	}
	return out
}

// TestUsersReadHTTP: one user by id, by username, by a list of ids; never
// another brand's; GET users/{userId}/devices still served beside
// by-username.
func TestUsersReadHTTP(t *testing.T) {
	t.Parallel()
	f := newAdminUserFixture(t, stores["memory"])
	tests := []struct {
		name, path string
		status     int
		want       string // the username answered, or the error code
	}{
		{"by id", "/api/v1/users/" + f.viewer.ID, 200, "viewer"},
		{"another brand's", "/api/v1/users/" + f.stray.ID, 404, "not_found"},
		{"unknown", "/api/v1/users/no-such-user", 404, "not_found"},
		{"by username", "/api/v1/users/by-username/VIEWER", 200, "viewer"},
		{"by username, another brand's only", "/api/v1/users/by-username/boss", 404, "not_found"},
		{"by username devices", "/api/v1/users/by-username/devices", 404, "not_found"},
	}
	for _, tc := range tests {
		rec, e := f.do(t, "GET", tc.path, f.as("reader"), "")
		require.Equal(t, tc.status, rec.Code, "%s: %s", tc.name, rec.Body.String())
		if tc.status != 200 {
			assert.Equal(t, tc.want, e.Errors[0].Code, tc.name)
			continue
		}
		var u struct{ Username string }
		require.NoError(t, json.Unmarshal(e.Data, &u))
		assert.Equal(t, tc.want, u.Username, tc.name)
	}
	rec, e := f.do(t, "GET", "/api/v1/users/by-list-id?ids%5B0%5D="+f.manager.ID+"&ids%5B1%5D="+f.stray.ID+"&ids%5B2%5D="+f.admin.ID,
		f.as("reader"), "")
	require.Equal(t, 200, rec.Code, rec.Body.String())
	var list []struct{ Username string }
	require.NoError(t, json.Unmarshal(e.Data, &list))
	assert.Equal(t, []struct{ Username string }{{"manager"}, {"admin"}}, list, "in the order asked, the brand's only")

	rec, _ = f.do(t, "GET", "/api/v1/users/"+f.manager.ID+"/devices", f.as("manager"), "")
	assert.Equal(t, 200, rec.Code, "the devices route is served beside by-username: %s", rec.Body.String())
	rec, _ = f.do(t, "GET", "/api/v1/users/by-username/viewer", f.as("viewer"), "")
	assert.Equal(t, http.StatusForbidden, rec.Code, "users.read is needed")
	rec, _ = f.do(t, "GET", "/api/v1/users/by-username/viewer", jsonHeaders("shop.example.com"), "")
	assert.Equal(t, http.StatusUnauthorized, rec.Code, "behind the key check")
}

// TestUsersChangesHTTP: PUT, the status routes, DELETE, as jfw-js's
// updateUser, lockUser, deleteUser ... send them; and their effects.
func TestUsersChangesHTTP(t *testing.T) {
	t.Parallel()
	for name, newStore := range stores {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newAdminUserFixture(t, newStore)
			viewerKey := f.keys["viewer"]
			rec, e := f.do(t, "PUT", "/api/v1/users/"+f.viewer.ID, f.as("manager"),
				`{"username":"watcher","emailAddress":"watcher@shop.example.com","firstName":"Wät","nickName":null,"languageCode":"en-US"}`)
			require.Equal(t, 200, rec.Code, rec.Body.String())
			var u struct{ Username, EmailAddress, FirstName string }
			require.NoError(t, json.Unmarshal(e.Data, &u))
			assert.Equal(t, struct{ Username, EmailAddress, FirstName string }{"watcher", "watcher@shop.example.com", "Wät"}, u)
			rec, e = f.do(t, "PUT", "/api/v1/users/"+f.viewer.ID, f.as("manager"), `{"username":"admin"}`)
			assert.Equal(t, http.StatusConflict, rec.Code, "a taken username")
			rec, e = f.do(t, "PUT", "/api/v1/users/"+f.viewer.ID, f.as("manager"), `{"firstName":"x"}`)
			require.Equal(t, http.StatusBadRequest, rec.Code)
			assert.Equal(t, "username", e.Errors[0].Field)

			for _, step := range []struct {
				change, login string
				status        int
			}{
				{"lock", auth.CodeUserLocked, 200},
				{"unsuspend", "", http.StatusConflict},
				{"unlock", "", 200},
				{"suspend", auth.CodeUserSuspended, 200},
				{"unsuspend", "", 200},
				{"deactivate", auth.CodeUserInactive, 200},
				{"activate", "", 200},
			} {
				rec, e := f.do(t, "POST", "/api/v1/users/"+f.viewer.ID+"/"+step.change, f.as("manager"), "")
				require.Equal(t, step.status, rec.Code, "%s: %s", step.change, rec.Body.String())
				if step.status != 200 {
					assert.Equal(t, auth.CodeStatusConflict, e.Errors[0].Code)
					continue
				}
				assert.JSONEq(t, "true", string(e.Data))
				rec, e = f.do(t, "POST", "/api/v1/users/auth", jsonHeaders("shop.example.com"), `{"username":"watcher","password":"viewer password"}`)
				if step.login == "" {
					assert.Equal(t, 200, rec.Code, "after %s", step.change)
					continue
				}
				require.Equal(t, http.StatusForbidden, rec.Code, "after %s", step.change)
				assert.Equal(t, step.login, e.Errors[0].Code)
			}
			rec, _ = f.do(t, "GET", "/api/v1/users/me", f.as("viewer"), "")
			assert.Equal(t, http.StatusUnauthorized, rec.Code, "the lock ended the viewer's key for good")

			fresh := f.login(t, `{"username":"watcher","password":"viewer password"}`, jsonHeaders("shop.example.com"))
			rec, e = f.do(t, "DELETE", "/api/v1/users/"+f.viewer.ID, f.as("manager"), "")
			require.Equal(t, 200, rec.Code, rec.Body.String())
			assert.JSONEq(t, "true", string(e.Data))
			rec, _ = f.do(t, "GET", "/api/v1/users/me", jsonHeaders("shop.example.com", "Auth-Key", fresh.AuthKey), "")
			assert.Equal(t, http.StatusUnauthorized, rec.Code, "a deleted user's key is refused at once")
			rec, _ = f.do(t, "GET", "/api/v1/users/"+f.viewer.ID, f.as("reader"), "")
			assert.Equal(t, http.StatusNotFound, rec.Code)
			assert.NotEqual(t, viewerKey, fresh.AuthKey)
		})
	}
}

// TestUsersNoEscalationHTTP tries each way round the rule of acting on
// another user, on every route of the administration that acts on one:
// without users.write, on a user holding a permission the caller lacks,
// on a * admin, on another brand's user, and on oneself.
func TestUsersNoEscalationHTTP(t *testing.T) {
	t.Parallel()
	f := newAdminUserFixture(t, stores["memory"])
	ctx := t.Context()
	acts := []struct {
		method, suffix, body string
		before               auth.Status
	}{
		{"PUT", "", `{"username":"%s","nickName":"taken over"}`, auth.StatusActive},
		{"DELETE", "", "", auth.StatusActive},
		{"POST", "/activate", "", auth.StatusInactive},
		{"POST", "/deactivate", "", auth.StatusActive},
		{"POST", "/lock", "", auth.StatusActive},
		{"POST", "/unlock", "", auth.StatusLocked},
		{"POST", "/suspend", "", auth.StatusActive},
		{"POST", "/unsuspend", "", auth.StatusSuspended},
	}
	cases := []struct {
		name, role string
		target     func(i int) auth.User
		status     int
	}{
		{"users.write on a * admin", "manager", func(i int) auth.User { return f.newUser(t, i, auth.PermAll) }, http.StatusForbidden},
		{"users.write on an analyst", "manager", func(i int) auth.User { return f.newUser(t, i, auth.PermAnalyticsWrite) }, http.StatusForbidden},
		{"users.write on a host permission", "manager", func(i int) auth.User { return f.newUser(t, i, "orders.refund") }, http.StatusForbidden},
		{"users.read only", "reader", func(i int) auth.User { return f.newUser(t, i) }, http.StatusForbidden},
		{"no permission", "viewer", func(i int) auth.User { return f.newUser(t, i) }, http.StatusForbidden},
		{"another brand's user", "admin", func(int) auth.User { return f.stray }, http.StatusNotFound},
		{"the manager itself", "manager", func(int) auth.User { return f.manager }, http.StatusForbidden},
		{"users.write on a plain user", "manager", func(i int) auth.User { return f.newUser(t, i) }, http.StatusOK},
		{"users.write on an equal", "manager", func(i int) auth.User { return f.newUser(t, i, auth.PermUsersWrite) }, http.StatusOK},
	}
	i := 0
	for _, act := range acts {
		for _, tc := range cases {
			i++
			target := tc.target(i)
			if tc.name == "the manager itself" && act.method == "PUT" {
				continue // one's own profile is one's to change
			}
			if target.BrandID == f.brand.ID && target.ID != f.manager.ID {
				_, err := f.app.Auth.SetUserStatus(ctx, target.ID, act.before)
				require.NoError(t, err)
			}
			body := act.body
			if body != "" {
				body = strings.Replace(body, "%s", target.Username, 1)
			}
			rec, e := f.do(t, act.method, "/api/v1/users/"+target.ID+act.suffix, f.as(tc.role), body)
			require.Equal(t, tc.status, rec.Code, "%s %s: %s: %s", act.method, act.suffix, tc.name, rec.Body.String())
			if tc.status == http.StatusOK {
				continue
			}
			after, err := f.app.Auth.User(ctx, target.ID)
			require.NoError(t, err, "%s %s: %s: refused, the user stays", act.method, act.suffix, tc.name)
			assert.NotEqual(t, "taken over", after.NickName)
			if target.ID != f.manager.ID && target.ID != f.stray.ID {
				assert.Equal(t, act.before, after.Status, "%s %s: %s", act.method, act.suffix, tc.name)
			}
			if tc.status == http.StatusForbidden {
				assert.Equal(t, auth.CodeAccessDenied, e.Errors[0].Code)
			}
		}
	}
}

// newUser makes a user of the fixture's brand holding perms.
func (f *adminUserFixture) newUser(t *testing.T, i int, perms ...auth.Permission) auth.User {
	t.Helper()
	u, err := f.app.Auth.CreateUser(t.Context(), f.brand.ID, auth.NewUser{Username: "target" + time.Duration(i).String(),
		Password: "target password", Permissions: perms})
	require.NoError(t, err)
	return u
}

// TestUsersStatisticsHTTP: GET users/statistics as jfw-js's
// statisticUsers sends it, and the counts by status.
func TestUsersStatisticsHTTP(t *testing.T) {
	t.Parallel()
	f := newAdminUserFixture(t, stores["memory"])
	today := time.Now().UTC().Format(time.DateOnly)
	rec, e := f.do(t, "GET", "/api/v1/users/statistics?startDate="+today+"%2000:00:00&endDate="+today+"%2023:59:59&typeResponse=DATE",
		f.as("reader"), "")
	require.Equal(t, 200, rec.Code, rec.Body.String())
	assert.JSONEq(t, `[{"date":"`+today+`","quantity":5}]`, string(e.Data))
	rec, e = f.do(t, "GET", "/api/v1/users/statistics?startDate="+today, f.as("reader"), "")
	require.Equal(t, http.StatusBadRequest, rec.Code)
	assert.Equal(t, "endDate", e.Errors[0].Field)
	_, err := f.app.Auth.SetUserStatus(t.Context(), f.viewer.ID, auth.StatusLocked)
	require.NoError(t, err)
	rec, e = f.do(t, "GET", "/api/v1/users/statistics/status", f.as("reader"), "")
	require.Equal(t, 200, rec.Code, rec.Body.String())
	assert.JSONEq(t, `{"total":5,"active":4,"inactive":0,"locked":1,"suspended":0}`, string(e.Data))
	rec, _ = f.do(t, "GET", "/api/v1/users/statistics/status", f.as("manager"), "")
	assert.Equal(t, http.StatusForbidden, rec.Code)
}
