package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

// envVar is one BRANDBASE_* environment variable the command reads: the
// flag it stands for ("" for none), and what it sets. docs/operations.md
// lists the same variables (TestEnvVarsDocumented compares them).
type envVar struct {
	name, flag, help string
}

// envVars are every BRANDBASE_* variable the command reads, in the order
// --help lists them. A flag given on the command line wins over its
// variable.
var envVars = []envVar{
	{"BRANDBASE_DATABASE_URL", "db", "the database: an SQLite file, :memory:, or a postgres:// URL (every command)"},
	{"BRANDBASE_SECRET_KEYS", "", "the secrets key ring itself: <id>:<base64 key> entries separated by commas or newlines, the first encrypts (no flag: a key never goes on the command line)"},
	{"BRANDBASE_SECRET_KEYS_FILE", "secret-keys-file", "a key ring file, one <id>:<base64 key> line a key (keys generate --out makes one); keys rotate rewrites it"},
	{"BRANDBASE_ADDR", "addr", "serve: the address of the API and the probes (default :8080)"},
	{"BRANDBASE_METRICS_ADDR", "metrics-addr", "serve: the address of a listener of its own serving /metrics (Prometheus text format); off when empty"},
	{"BRANDBASE_CORS_ORIGINS", "cors-origins", "serve: comma-separated origins allowed to call the API from a browser, * for any; off when empty"},
	{"BRANDBASE_TRUSTED_PROXIES", "trusted-proxies", "serve: comma-separated address prefixes (CIDR) of the reverse proxies whose X-Forwarded-For is trusted"},
	{"BRANDBASE_LOG_FORMAT", "log-format", "serve: json or text (default json)"},
	{"BRANDBASE_LOG_LEVEL", "log-level", "serve: the lowest level logged: debug, info, warn or error (default info)"},
	{"BRANDBASE_LOG_REQUESTS", "log-requests", "serve: the level of the line logged per request, or off (default info)"},
	{"BRANDBASE_SHUTDOWN_TIMEOUT", "shutdown-timeout", "serve: how long requests in flight may finish on SIGINT or SIGTERM (default 10s)"},
	{"BRANDBASE_RATE_LIMIT", "rate-limit", "serve: false turns the API's rate limits off (default true)"},
	{"BRANDBASE_OUTBOUND_ALLOW", "outbound-allow", "serve, smtp test: comma-separated address ranges an outgoing connection (an SMTP server) may reach beyond the public internet: loopback, private; none when empty"},
}

// envOf returns the variable of flag name, or "".
func envOf(name string) string {
	for _, e := range envVars {
		if e.flag == name {
			return e.name
		}
	}
	return ""
}

// writeEnvHelp lists envVars.
func writeEnvHelp(w io.Writer) {
	fmt.Fprintln(w, "Environment (a flag given wins):")
	for _, e := range envVars {
		flagName := ""
		if e.flag != "" {
			flagName = " (--" + e.flag + ")"
		}
		fmt.Fprintf(w, "  %s%s\n      %s\n", e.name, flagName, e.help)
	}
}

// common are the flags of every command that works on the database.
type common struct {
	db       string
	keysFile string
	json     bool
}

// flags is a command's flag set and what it parsed.
type flags struct {
	*flag.FlagSet
	c      *cli
	usage  string // the usage line: "brandbase user create [flags] USERNAME"
	common common
}

// newFlags returns the flag set of the command usage names, with the
// common flags: --db, --secret-keys-file and --json.
func newFlags(c *cli, name, usage string) *flags {
	f := &flags{FlagSet: flag.NewFlagSet(name, flag.ContinueOnError), c: c, usage: usage}
	f.SetOutput(io.Discard)
	f.StringVar(&f.common.db, "db", "", "the database: an SQLite file, :memory:, or a postgres:// URL")
	f.StringVar(&f.common.keysFile, "secret-keys-file", "", "the secrets key ring file (or BRANDBASE_SECRET_KEYS holds the ring)")
	f.BoolVar(&f.common.json, "json", false, "print JSON instead of a table")
	return f
}

// parse parses args, flags and positional arguments in any order ("--"
// ends the flags), fills the flags not given from their BRANDBASE_*
// variables, and returns the positional arguments. --help prints the
// usage and returns errHelp; a bad flag is a usage error.
func (f *flags) parse(args []string) ([]string, error) {
	var pos []string
	for {
		err := f.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			f.printUsage()
			return nil, errHelp
		}
		if err != nil {
			return nil, usageError{err.Error()}
		}
		args = f.Args()
		if len(args) == 0 {
			break
		}
		if args[0] == "--" {
			pos = append(pos, args[1:]...)
			break
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
	set := map[string]bool{}
	f.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	var err error
	f.VisitAll(func(fl *flag.Flag) {
		env := envOf(fl.Name)
		if set[fl.Name] || env == "" || err != nil {
			return
		}
		if v := f.c.getenv(env); v != "" {
			if serr := f.Set(fl.Name, v); serr != nil {
				err = usagef("%s=%q: %v", env, v, serr)
			}
		}
	})
	return pos, err
}

// printUsage prints the usage line, the flags (each with its variable)
// and, for serve, the environment.
func (f *flags) printUsage() {
	w := f.c.stdout
	fmt.Fprintf(w, "Usage: %s\n\nFlags:\n", f.usage)
	f.VisitAll(func(fl *flag.Flag) {
		def := ""
		if fl.DefValue != "" && fl.DefValue != "false" {
			def = " (default " + fl.DefValue + ")"
		}
		env := ""
		if e := envOf(fl.Name); e != "" {
			env = " [env " + e + "]"
		}
		fmt.Fprintf(w, "  --%s\n      %s%s%s\n", fl.Name, fl.Usage, def, env)
	})
	fmt.Fprintln(w)
	writeEnvHelp(w)
}

// db returns the database the flags name, or a usage error when none.
func (f *flags) db() (string, error) {
	if f.common.db == "" {
		return "", usagef("no database: give --db (an SQLite file or a postgres:// URL) or set BRANDBASE_DATABASE_URL")
	}
	return f.common.db, nil
}

// exactArgs checks the number of positional arguments.
// dbOnly parses args, which must hold no positional argument, and returns
// the database the flags name: the start of every command that takes only
// flags.
func (f *flags) dbOnly(args []string) (string, error) {
	pos, err := f.parse(args)
	if err != nil {
		return "", err
	}
	if err := f.exactArgs(pos); err != nil {
		return "", err
	}
	return f.db()
}

func (f *flags) exactArgs(pos []string, names ...string) error {
	if len(pos) != len(names) {
		return usagef("%s takes %s, got %d argument(s); usage: %s", f.Name(), strings.Join(names, " "), len(pos), f.usage)
	}
	return nil
}

// listFlag is a comma-separated flag value.
func splitList(s string) []string {
	var out []string
	for p := range strings.SplitSeq(s, ",") {
		if p = strings.TrimSpace(p); p != "" && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}
