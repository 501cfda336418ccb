package main_test

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/internal/testkit/pgtest"
	"github.com/brandbase/brandbase/storage/postgres"
	"github.com/brandbase/brandbase/storage/storeurl"
)

// bin is the brandbase binary the tests run, built once by TestMain.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "brandbase-cmd-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = filepath.Join(dir, "brandbase")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build brandbase:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// result is what one run of the binary gave.
type result struct {
	stdout, stderr string
	code           int
}

// bb runs the binary with args in dir, with env (and PATH, HOME) as its
// whole environment and stdin as its standard input.
func bb(t *testing.T, dir string, env []string, stdin string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}, env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return result{out.String(), errb.String(), code}
}

// ok runs the binary and requires exit 0.
func ok(t *testing.T, dir string, env []string, stdin string, args ...string) string {
	t.Helper()
	r := bb(t, dir, env, stdin, args...)
	require.Equal(t, 0, r.code, "brandbase %s: %s%s", strings.Join(args, " "), r.stdout, r.stderr)
	return r.stdout
}

// okJSON runs the binary with --json and decodes its output into v.
func okJSON(t *testing.T, dir string, env []string, stdin string, v any, args ...string) {
	t.Helper()
	out := ok(t, dir, env, stdin, append(args, "--json")...)
	require.NoError(t, json.Unmarshal([]byte(out), v), out)
}

// failsWith runs the binary and requires exit code, and stderr to be one
// line starting "brandbase: " holding want (no stack trace).
func failsWith(t *testing.T, dir string, env []string, stdin string, code int, want string, args ...string) {
	t.Helper()
	r := bb(t, dir, env, stdin, args...)
	assert.Equal(t, code, r.code, "brandbase %s: %s%s", strings.Join(args, " "), r.stdout, r.stderr)
	lines := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n")
	last := lines[len(lines)-1]
	assert.True(t, strings.HasPrefix(last, "brandbase: "), "the error is one line: %q", r.stderr)
	assert.Contains(t, last, want)
	assert.NotContains(t, r.stderr, "goroutine ", "no stack trace")
}

// stores returns the databases to run a test on: an SQLite file in dir,
// and a schema of its own on the test PostgreSQL when there is one.
func stores(t *testing.T) map[string]func(t *testing.T, dir string) string {
	m := map[string]func(t *testing.T, dir string) string{
		"sqlite": func(t *testing.T, dir string) string { return filepath.Join(dir, "brandbase.db") },
	}
	if os.Getenv(pgtest.EnvURL) != "" {
		m["postgres"] = func(t *testing.T, _ string) string { return pgtest.Schema(t) }
	}
	return m
}

// server is a running brandbase serve.
type server struct {
	cmd    *exec.Cmd
	base   string // http://host:port
	mu     sync.Mutex
	logs   bytes.Buffer
	done   chan error
	stdout bytes.Buffer
}

// startServe starts brandbase serve on a free port and waits for its
// listening line.
func startServe(t *testing.T, dir string, env []string, args ...string) *server {
	t.Helper()
	s := &server{done: make(chan error, 1)}
	s.cmd = exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	s.cmd.Dir = dir
	s.cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}, env...)
	s.cmd.Stdout = &s.stdout
	stderr, err := s.cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, s.cmd.Start())
	listening := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			s.mu.Lock()
			s.logs.WriteString(line + "\n")
			s.mu.Unlock()
			var rec struct{ Msg, URL string }
			if json.Unmarshal([]byte(line), &rec) == nil && rec.Msg == "listening" {
				listening <- strings.TrimSuffix(rec.URL, "/api/v1")
			}
		}
		s.done <- s.cmd.Wait()
	}()
	t.Cleanup(func() {
		if s.cmd.ProcessState == nil {
			_ = s.cmd.Process.Kill()
		}
	})
	select {
	case s.base = <-listening:
	case err := <-s.done:
		t.Fatalf("serve ended before listening (%v): %s", err, s.log())
	case <-time.After(30 * time.Second):
		t.Fatalf("serve did not listen within 30 s: %s", s.log())
	}
	return s
}

