package httpadapter_test

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/httpadapter"
	"github.com/brandbase/brandbase/internal/testkit/smtptest"
	"github.com/brandbase/brandbase/messages"
	"github.com/brandbase/brandbase/outbox"
	"github.com/brandbase/brandbase/webhooks"
)

// apiDoc is a decoded OpenAPI document.
type apiDoc map[string]any

// fetchDoc gets the OpenAPI document from h over HTTP, without Brand-URL,
// and checks how it is served.
func fetchDoc(t *testing.T, h http.Handler) apiDoc {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", httpadapter.OpenAPIPath, nil))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.Equal(t, "application/json; charset=utf-8", rec.Header().Get("Content-Type"))
	var doc apiDoc
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &doc))
	return doc
}

// operation is one operation of the document with its method and path.
type docOperation struct {
	method, path string
	op           map[string]any
}

// operations returns the operations of d by "METHOD /path".
func (d apiDoc) operations() map[string]docOperation {
	out := map[string]docOperation{}
	paths, _ := d["paths"].(map[string]any)
	for path, item := range paths {
		for method, op := range item.(map[string]any) {
			switch method {
			case "get", "put", "post", "delete", "patch", "head", "options", "trace":
				m := strings.ToUpper(method)
				out[m+" "+path] = docOperation{method: m, path: path, op: op.(map[string]any)}
			}
		}
	}
	return out
}

// pointer returns what the JSON pointer ref ("#/components/...") names in
// d, or nil.
func (d apiDoc) pointer(ref string) any {
	rest, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return nil
	}
	var cur any = map[string]any(d)
	for part := range strings.SplitSeq(rest, "/") {
		part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[part]
	}
	return cur
}

// deref follows the $ref of sch, if any.
func (d apiDoc) deref(sch map[string]any) map[string]any {
	for {
		ref, ok := sch["$ref"].(string)
		if !ok {
			return sch
		}
		next, ok := d.pointer(ref).(map[string]any)
		if !ok {
			return map[string]any{"not": map[string]any{}, "x-broken-ref": ref}
		}
		sch = next
	}
}

// properties returns the properties sch and its allOf branches name, and
// whether any of them names properties at all.
func (d apiDoc) properties(sch map[string]any) (map[string]bool, bool) {
	sch = d.deref(sch)
	names := map[string]bool{}
	props, has := sch["properties"].(map[string]any)
	for k := range props {
		names[k] = true
	}
	if all, ok := sch["allOf"].([]any); ok {
		for _, b := range all {
			more, h := d.properties(b.(map[string]any))
			has = has || h
			for k := range more {
				names[k] = true
			}
		}
	}
	return names, has
}

// check returns the ways v breaks sch, for the subset of JSON Schema the
// document uses. When strict, an object may hold only keys the schema (with
// its allOf branches) names: with "required" listing every key an answer
// always has, an answer conforms only when its field set equals the
// schema's.
func (d apiDoc) check(at string, v any, sch map[string]any, strict bool) []string {
	if ref, ok := sch["$ref"].(string); ok && d.pointer(ref) == nil {
		return []string{at + ": unresolved $ref " + ref}
	}
	sch = d.deref(sch)
	var errs []string
	fail := func(format string, args ...any) { errs = append(errs, at+": "+fmt.Sprintf(format, args...)) }
	if all, ok := sch["allOf"].([]any); ok {
		for _, b := range all {
			errs = append(errs, d.check(at, v, b.(map[string]any), false)...)
		}
	}
	if any_, ok := sch["anyOf"].([]any); ok {
		var first []string
		matched := false
		for i, b := range any_ {
			e := d.check(at, v, b.(map[string]any), strict)
			if len(e) == 0 {
				matched = true
				break
			}
			if i == 0 {
				first = e
			}
		}
		if !matched {
			fail("matches no alternative of anyOf (first: %v)", first)
		}
	}
	if c, ok := sch["const"]; ok && v != c {
		fail("%v is not the constant %v", v, c)
	}
	if enum, ok := sch["enum"].([]any); ok && !slices.Contains(enum, v) {
		fail("%v is not one of %v", v, enum)
	}
	if typ, ok := sch["type"]; ok && !typeMatches(typ, v) {
		fail("%v (%T) is not of type %v", v, v, typ)
	}
	switch v := v.(type) {
	case map[string]any:
		props, _ := sch["properties"].(map[string]any)
		for k, ps := range props {
			if val, ok := v[k]; ok {
				errs = append(errs, d.check(at+"."+k, val, ps.(map[string]any), true)...)
			}
		}
		if req, ok := sch["required"].([]any); ok {
			for _, k := range req {
				if _, ok := v[k.(string)]; !ok {
					fail("required field %v missing", k)
				}
			}
		}
		if names, has := d.properties(sch); strict && has {
			for k := range v {
				if !names[k] {
					fail("field %s is not in the schema", k)
				}
			}
		}
	case []any:
		if items, ok := sch["items"].(map[string]any); ok {
			for i, it := range v {
				errs = append(errs, d.check(fmt.Sprintf("%s[%d]", at, i), it, items, true)...)
			}
		}
		if n, ok := sch["minItems"].(float64); ok && float64(len(v)) < n {
			fail("%d items, fewer than %v", len(v), n)
		}
		if n, ok := sch["maxItems"].(float64); ok && float64(len(v)) > n {
			fail("%d items, more than %v", len(v), n)
		}
	case string:
		if n, ok := sch["minLength"].(float64); ok && float64(len(v)) < n {
			fail("%q shorter than %v", v, n)
		}
	}
	return errs
}

