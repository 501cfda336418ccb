package httpadapter_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/httpadapter"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/storage/memory"
)

// Build the handler from the services and mount it with options: the
// host's logger, the proxies whose X-Forwarded-For is trusted. Then a user
// logs in and updates an analytics integration over HTTP.
func ExampleNew() {
	ctx := context.Background()
	store, err := memory.New(ctx)
	if err != nil {
		panic(err)
	}
	defer store.Close()
	// Cheap password hashing keeps the example fast; keep the defaults in
	// production.
	authSvc := auth.NewService(store, auth.WithArgon2Params(auth.Argon2Params{Memory: 64, Iterations: 1, Parallelism: 1, SaltLen: 16, KeyLen: 32}))
	integSvc := integrations.NewService(store)
	h, err := httpadapter.New(
		httpadapter.Services{Auth: authSvc, RefData: refdata.NewService(store), Integrations: integSvc},
		httpadapter.WithLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))),
		httpadapter.WithTrustedProxies(netip.MustParsePrefix("10.0.0.0/8")),
	)
	if err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/api/v1/", h)

	// In-process set-up: a brand, a user allowed to write analytics, and an
	// analytics integration.
	brand, _ := authSvc.CreateBrand(ctx, auth.NewBrand{URL: "shop.example.com", Name: "Shop"})
	_, _ = authSvc.CreateUser(ctx, brand.ID, auth.NewUser{Username: "alice", Password: "correct horse battery",
		Permissions: []auth.Permission{auth.PermAnalyticsWrite}})
	host := auth.SystemPrincipal(brand.ID) // the host itself acting in the brand
	app, _ := integSvc.CreateAppIntegration(ctx, host, integrations.AppIntegrationInput{
		Type: integrations.TypeAnalytics, Name: "Analytics", Domain: "https://analytics.example.com"})
	ga, _ := integSvc.CreateAnalytics(ctx, host, integrations.AnalyticsInput{
		AppIntegrationID: &app.ID, TrackingID: new("G-1"), APIKey: new("ak_live_123456789")})

	call := func(method, path, authKey, body string) (int, json.RawMessage) {
		req := httptest.NewRequest(method, path, bytes.NewBufferString(body))
		req.Header.Set("Brand-URL", "shop.example.com")
		req.Header.Set("Content-Type", "application/json")
		if authKey != "" {
			req.Header.Set("Auth-Key", authKey)
		}
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, req)
		var env struct{ Data json.RawMessage }
		_ = json.Unmarshal(rec.Body.Bytes(), &env)
		return rec.Code, env.Data
	}

	status, data := call("POST", "/api/v1/users/auth", "", `{"username":"alice","password":"correct horse battery"}`)
	var login struct{ AuthKey string }
	_ = json.Unmarshal(data, &login)
	fmt.Println("login:", status)

	path := "/api/v1/app-integrations/analytics/" + ga.ID
	status, _ = call("PUT", path, "", `{}`)
	fmt.Println("update without Auth-Key:", status)
	// apiKey is required; sending back the masked value (ga.APIKey, as a GET
	// answers it) keeps the stored key.
	status, data = call("PUT", path, login.AuthKey,
		`{"appIntegrationId":"`+app.ID+`","trackingId":"G-2","apiKey":"`+*ga.APIKey+`","isDefault":true}`)
	var updated struct {
		TrackingID string
		APIKey     string
		IsDefault  bool
	}
	_ = json.Unmarshal(data, &updated)
	fmt.Println("update:", status, updated.TrackingID, updated.APIKey, updated.IsDefault)
	// Output:
	// login: 200
	// update without Auth-Key: 401
	// update: 200 G-2 *************6789 true
}

// The OpenAPI 3.1 document of the mounted routes is served at
// GET /api/v1/openapi.json (no Brand-URL needed); OpenAPI returns the same
// bytes for a host that publishes it elsewhere.
func ExampleHandler_OpenAPI() {
	ctx := context.Background()
	store, err := memory.New(ctx)
	if err != nil {
		panic(err)
	}
	defer store.Close()
	h, err := httpadapter.New(httpadapter.Services{Auth: auth.NewService(store), RefData: refdata.NewService(store)})
	if err != nil {
		panic(err)
	}
	var doc struct {
		OpenAPI string                    `json:"openapi"`
		Paths   map[string]map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(h.OpenAPI(), &doc); err != nil {
		panic(err)
	}
	_, listed := doc.Paths["/api/v1/currencies"]["get"]
	fmt.Println(doc.OpenAPI, listed)
	// Output: 3.1.0 true
}