func (s *server) log() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.logs.String()
}

// stop sends SIGTERM and requires a clean exit.
func (s *server) stop(t *testing.T) {
	t.Helper()
	require.NoError(t, s.cmd.Process.Signal(syscall.SIGTERM))
	select {
	case err := <-s.done:
		require.NoError(t, err, "serve exits 0 on SIGTERM: %s", s.log())
	case <-time.After(30 * time.Second):
		t.Fatalf("serve did not stop within 30 s")
	}
	assert.Contains(t, s.log(), `"msg":"shutting down"`)
}

// login logs username in through the API, with device headers.
func login(t *testing.T, base, brandURL, username, password string) (int, map[string]any) {
	t.Helper()
	body := fmt.Sprintf(`{"username":%q,"password":%q}`, username, password)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, base+"/api/v1/users/auth", strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Brand-URL", brandURL)
	req.Header.Set("X-Device-Code", "laptop-1")
	req.Header.Set("X-Device-Name", "Test laptop")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var env map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&env))
	return resp.StatusCode, env
}

// get returns the status and body of GET base+path.
func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestFromEmptyToServing takes a new database from empty to a brand with
// an admin who logs in through serve, imports cities, lists the admin's
// sessions and ends them, and rotates the secrets key, on each store,
// with nothing but the command.
func TestFromEmptyToServing(t *testing.T) {
	t.Parallel()
	for name, newDB := range stores(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			db := newDB(t, dir)
			env := []string{"BRANDBASE_DATABASE_URL=" + db, "BRANDBASE_SECRET_KEYS_FILE=keys", "BRANDBASE_LOG_FORMAT=json"}

			var st struct {
				State   string
				Pending []string
			}
			okJSON(t, dir, env, "", &st, "migrate", "status")
			assert.Equal(t, "pending", st.State, "a new database has every migration pending")
			assert.NotEmpty(t, st.Pending)
			failsWith(t, dir, env, "", 1, "not ready: migrations failed", "check")

			var gen struct{ ID string }
			okJSON(t, dir, env, "", &gen, "keys", "generate", "--out", "keys")
			fi, err := os.Stat(filepath.Join(dir, "keys"))
			require.NoError(t, err)
			assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

			okJSON(t, dir, env, "", &st, "migrate", "up")
			assert.Equal(t, "up-to-date", st.State)
			checked := ok(t, dir, env, "", "check")
			assert.Contains(t, checked, "refdata_index  ok")
			if storeurl.IsPostgresURL(db) {
				assert.Contains(t, checked, "listener       ok", "the listener is checked on PostgreSQL")
			}

			var b auth.Brand
			okJSON(t, dir, env, "", &b, "brand", "create", "https://Shop.Example.com/", "--name", "Shop", "--currency", "eur")
			assert.Equal(t, "shop.example.com", b.URL)
			assert.Equal(t, "EUR", b.DefaultCurrency)
			assert.Contains(t, ok(t, dir, env, "", "brand", "list"), "shop.example.com  Shop  Active  EUR")

			// The account routes' brand settings: set, kept when another
			// flag is set, shown.
			var v struct {
				Settings auth.BrandSettings `json:"settings"`
			}
			okJSON(t, dir, env, "", &v, "brand", "set", "shop.example.com", "--sign-up", "--max-devices", "3",
				"--reset-link-origins", "http://localhost:5173, https://app.example.com")
			assert.Equal(t, auth.BrandSettings{RegistrationOpen: true, MaxDevicesPerUser: 3,
				ResetLinkOrigins: []string{"http://localhost:5173", "https://app.example.com"}}, v.Settings)
			okJSON(t, dir, env, "", &v, "brand", "set", "shop.example.com", "--max-devices", "0")
			assert.True(t, v.Settings.RegistrationOpen, "a setting not given is kept")
			assert.Zero(t, v.Settings.MaxDevicesPerUser)
			shown := ok(t, dir, env, "", "brand", "show", "shop.example.com")
			assert.Contains(t, shown, "sign-up")
			assert.Contains(t, shown, "open")
			assert.Contains(t, shown, "https://app.example.com")

			var u auth.User
			okJSON(t, dir, env, "correct horse battery\n", &u, "user", "create", "--brand", "shop.example.com", "admin", "--email", "admin@shop.example.com")
			assert.Empty(t, u.Permissions)
			okJSON(t, dir, env, "", &u, "user", "grant", "--brand", "shop.example.com", "admin", "*")
			assert.Equal(t, []auth.Permission{auth.PermAll}, u.Permissions)

			// Cities from a file, with plain progress lines (not a terminal).
			cities := filepath.Join(dir, "cities.csv")
			require.NoError(t, os.WriteFile(cities, []byte("countryCode,stateCode,name,tags\nFR,,Testville,test\nFR,,Otherville,\nZZ,,Nowhere,\n"), 0o600))
			r := bb(t, dir, env, "", "import", "cities", cities)
			require.Equal(t, 0, r.code, r.stderr)
			assert.Contains(t, r.stdout, "added:")
			assert.Contains(t, r.stderr, "import cities cities.csv: 3 rows, 2 added, 0 updated, 1 skipped")
			assert.Contains(t, r.stdout, "skipped line 4: countryCode: countryCode ZZ is not a known country.")

			// A secret to rotate, written as a host instance would.
			seedIntegration(t, db, filepath.Join(dir, "keys"))

			s := startServe(t, dir, env)
			code, body := get(t, s.base+"/readyz")
			assert.Equal(t, http.StatusOK, code, body)
			status, resp := login(t, s.base, "shop.example.com", "admin", "correct horse battery")
			require.Equal(t, http.StatusOK, status, resp)
			code, body = get(t, s.base+"/api/v1/cities?Name=Testville")
			assert.Equal(t, http.StatusBadRequest, code, "Brand-URL is required: the API answers")
			assert.Contains(t, body, "brand_url_required")
			s.stop(t)
			for _, line := range strings.Split(strings.TrimSpace(s.log()), "\n") {
				assert.True(t, json.Valid([]byte(line)), "every line through the one JSON handler: %s", line)
			}

			var sess struct {
				Devices []auth.Device
			}
			okJSON(t, dir, env, "", &sess, "user", "sessions", "--brand", "shop.example.com", "admin")
			require.Len(t, sess.Devices, 1, "the login registered its device")
			assert.Equal(t, "Test laptop", sess.Devices[0].Name)
			assert.Contains(t, ok(t, dir, env, "", "user", "sessions", "--brand", "shop.example.com", "admin"), "signed in")
			out := ok(t, dir, env, "", "user", "sessions", "--brand", "shop.example.com", "admin", "--end", sess.Devices[0].ID)
			assert.Contains(t, out, "ended the sessions of device")
			assert.Contains(t, out, "ended 20", "the device's sessions ended, as DELETE users/{userId}/devices/{deviceId} ends them")
			assert.Contains(t, ok(t, dir, env, "", "user", "sessions", "--brand", "shop.example.com", "admin", "--end-all"),
				"ended every session of admin")

			// Rotation: a new key, the secret re-encrypted; the old key
			// kept until --retire, then dropped; resumable between.
			var rot struct {
				Primary, Added string
				Reencrypted    int
				Retired, Kept  []string
			}
			okJSON(t, dir, env, "", &rot, "keys", "rotate")
			assert.NotEmpty(t, rot.Added)
			assert.Equal(t, rot.Added, rot.Primary)
			assert.Equal(t, 2, rot.Reencrypted, "the apiKey and apiSecret")
			assert.Equal(t, []string{gen.ID}, rot.Kept)
			rot.Added = ""
			okJSON(t, dir, env, "", &rot, "keys", "rotate")
			assert.Empty(t, rot.Added, "a rotation under way is resumed, not started again")
			assert.Equal(t, 0, rot.Reencrypted)
			okJSON(t, dir, env, "", &rot, "keys", "rotate", "--retire")
			assert.Equal(t, []string{gen.ID}, rot.Retired)
			keys, err := os.ReadFile(filepath.Join(dir, "keys"))
			require.NoError(t, err)
			assert.NotContains(t, string(keys), gen.ID+":", "the old key is gone from the file")
			assert.Contains(t, string(keys), rot.Primary+":")
			var list struct{ Analytics []integrations.Analytics }
			okJSON(t, dir, env, "", &list, "integration", "list", "--brand", "shop.example.com")
			require.Len(t, list.Analytics, 1)
			assert.Equal(t, strings.Repeat("*", 16)+"2345", *list.Analytics[0].APIKey, "read under the new key, masked")
		})
	}
}

