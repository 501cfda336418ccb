package brandbase_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/integrations"
)

// raw sends one request to in and returns its status and the envelope's
// data as JSON (lists are bare arrays, which answer.data cannot hold).
func (in *instance) raw(t *testing.T, method, path, brand, authKey, body string) (int, json.RawMessage) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, in.base+path, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Brand-URL", brand)
	req.Header.Set("Auth-Key", authKey)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&env))
	return resp.StatusCode, env.Data
}

// TestSeveralInstancesIntegrationAdmin checks, on two instances of one
// PostgreSQL database, that a configuration created through one is listed
// and read by the other at once, and that one deleted through one is gone
// on the other (no instance caches integrations), as are the lists the
// client asks for (states, time zones, languages), the same on both.
func TestSeveralInstancesIntegrationAdmin(t *testing.T) {
	t.Parallel()
	nodes := cluster(t, 2)
	a, b := nodes[0], nodes[1]
	ctx := t.Context()
	const shop = "shop.example.com"
	brand, err := a.app.Auth.CreateBrand(ctx, auth.NewBrand{URL: shop, Name: "Shop"})
	require.NoError(t, err)
	_, err = a.app.Auth.CreateUser(ctx, brand.ID, auth.NewUser{Username: "admin", Password: "admin password",
		Permissions: []auth.Permission{auth.PermAll}})
	require.NoError(t, err)
	host := auth.Principal{UserID: "host", BrandID: brand.ID, Permissions: []auth.Permission{auth.PermAll}}
	appInt, err := a.app.Integrations.CreateAppIntegration(ctx, host, integrations.AppIntegrationInput{
		Type: integrations.TypeAnalytics, Name: "Analytics", Domain: "https://analytics.example.com"})
	require.NoError(t, err)
	login := a.do(t, "POST", "/api/v1/users/auth", shop, "", `{"username":"admin","password":"admin password"}`)
	require.Equal(t, http.StatusOK, login.status)
	key := login.data["authKey"].(string)

	status, data := a.raw(t, "POST", "/api/v1/app-integrations/analytics", shop, key,
		fmt.Sprintf(`{"appIntegrationId":%q,"trackingId":"G-1","apiKey":"ak_0123456789","isDefault":true,"status":"Active"}`, appInt.ID))
	require.Equal(t, http.StatusCreated, status, string(data))
	var created struct{ ID string }
	require.NoError(t, json.Unmarshal(data, &created))
	ids := func(in *instance) []string {
		status, data := in.raw(t, "GET", "/api/v1/app-integrations/analytics", shop, key, "")
		require.Equal(t, http.StatusOK, status)
		var list []struct{ ID string }
		require.NoError(t, json.Unmarshal(data, &list))
		var out []string
		for _, x := range list {
			out = append(out, x.ID)
		}
		return out
	}
	assert.Equal(t, []string{created.ID}, ids(b), "B lists what A created")
	status, _ = b.raw(t, "GET", "/api/v1/app-integrations/analytics/"+created.ID, shop, key, "")
	assert.Equal(t, http.StatusOK, status)

	status, data = b.raw(t, "DELETE", "/api/v1/app-integrations/analytics/"+created.ID, shop, key, "")
	require.Equal(t, http.StatusOK, status)
	assert.JSONEq(t, "true", string(data))
	assert.Empty(t, ids(a), "A lists nothing once B deleted it")
	status, _ = a.raw(t, "GET", "/api/v1/app-integrations/analytics/"+created.ID, shop, key, "")
	assert.Equal(t, http.StatusNotFound, status)
	status, _ = a.raw(t, "DELETE", "/api/v1/app-integrations/analytics/"+created.ID, shop, key, "")
	assert.Equal(t, http.StatusNotFound, status, "deleted once, on one instance")

	for _, path := range []string{"/api/v1/states?countryCode=VN", "/api/v1/languages", "/api/v1/app-integrations"} {
		sa, da := a.raw(t, "GET", path, shop, key, "")
		sb, db := b.raw(t, "GET", path, shop, key, "")
		assert.Equal(t, http.StatusOK, sa, path)
		assert.Equal(t, sa, sb, path)
		assert.JSONEq(t, string(da), string(db), "%s: the same on both instances", path)
	}
}
