package httpadapter_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/webhooks"
)

// routeKind classifies a route of Routes() by how a hostile request to it
// is answered.
type routeKind int

const (
	kindList         routeKind = iota + 1 // GET currencies, countries, cities
	kindLogin                             // POST /users/auth
	kindRefresh                           // POST /users/auth/refresh-auth-key
	kindLogout                            // DELETE /users/auth
	kindGet                               // GET an integration
	kindPut                               // PUT an integration
	kindDoc                               // GET /openapi.json (no envelope on success)
	kindBareList                          // GET states, timezones, languages (Brand-URL only, no paging)
	kindKeyedList                         // GET app-integrations and the configuration lists (Auth-Key)
	kindCreate                            // POST a configuration
	kindTemplate                          // POST or PUT a message template
	kindDelete                            // DELETE a configuration or a user's device (of an ID no record has: nothing is deleted)
	kindDevices                           // GET a user's devices, or the caller's (no id last in the path)
	kindMe                                // GET /users/me
	kindBrand                             // GET /brands/by-url
	kindAccountOpen                       // POST check-auth-key-available, register, forgot- and reset-password
	kindAccountKeyed                      // PUT change-password, of the caller or of a user
	kindHookCreate                        // POST a webhook endpoint
	kindHookPut                           // PUT a webhook endpoint (no If-Match)
	kindHookAction                        // POST an action on a webhook endpoint (of an ID no endpoint has: nothing happens)
	kindUserList                          // GET users (Auth-Key, paging and filters)
	kindUserPut                           // PUT a user
	kindStats                             // GET users/statistics (startDate and endDate required)
	kindStatus                            // POST a user's status change
)

// hostileRoute is one mounted route and a concrete path to it.
type hostileRoute struct {
	pattern string
	method  string
	path    string // with {id} filled in with the fixture's configuration
	kind    routeKind
}