// seedIntegration stores an analytics configuration with secrets in the
// brand shop.example.com of db, sealed under the primary key of the key
// file at keyFile, as a host's instance would.
func seedIntegration(t *testing.T, db, keyFile string) {
	t.Helper()
	ctx := t.Context()
	keys, err := integrations.LoadOrCreateKeyRing(keyFile)
	require.NoError(t, err)
	store, err := storeurl.Open(ctx, db, storeurl.Options{})
	require.NoError(t, err)
	defer store.Close()
	app, err := brandbase.New(store, brandbase.Config{SecretKeys: keys})
	require.NoError(t, err)
	defer app.Close()
	b, err := app.Auth.ResolveBrand(ctx, "shop.example.com")
	require.NoError(t, err)
	host := auth.SystemPrincipal(b.ID)
	ai, err := app.Integrations.CreateAppIntegration(ctx, host, integrations.AppIntegrationInput{
		Type: integrations.TypeAnalytics, Name: "Analytics", Domain: "https://analytics.example.com", Description: "x"})
	require.NoError(t, err)
	_, err = app.Integrations.CreateAnalytics(ctx, host, integrations.AnalyticsInput{AppIntegrationID: &ai.ID,
		TrackingID: new("G-1"), APIKey: new("key-0123456789012345"), APISecret: new("secret-0123456789")})
	require.NoError(t, err)
}

