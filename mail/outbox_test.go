package mail_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/internal/testkit/smtptest"
	"github.com/brandbase/brandbase/internal/testkit/teststores"
	"github.com/brandbase/brandbase/mail"
	"github.com/brandbase/brandbase/outbox"
)

// TestDeliverThroughTheOutbox: mail items enqueued in a store are claimed
// by the outbox's dispatcher and sent by the mail handler through the
// brand's default SMTP integration (a real server, STARTTLS, AUTH); the
// server's answers settle them: 250 delivered, 550 failed for good with
// its code, 451 retried later with its code; on every store.
func TestDeliverThroughTheOutbox(t *testing.T) {
	t.Parallel()
	for name := range teststores.All {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := openWorld(t, name)
			srv := smtptest.Start(t, smtptest.Options{TLS: smtptest.StartTLS, Username: "mailer", Password: "secret-password"})
			srv.SetRcpt(func(to string) error {
				switch {
				case strings.HasPrefix(to, "gone@"):
					return smtptest.Refuse(550)
				case strings.HasPrefix(to, "later@"):
					return smtptest.Refuse(451)
				}
				return nil
			})
			w.defaultSMTP(t, srv)
			svc := mail.New(w.integ, mail.WithPolicy(loopback), mail.WithRootCAs(srv.CAs), mail.WithRenderer(renderer))
			d := outbox.NewDispatcher(w.store, outbox.WithPollInterval(20*time.Millisecond))
			d.Handle(outbox.ChannelMail, svc)
			d.Start()
			t.Cleanup(func() { _ = d.Close() })

			ctx := t.Context()
			var items []outbox.Item
			for i, to := range []string{"ada@example.com", "gone@example.com", "later@example.com"} {
				it := mailItem(t, w.brand.ID, to)
				it.ID, it.CreatedAt = "m"+string(rune('1'+i)), time.Now().UTC()
				items = append(items, it)
			}
			require.NoError(t, w.store.Enqueue(ctx, items...))
			d.Notify()

			want := map[string]struct {
				status outbox.Status
				code   int
			}{"m1": {outbox.StatusDelivered, 0}, "m2": {outbox.StatusFailed, 550}, "m3": {outbox.StatusPending, 451}}
			var got []outbox.Item
			require.Eventually(t, func() bool {
				var err error
				got, err = w.store.Items(ctx, outbox.Filter{BrandID: w.brand.ID, Channel: outbox.ChannelMail})
				if err != nil || len(got) != 3 {
					return false
				}
				for _, it := range got {
					if it.Status != want[it.ID].status || it.Attempts == 0 {
						return false
					}
				}
				return true
			}, 10*time.Second, 10*time.Millisecond, "%+v", got)
			for _, it := range got {
				if want[it.ID].code != 0 {
					assert.Equal(t, want[it.ID].code, it.LastCode, it.ID)
					assert.Contains(t, it.LastError, "Mailbox unavailable", "the server's reply is kept: %s", it.ID)
				}
			}
			received := srv.Wait(t, 1, 5*time.Second)
			assert.Equal(t, []string{"ada@example.com"}, received[0].To)
		})
	}
}