// hostileRoutes classifies every route the handler mounts; a route the
// test does not know fails it, so that a new route gets hostile input too.
func hostileRoutes(t *testing.T, f *integFixture) []hostileRoute {
	t.Helper()
	// Sign-up open, so that a hostile body reaches the rules of a sign-up
	// rather than the closed door.
	require.NoError(t, f.app.Auth.SetBrandSettings(t.Context(), f.brand.ID, auth.BrandSettings{RegistrationOpen: true}))
	relay := seedSMTP(t, f.app.Integrations, f.brand.ID)
	hook, _ := webhookSamples(t, f)
	var out []hostileRoute
	template := "" // a message template the routes of one read and change
	for _, pattern := range f.handler.(interface{ Routes() []string }).Routes() {
		method, path, _ := strings.Cut(pattern, " ")
		r := hostileRoute{pattern: pattern, method: method, path: path}
		switch {
		case method == "GET" && slices.Contains(listPaths, path):
			r.kind = kindList
		case pattern == "POST /api/v1/users/auth":
			r.kind = kindLogin
		case pattern == "POST /api/v1/users/auth/refresh-auth-key":
			r.kind = kindRefresh
		case pattern == "DELETE /api/v1/users/auth":
			r.kind = kindLogout
		case pattern == "GET /api/v1/openapi.json":
			r.kind = kindDoc
		case method == "GET" && slices.Contains([]string{"/api/v1/states", "/api/v1/timezones", "/api/v1/languages"}, path):
			r.kind = kindBareList
		case method == "GET" && slices.Contains([]string{"/api/v1/app-integrations", "/api/v1/app-integrations/analytics",
			"/api/v1/app-integrations/payment-gateway", "/api/v1/app-integrations/smtp"}, path):
			r.kind = kindKeyedList
		case method == "POST" && strings.HasPrefix(path, "/api/v1/app-integrations/"):
			r.kind = kindCreate
		case method == "DELETE" && strings.HasPrefix(path, "/api/v1/app-integrations/"):
			r.kind, r.path = kindDelete, strings.TrimSuffix(path, "{id}")+"0190f3d4-0000-7000-8000-000000000000"
		case pattern == "GET /api/v1/users/me":
			r.kind = kindMe
		case pattern == "GET /api/v1/brands/by-url":
			r.kind = kindBrand
		case slices.Contains([]string{"/api/v1/users/check-auth-key-available", "/api/v1/users/register",
			"/api/v1/users/forgot-password", "/api/v1/users/reset-password"}, path):
			r.kind = kindAccountOpen
		case pattern == "PUT /api/v1/users/change-password":
			r.kind = kindAccountKeyed
		case pattern == "PUT /api/v1/users/{id}/change-password":
			r.kind, r.path = kindAccountKeyed, "/api/v1/users/"+f.viewer.ID+"/change-password"
		case path == "/api/v1/app-integrations/analytics/{id}":
			r.path = analyticsPath(f.analytics.ID)
		case path == "/api/v1/app-integrations/payment-gateway/{id}":
			r.path = gatewayPath(f.gateway.ID)
		case path == "/api/v1/app-integrations/smtp/{id}":
			r.path = smtpPath(relay.ID)
		case pattern == "GET /api/v1/users/{userId}/devices":
			r.kind, r.path = kindDevices, "/api/v1/users/"+f.admin.ID+"/devices"
		case pattern == "GET /api/v1/devices/current":
			r.kind = kindDevices
		case pattern == "GET /api/v1/webhooks":
			r.kind = kindKeyedList
		case pattern == "GET /api/v1/webhooks/{id}/deliveries":
			r.kind, r.path = kindKeyedList, "/api/v1/webhooks/"+hook+"/deliveries"
		case pattern == "POST /api/v1/webhooks":
			r.kind = kindHookCreate
		case pattern == "GET /api/v1/webhooks/{id}", pattern == "PUT /api/v1/webhooks/{id}":
			r.kind, r.path = map[string]routeKind{"GET": kindGet, "PUT": kindHookPut}[method], "/api/v1/webhooks/"+hook
		case pattern == "DELETE /api/v1/webhooks/{id}": // of an ID no endpoint has
			r.kind, r.path = kindDelete, "/api/v1/webhooks/0190f3d4-0000-7000-8000-000000000000"
		case method == "POST" && strings.HasPrefix(path, "/api/v1/webhooks/{id}/"):
			r.kind, r.path = kindHookAction, strings.Replace(path, "{id}", "0190f3d4-0000-7000-8000-000000000000", 1)
		case pattern == "GET /api/v1/email-templates" || pattern == "GET /api/v1/email-templates/placeholder-keys":
			r.kind = kindKeyedList
		case pattern == "POST /api/v1/email-templates":
			r.kind = kindTemplate
		case pattern == "DELETE /api/v1/email-templates/{id}":
			r.kind, r.path = kindDelete, "/api/v1/email-templates/0190f3d4-0000-7000-8000-000000000000"
		case path == "/api/v1/email-templates/{id}":
			if template == "" {
				template, _ = seedTemplates(t, f)
			}
			r.path = "/api/v1/email-templates/" + template
			if method == "PUT" {
				r.kind = kindTemplate
			}
		case pattern == "DELETE /api/v1/users/{userId}/devices/{deviceId}":
			// A device the admin does not have: the neutral request ends
			// nothing.
			r.kind, r.path = kindDelete, "/api/v1/users/"+f.admin.ID+"/devices/00000000-0000-7000-8000-000000000000"
		case pattern == "GET /api/v1/users":
			r.kind = kindUserList
		case pattern == "GET /api/v1/users/by-list-id" || pattern == "GET /api/v1/users/statistics/status":
			r.kind = kindKeyedList
		case pattern == "GET /api/v1/users/statistics":
			r.kind = kindStats
		case pattern == "GET /api/v1/users/by-username/{username}":
			r.kind, r.path = kindGet, "/api/v1/users/by-username/viewer"
		case pattern == "GET /api/v1/users/{id}":
			r.kind, r.path = kindGet, "/api/v1/users/"+f.viewer.ID
		case pattern == "PUT /api/v1/users/{id}":
			r.kind, r.path = kindUserPut, "/api/v1/users/"+f.viewer.ID
		case pattern == "DELETE /api/v1/users/{id}":
			// A user no one is: the neutral request deletes nothing.
			r.kind, r.path = kindDelete, "/api/v1/users/0190f3d4-0000-7000-8000-000000000000"
		case method == "POST" && strings.HasPrefix(pattern, "POST /api/v1/users/{id}/"):
			r.kind, r.path = kindStatus, strings.Replace(path, "{id}", "0190f3d4-0000-7000-8000-000000000000", 1)
		default:
			t.Errorf("route %q is not classified: add it to the hostile-input test", pattern)
			continue
		}
		if r.kind == 0 {
			r.kind = map[string]routeKind{"GET": kindGet, "PUT": kindPut}[method]
			require.NotZero(t, r.kind, pattern)
		}
		out = append(out, r)
	}
	return out
}

// neutralBody is the body a route is sent when the attack is elsewhere: one
// that fails without changing anything (a wrong password, an unknown
// refresh key, an update without its required fields).
var neutralBody = map[routeKind]string{
	kindLogin:    `{"username":"admin","password":"wrong password"}`,
	kindRefresh:  `{"refreshAuthKey":"unknown-refresh-key"}`,
	kindPut:      `{}`,
	kindTemplate: `{}`,
	kindCreate:   `{}`,
	// Every account route refuses an empty object (a required field).
	kindAccountOpen:  `{}`,
	kindAccountKeyed: `{}`,
	kindHookCreate:   `{}`,
	kindHookPut:      `{}`,
	kindUserPut:      `{}`, // username is required
}

// neutralStatus is the answer to a route's neutral request.
var neutralStatus = map[routeKind]int{
	kindList: 200, kindLogin: 401, kindRefresh: 401, kindGet: 200, kindPut: 400, kindDoc: 200,
	kindBareList: 200, kindKeyedList: 200, kindCreate: 400, kindDelete: 404, kindDevices: 200,
	kindMe: 200, kindBrand: 200, kindAccountOpen: 400, kindAccountKeyed: 400, kindHookCreate: 400, kindHookPut: 400,
	kindHookAction: 404,
	kindUserList:   200, kindUserPut: 400, kindStats: 400, kindStatus: 404,
	kindTemplate: 400,
}

