package auth_test

import (
	"context"
	"encoding/json"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/outbox"
)

// TestResetMailWrittenWithItsToken: with the outbox, a reset request writes
// the token and its mail in one transaction, off the request's path; the
// mail's link works; the host's sender is not called directly; an
// unknown address writes nothing; a change of the user before the write
// ends the token and writes no mail either.
func TestResetMailWrittenWithItsToken(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		held := heldPuts{Storage: e.store, gate: make(chan struct{}), answers: make(chan error, 1)}
		sent := make(chanSender, 4)
		notified := make(chan struct{}, 4)
		svc := auth.NewService(held, auth.WithClock(e.clock.Now), auth.WithArgon2Params(fastArgon2),
			auth.WithMessageSender(sent), auth.WithMailOutbox(func() { notified <- struct{}{} }))
		require.True(t, svc.SendsMessages())
		ctx := t.Context()
		mails := func() []outbox.Item { return outboxItems(t, e.store, e.brand.ID, outbox.ChannelMail) }
		request := func(email string) {
			require.NoError(t, svc.RequestPasswordReset(ctx, e.brand, auth.PasswordResetRequest{
				EmailAddress: email, ResetPasswordLink: "https://shop.example.com/reset"}))
		}
		awaitPut := func() error {
			select {
			case err := <-held.answers:
				return err
			case <-time.After(5 * time.Second):
				t.Fatal("the token was never written")
				return nil
			}
		}

		request("nobody@shop.example.com")
		request("ADMIN@shop.example.com")
		assert.Empty(t, mails(), "nothing written on the request's path")
		close(held.gate)
		require.NoError(t, awaitPut())
		<-notified
		items := mails()
		require.Len(t, items, 1, "one mail, for the known address only")
		it := items[0]
		assert.Equal(t, "password_reset", it.Topic)
		assert.Equal(t, e.admin.ID, it.SubjectID)
		assert.Equal(t, outbox.StatusPending, it.Status)
		var m outbox.Mail
		require.NoError(t, json.Unmarshal(it.Payload, &m))
		assert.Equal(t, "password_reset", m.Kind)
		assert.Equal(t, "admin@shop.example.com", m.To)
		assert.Equal(t, e.admin.ID, m.UserID)
		assert.Equal(t, e.clock.Now().Add(time.Hour).UTC().Format(time.RFC3339), m.Data["expiresAt"])
		assert.Equal(t, "Admin", m.Data["userName"])
		assert.Equal(t, "Shop", m.Data["brandName"])
		assert.Equal(t, "shop.example.com", m.Data["brandUrl"])
		link, err := url.Parse(m.Data["link"])
		require.NoError(t, err)
		assert.Equal(t, "shop.example.com", link.Host)
		assert.Empty(t, sent, "the outbox sends it, not this service")

		before := len(eventsOf(t, e, e.brand.ID))
		require.NoError(t, svc.ResetPassword(ctx, e.brand, auth.PasswordReset{EmailAddress: link.Query().Get("emailAddress"),
			Token: link.Query().Get("token"), NewPassword: "reset by the link"}), "the mailed link works")
		evs := eventsOf(t, e, e.brand.ID)[before:]
		require.Len(t, evs, 1)
		checkEvent(t, e, evs[0], auth.EventUserPasswordReset, func(e *env) string { return e.admin.ID }, nil)
		assert.NotContains(t, string(evs[0].item.Payload), "reset by the link")

		// A change of the user between the request and the write: no
		// token, no mail.
		gate := make(chan struct{})
		held.gate = gate
		svc = auth.NewService(held, auth.WithClock(e.clock.Now), auth.WithArgon2Params(fastArgon2), auth.WithMailOutbox(nil))
		request("admin@shop.example.com")
		require.NoError(t, svc.SetPassword(ctx, e.admin.ID, "changed meanwhile"))
		close(gate)
		assert.ErrorIs(t, awaitPut(), auth.ErrResetTokenInvalid)
		assert.Len(t, mails(), 1, "no mail without its token")
	})
}

// blockingSender holds every Send until release is closed, then counts it.
type blockingSender struct {
	release chan struct{}
	mu      sync.Mutex
	got     int
	done    chan struct{}
	want    int
}

func (b *blockingSender) Send(ctx context.Context, _ auth.Message) error {
	select {
	case <-b.release:
	case <-ctx.Done():
		return ctx.Err()
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.got++
	if b.got == b.want {
		close(b.done)
	}
	return nil
}

// TestResetFloodDropsNoMessage: hundreds of reset requests while the
// host's sender hangs: every one is delivered once it answers (the
// service used to drop every request past 64 in flight); with the outbox,
// every one is written as a mail item.
func TestResetFloodDropsNoMessage(t *testing.T) {
	t.Parallel()
	const n = 300
	for _, viaOutbox := range []bool{false, true} {
		name := map[bool]string{false: "sender", true: "outbox"}[viaOutbox]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, stores["sqlite"])
			b := &blockingSender{release: make(chan struct{}), done: make(chan struct{}), want: n}
			written := make(chan struct{}, n)
			opts := []auth.Option{auth.WithClock(e.clock.Now), auth.WithArgon2Params(fastArgon2), auth.WithMessageSender(b)}
			if viaOutbox {
				opts = append(opts, auth.WithMailOutbox(func() { written <- struct{}{} }))
			}
			svc := auth.NewService(e.store, opts...)
			for range n {
				err := svc.RequestPasswordReset(t.Context(), e.brand, auth.PasswordResetRequest{
					EmailAddress: "admin@shop.example.com", ResetPasswordLink: "https://shop.example.com/reset"})
				require.NoError(t, err)
				require.NotEqual(t, envelope.KindUnavailable, envelope.KindOf(err))
			}
			if viaOutbox {
				for range n {
					select {
					case <-written:
					case <-time.After(10 * time.Second):
						t.Fatal("a mail was not written")
					}
				}
				assert.Len(t, outboxItems(t, e.store, e.brand.ID, outbox.ChannelMail), n, "every request's mail is queued")
				return
			}
			close(b.release)
			select {
			case <-b.done:
			case <-time.After(10 * time.Second):
				b.mu.Lock()
				defer b.mu.Unlock()
				t.Fatalf("%d of %d messages delivered", b.got, n)
			}
		})
	}
}