// typeMatches reports whether v is of the JSON Schema type (a name or a
// list of names).
func typeMatches(typ, v any) bool {
	var names []any
	switch t := typ.(type) {
	case string:
		names = []any{t}
	case []any:
		names = t
	}
	for _, n := range names {
		switch n {
		case "null":
			if v == nil {
				return true
			}
		case "string":
			if _, ok := v.(string); ok {
				return true
			}
		case "boolean":
			if _, ok := v.(bool); ok {
				return true
			}
		case "number":
			if _, ok := v.(float64); ok {
				return true
			}
		case "integer":
			if f, ok := v.(float64); ok && f == math.Trunc(f) {
				return true
			}
		case "object":
			if _, ok := v.(map[string]any); ok {
				return true
			}
		case "array":
			if _, ok := v.([]any); ok {
				return true
			}
		}
	}
	return false
}

// walkRefs calls fn with every $ref in v.
func walkRefs(v any, fn func(ref string)) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if s, ok := x.(string); ok && k == "$ref" {
				fn(s)
			}
			walkRefs(x, fn)
		}
	case []any:
		for _, x := range v {
			walkRefs(x, fn)
		}
	}
}

// responseSchema returns the JSON schema of op's answer with status.
func (d apiDoc) responseSchema(t *testing.T, op docOperation, status int) map[string]any {
	t.Helper()
	resp, ok := op.op["responses"].(map[string]any)[fmt.Sprint(status)].(map[string]any)
	require.True(t, ok, "%s %s: status %d is not documented", op.method, op.path, status)
	sch, ok := resp["content"].(map[string]any)["application/json"].(map[string]any)["schema"].(map[string]any)
	require.True(t, ok, "%s %s: status %d has no JSON schema", op.method, op.path, status)
	return sch
}

func TestOpenAPIDocumentShape(t *testing.T) {
	t.Parallel()
	f := newFixture(t, stores["memory"])
	doc := fetchDoc(t, f.handler)

	assert.Regexp(t, `^3\.1\.\d+$`, doc["openapi"])
	info, _ := doc["info"].(map[string]any)
	assert.NotEmpty(t, info["title"])
	assert.NotEmpty(t, info["version"])
	require.NotEmpty(t, doc["paths"])
	comps, _ := doc["components"].(map[string]any)
	require.NotEmpty(t, comps["schemas"])
	assert.Contains(t, comps["securitySchemes"], "BrandURL")
	assert.Contains(t, comps["securitySchemes"], "AuthKey")
	// Every error item carries code, message and details (field when it is
	// about one).
	item := doc.deref(map[string]any{"$ref": "#/components/schemas/ErrorItem"})
	assert.ElementsMatch(t, []any{"code", "message", "details"}, item["required"])
	// The integrations' status is a closed enum, as the brands' was.
	for _, name := range []string{"Analytics", "PaymentGateway"} {
		sch := doc.deref(map[string]any{"$ref": "#/components/schemas/" + name})
		props, _ := sch["properties"].(map[string]any)
		status, _ := props["status"].(map[string]any)
		assert.Equal(t, []any{"Active", "Inactive"}, doc.deref(status)["enum"], name+".status")
	}

	refs := 0
	walkRefs(map[string]any(doc), func(ref string) {
		refs++
		assert.NotNil(t, doc.pointer(ref), "unresolved $ref %s", ref)
	})
	assert.Positive(t, refs)

	ids := map[string]bool{}
	for key, op := range doc.operations() {
		id, _ := op.op["operationId"].(string)
		assert.NotEmpty(t, id, key)
		assert.False(t, ids[id], "operationId %s repeats", id)
		ids[id] = true
		assert.NotEmpty(t, op.op["summary"], key)
		assert.NotEmpty(t, op.op["responses"], key)
		var declared []string
		params, _ := op.op["parameters"].([]any)
		for _, p := range params {
			p := p.(map[string]any)
			assert.True(t, p["description"] != nil || p["in"] == "path", "%s: parameter %v has no description", key, p["name"])
			if p["in"] == "path" {
				declared = append(declared, p["name"].(string))
				assert.Equal(t, true, p["required"], "%s: a path parameter is required", key)
			}
		}
		var inPath []string
		for _, seg := range strings.Split(op.path, "/") {
			if name, ok := strings.CutPrefix(seg, "{"); ok {
				inPath = append(inPath, strings.TrimSuffix(name, "}"))
			}
		}
		assert.ElementsMatch(t, inPath, declared, "%s: path parameters", key)
	}

	// Served once built, with an ETag that revalidates.
	rec := httptest.NewRecorder()
	first := httptest.NewRequest("GET", httpadapter.OpenAPIPath, nil)
	f.handler.ServeHTTP(rec, first)
	etag := rec.Header().Get("ETag")
	require.NotEmpty(t, etag)
	assert.JSONEq(t, string(f.handler.(*httpadapter.Handler).OpenAPI()), rec.Body.String(), "OpenAPI() is the served document")
	again := httptest.NewRequest("GET", httpadapter.OpenAPIPath, nil)
	again.Header.Set("If-None-Match", etag)
	rec = httptest.NewRecorder()
	f.handler.ServeHTTP(rec, again)
	assert.Equal(t, http.StatusNotModified, rec.Code)
}

// TestOpenAPIMatchesRoutes: every mounted route is documented and every
// documented route is mounted, with and without the integrations service.
func TestOpenAPIMatchesRoutes(t *testing.T) {
	t.Parallel()
	f := newAuthFixture(t, stores["memory"])
	full, err := f.app.Handler()
	require.NoError(t, err)
	partial, err := httpadapter.New(httpadapter.Services{Auth: f.app.Auth, RefData: f.app.RefData})
	require.NoError(t, err)
	for name, h := range map[string]*httpadapter.Handler{"all services": full, "no integrations": partial} {
		t.Run(name, func(t *testing.T) {
			var documented []string
			for key := range fetchDoc(t, h).operations() {
				documented = append(documented, key)
			}
			assert.ElementsMatch(t, h.Routes(), documented)
			assert.Contains(t, h.Routes(), "GET "+httpadapter.OpenAPIPath)
		})
	}
	assert.Greater(t, len(full.Routes()), len(partial.Routes()))
}