// accountBody is a hostile body for the account routes: fields of every
// account body, so that each route reads some, and a confirmPassword
// that matches nothing, so that none can succeed.
func accountBody(value string) string {
	return `{"password":` + value + `,"newPassword":` + value + `,"emailAddress":` + value + `,"token":` + value +
		`,"confirmPassword":"mismatch"}`
}

// hostileRequest is what an attack changes in a route's neutral request.
type hostileRequest struct {
	method  string            // instead of the route's
	path    string            // decoded path, instead of the route's
	rawPath string            // its escaped form, when it differs
	query   string            // raw query
	headers map[string]string // set over the neutral headers ("" deletes)
	body    *string           // instead of the neutral body
}

// attack is one hostile input and the status each kind of route must
// answer it with.
type attack struct {
	name string
	req  func(r hostileRoute) hostileRequest
	// hit are the kinds the input is aimed at, and their answers.
	hit map[routeKind]int
	// code, when set, is the code of the first error of every answer of a
	// hit kind.
	code string
	// rest sends the input to the other kinds too (but logout, whose
	// neutral request would log out), which must give their neutral
	// answer: the input is ignored there.
	rest bool
}

// want returns the status a route of kind k must answer a with, and
// whether a is sent to it at all.
func (a attack) want(k routeKind) (int, bool) {
	if s, ok := a.hit[k]; ok {
		return s, true
	}
	s, ok := neutralStatus[k]
	return s, ok && a.rest
}

// on returns the hit map of the given kinds, all answered with status.
func on(status int, kinds ...routeKind) map[routeKind]int {
	m := map[routeKind]int{}
	for _, k := range kinds {
		m[k] = status
	}
	return m
}

// with returns m with the given kinds set to status.
func with(m map[routeKind]int, status int, kinds ...routeKind) map[routeKind]int {
	for _, k := range kinds {
		m[k] = status
	}
	return m
}

func header(name, value string) func(hostileRoute) hostileRequest {
	return func(hostileRoute) hostileRequest { return hostileRequest{headers: map[string]string{name: value}} }
}

func query(q string) func(hostileRoute) hostileRequest {
	return func(hostileRoute) hostileRequest { return hostileRequest{query: q} }
}

// bodies sends each body kind its own hostile body (a create the body of
// an update).
func bodies(m map[routeKind]string) func(hostileRoute) hostileRequest {
	return func(r hostileRoute) hostileRequest {
		b, ok := m[r.kind]
		if !ok && r.kind == kindCreate {
			b = m[kindPut]
		}
		if !ok && r.kind == kindHookCreate {
			b = m[kindHookPut]
		}
		return hostileRequest{body: &b}
	}
}

// sameBody sends every body route the same hostile body.
func sameBody(b string) func(hostileRoute) hostileRequest {
	return func(hostileRoute) hostileRequest { return hostileRequest{body: &b} }
}

// pathID replaces the {id} of an integration route.
func pathID(id string) func(hostileRoute) hostileRequest {
	return func(r hostileRoute) hostileRequest {
		base := r.path[:strings.LastIndexByte(r.path, '/')+1]
		return hostileRequest{path: base + id, rawPath: base + url.PathEscape(id)}
	}
}

// bodyKinds are the routes that read a JSON body.
var bodyKinds = []routeKind{kindLogin, kindRefresh, kindPut, kindCreate, kindAccountOpen, kindAccountKeyed, kindHookCreate, kindHookPut, kindUserPut, kindTemplate}

func onBodies(status int) map[routeKind]int { return on(status, bodyKinds...) }

// branded are the kinds of route that resolve Brand-URL.
var branded = []routeKind{kindList, kindLogin, kindRefresh, kindLogout, kindGet, kindPut,
	kindBareList, kindKeyedList, kindCreate, kindDelete, kindDevices, kindMe, kindBrand, kindAccountOpen, kindAccountKeyed,
	kindHookCreate, kindHookPut, kindHookAction,
	kindUserList, kindUserPut, kindStats, kindStatus, kindTemplate}

// keyed are the kinds of route that check Auth-Key.
var keyed = []routeKind{kindLogout, kindGet, kindPut, kindKeyedList, kindCreate, kindDelete, kindDevices, kindMe, kindAccountKeyed,
	kindHookCreate, kindHookPut, kindHookAction,
	kindUserList, kindUserPut, kindStats, kindStatus, kindTemplate}

const (
	sqlOr     = `' OR 1=1 --`
	hugeFloat = `1e400`
	hugeInt   = `99999999999999999999`
)

