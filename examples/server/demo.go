package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/auth"
)

// The demo brands' URLs.
const (
	demoBrandURL  = "demo.brandbase.test"
	otherBrandURL = "other.brandbase.test"
)

// demoInfo is the object of the "demo {...}" line (docs/operations.md lists
// its keys).
type demoInfo struct {
	BrandURL                       string `json:"brandUrl"`
	Username                       string `json:"username,omitempty"`
	EmailAddress                   string `json:"emailAddress,omitempty"`
	Password                       string `json:"password,omitempty"`
	ViewerUsername                 string `json:"viewerUsername,omitempty"`
	ViewerPassword                 string `json:"viewerPassword,omitempty"`
	AnalyticsAppIntegrationID      string `json:"analyticsAppIntegrationId,omitempty"`
	AnalyticsIntegrationID         string `json:"analyticsIntegrationId,omitempty"`
	PaymentGatewayAppIntegrationID string `json:"paymentGatewayAppIntegrationId,omitempty"`
	PaymentGatewayIntegrationID    string `json:"paymentGatewayIntegrationId,omitempty"`

	OtherBrandURL                       string `json:"otherBrandUrl"`
	OtherUsername                       string `json:"otherUsername,omitempty"`
	OtherPassword                       string `json:"otherPassword,omitempty"`
	OtherAnalyticsAppIntegrationID      string `json:"otherAnalyticsAppIntegrationId,omitempty"`
	OtherAnalyticsIntegrationID         string `json:"otherAnalyticsIntegrationId,omitempty"`
	OtherPaymentGatewayAppIntegrationID string `json:"otherPaymentGatewayAppIntegrationId,omitempty"`
	OtherPaymentGatewayIntegrationID    string `json:"otherPaymentGatewayIntegrationId,omitempty"`
}

// demoPasswords are the passwords given by flags; empty ones are random.
type demoPasswords struct {
	admin, viewer, other string
}

// demoFile returns where the demo object is kept for a key ring file:
// beside it, named like it with .demo.json (brandbase.key →
// brandbase.demo.json); "" for no key ring file (the in-memory store).
func demoFile(keyFile string) string {
	if keyFile == "" {
		return ""
	}
	return sibling(keyFile, ".demo.json")
}

// sibling returns the path beside path named like it with ext for its
// extension (a/b.db, ".key" → a/b.key).
func sibling(path, ext string) string {
	return filepath.Join(filepath.Dir(path), strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))+ext)
}

// loadOrSeedDemo seeds the demo data into a store that has no brand yet
// (seeded false) and saves the demo object at path (mode 0600); on a store
// that has brands it reads the object back from path.
func loadOrSeedDemo(ctx context.Context, app *brandbase.App, seeded bool, path string, pw demoPasswords) (demoInfo, error) {
	if seeded {
		b, err := os.ReadFile(path)
		if err != nil {
			return demoInfo{}, fmt.Errorf("the database has data but its demo file cannot be read (delete both to start over): %w", err)
		}
		var d demoInfo
		if err := json.Unmarshal(b, &d); err != nil {
			return demoInfo{}, fmt.Errorf("read %s: %w", path, err)
		}
		// Settings on every start: a database seeded by an older demo
		// gets them too (setting them again changes nothing).
		if err := applyDemoSettings(ctx, app, d); err != nil {
			return d, err
		}
		changed, err := resetDemoPasswords(ctx, app, &d, pw)
		if err != nil || !changed {
			return d, err
		}
		return d, saveDemo(path, d)
	}
	d, err := seedDemo(ctx, app, pw)
	if err != nil {
		return demoInfo{}, err
	}
	if err := applyDemoSettings(ctx, app, d); err != nil {
		return demoInfo{}, err
	}
	return d, saveDemo(path, d)
}

// demoResetOrigins are the origins besides the demo brand's own URL that
// its password-reset links may point to: a front end under development
// (Vite's default port).
var demoResetOrigins = []string{"http://localhost:5173", "http://127.0.0.1:5173"}

// otherMaxDevices is the device cap of the other demo brand.
const otherMaxDevices = 2

// applyDemoSettings gives the demo brands their settings: the demo brand
// opens sign-up and allows reset links to demoResetOrigins (and its own
// URL, always allowed); the other keeps sign-up closed and caps devices at
// otherMaxDevices a user.
func applyDemoSettings(ctx context.Context, app *brandbase.App, d demoInfo) error {
	for _, s := range []struct {
		url string
		bs  auth.BrandSettings
	}{
		{d.BrandURL, auth.BrandSettings{RegistrationOpen: true, ResetLinkOrigins: demoResetOrigins}},
		{d.OtherBrandURL, auth.BrandSettings{MaxDevicesPerUser: otherMaxDevices}},
	} {
		b, err := app.Auth.ResolveBrand(ctx, s.url)
		if err != nil {
			return fmt.Errorf("demo brand %s: %w", s.url, err)
		}
		if err := app.Auth.SetBrandSettings(ctx, b.ID, s.bs); err != nil {
			return fmt.Errorf("settings of demo brand %s: %w", s.url, err)
		}
	}
	return nil
}

// saveDemo writes the demo object to path (mode 0600); nothing for "".
func saveDemo(path string, d demoInfo) error {
	if path == "" {
		return nil
	}
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o600)
}

