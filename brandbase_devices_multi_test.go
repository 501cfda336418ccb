package brandbase_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
)

// rawDo sends one request to in and returns its status and the envelope's
// raw data.
func rawDo(t *testing.T, in *instance, method, path, brand, authKey string) (int, json.RawMessage) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, in.base+path, nil)
	require.NoError(t, err)
	req.Header.Set("Brand-URL", brand)
	req.Header.Set("Auth-Key", authKey)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var env struct{ Data json.RawMessage }
	require.NoError(t, json.Unmarshal(body, &env), string(body))
	return resp.StatusCode, env.Data
}

// TestSeveralInstancesDevices checks, on one PostgreSQL database, that a
// device ended through one instance is refused on another within
// staleness, though that one had its key cached, and that every instance
// lists the same devices.
func TestSeveralInstancesDevices(t *testing.T) {
	t.Parallel()
	nodes := cluster(t, 2)
	a, b := nodes[0], nodes[1]
	ctx := t.Context()
	created := awaitChange(t, b, auth.ChangeBrand)
	brand, err := a.app.Auth.CreateBrand(ctx, auth.NewBrand{URL: "devices.example.com", Name: "Devices"})
	require.NoError(t, err)
	created(brand.ID)
	user, err := a.app.Auth.CreateUser(ctx, brand.ID, auth.NewUser{Username: "dana", Password: "dana's long password"})
	require.NoError(t, err)
	login := func(in *instance, ua string) (authKey, deviceCode string) {
		ans := in.do(t, "POST", "/api/v1/users/auth", brand.URL, "", `{"username":"dana","password":"dana's long password"}`,
			"User-Agent", ua)
		require.Equal(t, http.StatusOK, ans.status)
		return ans.data["authKey"].(string), ans.data["deviceCode"].(string)
	}
	laptopKey, laptopCode := login(a, "Mozilla/5.0 (X11; Linux x86_64) Firefox/127.0")
	phoneKey, _ := login(b, "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) Safari/604.1")

	devicesPath := "/api/v1/users/" + user.ID + "/devices"
	for _, in := range nodes {
		status, data := rawDo(t, in, "GET", devicesPath, brand.URL, phoneKey)
		require.Equal(t, http.StatusOK, status, string(data))
		var list []struct{ ID, Code, Name string }
		require.NoError(t, json.Unmarshal(data, &list))
		require.Len(t, list, 2, "every instance lists every login (on %s)", in.name)
		assert.Equal(t, "Firefox on Linux", list[0].Name)
		assert.Equal(t, "Safari on iOS", list[1].Name)
	}
	status, data := rawDo(t, b, "GET", "/api/v1/devices/current", brand.URL, laptopKey)
	require.Equal(t, http.StatusOK, status, "B caches the laptop's key")
	var laptop struct{ ID, Code string }
	require.NoError(t, json.Unmarshal(data, &laptop))
	require.Equal(t, laptopCode, laptop.Code)

	start := time.Now()
	status, data = rawDo(t, a, "DELETE", devicesPath+"/"+laptop.ID, brand.URL, phoneKey)
	require.Equal(t, http.StatusOK, status, string(data))
	assert.JSONEq(t, "true", string(data))
	within(t, start, "the ended device's key, refused on B", func() bool {
		status, _ := rawDo(t, b, "GET", "/api/v1/devices/current", brand.URL, laptopKey)
		return status == http.StatusUnauthorized
	})
	status, data = rawDo(t, b, "GET", devicesPath, brand.URL, phoneKey)
	require.Equal(t, http.StatusOK, status)
	assert.False(t, strings.Contains(string(data), laptop.ID), "B no longer lists it")
}