// sampleRequest is one request of a documented route.
type sampleRequest struct {
	path    string
	headers map[string]string
	body    string
	// bodyErr, when set, is the error reading the body ends with after
	// body, as a server's read deadline gives.
	bodyErr error
}

// openAPISamples are successful requests of every documented route, by
// "METHOD /path". A documented route without one fails
// TestOpenAPIAnswersMatchSchemas: add it here.
func openAPISamples(t *testing.T, f *integFixture) map[string]sampleRequest {
	shop := jsonHeaders("shop.example.com")
	admin := jsonHeaders("shop.example.com", "Auth-Key", f.keys["admin"])
	forRefresh := f.login(t, adminLogin(), shop)
	forLogout := f.login(t, adminLogin(), shop)
	doomedA, doomedP := seedIntegrations(t, f.app.Integrations, f.brand.ID) // the DELETE samples' own records
	forEnd := f.login(t, adminLogin(), shop)
	adminDevices := "/api/v1/users/" + f.admin.ID + "/devices"
	a := accountSamples(t, f)
	tplBody := `{"eventId":"password_reset","languageCode":"de","subject":"Neu","body":"<p>{{.link}}</p>","textBody":"{{.link}}"}`
	tpl, doomedTpl := seedTemplates(t, f)
	relay, doomedS := seedSMTP(t, f.app.Integrations, f.brand.ID), seedSMTP(t, f.app.Integrations, f.brand.ID)
	plain := smtptest.Start(t, smtptest.Options{TLS: smtptest.NoTLS}) // the test route's server: plain SMTP to loopback
	hook, doomedHook := webhookSamples(t, f)
	hookBody := `{"url":"https://hooks.example.com/in","eventTypes":["user.created","*"],"enabled":true,"description":"crm"}`
	u := userAdminSamples(t, f)
	users := func(id, rest string) string { return "/api/v1/users/" + u[id] + rest }
	return map[string]sampleRequest{
		"GET /api/v1/email-templates":                               {path: "/api/v1/email-templates?eventId=password_reset&languageCode=en", headers: admin},
		"POST /api/v1/email-templates":                              {path: "/api/v1/email-templates", headers: admin, body: tplBody},
		"GET /api/v1/email-templates/placeholder-keys":              {path: "/api/v1/email-templates/placeholder-keys", headers: admin},
		"GET /api/v1/email-templates/{id}":                          {path: "/api/v1/email-templates/" + tpl, headers: admin},
		"PUT /api/v1/email-templates/{id}":                          {path: "/api/v1/email-templates/" + tpl, headers: admin, body: strings.Replace(tplBody, `"de"`, `"en"`, 1)},
		"DELETE /api/v1/email-templates/{id}":                       {path: "/api/v1/email-templates/" + doomedTpl, headers: admin},
		"GET /api/v1/users":                                         {path: "/api/v1/users?keywords=adm&sortDataField=createdDate&sortOrder=DESC&pageSize=5&status=active", headers: admin},
		"GET /api/v1/users/by-list-id":                              {path: "/api/v1/users/by-list-id?ids%5B0%5D=" + f.admin.ID + "&ids%5B1%5D=" + f.viewer.ID, headers: admin},
		"GET /api/v1/users/statistics":                              {path: "/api/v1/users/statistics?startDate=2026-01-01%2000:00:00&endDate=2026-01-03%2023:59:59&typeResponse=DATE", headers: admin},
		"GET /api/v1/users/statistics/status":                       {path: "/api/v1/users/statistics/status", headers: admin},
		"GET /api/v1/users/by-username/{username}":                  {path: "/api/v1/users/by-username/viewer", headers: admin},
		"GET /api/v1/users/{id}":                                    {path: "/api/v1/users/" + f.viewer.ID, headers: admin},
		"PUT /api/v1/users/{id}":                                    {path: users("put", ""), headers: admin, body: `{"username":"renamed","emailAddress":"renamed@shop.example.com","phoneNumber":"+1 555","firstName":"Re","lastName":"Named","nickName":"rn"}`},
		"DELETE /api/v1/users/{id}":                                 {path: users("delete", ""), headers: admin},
		"POST /api/v1/users/{id}/activate":                          {path: users("activate", "/activate"), headers: admin},
		"POST /api/v1/users/{id}/deactivate":                        {path: users("deactivate", "/deactivate"), headers: admin},
		"POST /api/v1/users/{id}/lock":                              {path: users("lock", "/lock"), headers: admin},
		"POST /api/v1/users/{id}/unlock":                            {path: users("unlock", "/unlock"), headers: admin},
		"POST /api/v1/users/{id}/suspend":                           {path: users("suspend", "/suspend"), headers: admin},
		"POST /api/v1/users/{id}/unsuspend":                         {path: users("unsuspend", "/unsuspend"), headers: admin},
		"GET /api/v1/webhooks":                                      {path: "/api/v1/webhooks", headers: admin},
		"POST /api/v1/webhooks":                                     {path: "/api/v1/webhooks", headers: admin, body: hookBody},
		"GET /api/v1/webhooks/{id}":                                 {path: "/api/v1/webhooks/" + hook, headers: admin},
		"PUT /api/v1/webhooks/{id}":                                 {path: "/api/v1/webhooks/" + hook, headers: admin, body: hookBody},
		"DELETE /api/v1/webhooks/{id}":                              {path: "/api/v1/webhooks/" + doomedHook, headers: admin},
		"POST /api/v1/webhooks/{id}/rotate-secret":                  {path: "/api/v1/webhooks/" + hook + "/rotate-secret", headers: admin},
		"GET /api/v1/webhooks/{id}/deliveries":                      {path: "/api/v1/webhooks/" + hook + "/deliveries?status=failed&limit=10", headers: admin},
		"POST /api/v1/webhooks/{id}/deliveries/{deliveryId}/replay": {path: "/api/v1/webhooks/" + hook + "/deliveries/evt_sample/replay", headers: admin},
		"GET /api/v1/app-integrations/smtp":                         {path: "/api/v1/app-integrations/smtp", headers: admin},
		"POST /api/v1/app-integrations/smtp":                        {path: "/api/v1/app-integrations/smtp", headers: admin, body: smtpBody(relay.AppIntegration.ID, map[string]any{"isDefault": false})},
		"POST /api/v1/app-integrations/smtp/test":                   {path: "/api/v1/app-integrations/smtp/test", headers: admin, body: testBody("127.0.0.1", plain.Port, map[string]any{"useTls": false, "username": nil, "password": nil, "nameFrom": "Shop"})},
		"GET /api/v1/app-integrations/smtp/{id}":                    {path: smtpPath(relay.ID), headers: admin},
		"PUT /api/v1/app-integrations/smtp/{id}":                    {path: smtpPath(relay.ID), headers: admin, body: smtpBody(relay.AppIntegration.ID, map[string]any{"password": *relay.Password})},
		"DELETE /api/v1/app-integrations/smtp/{id}":                 {path: smtpPath(doomedS.ID), headers: admin},
		"GET /api/v1/users/me":                                      {path: "/api/v1/users/me", headers: admin},
		"POST /api/v1/users/check-auth-key-available":               {path: "/api/v1/users/check-auth-key-available", headers: shop, body: `{"authKey":"` + f.keys["admin"] + `"}`},
		"POST /api/v1/users/register":                               {path: "/api/v1/users/register", headers: shop, body: `{"username":"signup","emailAddress":"signup@shop.example.com","password":"a long new password","firstName":"Sign","lastName":"Up","nickName":"su","phoneNumber":"+1 555"}`},
		"PUT /api/v1/users/change-password":                         {path: "/api/v1/users/change-password", headers: jsonHeaders("shop.example.com", "Auth-Key", a.changerKey), body: `{"oldPassword":"changer password","newPassword":"a fresh passphrase","confirmPassword":"a fresh passphrase"}`},
		"PUT /api/v1/users/{id}/change-password":                    {path: "/api/v1/users/" + a.targetID + "/change-password", headers: admin, body: `{"newPassword":"set by the admin","confirmPassword":"set by the admin"}`},
		"POST /api/v1/users/forgot-password":                        {path: "/api/v1/users/forgot-password", headers: shop, body: `{"emailAddress":"nobody@shop.example.com","resetPasswordLink":"https://shop.example.com/reset"}`},
		"POST /api/v1/users/reset-password":                         {path: "/api/v1/users/reset-password", headers: shop, body: `{"emailAddress":"resetter@shop.example.com","token":"` + a.resetToken + `","newPassword":"reset passphrase"}`},
		"GET /api/v1/brands/by-url":                                 {path: "/api/v1/brands/by-url", headers: shop},
		"GET /api/v1/users/{userId}/devices":                        {path: adminDevices + "?isMobileApp=false", headers: admin},
		"DELETE /api/v1/users/{userId}/devices/{deviceId}":          {path: adminDevices + "/" + deviceIDByCode(t, f.authFixture, f.admin.ID, forEnd.DeviceCode), headers: admin},
		"GET /api/v1/devices/current":                               {path: "/api/v1/devices/current", headers: admin},
		"GET /api/v1/currencies":                                    {path: "/api/v1/currencies?PageSize=3", headers: shop},
		"GET /api/v1/countries":                                     {path: "/api/v1/countries?PageSize=3&SortDataField=name", headers: shop},
		"GET /api/v1/cities":                                        {path: "/api/v1/cities?PageSize=3&Keywords=sao", headers: shop},
		"POST /api/v1/users/auth":                                   {path: "/api/v1/users/auth", headers: jsonHeaders("shop.example.com", "X-Device-Code", "laptop-1"), body: adminLogin()},
		"POST /api/v1/users/auth/refresh-auth-key":                  {path: "/api/v1/users/auth/refresh-auth-key", headers: shop, body: `{"refreshAuthKey":"` + forRefresh.RefreshAuthKey + `"}`},
		"DELETE /api/v1/users/auth":                                 {path: "/api/v1/users/auth", headers: jsonHeaders("shop.example.com", "Auth-Key", forLogout.AuthKey)},
		"GET /api/v1/app-integrations/analytics/{id}":               {path: analyticsPath(f.analytics.ID), headers: admin},
		"PUT /api/v1/app-integrations/analytics/{id}":               {path: analyticsPath(f.analytics.ID), headers: admin, body: analyticsBody(f.analytics.AppIntegration.ID, map[string]any{"apiSecret": "as_new_secret_1234", "accountConfigNotes": "ops"})},
		"GET /api/v1/app-integrations/payment-gateway/{id}":         {path: gatewayPath(f.gateway.ID), headers: admin},
		"PUT /api/v1/app-integrations/payment-gateway/{id}":         {path: gatewayPath(f.gateway.ID), headers: admin, body: gatewayBody(f.gateway.AppIntegration.ID, map[string]any{"privateKey": "sk_live_new_999999", "description": "EU", "notes": "n"})},
		"GET " + httpadapter.OpenAPIPath:                            {path: httpadapter.OpenAPIPath},
		"GET /api/v1/app-integrations":                              {path: "/api/v1/app-integrations?type=analytics&keywords=google", headers: admin},
		"GET /api/v1/app-integrations/analytics":                    {path: "/api/v1/app-integrations/analytics", headers: admin},
		"POST /api/v1/app-integrations/analytics":                   {path: "/api/v1/app-integrations/analytics", headers: admin, body: analyticsBody(f.analytics.AppIntegration.ID, map[string]any{"apiSecret": "as_created_1234", "isDefault": false})},
		"DELETE /api/v1/app-integrations/analytics/{id}":            {path: analyticsPath(doomedA.ID), headers: admin},
		"GET /api/v1/app-integrations/payment-gateway":              {path: "/api/v1/app-integrations/payment-gateway", headers: admin},
		"POST /api/v1/app-integrations/payment-gateway":             {path: "/api/v1/app-integrations/payment-gateway", headers: admin, body: gatewayBody(f.gateway.AppIntegration.ID, map[string]any{"privateKey": "sk_created_123456", "isDefault": false})},
		"DELETE /api/v1/app-integrations/payment-gateway/{id}":      {path: gatewayPath(doomedP.ID), headers: admin},
		"GET /api/v1/states":                                        {path: "/api/v1/states?countryCode=us", headers: shop},
		"GET /api/v1/timezones":                                     {path: "/api/v1/timezones", headers: shop},
		"GET /api/v1/languages":                                     {path: "/api/v1/languages", headers: shop},
	}
}

