package httpadapter_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/httpadapter"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/internal/testkit/teststores"
	"github.com/brandbase/brandbase/storage"
)

// env is the decoded envelope of a response.
type env struct {
	Success    bool            `json:"success"`
	StatusCode int             `json:"statusCode"`
	Message    string          `json:"message"`
	Data       json.RawMessage `json:"data"`
	Errors     []struct {
		Code    string  `json:"code"`
		Field   string  `json:"field"`
		Message *string `json:"message"`
		Details string  `json:"details"`
	} `json:"errors"`
}

// fixture is a fresh app with two brands (one inactive) behind the handler.
type fixture struct {
	app     *brandbase.App
	handler http.Handler
	brand   auth.Brand
	logs    *bytes.Buffer
	// mail receives the messages the auth service sends (password-reset
	// links).
	mail *mailbox
}

// stores are the backends every HTTP scenario runs on.
var stores = teststores.All

// newFixture builds the fixture on a fresh store; opts are added to the
// handler's options after the test logger.
func newFixture(t testing.TB, newStore func(t testing.TB) storage.Storage, opts ...httpadapter.Option) *fixture {
	t.Helper()
	store := newStore(t)
	t.Cleanup(func() { store.Close() })
	// A hash wait bound no load reaches: the tests of this fixture are
	// not about shedding logins (a loaded machine under -race would shed
	// some at the default 1 s); the shedding tests build their own App.
	mail := newMailbox()
	app, err := brandbase.New(store, brandbase.Config{SecretKeys: integrations.EphemeralKeyRing(), MaxHashWait: time.Minute,
		AuthOptions:    []auth.Option{auth.WithArgon2Params(testArgon2), auth.WithMessageSender(mail)},
		OutboundPolicy: brandbase.OutboundPolicy{AllowLoopback: true}}) // the SMTP test route's sample: a server on loopback
	require.NoError(t, err)
	ctx := t.Context()
	b, err := app.Auth.CreateBrand(ctx, auth.NewBrand{URL: "shop.example.com", Name: "Shop", DefaultCurrency: "EUR"})
	require.NoError(t, err)
	_, err = app.Auth.CreateBrand(ctx, auth.NewBrand{URL: "closed.example.com", Name: "Closed", Status: auth.StatusInactive})
	require.NoError(t, err)
	logs := &bytes.Buffer{}
	h, err := app.Handler(append([]httpadapter.Option{withTestLogger(logs)}, opts...)...)
	require.NoError(t, err)
	return &fixture{app: app, handler: h, brand: b, logs: logs, mail: mail}
}

// do serves one request and decodes its envelope, checking the invariants
// every answer keeps.
func (f *fixture) do(t testing.TB, method, path string, headers map[string]string, body string) (*httptest.ResponseRecorder, env) {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	return f.send(t, req)
}

// send serves req and decodes its envelope, checking the invariants every
// answer keeps.
func (f *fixture) send(t testing.TB, req *http.Request) (*httptest.ResponseRecorder, env) {
	t.Helper()
	rec := httptest.NewRecorder()
	f.handler.ServeHTTP(rec, req)
	e, err := decodeEnvelope(rec.Code, rec.Header(), rec.Body.Bytes())
	require.NoError(t, err, rec.Body.String())
	return rec, e
}

// decodeEnvelope decodes the envelope of an answer with the given status,
// headers and body, and reports every invariant it breaks: a JSON content
// type, statusCode equal to the status, success exactly on a 2xx, a
// message, errors never null, empty on success and not on failure, every
// error item with a message equal to its details. A 304
// has no body and no envelope. It does not touch a testing.T, so that
// client goroutines (the load test) can use it.
func decodeEnvelope(status int, h http.Header, body []byte) (env, error) {
	var e env
	if status == http.StatusNotModified {
		return e, nil
	}
	if ct := h.Get("Content-Type"); ct != "application/json; charset=utf-8" {
		return e, fmt.Errorf("status %d: Content-Type %q", status, ct)
	}
	if err := json.Unmarshal(body, &e); err != nil {
		return e, fmt.Errorf("status %d: not an envelope: %w", status, err)
	}
	var errs []error
	check := func(ok bool, format string, args ...any) {
		if !ok {
			errs = append(errs, fmt.Errorf("status %d: "+format, append([]any{status}, args...)...))
		}
	}
	check(e.StatusCode == status, "statusCode %d differs from the HTTP status", e.StatusCode)
	check(e.Success == (status >= 200 && status < 300), "success is %v", e.Success)
	check(e.Errors != nil, "errors is null")
	check(e.Message != "", "message is empty")
	check(!e.Success || len(e.Errors) == 0, "errors on success: %v", e.Errors)
	check(e.Success || len(e.Errors) > 0, "no errors on failure")
	for _, it := range e.Errors {
		check(it.Message != nil && *it.Message != "" && *it.Message == it.Details,
			"error item %s: message %v is not its details %q", it.Code, it.Message, it.Details)
	}
	return e, errors.Join(errs...)
}

