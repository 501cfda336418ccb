package main_test

import (
	"bytes"
	netmail "net/mail"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/internal/testkit/smtptest"
)

// TestSMTPCommand: smtp create seals the password (read from standard
// input), smtp list masks it, smtp test sends through a real SMTP server
// with AUTH, held to the address rule (loopback refused unless --allow
// --outbound-allow loopback), and keys rotate re-seals the password, which still logs in
// afterwards; on each store.
func TestSMTPCommand(t *testing.T) {
	t.Parallel()
	for name, newDB := range stores(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			env := []string{"BRANDBASE_DATABASE_URL=" + newDB(t, dir), "BRANDBASE_SECRET_KEYS_FILE=keys"}
			ok(t, dir, env, "", "keys", "generate", "--out", "keys")
			ok(t, dir, env, "", "migrate", "up")
			ok(t, dir, env, "", "brand", "create", "shop.example.com", "--name", "Shop")
			srv := smtptest.Start(t, smtptest.Options{TLS: smtptest.NoTLS, Username: "mailer", Password: "smtp-secret-4242"})

			failsWith(t, dir, env, "smtp-secret-4242\n", 1, "useTls must be true", "smtp", "create", "--brand", "shop.example.com",
				"--host", "smtp.example.com", "--tls=false", "--username", "mailer", "--from", "no-reply@shop.example.com")
			var created integrations.SMTP
			okJSON(t, dir, env, "smtp-secret-4242\n", &created, "smtp", "create", "--brand", "shop.example.com",
				"--host", "127.0.0.1", "--port", strconv.Itoa(srv.Port), "--tls=false", "--username", "mailer",
				"--from", "no-reply@shop.example.com")
			assert.Equal(t, strings.Repeat("*", 12)+"4242", *created.Password)
			assert.True(t, created.IsDefault)
			out := ok(t, dir, env, "", "smtp", "list", "--brand", "shop.example.com")
			assert.Contains(t, out, strings.Repeat("*", 12)+"4242")
			assert.NotContains(t, out, "smtp-secret")

			failsWith(t, dir, env, "", 1, "not allowed", "smtp", "test", "--brand", "shop.example.com", "--to", "ops@example.com")
			assert.Zero(t, srv.Sessions(), "loopback refused by default: never dialled")
			test := func() {
				t.Helper()
				var res struct {
					Sent bool
					To   string
				}
				okJSON(t, dir, env, "", &res, "smtp", "test", "--brand", "shop.example.com", "--to", "ops@example.com",
					"--outbound-allow", "loopback", "--subject", "Hello from the command")
				assert.True(t, res.Sent)
			}
			test()
			got := srv.Wait(t, 1, 10*time.Second)[0]
			assert.Equal(t, "mailer", got.Auth)
			msg, err := netmail.ReadMessage(bytes.NewReader(got.Data))
			require.NoError(t, err)
			assert.Equal(t, "Hello from the command", msg.Header.Get("Subject"))
			assert.Equal(t, `"Shop" <no-reply@shop.example.com>`, msg.Header.Get("From"))

			var rot struct{ Reencrypted int }
			okJSON(t, dir, env, "", &rot, "keys", "rotate", "--id", "k-rotated")
			assert.Equal(t, 1, rot.Reencrypted, "the SMTP password")
			okJSON(t, dir, env, "", &rot, "keys", "rotate", "--retire")
			test() // the password opens under the new key alone and still logs in
			assert.Equal(t, "mailer", srv.Wait(t, 2, 10*time.Second)[1].Auth)
		})
	}
}