// webhookSamples makes two webhook endpoints in shop.example.com: one the
// samples read and change, with a failed delivery (evt_sample) to list and
// replay, and one the DELETE sample deletes.
func webhookSamples(t *testing.T, f *integFixture) (hook, doomed string) {
	t.Helper()
	ctx := t.Context()
	system := auth.SystemPrincipal(f.brand.ID)
	in := webhooks.Input{URL: "https://hooks.example.com/in", EventTypes: []string{"*"}}
	a, err := f.app.Webhooks.Create(ctx, system, in)
	require.NoError(t, err)
	b, err := f.app.Webhooks.Create(ctx, system, in)
	require.NoError(t, err)
	now := time.Now()
	it := outbox.Item{ID: "evt_sample", BrandID: f.brand.ID, Channel: outbox.ChannelWebhook, Topic: "user.created",
		Target: a.ID, Payload: []byte(`{"type":"user.created"}`), CreatedAt: now.Add(-time.Minute)}
	require.NoError(t, f.app.Store.Enqueue(ctx, it))
	claimed, err := f.app.Store.Claim(ctx, outbox.Claim{Owner: "samples", Now: now, Until: now.Add(time.Minute), Limit: 10, PerBrand: 10,
		Channels: []outbox.Channel{outbox.ChannelWebhook}})
	require.NoError(t, err)
	require.Len(t, claimed, 1)
	require.NoError(t, f.app.Store.Settle(ctx, outbox.Settlement{Ref: it.Ref(), Owner: "samples", Status: outbox.StatusFailed,
		At: now, Code: 500, Error: "HTTP 500: down"}))
	return a.ID, b.ID
}