// TestSetPasswordEndsResetToken: a reset link asked for before an operator
// set the user's password (user set-password) no longer resets it, and
// neither does one asked for before user deactivate.
func TestSetPasswordEndsResetToken(t *testing.T) {
	t.Parallel()
	for name, newDB := range stores(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			db := newDB(t, dir)
			env := []string{"BRANDBASE_DATABASE_URL=" + db, "BRANDBASE_SECRET_KEYS=" + strings.TrimSpace(integrations.FormatKey("k1", integrations.GenerateKey()))}
			ok(t, dir, env, "", "migrate", "up")
			ok(t, dir, env, "", "brand", "create", "shop.example.com", "--name", "Shop")
			ok(t, dir, env, "correct horse battery\n", "user", "create", "--brand", "shop.example.com", "ann", "--email", "ann@shop.example.com")
			for _, step := range []struct {
				name string
				args []string
			}{
				{"set-password", []string{"user", "set-password", "--brand", "shop.example.com", "ann"}},
				{"deactivate", []string{"user", "deactivate", "--brand", "shop.example.com", "ann"}},
			} {
				token := askReset(t, db, "ann@shop.example.com")
				ok(t, dir, env, "set by the operator\n", step.args...)
				err := resetWith(t, db, "ann@shop.example.com", token)
				assert.Equal(t, auth.CodeInvalidToken, envelope.CodeOf(err), "%s ended the token", step.name)
			}
		})
	}
}

