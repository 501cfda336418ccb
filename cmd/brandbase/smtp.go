package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/internal/netguard"
	"github.com/brandbase/brandbase/mail"
)

func runSMTP(ctx context.Context, c *cli, args []string) error {
	return subcommand(ctx, c, "smtp", args, map[string]func(context.Context, *cli, []string) error{
		"create": smtpCreate, "list": smtpList, "test": smtpTest,
	}, []string{"create", "list", "test"})
}

// withBrandKeys opens the database with the key ring (SMTP passwords are
// sealed with it) and calls fn with the brand ref names.
func withBrandKeys(ctx context.Context, f *flags, ref string, fn func(*brandbase.App, auth.Brand) error) error {
	if ref == "" {
		return usagef("no brand: give --brand URL")
	}
	app, done, err := f.openApp(ctx, true, f.c.adminLogger())
	if err != nil {
		return err
	}
	defer done()
	b, err := findBrand(ctx, app, ref)
	if err != nil {
		return err
	}
	return fn(app, b)
}

// smtpApp returns the brand's first SMTP app integration, made (named
// SMTP) when it has none.
func smtpApp(ctx context.Context, app *brandbase.App, b auth.Brand, host string) (integrations.AppIntegration, error) {
	typ := string(integrations.TypeSMTP)
	apps, err := app.Integrations.ListAppIntegrations(ctx, b.ID, integrations.AppIntegrationQuery{Type: &typ})
	if err != nil || len(apps) > 0 {
		return firstApp(apps), err
	}
	return app.Integrations.CreateAppIntegration(ctx, auth.SystemPrincipal(b.ID), integrations.AppIntegrationInput{
		Type: integrations.TypeSMTP, Name: "SMTP", Domain: "https://" + host})
}

func firstApp(apps []integrations.AppIntegration) integrations.AppIntegration {
	if len(apps) == 0 {
		return integrations.AppIntegration{}
	}
	return apps[0]
}