// deep is JSON nested n levels in arrays.
func deep(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

func hostileAttacks() []attack {
	twoMiB := `{"username":"` + strings.Repeat("x", 2<<20) + `"}`
	return []attack{
		// Headers.
		{name: "Brand-URL with NUL", req: header("Brand-URL", "shop.example.com\x00"),
			hit: on(404, branded...), code: "brand_not_found", rest: true},
		{name: "Brand-URL invalid UTF-8", req: header("Brand-URL", "shop.example.com\xff\xfe"),
			hit: on(404, branded...), code: "brand_not_found", rest: true},
		{name: "Brand-URL SQL", req: header("Brand-URL", "shop.example.com"+sqlOr),
			hit: on(404, branded...), code: "brand_not_found", rest: true},
		{name: "Brand-URL LIKE underscore", req: header("Brand-URL", "shop.example.co_"),
			hit: on(404, branded...), code: "brand_not_found", rest: true},
		{name: "Brand-URL LIKE percent", req: header("Brand-URL", "%"),
			hit: on(404, branded...), code: "brand_not_found", rest: true},
		{name: "Brand-URL 64 KiB", req: header("Brand-URL", strings.Repeat("a", 64<<10)+".com"),
			hit: on(404, branded...), code: "brand_not_found", rest: true},
		{name: "Auth-Key with NUL", req: header("Auth-Key", "\x00"+strings.Repeat("A", 42)),
			hit: on(401, keyed...), code: "unauthenticated", rest: true},
		{name: "Auth-Key invalid UTF-8", req: header("Auth-Key", "\xff\xfe\xfd"),
			hit: on(401, keyed...), code: "unauthenticated", rest: true},
		{name: "Auth-Key SQL", req: header("Auth-Key", sqlOr),
			hit: on(401, keyed...), code: "unauthenticated", rest: true},
		{name: "Auth-Key LIKE percent", req: header("Auth-Key", "%"),
			hit: on(401, keyed...), code: "unauthenticated", rest: true},
		{name: "Auth-Key 1 MiB", req: header("Auth-Key", strings.Repeat("A", 1<<20)),
			hit: on(401, keyed...), code: "unauthenticated", rest: true},
		{name: "Device-Code hostile", req: header("Device-Code", sqlOr+"\x00\xff%_"), rest: true},
		{name: "X-Device-Code hostile", req: header("X-Device-Code", sqlOr+"\x00\xff%_"), hit: on(400, kindLogin), rest: true},
		{name: "If-Match hostile", req: header("If-Match", "\"\x00\xff\", W/, *x, "+sqlOr), hit: on(412, kindPut),
			code: "precondition_failed", rest: true},
		{name: "If-None-Match hostile", req: header("If-None-Match", "\"\x00\xff\", "+sqlOr), rest: true},
		{name: "X-Forwarded-For hostile", req: header("X-Forwarded-For", "\x00, 999.1.1.1, "+sqlOr), rest: true},

		// Query strings: list routes parse them; the others ignore them.
		{name: "PageSize wrong type", req: query("PageSize=abc"), hit: on(400, kindList, kindUserList), rest: true, code: "invalid_type"},
		{name: "PageSize 1e400", req: query("PageSize=" + hugeFloat), hit: on(400, kindList, kindUserList), rest: true, code: "invalid_type"},
		{name: "PageNumber huge", req: query("PageNumber=" + hugeInt), hit: on(400, kindList, kindUserList), rest: true, code: "out_of_range"},
		{name: "PageNumber negative", req: query("pagenumber=-1"), hit: on(400, kindList, kindUserList), rest: true, code: "out_of_range"},
		{name: "PageSize huge clamped", req: query("PageSize=2147483647"), rest: true},
		{name: "filters with NUL and invalid UTF-8", req: query("Name=%00%ff%fe&Keywords=%C0%AF%00"), rest: true},
		{name: "raw invalid UTF-8 in query", req: query("Name=\xff\xfe&Keywords=\x00"), rest: true},
		{name: "filters with SQL", req: query("Name=" + url.QueryEscape(sqlOr) + "&Keywords=%22%3B--&Tags=%27"), rest: true},
		{name: "filters with LIKE wildcards", req: query("Name=%25&Keywords=_"), rest: true},
		{name: "broken escapes", req: query("%zz=%&;;&=&Name=%"), rest: true},

		// Bodies.
		{name: "wrong types", req: bodies(map[routeKind]string{
			kindLogin:        `{"username":12,"password":true}`,
			kindRefresh:      `{"refreshAuthKey":["x"]}`,
			kindPut:          `{"appIntegrationId":12,"trackingId":true,"name":{},"isDefault":"yes","testMode":"no","host":12}`,
			kindTemplate:     `{"eventId":12,"subject":true,"body":{},"textBody":[1]}`,
			kindHookPut:      `{"url":12,"eventTypes":"x","enabled":"yes"}`,
			kindAccountOpen:  `{"authKey":12,"password":true,"newPassword":{},"emailAddress":[1]}`,
			kindAccountKeyed: `{"oldPassword":12,"newPassword":true}`,
			kindUserPut:      `{"username":12,"nickName":true}`,
		}), hit: onBodies(400), code: "invalid_type"},
		{name: "huge float for a string", req: bodies(map[routeKind]string{
			kindLogin:        `{"username":"admin","password":` + hugeFloat + `}`,
			kindRefresh:      `{"refreshAuthKey":` + hugeFloat + `}`,
			kindPut:          `{"status":` + hugeFloat + `,"host":` + hugeFloat + `}`,
			kindTemplate:     `{"subject":` + hugeFloat + `}`,
			kindHookPut:      `{"url":` + hugeFloat + `}`,
			kindAccountOpen:  `{"authKey":` + hugeFloat + `,"password":` + hugeFloat + `,"newPassword":` + hugeFloat + `,"emailAddress":` + hugeFloat + `}`,
			kindAccountKeyed: `{"newPassword":` + hugeFloat + `}`,
			kindUserPut:      `{"username":` + hugeFloat + `}`,
		}), hit: onBodies(400), code: "invalid_type"},
		{name: "huge integer for a string or bool", req: bodies(map[routeKind]string{
			kindLogin:        `{"username":` + hugeInt + `,"password":"x"}`,
			kindRefresh:      `{"refreshAuthKey":` + hugeInt + `}`,
			kindPut:          `{"isDefault":` + hugeInt + `,"useTls":` + hugeInt + `}`,
			kindTemplate:     `{"body":` + hugeInt + `}`,
			kindHookPut:      `{"enabled":` + hugeInt + `}`,
			kindAccountOpen:  `{"authKey":` + hugeInt + `,"password":` + hugeInt + `,"newPassword":` + hugeInt + `,"emailAddress":` + hugeInt + `}`,
			kindAccountKeyed: `{"newPassword":` + hugeInt + `}`,
			kindUserPut:      `{"firstName":` + hugeInt + `}`,
		}), hit: onBodies(400), code: "invalid_type"},
		{name: "NUL in strings", req: bodies(map[routeKind]string{
			kindLogin:        `{"username":"ad\u0000min","password":"` + adminPassword + `"}`,
			kindRefresh:      `{"refreshAuthKey":"\u0000"}`,
			kindPut:          `{"appIntegrationId":"\u0000","trackingId":"\u0000","apiKey":"\u0000","name":"\u0000"}`,
			kindTemplate:     `{"eventId":"\u0000","subject":"\u0000","body":"\u0000"}`,
			kindHookPut:      `{"url":"\u0000","eventTypes":["\u0000"],"description":"\u0000"}`,
			kindAccountOpen:  accountBody(`"\u0000"`),
			kindAccountKeyed: accountBody(`"\u0000"`),
			kindUserPut:      `{"username":"\u0000","emailAddress":"\u0000"}`,
		}), hit: with(onBodies(401), 400, kindPut, kindCreate, kindAccountOpen, kindAccountKeyed, kindHookCreate, kindHookPut, kindUserPut, kindTemplate)},
		{name: "invalid UTF-8 in strings", req: bodies(map[routeKind]string{
			kindLogin:        "{\"username\":\"adm\xffin\",\"password\":\"\xc0\xaf\"}",
			kindRefresh:      "{\"refreshAuthKey\":\"\xff\xfe\"}",
			kindPut:          "{\"appIntegrationId\":\"\xff\",\"trackingId\":\"\xfe\",\"apiKey\":\"\xc0\xaf\",\"name\":\"\xff\",\"host\":\"\xff\"}",
			kindTemplate:     "{\"eventId\":\"\xff\",\"subject\":\"\xfe\",\"body\":\"\xc0\xaf\"}",
			kindHookPut:      "{\"url\":\"\xff\",\"description\":\"\xfe\"}",
			kindAccountOpen:  "{\"authKey\":\"\xff\",\"password\":\"\xff\",\"newPassword\":\"\xff\",\"emailAddress\":\"\xff\"}",
			kindAccountKeyed: "{\"newPassword\":\"\xff\"}",
			kindUserPut:      "{\"username\":\"\xff\"}",
		}), hit: onBodies(400), code: "invalid_format"},
		{name: "lone surrogates in strings", req: bodies(map[routeKind]string{
			kindLogin:        `{"username":"admin","password":"\ud800"}`,
			kindRefresh:      `{"refreshAuthKey":"\udc00"}`,
			kindPut:          `{"appIntegrationId":"\udbff\u0041","trackingId":"x","apiKey":"x","name":"x","host":"\ud800"}`,
			kindTemplate:     `{"eventId":"\udbff\u0041","subject":"x","body":"x"}`,
			kindHookPut:      `{"url":"\udbff\u0041","eventTypes":["x"]}`,
			kindAccountOpen:  `{"authKey":"\ud800","password":"\ud800","newPassword":"\ud800","emailAddress":"\ud800"}`,
			kindAccountKeyed: `{"newPassword":"\ud800"}`,
			kindUserPut:      `{"username":"\ud800"}`,
		}), hit: onBodies(400), code: "invalid_format"},
		{name: "2 MiB body", req: sameBody(twoMiB), hit: onBodies(413), code: "body_too_large"},
		{name: "wrong content type", req: func(r hostileRoute) hostileRequest {
			return hostileRequest{headers: map[string]string{"Content-Type": "text/plain"}}
		}, hit: onBodies(415), code: "unsupported_media_type"},
		{name: "missing content type", req: func(r hostileRoute) hostileRequest {
			return hostileRequest{headers: map[string]string{"Content-Type": ""}}
		}, hit: onBodies(415), code: "unsupported_media_type"},
		{name: "broken content type", req: func(r hostileRoute) hostileRequest {
			return hostileRequest{headers: map[string]string{"Content-Type": "application/json; charset=\x00\xff; ;"}}
		}, hit: onBodies(415), code: "unsupported_media_type"},
		{name: "form content type", req: func(r hostileRoute) hostileRequest {
			return hostileRequest{headers: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}}
		}, hit: onBodies(415), code: "unsupported_media_type"},
		{name: "nested past the decoder's limit", req: sameBody(deep(20000)), hit: onBodies(400), code: "malformed_json"},
		{name: "deeply nested unknown field", req: bodies(map[routeKind]string{
			kindLogin:        `{"x":` + deep(5000) + `,"username":"admin","password":"wrong"}`,
			kindRefresh:      `{"x":` + deep(5000) + `,"refreshAuthKey":"nope"}`,
			kindPut:          `{"x":` + deep(5000) + `}`,
			kindTemplate:     `{"x":` + deep(5000) + `}`,
			kindHookPut:      `{"x":` + deep(5000) + `}`,
			kindAccountOpen:  `{"x":` + deep(5000) + `}`,
			kindAccountKeyed: `{"x":` + deep(5000) + `}`,
			kindUserPut:      `{"x":` + deep(5000) + `}`,
		}), hit: with(onBodies(401), 400, kindPut, kindCreate, kindAccountOpen, kindAccountKeyed, kindHookCreate, kindHookPut, kindUserPut, kindTemplate)},
		{name: "not an object", req: sameBody(`[1,2]`), hit: onBodies(400), code: "malformed_json"},
		{name: "two values", req: bodies(map[routeKind]string{
			kindLogin:        `{"username":"admin","password":"` + adminPassword + `"}{"x":1}`,
			kindRefresh:      `{"refreshAuthKey":"nope"} 1`,
			kindPut:          `{} {}`,
			kindTemplate:     `{} {}`,
			kindHookPut:      `{} {}`,
			kindAccountOpen:  `{} {}`,
			kindAccountKeyed: `{} {}`,
			kindUserPut:      `{} {}`,
		}), hit: onBodies(400), code: "malformed_json"},
		{name: "truncated", req: sameBody(`{"username":"adm`), hit: onBodies(400), code: "malformed_json"},
		{name: "SQL in strings", req: bodies(map[routeKind]string{
			kindLogin:        `{"username":"admin' --","emailAddress":"` + sqlOr + `","password":"` + sqlOr + `"}`,
			kindRefresh:      `{"refreshAuthKey":"` + sqlOr + `"}`,
			kindPut:          `{"appIntegrationId":"` + sqlOr + `","trackingId":"x\"; DROP TABLE analytics; --","apiKey":"x","name":"` + sqlOr + `"}`,
			kindTemplate:     `{"eventId":"` + sqlOr + `","subject":"x\"; DROP TABLE message_templates; --","body":"` + sqlOr + `"}`,
			kindHookPut:      `{"url":"` + sqlOr + `","eventTypes":["x\"; DROP TABLE webhooks; --"]}`,
			kindAccountOpen:  accountBody(`"` + sqlOr + `"`),
			kindAccountKeyed: accountBody(`"` + sqlOr + `"`),
			kindUserPut:      `{"username":"` + sqlOr + `","nickName":"` + sqlOr + `"}`,
		}), hit: with(onBodies(401), 400, kindPut, kindCreate, kindAccountOpen, kindAccountKeyed, kindHookCreate, kindHookPut, kindUserPut, kindTemplate)},
		// With the right password, a lookup that treated _ or % as a
		// wildcard would log in.
		{name: "LIKE underscore username", req: bodies(map[routeKind]string{
			kindLogin:        `{"username":"_____","password":"` + adminPassword + `"}`,
			kindRefresh:      `{"refreshAuthKey":"` + strings.Repeat("_", 43) + `"}`,
			kindPut:          `{"appIntegrationId":"` + strings.Repeat("_", 36) + `","trackingId":"_","apiKey":"_","name":"_"}`,
			kindTemplate:     `{"eventId":"______________","subject":"_","body":"_"}`,
			kindHookPut:      `{"url":"_____","eventTypes":["_"]}`,
			kindAccountOpen:  accountBody(`"_____"`),
			kindAccountKeyed: accountBody(`"_____"`),
			kindUserPut:      `{"username":"_____","emailAddress":"_____"}`,
		}), hit: with(onBodies(401), 400, kindPut, kindCreate, kindAccountOpen, kindAccountKeyed, kindHookCreate, kindHookPut, kindUserPut, kindTemplate)},
		{name: "LIKE percent email", req: bodies(map[routeKind]string{
			kindLogin:        `{"emailAddress":"%@%","password":"` + adminPassword + `"}`,
			kindRefresh:      `{"refreshAuthKey":"%"}`,
			kindPut:          `{"appIntegrationId":"%","trackingId":"%","apiKey":"%","name":"%"}`,
			kindTemplate:     `{"eventId":"%","subject":"%","body":"%"}`,
			kindHookPut:      `{"url":"%","eventTypes":["%"]}`,
			kindAccountOpen:  accountBody(`"%@%"`),
			kindAccountKeyed: accountBody(`"%@%"`),
			kindUserPut:      `{"username":"%","emailAddress":"%@%"}`,
		}), hit: with(onBodies(401), 400, kindPut, kindCreate, kindAccountOpen, kindAccountKeyed, kindHookCreate, kindHookPut, kindUserPut, kindTemplate)},

		// Path ids.
		{name: "id SQL", req: pathID(sqlOr), hit: on(404, kindGet, kindPut, kindDelete, kindHookPut, kindUserPut), code: "not_found"},
		{name: "id LIKE percent", req: pathID("%"), hit: on(404, kindGet, kindPut, kindDelete, kindHookPut, kindUserPut), code: "not_found"},
		{name: "id LIKE underscores", req: pathID(strings.Repeat("_", 36)), hit: on(404, kindGet, kindPut, kindDelete, kindHookPut, kindUserPut), code: "not_found"},
		{name: "id NUL", req: pathID("\x00"), hit: on(404, kindGet, kindPut, kindDelete, kindHookPut, kindUserPut), code: "not_found"},
		{name: "id invalid UTF-8", req: pathID("\xff\xfe"), hit: on(404, kindGet, kindPut, kindDelete, kindHookPut, kindUserPut), code: "not_found"},
		{name: "id 64 KiB", req: pathID(strings.Repeat("7", 64<<10)), hit: on(404, kindGet, kindPut, kindDelete, kindHookPut, kindUserPut), code: "not_found"},

		// Methods.
		{name: "wrong method", req: func(hostileRoute) hostileRequest { return hostileRequest{method: "PATCH"} },
			hit: on(405, kindList, kindLogin, kindRefresh, kindLogout, kindGet, kindPut, kindDoc,
				kindBareList, kindKeyedList, kindCreate, kindDelete, kindDevices, kindMe, kindBrand, kindAccountOpen, kindAccountKeyed,
				kindHookCreate, kindHookPut, kindHookAction,
				kindUserList, kindUserPut, kindStats, kindStatus),
			code: "method_not_allowed"},
	}
}