// askReset asks, in-process, for a password-reset link for email in the
// brand shop.example.com of db, and returns its token.
func askReset(t *testing.T, db, email string) string {
	t.Helper()
	sent := make(chan auth.Message, 1)
	app, brand, done := openApp(t, db, sent)
	defer done()
	require.NoError(t, app.Auth.RequestPasswordReset(t.Context(), brand, auth.PasswordResetRequest{
		EmailAddress: email, ResetPasswordLink: "https://shop.example.com/reset"}))
	select {
	case m := <-sent:
		link, err := url.Parse(m.Link)
		require.NoError(t, err)
		return link.Query().Get("token")
	case <-time.After(10 * time.Second):
		t.Fatal("no reset message")
		return ""
	}
}

// resetWith resets, in-process, the password of email with token in the
// brand shop.example.com of db.
func resetWith(t *testing.T, db, email, token string) error {
	t.Helper()
	app, brand, done := openApp(t, db, make(chan auth.Message, 1))
	defer done()
	return app.Auth.ResetPassword(t.Context(), brand, auth.PasswordReset{EmailAddress: email, Token: token, NewPassword: "taken back by the reader"})
}

// openApp opens db as a host's instance would, its messages sent to sent,
// and returns it with the brand shop.example.com and the function that
// closes both the App and its store.
func openApp(t *testing.T, db string, sent chan auth.Message) (*brandbase.App, auth.Brand, func()) {
	t.Helper()
	store, err := storeurl.Open(t.Context(), db, storeurl.Options{})
	require.NoError(t, err)
	keys, err := integrations.NewKeyRing("k1", map[string][]byte{"k1": integrations.GenerateKey()})
	require.NoError(t, err)
	mailer := auth.MessageSenderFunc(func(_ context.Context, m auth.Message) error { sent <- m; return nil })
	app, err := brandbase.New(store, brandbase.Config{SecretKeys: keys, AuthOptions: []auth.Option{auth.WithMessageSender(mailer)}})
	if err != nil {
		store.Close()
		require.NoError(t, err)
	}
	done := func() {
		app.Close()
		store.Close()
	}
	b, err := app.Auth.ResolveBrand(t.Context(), "shop.example.com")
	if err != nil {
		done()
		require.NoError(t, err)
	}
	return app, b, done
}

// TestNewerSchema: a schema that a newer binary migrated is named by
// migrate status, refused by migrate up (nothing changes, exit 1), failed
// by check, and served by serve, which says so once in its log and in
// the readiness body.
func TestNewerSchema(t *testing.T) {
	t.Parallel()
	for name, newDB := range stores(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			db := newDB(t, dir)
			env := []string{"BRANDBASE_DATABASE_URL=" + db, "BRANDBASE_SECRET_KEYS=" + strings.TrimSpace(integrations.FormatKey("k1", integrations.GenerateKey()))}
			ok(t, dir, env, "", "migrate", "up")
			markNewer(t, db)

			var st struct {
				State string
				Newer []string
			}
			okJSON(t, dir, env, "", &st, "migrate", "status")
			assert.Equal(t, "newer", st.State)
			assert.Equal(t, []string{"9999_from_the_future.sql"}, st.Newer)
			assert.Contains(t, ok(t, dir, env, "", "migrate", "status"), "9999_from_the_future.sql      newer than this binary")

			failsWith(t, dir, env, "", 1, "the database schema is newer than this binary (migrations it does not hold: 9999_from_the_future.sql): nothing changed", "migrate", "up")
			okJSON(t, dir, env, "", &st, "migrate", "status")
			assert.Equal(t, []string{"9999_from_the_future.sql"}, st.Newer, "migrate up changed nothing")
			failsWith(t, dir, env, "", 1, "not ready: migrations failed", "check")

			s := startServe(t, dir, env, "--log-format", "json")
			code, body := get(t, s.base+"/readyz")
			assert.Equal(t, http.StatusOK, code, "serve keeps serving on a newer schema")
			assert.Contains(t, body, `"degraded":["migrations"]`)
			get(t, s.base+"/readyz")
			s.stop(t)
			assert.Equal(t, 1, strings.Count(s.log(), "readiness check degraded"), "said once: %s", s.log())
			assert.Contains(t, s.log(), "9999_from_the_future.sql")
		})
	}
}