func TestRoutingAndBrand(t *testing.T) {
	t.Parallel()
	brand := map[string]string{"Brand-URL": "shop.example.com"}
	scenarios := []struct {
		name      string
		method    string
		path      string
		headers   map[string]string
		status    int
		errCode   string
		errField  string
		wantAllow string
	}{
		{name: "currencies", method: "GET", path: "/api/v1/currencies", headers: brand, status: 200},
		{name: "brand URL normalised", method: "GET", path: "/api/v1/currencies",
			headers: map[string]string{"Brand-URL": "  HTTPS://Shop.Example.COM./some/path?x=1 "}, status: 200},
		{name: "no Brand-URL", method: "GET", path: "/api/v1/currencies", status: 400,
			errCode: "brand_url_required", errField: "Brand-URL"},
		{name: "blank Brand-URL", method: "GET", path: "/api/v1/currencies",
			headers: map[string]string{"Brand-URL": "   "}, status: 400, errCode: "brand_url_required", errField: "Brand-URL"},
		{name: "unknown brand", method: "GET", path: "/api/v1/currencies",
			headers: map[string]string{"Brand-URL": "nobody.example.com"}, status: 404, errCode: "brand_not_found"},
		{name: "garbage brand", method: "GET", path: "/api/v1/currencies",
			headers: map[string]string{"Brand-URL": "exa mple.com'--"}, status: 404, errCode: "brand_not_found"},
		{name: "inactive brand", method: "GET", path: "/api/v1/currencies",
			headers: map[string]string{"Brand-URL": "closed.example.com"}, status: 403, errCode: "brand_inactive"},
		{name: "unknown route", method: "GET", path: "/api/v1/nothing", headers: brand, status: 404, errCode: "route_not_found"},
		{name: "unknown route outside api", method: "GET", path: "/elsewhere", status: 404, errCode: "route_not_found"},
		{name: "wrong method", method: "DELETE", path: "/api/v1/currencies", headers: brand, status: 405,
			errCode: "method_not_allowed", wantAllow: "GET, HEAD"},
		{name: "bad page size type", method: "GET", path: "/api/v1/currencies?PageSize=abc", headers: brand,
			status: 400, errCode: "invalid_type", errField: "PageSize"},
		{name: "negative page", method: "GET", path: "/api/v1/currencies?pagenumber=-1", headers: brand,
			status: 400, errCode: "out_of_range", errField: "PageNumber"},
		{name: "huge page number", method: "GET", path: "/api/v1/currencies?PageNumber=99999999999", headers: brand,
			status: 400, errCode: "out_of_range", errField: "PageNumber"},
	}
	for storeName, newStore := range stores {
		for _, sc := range scenarios {
			t.Run(storeName+"/"+sc.name, func(t *testing.T) {
				t.Parallel()
				f := newFixture(t, newStore)
				rec, e := f.do(t, sc.method, sc.path, sc.headers, "")
				require.Equal(t, sc.status, rec.Code, rec.Body.String())
				if sc.errCode != "" {
					assert.Equal(t, sc.errCode, e.Errors[0].Code)
					assert.Equal(t, sc.errField, e.Errors[0].Field)
					assert.NotEmpty(t, e.Errors[0].Details)
				}
				if sc.wantAllow != "" {
					assert.Equal(t, sc.wantAllow, rec.Header().Get("Allow"))
				}
			})
		}
	}
}

func TestCurrenciesPage(t *testing.T) {
	t.Parallel()
	for storeName, newStore := range stores {
		t.Run(storeName, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, newStore)
			rec, e := f.do(t, "GET", "/api/v1/currencies?pageSize=2&PAGENUMBER=1",
				map[string]string{"Brand-URL": "shop.example.com"}, "")
			require.Equal(t, 200, rec.Code)
			var page struct {
				Items      []map[string]any `json:"items"`
				TotalItems int              `json:"totalItems"`
				PageNumber int              `json:"pageNumber"`
				PageSize   int              `json:"pageSize"`
			}
			require.NoError(t, json.Unmarshal(e.Data, &page))
			assert.Len(t, page.Items, 2)
			assert.Equal(t, 1, page.PageNumber)
			assert.Equal(t, 2, page.PageSize)
			assert.Greater(t, page.TotalItems, 2)
			for _, it := range page.Items {
				for _, k := range []string{"id", "code", "name", "namePlural", "symbol", "symbolNative",
					"decimalDigits", "rounding", "isCoin", "isDefault"} {
					assert.Contains(t, it, k)
				}
				assert.NotContains(t, it, "tags")
			}

			_, e = f.do(t, "GET", "/api/v1/currencies?PageSize=1000", map[string]string{"Brand-URL": "shop.example.com"}, "")
			require.NoError(t, json.Unmarshal(e.Data, &page))
			defaults := 0
			for _, it := range page.Items {
				if it["isDefault"] == true {
					defaults++
					assert.Equal(t, "EUR", it["code"], "the brand's default currency")
				}
			}
			assert.Equal(t, 1, defaults)
		})
	}
}