func smtpCreate(ctx context.Context, c *cli, args []string) error {
	f := newFlags(c, "smtp create", "brandbase smtp create --brand URL --host HOST --port PORT --from ADDRESS [flags]  (with --username, the password on standard input or a prompt)")
	brand := f.String("brand", "", "the brand: its URL or ID (required)")
	name := f.String("name", "", "the configuration's name (default: the host)")
	host := f.String("host", "", "the SMTP server's host name or IP address (required)")
	port := f.Int("port", 587, "the SMTP server's port: 465 is implicit TLS, any other STARTTLS with --tls")
	username := f.String("username", "", "the SMTP AUTH user name; the password is then read from standard input or a prompt")
	useTLS := f.Bool("tls", true, "TLS: implicit on port 465, STARTTLS required on any other port; false only for a loopback host")
	from := f.String("from", "", "the sender's address (required)")
	fromName := f.String("from-name", "", "the sender's display name (default: the brand's name)")
	isDefault := f.Bool("default", true, "make it the brand's default SMTP integration, the one its mail goes through")
	description := f.String("description", "", "free text")
	pos, err := f.parse(args)
	if err != nil {
		return err
	}
	if err := f.exactArgs(pos); err != nil {
		return err
	}
	if *brand == "" || *host == "" || *from == "" {
		return usagef("smtp create needs --brand, --host and --from; usage: %s", f.usage)
	}
	if _, err := f.db(); err != nil {
		return err
	}
	in := integrations.SMTPInput{Host: host, Port: port, UseTLS: useTLS, EmailAddressFrom: from, IsDefault: isDefault,
		Name: new(cmpOr(*name, *host)), NameFrom: fromName, Description: description}
	if *username != "" {
		password, err := c.readPassword("SMTP password for " + *username)
		if err != nil {
			return err
		}
		in.Username, in.Password = username, &password
	}
	return withBrandKeys(ctx, f, *brand, func(app *brandbase.App, b auth.Brand) error {
		parent, err := smtpApp(ctx, app, b, *host)
		if err != nil {
			return describe(err)
		}
		in.AppIntegrationID = &parent.ID
		m, err := app.Integrations.CreateSMTP(ctx, auth.SystemPrincipal(b.ID), in)
		if err != nil {
			return describe(err)
		}
		return f.out(m, func(w io.Writer) error { return printTable(w, smtpHeader, [][]string{smtpRow(m)}) })
	})
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

var smtpHeader = []string{"ID", "NAME", "HOST", "PORT", "TLS", "USERNAME", "PASSWORD", "FROM", "DEFAULT", "STATUS"}

func smtpRow(m integrations.SMTP) []string {
	return []string{m.ID, m.Name, m.Host, strconv.Itoa(m.Port), strconv.FormatBool(m.UseTLS), orDash(m.Username),
		masked(m.Password), m.EmailAddressFrom, strconv.FormatBool(m.IsDefault), string(m.Status)}
}

func smtpList(ctx context.Context, c *cli, args []string) error {
	f := newFlags(c, "smtp list", "brandbase smtp list --brand URL [flags]")
	brand := f.String("brand", "", "the brand: its URL or ID (required)")
	pos, err := f.parse(args)
	if err != nil {
		return err
	}
	if err := f.exactArgs(pos); err != nil {
		return err
	}
	return withBrandKeys(ctx, f, *brand, func(app *brandbase.App, b auth.Brand) error {
		list, err := app.Integrations.ListSMTP(ctx, b.ID)
		if err != nil {
			return describe(err)
		}
		if list == nil {
			list = []integrations.SMTP{}
		}
		return f.out(list, func(w io.Writer) error {
			rows := make([][]string, len(list))
			for i, m := range list {
				rows[i] = smtpRow(m)
			}
			return printTable(w, smtpHeader, rows)
		})
	})
}

// smtpTestResult is what smtp test prints.
type smtpTestResult struct {
	Sent   bool   `json:"sent"`
	To     string `json:"to"`
	SMTPID string `json:"smtpId"`
	Server string `json:"server"`
}

func smtpTest(ctx context.Context, c *cli, args []string) error {
	f := newFlags(c, "smtp test", "brandbase smtp test --brand URL --to ADDRESS [flags]")
	brand := f.String("brand", "", "the brand: its URL or ID (required)")
	id := f.String("id", "", "the SMTP integration to test (default: the brand's default)")
	to := f.String("to", "", "the address to send the test message to (required)")
	subject := f.String("subject", "brandbase test message", "the subject")
	body := f.String("body", "This is a test message from brandbase.", "the text")
	allow := f.String("outbound-allow", "", "comma-separated address ranges the connection may reach beyond the public internet: loopback, private")
	pos, err := f.parse(args)
	if err != nil {
		return err
	}
	if err := f.exactArgs(pos); err != nil {
		return err
	}
	policy, err := parseAllow(*allow)
	if err != nil {
		return err
	}
	if *to == "" {
		return usagef("smtp test needs --to ADDRESS; usage: %s", f.usage)
	}
	return withBrandKeys(ctx, f, *brand, func(app *brandbase.App, b auth.Brand) error {
		sender, err := app.Integrations.DefaultSMTP(ctx, b.ID)
		if *id != "" {
			sender, err = app.Integrations.SMTPSender(ctx, b.ID, *id)
		}
		if err != nil {
			return describe(err)
		}
		svc := mail.New(app.Integrations, mail.WithPolicy(policy))
		err = svc.Send(ctx, sender.Server, mail.Message{From: sender.From, FromName: cmpOr(sender.FromName, b.Name), To: *to,
			Subject: *subject, Text: *body})
		if err != nil {
			return fmt.Errorf("the test message was not sent: %w", err)
		}
		server := sender.Server.Host + ":" + strconv.Itoa(sender.Server.Port)
		res := smtpTestResult{Sent: true, To: *to, SMTPID: sender.ID, Server: server}
		return f.out(res, func(w io.Writer) error {
			_, err := fmt.Fprintf(w, "sent a test message to %s through %s (SMTP integration %s)\n", *to, server, sender.ID)
			return err
		})
	})
}

// parseAllow reads --outbound-allow: loopback, private, or both.
func parseAllow(s string) (netguard.Policy, error) {
	var p netguard.Policy
	for _, v := range splitList(strings.ToLower(s)) {
		switch v {
		case "loopback":
			p.AllowLoopback = true
		case "private":
			p.AllowPrivate = true
		default:
			return p, usagef("--outbound-allow takes loopback and private, not %q", v)
		}
	}
	return p, nil
}
