package httpadapter_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBodyFieldErrors: a body is read field by field, so that every bad
// field gets its own item, two keys naming one field are refused, and a
// request without body or Content-Type is an empty object.
func TestBodyFieldErrors(t *testing.T) {
	t.Parallel()
	const refresh = "/api/v1/users/auth/refresh-auth-key"
	scenarios := []struct {
		name    string
		method  string
		path    func(f *integFixture) string // nil: the analytics configuration
		headers map[string]string            // nil: JSON with the admin's key
		body    func(f *integFixture) string
		status  int
		errs    []string // "field:code", in order
	}{
		{name: "several wrong types, one item each",
			body:   func(*integFixture) string { return `{"trackingId": true, "isDefault": "yes", "status": 5}` },
			status: 400, errs: []string{"trackingId:invalid_type", "isDefault:invalid_type", "status:invalid_type"}},
		{name: "wrong types beside a valid body",
			body: func(f *integFixture) string {
				return `{"appIntegrationId":7,` + strings.TrimPrefix(analyticsBody(f.analytics.AppIntegration.ID, map[string]any{
					"appIntegrationId": nil, "apiSecret": []int{1}, "authKey": false}), "{")
			},
			status: 400, errs: []string{"appIntegrationId:invalid_type", "apiSecret:invalid_type", "authKey:invalid_type"}},
		{name: "keys colliding case-insensitively",
			body: func(f *integFixture) string {
				return `{"trackingID":"G-1",` + strings.TrimPrefix(analyticsBody(f.analytics.AppIntegration.ID, nil), "{")
			},
			status: 400, errs: []string{"trackingId:duplicate_field"}},
		{name: "a key given twice",
			body: func(f *integFixture) string {
				return `{"isDefault":false,` + strings.TrimPrefix(analyticsBody(f.analytics.AppIntegration.ID, nil), "{")
			},
			status: 400, errs: []string{"isDefault:duplicate_field"}},
		{name: "three spellings: one item",
			body: func(f *integFixture) string {
				return `{"STATUS":"Active","Status":"Active",` + strings.TrimPrefix(analyticsBody(f.analytics.AppIntegration.ID, nil), "{")
			},
			status: 400, errs: []string{"status:duplicate_field"}},
		{name: "a colliding key of the wrong type: both items",
			body: func(f *integFixture) string {
				return `{"ISDEFAULT":"yes",` + strings.TrimPrefix(analyticsBody(f.analytics.AppIntegration.ID, nil), "{")
			},
			status: 400, errs: []string{"isDefault:invalid_type", "isDefault:duplicate_field"}},
		{name: "a body identity field colliding",
			body: func(f *integFixture) string {
				return `{"AuthKey":"x","authKey":"y",` + strings.TrimPrefix(analyticsBody(f.analytics.AppIntegration.ID, nil), "{")
			},
			status: 400, errs: []string{"authKey:duplicate_field"}},
		{name: "one key in another case is matched",
			body: func(f *integFixture) string {
				return strings.Replace(analyticsBody(f.analytics.AppIntegration.ID, nil), `"trackingId"`, `"TRACKINGID"`, 1)
			},
			status: 200},
		{name: "unknown keys that differ only in case are ignored",
			body: func(f *integFixture) string {
				return `{"extra":1,"EXTRA":2,` + strings.TrimPrefix(analyticsBody(f.analytics.AppIntegration.ID, nil), "{")
			},
			status: 200},
		{name: "login: keys colliding", method: "POST", path: func(*integFixture) string { return "/api/v1/users/auth" },
			headers: jsonHeaders("shop.example.com"),
			body: func(*integFixture) string {
				return `{"username":"admin","UserName":"viewer","password":"` + adminPassword + `"}`
			},
			status: 400, errs: []string{"username:duplicate_field"}},
		{name: "refresh without body or Content-Type", method: "POST", path: func(*integFixture) string { return refresh },
			headers: map[string]string{"Brand-URL": "shop.example.com"},
			status:  400, errs: []string{"refreshAuthKey:required"}},
		{name: "login without body or Content-Type", method: "POST", path: func(*integFixture) string { return "/api/v1/users/auth" },
			headers: map[string]string{"Brand-URL": "shop.example.com"},
			status:  400, errs: []string{"username:required", "password:required"}},
		{name: "refresh: an empty JSON body is still malformed", method: "POST", path: func(*integFixture) string { return refresh },
			headers: jsonHeaders("shop.example.com"),
			status:  400, errs: []string{":malformed_json"}},
		{name: "refresh: a body without Content-Type is still 415", method: "POST", path: func(*integFixture) string { return refresh },
			headers: map[string]string{"Brand-URL": "shop.example.com"},
			body:    func(*integFixture) string { return `{"refreshAuthKey":"x"}` },
			status:  415, errs: []string{":unsupported_media_type"}},
	}
	for storeName, newStore := range stores {
		for _, sc := range scenarios {
			t.Run(storeName+"/"+sc.name, func(t *testing.T) {
				t.Parallel()
				f := newIntegFixture(t, newStore)
				method, path, headers, body := "PUT", analyticsPath(f.analytics.ID), sc.headers, ""
				if sc.method != "" {
					method, path = sc.method, sc.path(f)
				}
				if headers == nil {
					headers = jsonHeaders("shop.example.com", "Auth-Key", f.keys["admin"])
				}
				if sc.body != nil {
					body = sc.body(f)
				}
				rec, e := f.do(t, method, path, headers, body)
				require.Equal(t, sc.status, rec.Code, rec.Body.String())
				var got []string
				for _, it := range e.Errors {
					got = append(got, it.Field+":"+it.Code)
				}
				assert.Equal(t, sc.errs, got, rec.Body.String())
			})
		}
	}
}
