// Command brandbase runs and administers brandbase on the database a
// host's instances share (an SQLite file or a PostgreSQL URL): it serves
// the HTTP API with production defaults, migrates the schema, creates
// brands and users, lists integrations, imports reference data, rotates
// the secrets key and checks readiness, with no Go to write.
//
//	brandbase serve                  # BRANDBASE_DATABASE_URL, BRANDBASE_SECRET_KEYS...
//	brandbase migrate status|up
//	brandbase brand create|list|show|set
//	brandbase user create|list|show|set-password|grant|revoke|activate|deactivate|sessions|collisions
//	brandbase integration list --brand URL
//	brandbase smtp create|list|test --brand URL
//	brandbase import cities|countries|currencies FILE
//	brandbase keys generate|rotate
//	brandbase check
//
// Every command takes --db (or BRANDBASE_DATABASE_URL) and prints a table,
// or JSON with --json. It exits 0 on success, 1 on failure and 2 on a
// usage error, with one line on stderr saying what to do. Passwords are
// read from standard input or a prompt, never from the command line.
// docs/operations.md walks through it.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	c := &cli{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv}
	code := c.run(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}

// cli is one run of the command: its streams and environment.
type cli struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
}

// usageError is a mistake in the command line: exit code 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// usagef returns a usageError.
func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// errHelp is returned when --help was asked for and printed: exit 0.
var errHelp = errors.New("help")

// command is one command or group of the command line.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, c *cli, args []string) error
}

// commands are the top-level commands, in the order --help lists them.
func commands() []command {
	return []command{
		{"serve", "serve the HTTP API (production defaults; see brandbase serve --help)", runServe},
		{"migrate", "migrate status | migrate up: the database schema", runMigrate},
		{"check", "what /readyz checks, from the command line (exit 1 when not ready)", runCheck},
		{"brand", "brand create | list | show | set", runBrand},
		{"user", "user create | list | show | set-password | grant | revoke | activate | deactivate | sessions | collisions", runUser},
		{"integration", "integration list --brand URL (secrets masked)", runIntegration},
		{"template", "template list | set | delete: a brand's message templates", runTemplate},
		{"smtp", "smtp create | list | test: the brand's SMTP integrations (its mail)", runSMTP},
		{"webhook", "webhook create | list | delete | rotate-secret | deliveries --brand URL", runWebhook},
		{"import", "import cities | countries | currencies FILE", runImport},
		{"keys", "keys generate | keys rotate: the secrets key ring", runKeys},
	}
}

// run runs the command line args and returns the exit code.
func (c *cli) run(ctx context.Context, args []string) int {
	err := c.dispatch(ctx, args)
	var ue usageError
	switch {
	case err == nil, errors.Is(err, errHelp):
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(c.stderr, "brandbase: %s (see brandbase --help)\n", oneLine(ue.msg))
		return 2
	default:
		fmt.Fprintf(c.stderr, "brandbase: %s\n", oneLine(err.Error()))
		return 1
	}
}

// oneLine joins the lines of s into one.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}

func (c *cli) dispatch(ctx context.Context, args []string) error {
	if len(args) == 0 {
		c.usage(c.stderr)
		return usagef("no command given")
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		c.usage(c.stdout)
		return errHelp
	}
	for _, cmd := range commands() {
		if cmd.name == args[0] {
			return cmd.run(ctx, c, args[1:])
		}
	}
	return usagef("unknown command %q", args[0])
}

// usage prints the top-level help.
func (c *cli) usage(w io.Writer) {
	fmt.Fprintln(w, "Usage: brandbase COMMAND [flags]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	for _, cmd := range commands() {
		fmt.Fprintf(w, "  %-12s %s\n", cmd.name, cmd.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Every command takes --db (a SQLite file or a postgres:// URL) and --json; COMMAND --help lists its flags.")
	fmt.Fprintln(w, "Exit codes: 0 success, 1 failure, 2 usage error.")
	fmt.Fprintln(w)
	writeEnvHelp(w)
}

// subcommand runs the subcommand of a group named by args[0].
func subcommand(ctx context.Context, c *cli, group string, args []string, subs map[string]func(context.Context, *cli, []string) error, order []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintf(c.stdout, "Usage: brandbase %s SUBCOMMAND [flags]\n\nSubcommands: %s\n(brandbase %s SUBCOMMAND --help lists its flags)\n",
			group, strings.Join(order, ", "), group)
		if len(args) == 0 {
			return usagef("brandbase %s needs a subcommand: %s", group, strings.Join(order, ", "))
		}
		return errHelp
	}
	fn, ok := subs[args[0]]
	if !ok {
		return usagef("unknown subcommand %q of %s (one of %s)", args[0], group, strings.Join(order, ", "))
	}
	return fn(ctx, c, args[1:])
}
