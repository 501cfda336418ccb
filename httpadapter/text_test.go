package httpadapter_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBodyStringsMustBeText: a JSON string in a request body that holds
// invalid UTF-8, or a \u escape naming a lone UTF-16 surrogate, is refused
// with 400 invalid_format naming the field, on every route that reads a
// body; encoding/json alone would decode either to U+FFFD and store it. A
// surrogate pair, an escaped or literal U+FFFD, and an escaped backslash
// before "ud800" are text and pass.
func TestBodyStringsMustBeText(t *testing.T) {
	t.Parallel()
	const (
		login   = "/api/v1/users/auth"
		refresh = "/api/v1/users/auth/refresh-auth-key"
	)
	// raw replaces the placeholder value "@" of a body marshalled by
	// jsonBody with raw JSON string content, which json.Marshal would
	// have sanitised.
	raw := func(body, content string) string { return strings.Replace(body, `"@"`, `"`+content+`"`, 1) }
	scenarios := []struct {
		name   string
		path   func(f *integFixture) string
		body   func(f *integFixture) string
		status int
		fields []string // the fields named invalid_format, in order
	}{
		{name: "login: invalid byte in username", path: fixed(login),
			body: fixedBody("{\"username\":\"adm\xffin\",\"password\":\"" + adminPassword + "\"}"), status: 400, fields: []string{"username"}},
		{name: "login: overlong encoding in password", path: fixed(login),
			body: fixedBody("{\"username\":\"admin\",\"password\":\"\xc0\xaf\"}"), status: 400, fields: []string{"password"}},
		{name: "login: truncated sequence in email", path: fixed(login),
			body: fixedBody("{\"emailAddress\":\"admin@shop.example.com\xe2\x82\",\"password\":\"x\"}"), status: 400, fields: []string{"emailAddress"}},
		{name: "login: lone high surrogate", path: fixed(login),
			body: fixedBody(`{"username":"admin","password":"\ud800"}`), status: 400, fields: []string{"password"}},
		{name: "login: lone low surrogate", path: fixed(login),
			body: fixedBody(`{"username":"\udc00admin","password":"x"}`), status: 400, fields: []string{"username"}},
		{name: "login: high surrogate before a letter", path: fixed(login),
			body: fixedBody(`{"username":"admin","password":"\ud800\u0041"}`), status: 400, fields: []string{"password"}},
		{name: "login: pair in the wrong order", path: fixed(login),
			body: fixedBody(`{"username":"admin","password":"\udc00\ud800"}`), status: 400, fields: []string{"password"}},
		{name: "login: high surrogate at the end", path: fixed(login),
			body: fixedBody(`{"username":"admin","password":"x\uD83D"}`), status: 400, fields: []string{"password"}},
		{name: "login: two bad fields, two items", path: fixed(login),
			body: fixedBody("{\"username\":\"\xff\",\"password\":\"\\udfff\"}"), status: 400, fields: []string{"username", "password"}},
		{name: "login: surrogate pair, U+FFFD escaped and literal are text", path: fixed(login),
			body: fixedBody(`{"username":"admin","password":"\ud83d\ude00 \ufffd ` + "\uFFFD" + ` \\ud800"}`), status: 401},
		{name: "login: bad bytes in an unknown field are ignored", path: fixed(login),
			body: fixedBody("{\"x\":\"\xff\\ud800\",\"username\":\"admin\",\"password\":\"" + adminPassword + "\"}"), status: 200},
		{name: "refresh: invalid byte", path: fixed(refresh),
			body: fixedBody("{\"refreshAuthKey\":\"\xff\xfe\"}"), status: 400, fields: []string{"refreshAuthKey"}},
		{name: "refresh: lone surrogate", path: fixed(refresh),
			body: fixedBody(`{"refreshAuthKey":"\uDFFF"}`), status: 400, fields: []string{"refreshAuthKey"}},
		{name: "analytics: invalid byte", path: func(f *integFixture) string { return analyticsPath(f.analytics.ID) },
			body: func(f *integFixture) string {
				return raw(analyticsBody(f.analytics.AppIntegration.ID, map[string]any{"trackingId": "@"}), "G-\xff")
			}, status: 400, fields: []string{"trackingId"}},
		{name: "analytics: lone surrogate", path: func(f *integFixture) string { return analyticsPath(f.analytics.ID) },
			body: func(f *integFixture) string {
				return raw(analyticsBody(f.analytics.AppIntegration.ID, map[string]any{"apiKey": "@"}), `ak_\ud800_key`)
			}, status: 400, fields: []string{"apiKey"}},
		{name: "analytics: a surrogate pair is stored as its character", path: func(f *integFixture) string { return analyticsPath(f.analytics.ID) },
			body: func(f *integFixture) string {
				return raw(analyticsBody(f.analytics.AppIntegration.ID, map[string]any{"trackingId": "@"}), `G-\ud83d\ude00`)
			}, status: 200},
		{name: "payment gateway: invalid bytes in two fields", path: func(f *integFixture) string { return gatewayPath(f.gateway.ID) },
			body: func(f *integFixture) string {
				b := raw(gatewayBody(f.gateway.AppIntegration.ID, map[string]any{"name": "@"}), "Stripe \xed\xa0\x80")
				return strings.Replace(b, `"pk_live_2"`, "\"pk_\xf8\x88\x80\x80\x80\"", 1)
			}, status: 400, fields: []string{"name", "publicKey"}},
		{name: "payment gateway: lone surrogate", path: func(f *integFixture) string { return gatewayPath(f.gateway.ID) },
			body: func(f *integFixture) string {
				return raw(gatewayBody(f.gateway.AppIntegration.ID, map[string]any{"name": "@"}), `Stripe \udbff`)
			}, status: 400, fields: []string{"name"}},
	}
	for storeName, newStore := range stores {
		t.Run(storeName, func(t *testing.T) {
			t.Parallel()
			f := newIntegFixture(t, newStore)
			for _, sc := range scenarios {
				headers := jsonHeaders("shop.example.com", "Auth-Key", f.keys["admin"])
				method, path := http.MethodPost, sc.path(f)
				if strings.HasPrefix(path, "/api/v1/app-integrations/") {
					method = http.MethodPut
				}
				rec, e := f.do(t, method, path, headers, sc.body(f))
				require.Equal(t, sc.status, rec.Code, "%s: %s", sc.name, rec.Body.String())
				var fields []string
				for _, it := range e.Errors {
					if it.Code == "invalid_format" {
						fields = append(fields, it.Field)
						assert.Contains(t, it.Details, it.Field, sc.name)
					}
				}
				assert.Equal(t, sc.fields, fields, "%s: %s", sc.name, rec.Body.String())
				if sc.status == 200 && strings.Contains(sc.name, "stored") {
					var d struct{ TrackingID string }
					require.NoError(t, json.Unmarshal(e.Data, &d))
					assert.Equal(t, "G-\U0001F600", d.TrackingID, sc.name)
				}
			}
		})
	}
}

func fixed(path string) func(*integFixture) string { return func(*integFixture) string { return path } }
func fixedBody(body string) func(*integFixture) string {
	return func(*integFixture) string { return body }
}