func TestListETag(t *testing.T) {
	t.Parallel()
	f := newFixture(t, stores["memory"])
	brand := map[string]string{"Brand-URL": "shop.example.com"}
	rec, _ := f.do(t, "GET", "/api/v1/currencies", brand, "")
	etag := rec.Header().Get("ETag")
	require.NotEmpty(t, etag)
	assert.False(t, strings.HasPrefix(etag, "W/"), "strong ETag")
	assert.NotEmpty(t, rec.Header().Get("Cache-Control"))
	assert.Equal(t, "Brand-URL", rec.Header().Get("Vary"), "the answer depends on the brand")

	rec, _ = f.do(t, "GET", "/api/v1/currencies", map[string]string{"Brand-URL": "shop.example.com", "If-None-Match": etag}, "")
	assert.Equal(t, http.StatusNotModified, rec.Code)
	assert.Empty(t, rec.Body.Bytes())
	assert.Equal(t, "Brand-URL", rec.Header().Get("Vary"))

	rec, _ = f.do(t, "GET", "/api/v1/currencies?PageSize=3", map[string]string{"Brand-URL": "shop.example.com", "If-None-Match": etag}, "")
	assert.Equal(t, http.StatusOK, rec.Code, "another query has another ETag")
}

// A parameter given twice, under any spelling, counts once: the first in
// the query string.
func TestRepeatedQueryParameterFirstWins(t *testing.T) {
	t.Parallel()
	f := newFixture(t, stores["memory"])
	brand := map[string]string{"Brand-URL": "shop.example.com"}
	for path, want := range map[string]int{
		"/api/v1/currencies?PageSize=1&pagesize=3":       1,
		"/api/v1/currencies?pagesize=3&PageSize=1":       3,
		"/api/v1/currencies?PAGESIZE=2&PageSize=1&x=%zz": 2,
		"/api/v1/currencies?Page%53ize=4":                4,
	} {
		for range 5 { // map order would show up as a different answer
			_, e := f.do(t, "GET", path, brand, "")
			var page struct {
				PageSize int `json:"pageSize"`
			}
			require.NoError(t, json.Unmarshal(e.Data, &page))
			assert.Equal(t, want, page.PageSize, path)
		}
	}
}

// A path under /api/v1/ that is not canonical is redirected to its cleaned
// form, in the envelope like every other answer (not a success). One that
// cleans to a path outside /api/v1/ is not redirected: see
// TestUncleanPathsNeverRedirectAway, which holds that case.
func TestUncleanPathRedirectsInEnvelope(t *testing.T) {
	t.Parallel()
	f := newFixture(t, stores["memory"])
	brand := map[string]string{"Brand-URL": "shop.example.com"}
	for path, want := range map[string]string{
		"/api/v1//currencies":             "/api/v1/currencies",
		"/api/v1/./currencies?PageSize=1": "/api/v1/currencies?PageSize=1",
		"/api/v1/x/../currencies":         "/api/v1/currencies",
	} {
		rec, e := f.do(t, "GET", path, brand, "")
		assert.Equal(t, http.StatusTemporaryRedirect, rec.Code, path)
		assert.Equal(t, want, rec.Header().Get("Location"), path)
		assert.Equal(t, "null", string(e.Data))
	}
}

func TestPanicBecomesEnvelope(t *testing.T) {
	t.Parallel()
	f := newFixture(t, stores["memory"])
	// The writer panics when the route writes its 200, as a broken encoder
	// would; the adapter's recovery must still answer in the envelope.
	req := httptest.NewRequest("GET", "/api/v1/currencies", nil)
	req.Header.Set("Brand-URL", "shop.example.com")
	rec := httptest.NewRecorder()
	f.handler.ServeHTTP(panicWriter{rec}, req)
	assert.Equal(t, http.StatusInternalServerError, rec.Code)
	var e env
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &e))
	assert.Equal(t, "internal_error", e.Errors[0].Code)
	assert.NotContains(t, rec.Body.String(), "boom", "panic details stay in the log")
	assert.Contains(t, f.logs.String(), "boom")
}

// panicWriter panics on the first successful write, as a broken encoder or
// middleware would, and lets the error answer through.
type panicWriter struct{ *httptest.ResponseRecorder }

func (p panicWriter) WriteHeader(status int) {
	if status == http.StatusOK {
		panic("boom")
	}
	p.ResponseRecorder.WriteHeader(status)
}

func withTestLogger(w io.Writer) httpadapter.Option {
	return httpadapter.WithLogger(slog.New(slog.NewTextHandler(w, nil)))
}