// resetDemoPasswords gives the demo users of a seeded database the
// passwords that flags name (an empty one keeps the stored password), and
// records them in d. It reports whether any changed.
func resetDemoPasswords(ctx context.Context, app *brandbase.App, d *demoInfo, pw demoPasswords) (bool, error) {
	changed := false
	for _, u := range []struct {
		password  string
		username  string
		brandURLs []string
		field     *string
	}{
		{pw.admin, d.Username, []string{d.BrandURL}, &d.Password},
		{pw.viewer, d.ViewerUsername, []string{d.BrandURL, d.OtherBrandURL}, &d.ViewerPassword},
		{pw.other, d.OtherUsername, []string{d.OtherBrandURL}, &d.OtherPassword},
	} {
		if u.password == "" || u.password == *u.field {
			continue
		}
		for _, url := range u.brandURLs {
			if err := setDemoPassword(ctx, app, url, u.username, u.password); err != nil {
				return changed, err
			}
		}
		*u.field, changed = u.password, true
	}
	return changed, nil
}

// setDemoPassword sets the password of the user of the brand at brandURL
// named username.
func setDemoPassword(ctx context.Context, app *brandbase.App, brandURL, username, password string) error {
	b, err := app.Auth.ResolveBrand(ctx, brandURL)
	if err != nil {
		return fmt.Errorf("demo brand %s: %w", brandURL, err)
	}
	u, err := app.Auth.UserByUsername(ctx, b.ID, username)
	if err != nil {
		return fmt.Errorf("demo user %s of %s: %w", username, brandURL, err)
	}
	if err := app.Auth.SetPassword(ctx, u.ID, password); err != nil {
		return fmt.Errorf("set the password of %s of %s: %w", username, brandURL, err)
	}
	return nil
}

// seedDemo creates the demo brands (and, as they exist, their users and
// integrations).
func seedDemo(ctx context.Context, app *brandbase.App, pw demoPasswords) (demoInfo, error) {
	var d demoInfo
	var brands []auth.Brand
	for _, nb := range []auth.NewBrand{
		{URL: demoBrandURL, Name: "Demo Shop", DefaultCurrency: "USD"},
		{URL: otherBrandURL, Name: "Other Shop", DefaultCurrency: "EUR"},
	} {
		b, err := app.Auth.CreateBrand(ctx, nb)
		if err != nil {
			return d, fmt.Errorf("create brand %s: %w", nb.URL, err)
		}
		brands = append(brands, b)
	}
	d.BrandURL, d.OtherBrandURL = demoBrandURL, otherBrandURL
	if err := seedDemoUsers(ctx, app, brands[0], brands[1], pw, &d); err != nil {
		return d, err
	}
	if err := seedDemoIntegrations(ctx, app, brands[0], brands[1], &d); err != nil {
		return d, err
	}
	return d, nil
}

// seedDemoUsers creates, in each brand, an admin (every permission) and a
// viewer (no permission), and records their credentials in d. The two
// admins have different names; the viewer has the same name and password
// in both brands, which shows that same-named users of two brands are two
// users whose keys never cross. Empty passwords are random.
func seedDemoUsers(ctx context.Context, app *brandbase.App, demo, other auth.Brand, pw demoPasswords, d *demoInfo) error {
	orRandom := func(p string) string {
		if p == "" {
			return randomPassword()
		}
		return p
	}
	d.Username, d.EmailAddress, d.Password = "admin", "admin@"+demoBrandURL, orRandom(pw.admin)
	d.ViewerUsername, d.ViewerPassword = "viewer", orRandom(pw.viewer)
	d.OtherUsername, d.OtherPassword = "other-admin", orRandom(pw.other)
	all := []auth.Permission{auth.PermAll}
	for _, u := range []struct {
		brand auth.Brand
		user  auth.NewUser
	}{
		{demo, auth.NewUser{Username: d.Username, EmailAddress: d.EmailAddress, Password: d.Password, Permissions: all}},
		{demo, auth.NewUser{Username: d.ViewerUsername, EmailAddress: "viewer@" + demoBrandURL, Password: d.ViewerPassword}},
		{other, auth.NewUser{Username: d.OtherUsername, EmailAddress: "admin@" + otherBrandURL, Password: d.OtherPassword, Permissions: all}},
		{other, auth.NewUser{Username: d.ViewerUsername, EmailAddress: "viewer@" + otherBrandURL, Password: d.ViewerPassword}},
	} {
		if _, err := app.Auth.CreateUser(ctx, u.brand.ID, u.user); err != nil {
			return fmt.Errorf("create user %s in %s: %w", u.user.Username, u.brand.URL, err)
		}
	}
	return nil
}

// randomPassword returns a password of 20 URL-safe random characters.
func randomPassword() string {
	return rand.Text()[:20]
}

// lineWriter writes whole lines to one writer, one at a time, so that the
// demo line and the mail lines, written from several goroutines, never
// interleave.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// Write writes p in one call of the underlying writer.
func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// mailSender returns the demo's message sender: it writes each message as
// one line to w, "mail " and the message as a JSON object (to, kind,
// link, brandUrl, ...). The links hold secrets: this is for a demo only.
func mailSender(w io.Writer) auth.MessageSender {
	return auth.MessageSenderFunc(func(_ context.Context, m auth.Message) error {
		b, err := json.Marshal(m)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "mail %s\n", b)
		return err
	})
}

// printDemo writes the "demo {...}" line to w.
func printDemo(w io.Writer, d demoInfo) error {
	b, err := json.Marshal(d)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "demo %s\n", b)
	return err
}
