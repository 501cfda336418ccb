package httpadapter_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/httpadapter"
)

// The HTTP fuzz targets send any input through the real handler and check
// what every answer keeps: a well-formed envelope whose statusCode is the
// HTTP status (fixture.send), a status among the expected ones (never 500),
// no error in the log, and no stored secret in the answer. Each builds its
// fixture once per process (memory store, and SQLite too for the lists;
// rate limiting off), not per input. The seed corpora are in testdata/fuzz/<name>; plain `go test` runs
// them. Fuzz beyond them with, for example,
//
//	go test -run '^$' -fuzz FuzzLogin -fuzztime 60s ./httpadapter

// listPaths are the list routes whose query parsing the
// list fuzz target exercises.
var listPaths = []string{"/api/v1/currencies", "/api/v1/countries", "/api/v1/cities"}

// mountedListPaths returns the list paths h serves.
func mountedListPaths(t testing.TB, h http.Handler) []string {
	t.Helper()
	routes := h.(*httpadapter.Handler).Routes()
	var out []string
	for _, p := range listPaths {
		if slices.Contains(routes, "GET "+p) {
			out = append(out, p)
		}
	}
	require.NotEmpty(t, out, "no list route is mounted")
	return out
}

// answerDeadline is how long a fuzzed request may take before it counts as
// a hang.
const answerDeadline = 10 * time.Second

// fuzzAnswer serves req through f and checks the invariants of a fuzzed
// answer: the envelope (see fixture.send), a status in allowed, and no
// error logged while serving it, within answerDeadline. It returns the
// envelope.
func fuzzAnswer(t *testing.T, f *fixture, req *http.Request, allowed ...int) (*httptest.ResponseRecorder, env) {
	t.Helper()
	f.logs.Reset()
	served := make(chan struct{})
	var rec *httptest.ResponseRecorder
	var e env
	go func() {
		defer close(served)
		rec, e = f.send(t, req)
	}()
	select {
	case <-served:
	case <-time.After(answerDeadline):
		buf := make([]byte, 1<<20)
		t.Fatalf("no answer within %v (a hang); goroutines:\n%s", answerDeadline, buf[:runtime.Stack(buf, true)])
	}
	t.Logf("%s %s: %d %s", req.Method, req.URL, rec.Code, e.Message)
	if !slices.Contains(allowed, rec.Code) {
		t.Fatalf("status %d not among %v: %s", rec.Code, allowed, rec.Body.String())
	}
	if strings.Contains(f.logs.String(), "level=ERROR") {
		t.Fatalf("an error was logged: %s", f.logs.String())
	}
	return rec, e
}

// FuzzListQuery sends any query string to each list route: the answer is
// 200 with a page within the paging limits, or 400 naming the bad
// parameters. It runs on the memory and the SQLite store, where a filter
// reaches SQL.
func FuzzListQuery(f *testing.F) {
	for _, q := range []string{
		"", "PageSize=2&PAGENUMBER=1", "pagesize=abc", "PageNumber=-1", "PageNumber=99999999999999999999",
		"PageSize=1e400", "Rounding=1e400", "Rounding=NaN", "Rounding=-Inf", "DecimalDigits=2147483648",
		"IsCoin=maybe", "CodeNumeric=0x10", "Name=%27%20OR%201%3D1%20--", "Name=%25", "Name=_", "Keywords=%22",
		"Code=%00", "Name=%ff%fe", "SortDataField=name;DROP TABLE currencies", "SortOrder=sideways",
		"SortDataField=CODE&SortOrder=desc", "Tags=a,,b,", "Keywords=sao+paulo", "CountryCode=us&StateCode=CA",
		"%zz=1&a=%", "PageSize=1000000&PageNumber=2147483647", "Tld=.uk&CodePhone=%2B44",
	} {
		for i := range listPaths {
			f.Add(uint8(i), q)
		}
	}
	fixtures := []*fixture{
		newFixture(f, stores["memory"], httpadapter.WithoutRateLimits()),
		newFixture(f, stores["sqlite"], httpadapter.WithoutRateLimits()),
	}
	paths := mountedListPaths(f, fixtures[0].handler)
	f.Fuzz(func(t *testing.T, route uint8, rawQuery string) {
		path := paths[int(route)%len(paths)]
		for _, fx := range fixtures {
			req := httptest.NewRequest(http.MethodGet, path, nil)
			req.URL.RawQuery = rawQuery
			req.RequestURI = path + "?" + rawQuery
			req.Header.Set("Brand-URL", "shop.example.com")
			rec, e := fuzzAnswer(t, fx, req, http.StatusOK, http.StatusBadRequest)
			if rec.Code != http.StatusOK {
				for _, it := range e.Errors {
					assert.NotEmpty(t, it.Field, "a query error names its parameter: %+v", it)
				}
				continue
			}
			var page struct {
				Items      []json.RawMessage `json:"items"`
				TotalItems int               `json:"totalItems"`
				PageNumber int               `json:"pageNumber"`
				PageSize   int               `json:"pageSize"`
			}
			require.NoError(t, json.Unmarshal(e.Data, &page))
			assert.NotNil(t, page.Items, "items is never null")
			assert.GreaterOrEqual(t, page.PageNumber, 0)
			assert.True(t, page.PageSize >= 1 && page.PageSize <= 1000, "pageSize %d", page.PageSize)
			assert.LessOrEqual(t, len(page.Items), page.PageSize)
			assert.LessOrEqual(t, len(page.Items), page.TotalItems)
		}
	})
}