// build makes the request of attack a on route r.
func (h hostileRequest) build(f *integFixture, r hostileRoute) *http.Request {
	method, path := r.method, r.path
	if h.method != "" {
		method = h.method
	}
	body := neutralBody[r.kind]
	if h.body != nil {
		body = *h.body
	}
	req := httptest.NewRequest(method, "/", strings.NewReader(body))
	req.URL.Path, req.URL.RawPath = path, ""
	if h.path != "" {
		req.URL.Path, req.URL.RawPath = h.path, h.rawPath
	}
	req.URL.RawQuery = h.query
	req.RequestURI = req.URL.RequestURI()
	req.Header.Set("Brand-URL", "shop.example.com")
	if slices.Contains(bodyKinds, r.kind) {
		req.Header.Set("Content-Type", "application/json")
	}
	if slices.Contains(keyed, r.kind) {
		req.Header.Set("Auth-Key", f.keys["admin"])
	}
	for k, v := range h.headers {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header[http.CanonicalHeaderKey(k)] = []string{v}
		}
	}
	return req
}

// storedState is everything a hostile request must leave unchanged.
type storedState struct {
	Analytics, OtherAnalytics integrations.Analytics
	Gateway, OtherGateway     integrations.PaymentGateway
	AnalyticsSecrets          integrations.AnalyticsSecrets
	GatewaySecrets            integrations.PaymentGatewaySecrets
	Revisions                 map[string]int
	Users                     []auth.User
	Devices                   []auth.Device
	Brands                    []auth.Brand
	Currencies                int
	ListTotals                map[string]int
	Webhooks                  []webhooks.Endpoint
}