// userAdminSamples makes the users the administration samples act on, by
// the route they serve: each in the status its change goes from.
func userAdminSamples(t *testing.T, f *integFixture) map[string]string {
	t.Helper()
	ctx := t.Context()
	ids := map[string]string{}
	for name, st := range map[string]auth.Status{"put": auth.StatusActive, "delete": auth.StatusActive,
		"activate": auth.StatusInactive, "deactivate": auth.StatusActive, "lock": auth.StatusActive,
		"unlock": auth.StatusLocked, "suspend": auth.StatusActive, "unsuspend": auth.StatusSuspended} {
		u, err := f.app.Auth.CreateUser(ctx, f.brand.ID, auth.NewUser{Username: "sample-" + name, Password: "sample password"})
		require.NoError(t, err)
		_, err = f.app.Auth.SetUserStatus(ctx, u.ID, st)
		require.NoError(t, err)
		ids[name] = u.ID
	}
	return ids
}

// accountRecords are what the account samples act on.
type accountRecords struct {
	changerKey, targetID, resetToken string
}

// accountSamples opens sign-up in shop.example.com and makes users of
// their own for the account samples that end sessions: one that changes
// its password (changerKey), one whose password the admin sets
// (targetID), and a reset token of a third (resetToken).
func accountSamples(t *testing.T, f *integFixture) accountRecords {
	t.Helper()
	ctx := t.Context()
	a := f.app.Auth
	require.NoError(t, a.SetBrandSettings(ctx, f.brand.ID, auth.BrandSettings{RegistrationOpen: true}))
	for _, name := range []string{"changer", "target", "resetter"} {
		_, err := a.CreateUser(ctx, f.brand.ID, auth.NewUser{Username: name, EmailAddress: name + "@shop.example.com", Password: name + " password"})
		require.NoError(t, err)
	}
	var r accountRecords
	r.changerKey = f.login(t, `{"username":"changer","password":"changer password"}`, jsonHeaders("shop.example.com")).AuthKey
	target, err := a.UserByUsername(ctx, f.brand.ID, "target")
	require.NoError(t, err)
	r.targetID = target.ID
	require.NoError(t, a.RequestPasswordReset(ctx, f.brand, auth.PasswordResetRequest{
		EmailAddress: "resetter@shop.example.com", ResetPasswordLink: "https://shop.example.com/reset"}))
	link, err := url.Parse(f.mail.next(t).Link)
	require.NoError(t, err)
	r.resetToken = link.Query().Get("token")
	return r
}

// serve sends one request of method to h and returns the answer.
func serve(h http.Handler, method string, s sampleRequest) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, s.path, strings.NewReader(s.body))
	if s.bodyErr != nil {
		req.Body = io.NopCloser(io.MultiReader(strings.NewReader(s.body), iotest.ErrReader(s.bodyErr)))
	}
	for k, v := range s.headers {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// decodeAny decodes a JSON body.
func decodeAny(t *testing.T, body []byte) any {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal(body, &v), string(body))
	return v
}