// FuzzLogin sends any body, and any X-Device-Code, to POST
// /api/v1/users/auth: the answer is 200 with a key pair, 400, or 401.
func FuzzLogin(f *testing.F) {
	for _, s := range []struct{ body, device string }{
		{adminLogin(), ""},
		{adminLogin(), "laptop-1"},
		{`{"emailAddress":"ADMIN@shop.example.com","password":"` + adminPassword + `"}`, ""},
		{`{"username":"admin","password":"wrong"}`, ""},
		{`{"username":"ghost","password":"x"}`, ""},
		{`{"username":"admin"}`, ""},
		{`{"password":12}`, ""},
		{`{"username":["admin"],"password":{"x":1}}`, ""},
		{`{"username":"admin\u0000","password":"\ud800"}`, "\x00"},
		{`{"username":"' OR 1=1 --","password":"%_\""}`, "' OR 1=1 --"},
		{`[` + strings.Repeat(`[`, 200) + strings.Repeat(`]`, 201), ""},
		{`{"username":"admin","password":"x"} trailing`, ""},
		{"\xff\xfe{}", "\xff"},
		{`null`, ""},
		{``, strings.Repeat("d", 201)},
	} {
		f.Add(s.body, s.device)
	}
	fx := newIntegFixture(f, stores["memory"])
	f.Fuzz(func(t *testing.T, body, device string) {
		req := httptest.NewRequest(http.MethodPost, "/api/v1/users/auth", strings.NewReader(body))
		req.Header.Set("Brand-URL", "shop.example.com")
		req.Header.Set("Content-Type", "application/json")
		if device != "" {
			req.Header.Set("X-Device-Code", device)
		}
		rec, e := fuzzAnswer(t, fx.fixture, req, http.StatusOK, http.StatusBadRequest, http.StatusUnauthorized)
		if rec.Code == http.StatusOK {
			var d authData
			require.NoError(t, json.Unmarshal(e.Data, &d))
			assert.Len(t, d.AuthKey, 43)
			assert.Len(t, d.RefreshAuthKey, 43)
		}
		assert.NotContains(t, rec.Body.String(), adminPassword, "a password is never echoed")
	})
}