func snapshot(t *testing.T, f *integFixture) storedState {
	t.Helper()
	ctx := t.Context()
	in := f.app.Integrations
	var s storedState
	var err error
	s.Analytics, err = in.Analytics(ctx, f.brand.ID, f.analytics.ID)
	require.NoError(t, err)
	s.OtherAnalytics, err = in.Analytics(ctx, f.other.ID, f.otherAnalytics.ID)
	require.NoError(t, err)
	s.Gateway, err = in.PaymentGateway(ctx, f.brand.ID, f.gateway.ID)
	require.NoError(t, err)
	s.OtherGateway, err = in.PaymentGateway(ctx, f.other.ID, f.otherGateway.ID)
	require.NoError(t, err)
	s.AnalyticsSecrets, err = in.AnalyticsSecrets(ctx, f.brand.ID, f.analytics.ID)
	require.NoError(t, err)
	s.GatewaySecrets, err = in.PaymentGatewaySecrets(ctx, f.brand.ID, f.gateway.ID)
	require.NoError(t, err)
	s.Revisions = map[string]int{}
	for _, rec := range []struct {
		brand, id string
		kind      integrations.RecordKind
	}{
		{f.brand.ID, f.analytics.ID, integrations.KindAnalytics}, {f.brand.ID, f.gateway.ID, integrations.KindPaymentGateway},
		{f.other.ID, f.otherAnalytics.ID, integrations.KindAnalytics}, {f.other.ID, f.otherGateway.ID, integrations.KindPaymentGateway},
	} {
		revs, err := in.Revisions(ctx, rec.brand, rec.kind, rec.id)
		require.NoError(t, err)
		s.Revisions[rec.id] = len(revs)
	}
	s.Users, err = f.app.Auth.Users(ctx, f.brand.ID)
	require.NoError(t, err)
	s.Devices, err = f.app.Auth.Devices(ctx, f.admin.ID)
	require.NoError(t, err)
	for i := range s.Devices {
		// Written by authenticated requests by design (once a minute at
		// most), which hostile ones are too.
		s.Devices[i].LastAccessAt = time.Time{}
	}
	s.Brands, err = f.app.Auth.Brands(ctx)
	require.NoError(t, err)
	cur, err := f.app.RefData.ListCurrencies(ctx, refdata.CurrencyQuery{Page: refdata.Paging{Size: 1}, DefaultCurrency: "USD"})
	require.NoError(t, err)
	s.Currencies = cur.TotalItems
	s.ListTotals = map[string]int{}
	for _, p := range mountedListPaths(t, f.handler) {
		_, e := f.do(t, "GET", p+"?PageSize=1", map[string]string{"Brand-URL": "shop.example.com"}, "")
		var page struct{ TotalItems int }
		require.NoError(t, json.Unmarshal(e.Data, &page))
		s.ListTotals[p] = page.TotalItems
	}
	s.Webhooks, err = f.app.Webhooks.List(ctx, auth.SystemPrincipal(f.brand.ID))
	require.NoError(t, err)
	return s
}

