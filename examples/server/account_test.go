package main

import (
	"encoding/json"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/brandbase/brandbase/auth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mailLines returns the "mail {...}" lines of out, decoded.
func mailLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var mails []map[string]any
	for line := range strings.SplitSeq(out, "\n") {
		body, ok := strings.CutPrefix(line, "mail ")
		if !ok {
			continue
		}
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(body), &m), "a mail line is one JSON object: %q", line)
		mails = append(mails, m)
	}
	return mails
}

// firstLine returns the demo line of out (the first line).
func firstLine(out string) string {
	line, _, _ := strings.Cut(out, "\n")
	return line
}

func TestServerDemoSignUpOpenOtherClosed(t *testing.T) {
	t.Parallel()
	base, stdout, stop := startServer(t, "-db", ":memory:")
	defer stop()
	d := demoLine(t, firstLine(stdout.String()))
	register := base + "/api/v1/users/register"
	body := `{"username":"newcomer","emailAddress":"newcomer@example.com","password":"a fine new password 42"}`

	status, data := call(t, "POST", register, d.BrandURL, nil, body)
	assert.Equal(t, http.StatusCreated, status, "the demo brand opens sign-up")
	assert.Equal(t, "newcomer", data["username"])

	req, err := http.NewRequest("POST", register, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Brand-URL", d.OtherBrandURL)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var env struct {
		Errors []struct{ Code string }
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&env))
	assert.Equal(t, http.StatusForbidden, resp.StatusCode, "the other brand keeps sign-up closed")
	require.NotEmpty(t, env.Errors)
	assert.Equal(t, "registration_closed", env.Errors[0].Code)
}

func TestServerDemoPasswordResetMail(t *testing.T) {
	t.Parallel()
	base, stdout, stop := startServer(t, "-db", ":memory:")
	defer stop()
	d := demoLine(t, firstLine(stdout.String()))

	status := callStatus(t, base+"/api/v1/users/forgot-password", d.BrandURL,
		`{"emailAddress":"`+d.EmailAddress+`","resetPasswordLink":"https://evil.example/reset"}`)
	assert.Equal(t, http.StatusBadRequest, status, "an origin the demo brand does not allow")

	resp, err := http.Post(base+"/api/v1/users/forgot-password", "application/json",
		strings.NewReader(`{"emailAddress":"`+d.EmailAddress+`","resetPasswordLink":"http://localhost:5173/reset"}`))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusBadRequest, resp.StatusCode, "no Brand-URL")

	status = callStatus(t, base+"/api/v1/users/forgot-password", d.BrandURL,
		`{"emailAddress":"`+d.EmailAddress+`","resetPasswordLink":"http://localhost:5173/reset"}`)
	require.Equal(t, http.StatusOK, status)

	// The delivery runs apart from the request: wait for its line.
	var mails []map[string]any
	deadline := time.Now().Add(waitBound(t))
	for len(mails) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
		mails = mailLines(t, stdout.String())
	}
	require.Len(t, mails, 1, "one mail line for the one allowed request: %q", stdout.String())
	m := mails[0]
	assert.Equal(t, d.EmailAddress, m["to"])
	assert.Equal(t, "password_reset", m["kind"])
	link, ok := m["link"].(string)
	require.True(t, ok, "the mail has a link")
	u, err := url.Parse(link)
	require.NoError(t, err)
	assert.Equal(t, "http://localhost:5173/reset", u.Scheme+"://"+u.Host+u.Path)
	token := u.Query().Get("token")
	require.NotEmpty(t, token)
	assert.Equal(t, d.EmailAddress, u.Query().Get("emailAddress"))
	assert.Equal(t, "demo "+mustJSON(t, d), firstLine(stdout.String()), "the demo line stays first and whole")

	newPassword := "a brand new password 77"
	b, err := json.Marshal(map[string]string{"emailAddress": d.EmailAddress, "token": token, "newPassword": newPassword})
	require.NoError(t, err)
	status = callStatus(t, base+"/api/v1/users/reset-password", d.BrandURL, string(b))
	require.Equal(t, http.StatusOK, status, "the mailed token resets the password")

	login := base + "/api/v1/users/auth"
	status, _ = call(t, "POST", login, d.BrandURL, nil, loginBody("username", d.Username, d.Password))
	assert.Equal(t, http.StatusUnauthorized, status, "the old password is gone")
	status, _ = call(t, "POST", login, d.BrandURL, nil, loginBody("username", d.Username, newPassword))
	assert.Equal(t, http.StatusOK, status, "the admin logs in with the new password")
}

// callStatus sends one JSON request with a Brand-URL and returns the
// status (call decodes an object's data; the reset routes answer true).
func callStatus(t *testing.T, url, brand, body string) int {
	t.Helper()
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Brand-URL", brand)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	return resp.StatusCode
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

func TestServerOtherBrandCapsDevices(t *testing.T) {
	t.Parallel()
	base, stdout, stop := startServer(t, "-db", ":memory:")
	defer stop()
	d := demoLine(t, firstLine(stdout.String()))
	login := base + "/api/v1/users/auth"
	var keys []string
	for range 3 { // three logins without a device code: three devices
		status, data := call(t, "POST", login, d.OtherBrandURL, nil, loginBody("username", d.OtherUsername, d.OtherPassword))
		require.Equal(t, http.StatusOK, status)
		keys = append(keys, data["authKey"].(string))
	}
	me := base + "/api/v1/users/me"
	for i, want := range []bool{false, true, true} {
		status, _ := call(t, "GET", me, d.OtherBrandURL, map[string]string{"Auth-Key": keys[i]}, "")
		assert.Equal(t, want, status == http.StatusOK, "device %d of 3 (cap 2) works: %v (status %d)", i+1, want, status)
	}
	// The demo brand has no cap: its admin's three devices all work.
	keys = keys[:0]
	for range 3 {
		status, data := call(t, "POST", login, d.BrandURL, nil, loginBody("username", d.Username, d.Password))
		require.Equal(t, http.StatusOK, status)
		keys = append(keys, data["authKey"].(string))
	}
	for i, k := range keys {
		status, _ := call(t, "GET", me, d.BrandURL, map[string]string{"Auth-Key": k}, "")
		assert.Equal(t, http.StatusOK, status, "demo brand device %d", i+1)
	}
}

// clearDemoSettings gives the demo brands of the database db the default
// settings, as a demo older than the settings left them.
func clearDemoSettings(t *testing.T, db string, d demoInfo) {
	t.Helper()
	app := openWithKeyRing(t, db, sibling(db, ".key"))
	defer app.Close()
	for _, url := range []string{d.BrandURL, d.OtherBrandURL} {
		b, err := app.Auth.ResolveBrand(t.Context(), url)
		require.NoError(t, err)
		require.NoError(t, app.Auth.SetBrandSettings(t.Context(), b.ID, auth.BrandSettings{}))
	}
}

// TestServerAppliesSettingsOnEveryStart checks that the settings
// reach a database seeded before they existed: a restart sets them again.
func TestServerAppliesSettingsOnEveryStart(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "brandbase.db")
	_, stdout, stop := startServer(t, "-db", db)
	d := demoLine(t, stdout.String())
	stop()
	// Close sign-up as an older demo left it, through the store directly.
	clearDemoSettings(t, db, d)
	base, _, stop := startServer(t, "-db", db)
	defer stop()
	status, _ := call(t, "POST", base+"/api/v1/users/register", d.BrandURL, nil,
		`{"username":"late","password":"a fine new password 42"}`)
	assert.Equal(t, http.StatusCreated, status, "a restart opens the demo brand's sign-up again")
}