// fuzzUpdate is the body of FuzzUpdateAnalytics and
// FuzzUpdatePaymentGateway: any body and If-Match header, sent with the
// admin's real Auth-Key to the configuration at path.
func fuzzUpdate(t *testing.T, fx *integFixture, path, body, ifMatch string) {
	req := httptest.NewRequest(http.MethodPut, path, strings.NewReader(body))
	req.Header.Set("Brand-URL", "shop.example.com")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Auth-Key", fx.keys["admin"])
	if ifMatch != "" {
		req.Header.Set("If-Match", ifMatch)
	}
	// 403 and 404 come from a body authKey or brandUrl; 412 from
	// a stale If-Match.
	rec, e := fuzzAnswer(t, fx.fixture, req, http.StatusOK, http.StatusBadRequest, http.StatusForbidden,
		http.StatusNotFound, http.StatusPreconditionFailed)
	for _, secret := range []string{seedAPIKey, seedAPISecret, seedPrivateKey} {
		assert.NotContains(t, rec.Body.String(), secret, "a stored secret never leaves unmasked")
	}
	if rec.Code == http.StatusOK {
		assert.NotEmpty(t, rec.Header().Get("ETag"))
		var data map[string]any
		require.NoError(t, json.Unmarshal(e.Data, &data))
		assert.Contains(t, []any{"Active", "Inactive"}, data["status"], "status is canonical")
	}
}

// updateSeeds are bodies both update targets start from: valid is a good
// body, tooLong one with a text field just past its limit.
func updateSeeds(valid, tooLong string) []string {
	return []string{
		valid,
		tooLong,
		`{}`,
		`{"appIntegrationId":12,"trackingId":true,"isDefault":"yes","testMode":1,"status":["Active"]}`,
		`{"appIntegrationId":"' OR 1=1 --","name":"%_\"","trackingId":"%"}`,
		`{"appIntegrationId":"x","trackingId":"\u0000","apiKey":"\ud800","name":"\u0000"}`,
		`{"appIntegrationId":"x","ipnListenerLink":"javascript:alert(1)","returnLink":"http://[::1","cancelLink":"//evil"}`,
		`{"appIntegrationId":"x","status":"paused","isDefault":1e400}`,
		`{"authKey":"not-a-key","brandUrl":"shop.example.com"}`,
		`{"brandUrl":"ghost.example.com"}`,
		`{"brandUrl":"closed.example.com"}`,
		strings.Repeat(`{"a":`, 300) + `1` + strings.Repeat(`}`, 300),
		`{"appIntegrationId":"x"} {"second":"value"}`,
		"\xff\xfe",
		`null`,
	}
}

// FuzzUpdateAnalytics sends any body and If-Match to PUT
// /api/v1/app-integrations/analytics/{id} with a real Auth-Key.
func FuzzUpdateAnalytics(f *testing.F) {
	fx := newIntegFixture(f, stores["memory"])
	valid := analyticsBody(fx.analytics.AppIntegration.ID, nil)
	tooLong := analyticsBody(fx.analytics.AppIntegration.ID, map[string]any{"metadata": strings.Repeat("m", 10001)})
	for _, b := range updateSeeds(valid, tooLong) {
		f.Add(b, "")
	}
	f.Add(valid, `"1.1"`)
	f.Add(valid, `*`)
	f.Add(valid, `W/"1.1", "99.1", ,,`)
	f.Add(valid, "\x00\xff")
	path := analyticsPath(fx.analytics.ID)
	f.Fuzz(func(t *testing.T, body, ifMatch string) {
		fuzzUpdate(t, fx, path, body, ifMatch)
	})
}

// FuzzUpdatePaymentGateway sends any body and If-Match to PUT
// /api/v1/app-integrations/payment-gateway/{id} with a real Auth-Key.
func FuzzUpdatePaymentGateway(f *testing.F) {
	fx := newIntegFixture(f, stores["memory"])
	valid := gatewayBody(fx.gateway.AppIntegration.ID, nil)
	tooLong := gatewayBody(fx.gateway.AppIntegration.ID, map[string]any{"notes": strings.Repeat("n", 4001)})
	for _, b := range updateSeeds(valid, tooLong) {
		f.Add(b, "")
	}
	f.Add(gatewayBody(fx.gateway.AppIntegration.ID, map[string]any{"testMode": true,
		"ipnListenerLink": "http://localhost:8080/ipn", "privateKey": ""}), "")
	f.Add(valid, `"1.1"`)
	path := gatewayPath(fx.gateway.ID)
	f.Fuzz(func(t *testing.T, body, ifMatch string) {
		fuzzUpdate(t, fx, path, body, ifMatch)
	})
}