// TestHostileInput sends every route wrong types, huge numbers, NUL bytes,
// invalid UTF-8 (in query, headers and bodies), 2 MiB bodies, wrong and
// missing content types, SQL and LIKE metacharacters, deeply nested JSON,
// hostile path ids and a wrong method, on both stores. Every answer must be
// the expected status in a well-formed envelope (statusCode equal to the
// status, errors non-empty on failure), none a 500, nothing logged as an
// error, and nothing stored may change.
func TestHostileInput(t *testing.T) {
	t.Parallel()
	for storeName, newStore := range stores {
		t.Run(storeName, func(t *testing.T) {
			t.Parallel()
			f := newIntegFixture(t, newStore)
			routes := hostileRoutes(t, f)
			before := snapshot(t, f)
			f.logs.Reset()
			sent, byStatus := 0, map[int]int{}
			for _, a := range hostileAttacks() {
				for _, r := range routes {
					want, ok := a.want(r.kind)
					if !ok {
						continue
					}
					req := a.req(r).build(f, r)
					t.Run(a.name+"/"+r.pattern, func(t *testing.T) {
						status, e := hostileSend(t, f, req, r.kind)
						sent++
						byStatus[status]++
						assert.Equal(t, want, status, "%s %s: %s", req.Method, req.URL, e.Message)
						if _, hit := a.hit[r.kind]; hit && a.code != "" && len(e.Errors) > 0 {
							assert.Equal(t, a.code, e.Errors[0].Code, e.Message)
						}
					})
				}
			}
			t.Logf("%d hostile requests on %d routes: %v", sent, len(routes), byStatus)
			assert.NotContains(t, byStatus, http.StatusInternalServerError)
			assert.NotContains(t, f.logs.String(), "level=ERROR", "nothing is logged as an error")
			assert.Equal(t, before, snapshot(t, f), "nothing stored changed")
			_, err := f.app.Auth.Authenticate(t.Context(), f.brand, f.keys["admin"])
			assert.NoError(t, err, "the admin's key still works (no hostile request logged it out)")
			assertWildcardsLiteral(t, f)
		})
	}
}