// TestOpenAPIAnswersMatchSchemas sends a real request of every documented
// route through the handler, on both stores, and checks the answer against
// the documented schema: the same field set at every level, the types, and
// the documented headers; and the sample's body against the documented
// request body.
func TestOpenAPIAnswersMatchSchemas(t *testing.T) {
	t.Parallel()
	for storeName, newStore := range stores {
		t.Run(storeName, func(t *testing.T) {
			t.Parallel()
			clock := newClock()
			f := newIntegFixture(t, newStore, httpadapter.WithRateLimits(httpadapter.DefaultRateLimits()), httpadapter.WithClock(clock.Now))
			doc := fetchDoc(t, f.handler)
			samples := openAPISamples(t, f)
			ops := doc.operations()
			keys := slices.Sorted(func(yield func(string) bool) {
				for k := range ops {
					if !yield(k) {
						return
					}
				}
			})
			for _, key := range keys {
				op := ops[key]
				t.Run(key, func(t *testing.T) {
					s, ok := samples[key]
					require.True(t, ok, "no sample request of the documented route %s: add one to openAPISamples", key)
					clock.Advance(time.Hour) // full buckets: the samples are not rate limited
					if rb, ok := op.op["requestBody"].(map[string]any); ok {
						sch := rb["content"].(map[string]any)["application/json"].(map[string]any)["schema"].(map[string]any)
						assert.Empty(t, doc.check("request", decodeAny(t, []byte(s.body)), sch, true), "the sample body fits the documented body")
					}
					rec := serve(f.handler, op.method, s)
					want := http.StatusOK
					if _, created := op.op["responses"].(map[string]any)["201"]; created {
						want = http.StatusCreated
					}
					require.Equal(t, want, rec.Code, rec.Body.String())
					assert.Empty(t, doc.check("answer", decodeAny(t, rec.Body.Bytes()), doc.responseSchema(t, op, want), true))

					resp := op.op["responses"].(map[string]any)[fmt.Sprint(want)].(map[string]any)
					documented, _ := resp["headers"].(map[string]any)
					for name := range documented {
						assert.NotEmpty(t, rec.Header().Get(name), "documented header %s", name)
					}
					for _, name := range []string{"ETag", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "RateLimit-Policy"} {
						if _, ok := documented[name]; !ok {
							assert.Empty(t, rec.Header().Get(name), "header %s is sent but not documented", name)
						}
					}

					if _, ok := op.op["responses"].(map[string]any)["304"]; ok {
						again := s
						again.headers = map[string]string{"If-None-Match": rec.Header().Get("ETag")}
						for k, v := range s.headers {
							again.headers[k] = v
						}
						assert.Equal(t, http.StatusNotModified, serve(f.handler, op.method, again).Code, "documented 304")
					}
				})
			}
		})
	}
}

// TestOpenAPIErrorAnswersMatch provokes, for every documented route, the
// failures its security and body allow (no Brand-URL, no Auth-Key, a body
// that is not JSON, malformed or empty), and checks each answer against
// the document: a documented status, codes the status lists, the error
// envelope's schema; and that the fields an empty body is told it needs
// are the body schema's required ones.
func TestOpenAPIErrorAnswersMatch(t *testing.T) {
	t.Parallel()
	clock := newClock()
	f := newIntegFixture(t, stores["memory"], httpadapter.WithRateLimits(httpadapter.DefaultRateLimits()), httpadapter.WithClock(clock.Now))
	doc := fetchDoc(t, f.handler)
	samples := openAPISamples(t, f)
	for key, op := range doc.operations() {
		s, ok := samples[key]
		require.True(t, ok, "no sample request of the documented route %s", key)
		// failure sends a variant of the sample and checks the answer.
		failure := func(name string, status int, mutate func(s *sampleRequest)) env {
			var e env
			t.Run(key+"/"+name, func(t *testing.T) {
				v := sampleRequest{path: s.path, body: s.body, headers: map[string]string{}}
				for k, val := range s.headers {
					v.headers[k] = val
				}
				mutate(&v)
				clock.Advance(time.Hour)
				rec := serve(f.handler, op.method, v)
				require.Equal(t, status, rec.Code, rec.Body.String())
				assert.Empty(t, doc.check("answer", decodeAny(t, rec.Body.Bytes()), doc.responseSchema(t, op, status), true))
				require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &e))
				desc := op.op["responses"].(map[string]any)[fmt.Sprint(status)].(map[string]any)["description"].(string)
				for _, it := range e.Errors {
					assert.Contains(t, desc, it.Code, "the code is listed under status %d", status)
				}
			})
			return e
		}
		security, _ := op.op["security"].([]any)
		var schemes map[string]any
		if len(security) > 0 {
			schemes = security[0].(map[string]any)
		}
		if _, ok := schemes["BrandURL"]; ok {
			failure("no Brand-URL", 400, func(s *sampleRequest) { delete(s.headers, "Brand-URL") })
		}
		if _, ok := schemes["AuthKey"]; ok {
			failure("no Auth-Key", 401, func(s *sampleRequest) { delete(s.headers, "Auth-Key") })
		}
		rb, ok := op.op["requestBody"].(map[string]any)
		if !ok {
			continue
		}
		failure("not JSON", 415, func(s *sampleRequest) { s.headers["Content-Type"] = "text/plain" })
		var e env
		failure("malformed", 400, func(s *sampleRequest) { s.body = `{"x":` })
		e = failure("invalid UTF-8", 400, func(s *sampleRequest) { s.body = strings.Replace(s.body, `":"`, "\":\"\xff", 1) })
		if assert.NotEmpty(t, e.Errors, key) {
			assert.Equal(t, "invalid_format", e.Errors[0].Code, key)
		}
		e = failure("body timed out", 408, func(s *sampleRequest) { s.body, s.bodyErr = s.body[:len(s.body)/2], os.ErrDeadlineExceeded })
		if assert.NotEmpty(t, e.Errors, key) {
			assert.Equal(t, "request_timeout", e.Errors[0].Code, key)
		}
		e = failure("empty object", 400, func(s *sampleRequest) { s.body = `{}` })
		body := doc.deref(rb["content"].(map[string]any)["application/json"].(map[string]any)["schema"].(map[string]any))
		var required, allowed []string
		for _, r := range body["required"].([]any) {
			required = append(required, r.(string))
		}
		allowed = append(allowed, required...)
		alts, _ := body["anyOf"].([]any)
		for _, a := range alts {
			for _, r := range a.(map[string]any)["required"].([]any) {
				allowed = append(allowed, r.(string))
			}
		}
		var told []string
		for _, it := range e.Errors {
			if it.Code == "required" {
				told = append(told, it.Field)
			}
		}
		assert.Subset(t, told, required, "%s: each required field is reported missing", key)
		assert.Subset(t, allowed, told, "%s: each field reported missing is documented as required", key)
	}
}

