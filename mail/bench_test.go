package mail_test

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/internal/testkit/smtptest"
	"github.com/brandbase/brandbase/internal/testkit/teststores"
	"github.com/brandbase/brandbase/mail"
	"github.com/brandbase/brandbase/outbox"
	"github.com/brandbase/brandbase/storage"
)

// benchMails is the number of mails BenchmarkMailDelivery sends a round:
// 500, or BRANDBASE_BENCH_MAILS.
func benchMails() int {
	if n, err := strconv.Atoi(os.Getenv("BRANDBASE_BENCH_MAILS")); err == nil && n > 0 {
		return n
	}
	return 500
}

// benchMailBrands is how many brands the mails are spread over, each with
// its default SMTP integration on the same local server.
const benchMailBrands = 16

// BenchmarkMailDelivery measures the mail rate of the real path:
// password_reset mail items queued in the store over 16 brands, claimed by
// the real dispatcher (default options: 64 slots, 8 a brand), rendered
// (mail.RenderFunc: the tests' renderer) and sent by the mail handler
// through each brand's default SMTP integration (password sealed, read
// and opened per mail) to a real SMTP server on loopback (smtptest:
// go-smtp), and settled. "starttls": STARTTLS required and AUTH PLAIN,
// as a brand's integration with useTls on port 587; "plain": no TLS, no
// AUTH (allowed to loopback only). Each mail is one connection (go-mail:
// dial, EHLO, STARTTLS, AUTH, MAIL, RCPT, DATA, QUIT). It reports mails/s
// from the dispatcher's start to the last mail settled. SQLite on a file,
// and PostgreSQL when BRANDBASE_TEST_POSTGRES is set:
//
//	go test -run '^$' -bench MailDelivery -benchtime 1x ./mail
func BenchmarkMailDelivery(b *testing.B) {
	for _, name := range []string{"sqlite", "postgres"} {
		for _, mode := range []struct {
			name string
			tls  smtptest.TLSMode
		}{{"starttls", smtptest.StartTLS}, {"plain", smtptest.NoTLS}} {
			b.Run(name+"/"+mode.name, func(b *testing.B) {
				s := teststores.All[name](b)
				b.Cleanup(func() { s.Close() })
				benchMail(b, s, mode.tls)
			})
		}
	}
}

// benchMail is BenchmarkMailDelivery on s with the server's TLS mode.
func benchMail(b *testing.B, s storage.Storage, mode smtptest.TLSMode) {
	ctx := b.Context()
	opts := smtptest.Options{TLS: mode}
	if mode != smtptest.NoTLS {
		opts.Username, opts.Password = "mailer", "secret-password"
	}
	srv := smtptest.Start(b, opts)
	integ := integrations.NewService(s)
	brands := make([]string, benchMailBrands)
	for i := range brands {
		br, err := auth.NewService(s).CreateBrand(ctx, auth.NewBrand{URL: fmt.Sprintf("m%d.example.com", i), Name: "Shop"})
		require.NoError(b, err)
		brands[i] = br.ID
		sys := auth.SystemPrincipal(br.ID)
		app, err := integ.CreateAppIntegration(ctx, sys, integrations.AppIntegrationInput{
			Type: integrations.TypeSMTP, Name: "Mail", Domain: "https://mail.example.com"})
		require.NoError(b, err)
		port, host, from, useTLS, yes := srv.Port, "localhost", "no-reply@shop.example.com", mode != smtptest.NoTLS, true
		in := integrations.SMTPInput{AppIntegrationID: &app.ID, Name: &host, Host: &host, Port: &port,
			UseTLS: &useTLS, EmailAddressFrom: &from, IsDefault: &yes}
		if useTLS {
			in.Username, in.Password = &opts.Username, &opts.Password
		}
		_, err = integ.CreateSMTP(ctx, sys, in)
		require.NoError(b, err)
	}
	svc := mail.New(integ, mail.WithPolicy(loopback), mail.WithRootCAs(srv.CAs), mail.WithRenderer(renderer))
	n := benchMails()
	var total int
	var took, cpu time.Duration
	for round := 0; b.Loop(); round++ {
		b.StopTimer()
		enqueueMails(b, s, brands, round, n)
		d := outbox.NewDispatcher(s, outbox.WithRetention(-1))
		d.Handle(outbox.ChannelMail, svc)
		b.StartTimer()
		start, cpu0 := time.Now(), cpuTime()
		d.Start()
		waitMailsSettled(b, s, total+n)
		took += time.Since(start)
		cpu += cpuTime() - cpu0
		b.StopTimer()
		require.NoError(b, d.Close())
		total += n
		b.StartTimer()
	}
	require.Len(b, srv.Received(), total, "every mail reached the server once")
	b.ReportMetric(float64(total)/took.Seconds(), "mails/s")
	b.ReportMetric(float64(cpu.Microseconds())/float64(total), "cpu-µs/mail")
}

// enqueueMails queues n password_reset mails over brands, 1,000 a
// transaction.
func enqueueMails(b *testing.B, s storage.Storage, brands []string, round, n int) {
	at := time.Now().UTC()
	batch := make([]outbox.Item, 0, 1000)
	for i := range n {
		payload, err := json.Marshal(outbox.Mail{Kind: "password_reset", To: fmt.Sprintf("user%d@example.com", i),
			UserID: "u1", Language: "en", Data: map[string]string{"link": "https://shop.example.com/reset?token=abc",
				"brandName": "Shop"}})
		require.NoError(b, err)
		batch = append(batch, outbox.Item{ID: fmt.Sprintf("m_%d_%d", round, i), BrandID: brands[i%len(brands)],
			Channel: outbox.ChannelMail, Topic: "password_reset", Payload: payload, CreatedAt: at})
		if len(batch) == cap(batch) || i == n-1 {
			require.NoError(b, s.Enqueue(b.Context(), batch...))
			batch = batch[:0]
		}
	}
}

// waitMailsSettled returns once no mail item is pending, failing the
// benchmark after a bound.
func waitMailsSettled(b *testing.B, s storage.Storage, want int) {
	deadline := time.Now().Add(time.Duration(max(want, 1000)) * 20 * time.Millisecond)
	for {
		d, err := s.Depth(b.Context())
		require.NoError(b, err)
		if d.Pending[outbox.ChannelMail] == 0 {
			return // none failed: the server's count is checked at the end
		}
		if time.Now().After(deadline) {
			b.Fatalf("not settled: %d mails pending", d.Pending[outbox.ChannelMail])
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// cpuTime returns the CPU time (user and system) the process has used: the
// drain's CPU cost, whatever else the machine runs (PostgreSQL's server
// is another process, not counted).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