// hostileSend serves req and checks the envelope (fixture.send), except
// for the OpenAPI document, whose success is the document itself.
func hostileSend(t *testing.T, f *integFixture, req *http.Request, kind routeKind) (int, env) {
	t.Helper()
	if kind == kindDoc && req.Method == http.MethodGet {
		rec := httptest.NewRecorder()
		f.handler.ServeHTTP(rec, req)
		body, _ := io.ReadAll(rec.Body)
		assert.True(t, json.Valid(body), "the document is JSON")
		return rec.Code, env{}
	}
	rec, e := f.send(t, req)
	return rec.Code, e
}

// assertWildcardsLiteral checks, on each list whose Name filter filters,
// that % and _ in a filter are literal characters, not LIKE wildcards: no
// name of the dataset holds them.
func assertWildcardsLiteral(t *testing.T, f *integFixture) {
	t.Helper()
	total := func(p, q string) int {
		_, e := f.do(t, "GET", p+"?PageSize=1&"+q, map[string]string{"Brand-URL": "shop.example.com"}, "")
		var page struct{ TotalItems int }
		require.NoError(t, json.Unmarshal(e.Data, &page))
		return page.TotalItems
	}
	for _, p := range mountedListPaths(t, f.handler) {
		if total(p, "Name=zzqqzz-no-such-name") != 0 {
			t.Logf("%s: the Name filter does not filter yet; wildcard check skipped", p)
			continue
		}
		for _, q := range []string{"Name=%25", "Name=_", "Name=%25%25", "Keywords=%25", "Keywords=_"} {
			assert.Zero(t, total(p, q), "%s?%s: a wildcard matched", p, q)
		}
	}
}