// markNewer records a migration this binary does not hold, as a newer
// binary's migrate up would.
func markNewer(t *testing.T, db string) {
	t.Helper()
	const insert = `INSERT INTO schema_migrations (version, name) VALUES (9999, '9999_from_the_future.sql')`
	if storeurl.IsPostgresURL(db) {
		cfg, err := postgres.ConnConfig(db)
		require.NoError(t, err)
		conn, err := pgx.ConnectConfig(t.Context(), cfg)
		require.NoError(t, err)
		defer conn.Close(t.Context())
		_, err = conn.Exec(t.Context(), insert)
		require.NoError(t, err)
		return
	}
	sdb, err := sql.Open("sqlite", db)
	require.NoError(t, err)
	defer sdb.Close()
	_, err = sdb.ExecContext(t.Context(), insert)
	require.NoError(t, err)
}

// TestFailures: each failure's message (one line, saying what to do) and
// exit code: 2 for a usage error, 1 for a failure.
func TestFailures(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "brandbase.db")
	key := strings.TrimSpace(integrations.FormatKey("k1", integrations.GenerateKey()))
	env := []string{"BRANDBASE_DATABASE_URL=" + db, "BRANDBASE_SECRET_KEYS=" + key}
	ok(t, dir, env, "", "brand", "create", "shop.example.com", "--name", "Shop")
	for _, tc := range []struct {
		name  string
		env   []string
		stdin string
		code  int
		want  string
		args  []string
	}{
		{"no command", env, "", 2, "no command given", nil},
		{"unknown command", env, "", 2, `unknown command "frobnicate"`, []string{"frobnicate"}},
		{"unknown subcommand", env, "", 2, `unknown subcommand "drop" of brand`, []string{"brand", "drop"}},
		{"no database", nil, "", 2, "no database: give --db (an SQLite file or a postgres:// URL) or set BRANDBASE_DATABASE_URL", []string{"brand", "list"}},
		{"unknown flag", env, "", 2, "flag provided but not defined: -nope", []string{"brand", "list", "--nope"}},
		{"no password flag", env, "", 2, "flag provided but not defined: -password", []string{"user", "create", "--brand", "shop.example.com", "bob", "--password", "x"}},
		{"bad env value", append(env, "BRANDBASE_RATE_LIMIT=maybe"), "", 2, `BRANDBASE_RATE_LIMIT="maybe"`, []string{"serve"}},
		{"bad outbound addresses", env, "", 2, `--outbound-allow takes loopback and private, not "everywhere"`, []string{"serve", "--outbound-allow", "everywhere"}},
		{"bad log format", env, "", 2, "--log-format must be json or text", []string{"serve", "--log-format", "xml"}},
		{"bad proxy", env, "", 2, `--trusted-proxies: "nowhere" is not an address prefix`, []string{"serve", "--trusted-proxies", "nowhere"}},
		{"serve without a key ring", []string{"BRANDBASE_DATABASE_URL=" + db}, "", 1, "no secrets key ring: set BRANDBASE_SECRET_KEYS", []string{"serve"}},
		{"both key sources", append(env, "BRANDBASE_SECRET_KEYS_FILE=keys"), "", 2, "both BRANDBASE_SECRET_KEYS and a key file are set", []string{"integration", "list", "--brand", "shop.example.com"}},
		{"missing key file", []string{"BRANDBASE_DATABASE_URL=" + db, "BRANDBASE_SECRET_KEYS_FILE=nokeys"}, "", 1, "the key file nokeys does not exist (brandbase keys generate --out nokeys makes one)", []string{"integration", "list", "--brand", "shop.example.com"}},
		{"bad key ring", []string{"BRANDBASE_DATABASE_URL=" + db, "BRANDBASE_SECRET_KEYS=k1:notbase64!"}, "", 1, "BRANDBASE_SECRET_KEYS:", []string{"integration", "list", "--brand", "shop.example.com"}},
		{"no password on stdin", env, "", 1, "no password on standard input: pipe it in", []string{"user", "create", "--brand", "shop.example.com", "bob"}},
		{"short password", env, "abc\n", 1, "password", []string{"user", "create", "--brand", "shop.example.com", "bob"}},
		{"unknown brand", env, "", 1, `no brand has the URL or ID "nowhere.example.com" (brandbase brand list shows them)`, []string{"brand", "show", "nowhere.example.com"}},
		{"unknown user", env, "", 1, `brand shop.example.com has no user with the username or ID "ghost"`, []string{"user", "show", "--brand", "shop.example.com", "ghost"}},
		{"bad brand URL", env, "", 1, "url: The brand URL is not a valid domain.", []string{"brand", "create", "not a domain", "--name", "X"}},
		{"brand exists", env, "", 1, "exists", []string{"brand", "create", "shop.example.com", "--name", "Again"}},
		{"brand set nothing", env, "", 2, "brand set changes nothing", []string{"brand", "set", "shop.example.com"}},
		{"missing argument", env, "", 2, "brand create takes URL, got 0 argument(s)", []string{"brand", "create", "--name", "X"}},
		{"import a missing file", env, "", 1, "cannot read missing.csv", []string{"import", "cities", "missing.csv"}},
		{"rotate a ring in the environment", env, "", 1, "the key ring is in BRANDBASE_SECRET_KEYS, which the command cannot rewrite", []string{"keys", "rotate"}},
		{"generate over a file", env, "", 1, "exists: keys generate never overwrites a key file", []string{"keys", "generate", "--out", "brandbase.db"}},
		{"unreachable database", []string{"BRANDBASE_DATABASE_URL=postgres://nobody@127.0.0.1:1/none?connect_timeout=2", "BRANDBASE_SECRET_KEYS=" + key}, "", 1,
			"cannot read the schema of postgres://nobody@127.0.0.1:1/none?connect_timeout=2", []string{"migrate", "status"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			failsWith(t, dir, tc.env, tc.stdin, tc.code, tc.want, tc.args...)
		})
	}
}