// queryUser makes a user of f's brand and logs it in, for the query
// parameters of keyed routes; it returns its ID and authKey.
func queryUser(t *testing.T, f *fixture) (string, string) {
	t.Helper()
	ctx := t.Context()
	u, err := f.app.Auth.CreateUser(ctx, f.brand.ID, auth.NewUser{Username: "query-" + uuid.NewString(), Password: "query user password"})
	require.NoError(t, err)
	sess, err := f.app.Auth.Login(ctx, f.brand, auth.LoginRequest{Username: u.Username, Password: "query user password"})
	require.NoError(t, err)
	return u.ID, sess.AuthKey
}

// TestOpenAPIQueryParameters checks that the handler reads every
// documented query parameter: a value of the wrong type is a field error
// naming it, and a text value that matches nothing empties the list or is
// refused naming it.
func TestOpenAPIQueryParameters(t *testing.T) {
	t.Parallel()
	f := newIntegFixture(t, stores["memory"])
	doc := fetchDoc(t, f.handler)
	checked := 0
	for key, op := range doc.operations() {
		params, _ := op.op["parameters"].([]any)
		for _, p := range params {
			p := p.(map[string]any)
			if p["in"] != "query" {
				continue
			}
			name := p["name"].(string)
			typ := p["schema"].(map[string]any)["type"]
			t.Run(key+"/"+name, func(t *testing.T) {
				checked++
				value := "zzqx-nothing-matches"
				if typ != "string" {
					value = "not-a-value"
				}
				if name == "PageNumber" {
					value = "9999999"
				}
				path, headers := op.path, map[string]string{"Brand-URL": "shop.example.com"}
				if strings.Contains(fmt.Sprint(op.op["security"]), "AuthKey") {
					headers["Auth-Key"] = f.keys["admin"]
				}
				if strings.Contains(path, "{userId}") { // a keyed route: as a user of the brand, on its own ID
					u, key := queryUser(t, f.fixture)
					path = strings.Replace(path, "{userId}", u, 1)
					headers = map[string]string{"Brand-URL": "shop.example.com", "Auth-Key": key}
				}
				rec, e := f.do(t, op.method, path+"?"+url.Values{name: {value}}.Encode(), headers, "")
				if rec.Code == http.StatusOK {
					var page struct {
						Items []any `json:"items"`
					}
					var items []any // the lists answered as bare arrays
					if json.Unmarshal(e.Data, &items) != nil {
						require.NoError(t, json.Unmarshal(e.Data, &page))
						items = page.Items
					}
					assert.Zero(t, len(items), "%s=%s matches nothing", name, value)
					if name != "PageNumber" {
						assert.Equal(t, "string", typ, "%s: a value of the wrong type is refused", name)
					}
					return
				}
				require.Equal(t, http.StatusBadRequest, rec.Code, rec.Body.String())
				desc := op.op["responses"].(map[string]any)["400"].(map[string]any)["description"].(string)
				var fields []string
				for _, it := range e.Errors {
					fields = append(fields, it.Field)
					assert.Contains(t, desc, it.Code, "the code is listed under status 400")
				}
				assert.Contains(t, fields, name)
			})
		}
	}
	assert.Positive(t, checked)
}

// TestSchemaCheck shows that the checker the tests above rely on refuses
// what it must: a missing or extra field, a wrong type, a broken $ref.
func TestSchemaCheck(t *testing.T) {
	t.Parallel()
	doc := apiDoc{"components": map[string]any{"schemas": map[string]any{
		"Item": map[string]any{"type": "object", "required": []any{"id", "note"}, "properties": map[string]any{
			"id":   map[string]any{"type": "string"},
			"note": map[string]any{"type": []any{"string", "null"}},
			"n":    map[string]any{"type": "integer"},
		}},
		"Wrapped": map[string]any{"allOf": []any{
			map[string]any{"$ref": "#/components/schemas/Item"},
			map[string]any{"properties": map[string]any{"id": map[string]any{"const": "x"}}},
		}},
	}}}
	item := map[string]any{"$ref": "#/components/schemas/Item"}
	wrapped := map[string]any{"$ref": "#/components/schemas/Wrapped"}
	scenarios := []struct {
		name   string
		value  string
		schema map[string]any
		ok     bool
	}{
		{"conforms", `{"id":"a","note":null,"n":2}`, item, true},
		{"optional field absent", `{"id":"a","note":"b"}`, item, true},
		{"required field missing", `{"id":"a"}`, item, false},
		{"field not in the schema", `{"id":"a","note":null,"extra":1}`, item, false},
		{"wrong type", `{"id":1,"note":null}`, item, false},
		{"not an integer", `{"id":"a","note":null,"n":1.5}`, item, false},
		{"allOf: keys of every branch", `{"id":"x","note":null}`, wrapped, true},
		{"allOf: each branch applies", `{"id":"y","note":null}`, wrapped, false},
		{"allOf: extra key", `{"id":"x","note":null,"extra":1}`, wrapped, false},
		{"array items", `[{"id":"a","note":null},{"id":"b"}]`, map[string]any{"type": "array", "items": item}, false},
		{"nullable ref", `null`, map[string]any{"anyOf": []any{item, map[string]any{"type": "null"}}}, true},
		{"broken $ref", `{}`, map[string]any{"$ref": "#/components/schemas/Nothing"}, false},
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			errs := doc.check("v", decodeAny(t, []byte(sc.value)), sc.schema, true)
			assert.Equal(t, sc.ok, len(errs) == 0, "%v", errs)
		})
	}
}