// TestHelp: --help exits 0 and lists the flags, each with its variable.
func TestHelp(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := ok(t, dir, nil, "", "serve", "--help")
	assert.Contains(t, out, "--shutdown-timeout")
	assert.Contains(t, out, "[env BRANDBASE_SHUTDOWN_TIMEOUT]")
	assert.Contains(t, ok(t, dir, nil, "", "--help"), "Exit codes: 0 success, 1 failure, 2 usage error.")
	assert.Contains(t, ok(t, dir, nil, "", "user"+"", "--help"), "sessions")
}

// TestEnvVarsDocumented: every BRANDBASE_* variable --help lists is in
// docs/operations.md's section on the command, and no other.
func TestEnvVarsDocumented(t *testing.T) {
	t.Parallel()
	re := regexp.MustCompile(`BRANDBASE_[A-Z_]+[A-Z]`)
	help := re.FindAllString(ok(t, t.TempDir(), nil, "", "serve", "--help"), -1)
	doc, err := os.ReadFile("../../docs/operations.md")
	require.NoError(t, err)
	text := string(doc)
	start := strings.Index(text, "\n## The `brandbase` command")
	require.GreaterOrEqual(t, start, 0, "docs/operations.md has a section on the command")
	section := text[start+1:]
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	documented := re.FindAllString(section, -1)
	slices.Sort(help)
	slices.Sort(documented)
	assert.Equal(t, slices.Compact(help), slices.Compact(documented))
}