// The document lists 408 request_timeout on every route that reads a body,
// and 503 unavailable with its Retry-After header on login, which sheds
// when password hashing is busy past its wait bound.
func TestOpenAPIListsTimeoutsAndShedding(t *testing.T) {
	t.Parallel()
	f := newFixture(t, stores["memory"])
	bodies := 0
	for key, op := range fetchDoc(t, f.handler).operations() {
		responses := op.op["responses"].(map[string]any)
		if _, ok := op.op["requestBody"]; ok {
			bodies++
			r, ok := responses["408"].(map[string]any)
			if assert.True(t, ok, "%s lists 408", key) {
				assert.Contains(t, r["description"], "request_timeout", key)
			}
		}
		if key == "POST /api/v1/users/auth" {
			r, ok := responses["503"].(map[string]any)
			require.True(t, ok, "login lists 503")
			assert.Contains(t, r["description"], "unavailable")
			assert.Contains(t, r["headers"], "Retry-After")
		}
	}
	assert.Equal(t, 20, bodies, "login, refresh, the three PUTs, the three POSTs of a configuration, the SMTP test, the six account routes with a body (check-auth-key-available, register, both change-password, forgot- and reset-password), the webhook POST and PUT, PUT users/{id}, and the template POST and PUT read a body")
}

// TestOpenAPIToolRules holds the document to the rules that linters
// (Redocly's recommended set) and client generators read it by: a server
// to resolve the paths against, whose URL does not end in a slash (but
// "/"); the licence, MIT, as the repository's LICENSE says; every tag an
// operation uses listed with a description; every operation with at least
// one 4xx answer, which it can give: the document's own 429 is provoked
// here.
func TestOpenAPIToolRules(t *testing.T) {
	t.Parallel()
	clock := newClock()
	f := newFixture(t, stores["memory"], tightLists, httpadapter.WithClock(clock.Now))
	doc := fetchDoc(t, f.handler)

	servers, _ := doc["servers"].([]any)
	assert.NotEmpty(t, servers, "servers")
	for _, s := range servers {
		u, _ := s.(map[string]any)["url"].(string)
		assert.NotEmpty(t, u, "a server's url")
		assert.True(t, u == "/" || !strings.HasSuffix(u, "/"), "server url %q ends in a slash", u)
	}

	lic, err := os.ReadFile("../LICENSE")
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(lic), "MIT License\n"), "the repository's licence is MIT")
	info, _ := doc["info"].(map[string]any)
	assert.Equal(t, map[string]any{"name": "MIT", "identifier": "MIT"}, info["license"], "info.license")

	described := map[string]bool{}
	tags, _ := doc["tags"].([]any)
	for _, tg := range tags {
		tg := tg.(map[string]any)
		name, _ := tg["name"].(string)
		desc, _ := tg["description"].(string)
		assert.NotEmpty(t, desc, "tag %q has no description", name)
		described[name] = desc != ""
	}
	ops := doc.operations()
	require.NotEmpty(t, ops)
	for key, op := range ops {
		opTags, _ := op.op["tags"].([]any)
		require.NotEmpty(t, opTags, "%s has no tag", key)
		for _, tg := range opTags {
			assert.True(t, described[tg.(string)], "%s: tag %v is not listed with a description", key, tg)
		}
		has4xx := false
		for status := range op.op["responses"].(map[string]any) {
			has4xx = has4xx || strings.HasPrefix(status, "4")
		}
		assert.True(t, has4xx, "%s has no 4xx answer", key)
	}

	// The document is limited as the lists are, per client IP: tightLists
	// allows 2 a minute, and fetchDoc took one.
	op := ops["GET "+httpadapter.OpenAPIPath]
	for i, want := range []int{http.StatusOK, http.StatusTooManyRequests} {
		rec := serve(f.handler, "GET", sampleRequest{path: httpadapter.OpenAPIPath})
		require.Equal(t, want, rec.Code, "request %d", i+2)
		assert.Empty(t, doc.check("answer", decodeAny(t, rec.Body.Bytes()), doc.responseSchema(t, op, want), true))
		if want == http.StatusTooManyRequests {
			assert.NotEmpty(t, rec.Header().Get("Retry-After"))
		}
	}
}

// seedTemplates makes two message templates in f's brand: one the samples
// read and change, one the DELETE sample deletes; it returns their IDs.
func seedTemplates(t *testing.T, f *integFixture) (string, string) {
	t.Helper()
	var ids []string
	for _, lang := range []string{"en", "fr"} {
		tpl, err := f.app.Messages.Create(t.Context(), auth.SystemPrincipal(f.brand.ID), messages.Input{
			EventID: messages.KindPasswordReset, LanguageCode: lang, Subject: "Reset", Body: "<p>{{.link}}</p>"})
		require.NoError(t, err)
		ids = append(ids, tpl.ID)
	}
	return ids[0], ids[1]
}
