package brandbase_test

import (
	"context"
	"encoding/csv"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/httpadapter"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/internal/serve"
	"github.com/brandbase/brandbase/locales"
	"github.com/brandbase/brandbase/ratelimit"
	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/storage/memory"
	"github.com/brandbase/brandbase/storage/postgres"
)

// The statements of the pages under docs/ that a test can hold: a route
// list, a default, a limit, each compared with the code it describes, so
// that a change to the code that the page does not follow fails here.

// docRoutes reads the route table of docs/http-api.md (the table headed
// "| route | headers |", its rows whose first cell starts with a code
// span) and returns every route it names, as
// "METHOD /path". A cell may name several: "`GET`, `PUT /a/b/{id}`" is two
// methods of one path; after a path, "`.../c/{id}`" replaces as many of its
// last segments and "`/c`" its last one.
func docRoutes(t *testing.T, page string) []string {
	t.Helper()
	span := regexp.MustCompile("`([^`]*)`")
	var routes []string
	inTable := false
	for line := range strings.SplitSeq(page, "\n") {
		if strings.HasPrefix(line, "| route | headers |") {
			inTable = true
		}
		if inTable && !strings.HasPrefix(line, "|") {
			break
		}
		if !inTable || !strings.HasPrefix(line, "| `") {
			continue
		}
		cell := strings.Split(line, "|")[1]
		var methods, paths []string
		last := ""
		for _, m := range span.FindAllStringSubmatch(cell, -1) {
			s := m[1]
			switch {
			case regexp.MustCompile(`^[A-Z]+$`).MatchString(s):
				methods = append(methods, s)
			case regexp.MustCompile(`^[A-Z]+ /`).MatchString(s):
				method, path, _ := strings.Cut(s, " ")
				methods, last = append(methods, method), path
				paths = append(paths, path)
			case strings.HasPrefix(s, ".../") && last != "":
				tail := strings.Split(strings.TrimPrefix(s, ".../"), "/")
				segs := strings.Split(last, "/")
				paths = append(paths, strings.Join(append(segs[:len(segs)-len(tail)], tail...), "/"))
			case strings.HasPrefix(s, "/") && last != "":
				paths = append(paths, last[:strings.LastIndex(last, "/")]+s)
			}
		}
		for _, p := range paths {
			for _, m := range methods {
				routes = append(routes, m+" "+p)
			}
		}
	}
	return routes
}

// TestDocsRouteTable checks that the route table of docs/http-api.md names
// every route the adapter mounts with every service and a message sender,
// and no other.
func TestDocsRouteTable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store, err := memory.New(ctx)
	require.NoError(t, err)
	t.Cleanup(func() { store.Close() })
	sender := auth.MessageSenderFunc(func(context.Context, auth.Message) error { return nil })
	app, err := brandbase.New(store, brandbase.Config{AuthOptions: []auth.Option{auth.WithMessageSender(sender)}})
	require.NoError(t, err)
	t.Cleanup(func() { app.Close() })
	h, err := app.Handler()
	require.NoError(t, err)
	mounted := h.Routes()
	require.Contains(t, mounted, "POST /api/v1/users/reset-password", "the sender's routes are mounted")

	documented := docRoutes(t, docPages(t)[filepath.Join("docs", "http-api.md")])
	slices.Sort(documented)
	assert.Equal(t, len(slices.Compact(slices.Clone(documented))), len(documented), "a route is listed twice: %v", documented)
	assert.ElementsMatch(t, mounted, documented, "the route table of docs/http-api.md and Handler.Routes()")
	// httpadapter's TestHostileInput sends hostile input to every route.
	assert.Truef(t, strings.Contains(docPages(t)[filepath.Join("docs", "reliability.md")], fmt.Sprintf("on %d routes per store", len(mounted))),
		"docs/reliability.md gives the hostile-input test's routes as other than the %d mounted", len(mounted))
}

// TestDocsRouteTableParse checks how docRoutes reads the table's cells.
func TestDocsRouteTableParse(t *testing.T) {
	t.Parallel()
	got := docRoutes(t, "| `GET /api/v1/before` | a table before |\n\n| route | headers |\n|---|---|\n"+
		"| `POST /api/v1/users/auth` | `Brand-URL` | log in |\n"+
		"| `GET`, `PUT /api/v1/x/analytics/{id}` | `Brand-URL` | read, update |\n"+
		"| `DELETE /api/v1/x/analytics/{id}`, `.../payment-gateway/{id}` | | delete |\n"+
		"| `GET /api/v1/states`, `/timezones` | | lists |\n"+
		"\n| `GET /api/v1/after` | a table after |\n")
	assert.Equal(t, []string{
		"POST /api/v1/users/auth",
		"GET /api/v1/x/analytics/{id}", "PUT /api/v1/x/analytics/{id}",
		"DELETE /api/v1/x/analytics/{id}", "DELETE /api/v1/x/payment-gateway/{id}",
		"GET /api/v1/states", "GET /api/v1/timezones",
	}, got)
}

// TestDocsStateTheDefaults checks defaults and limits the pages quote
// against the constants they come from.
func TestDocsStateTheDefaults(t *testing.T) {
	t.Parallel()
	pages := docPages(t)
	d := httpadapter.DefaultRateLimits()
	// rate says a policy as docs/rate-limits.md does: "10 per minute",
	// "50 per second, bursts of 100".
	rate := func(p ratelimit.Policy) string {
		unit := map[time.Duration]string{time.Second: "second", time.Minute: "minute", time.Hour: "hour"}[p.Per]
		require.NotEmpty(t, unit, "a policy per %v", p.Per)
		s := fmt.Sprintf("%d per %s", p.Limit, unit)
		if p.Burst != 0 {
			s += fmt.Sprintf(", bursts of %d", p.Burst)
		}
		return s
	}
	for _, c := range []struct {
		page, says string
	}{
		{"operations.md", fmt.Sprintf("in batches of %d configurations", integrations.DefaultRotateBatch)},
		{"integrations.md", fmt.Sprintf("in batches of %d\n  configurations", integrations.DefaultRotateBatch)},
		{"reference-data.md", fmt.Sprintf("`PageSize` 1 to %d, default %d.", refdata.MaxPageSize, refdata.DefaultPageSize)},
		{"reference-data.md", fmt.Sprintf("clamped to %d,", refdata.MaxPageSize)},
		{"reference-data.md", fmt.Sprintf("text over %d bytes is a 400", refdata.MaxTextLength)},
		{"rate-limits.md", "| `POST /api/v1/users/auth` | " + rate(d.LoginPerIdentifier) + " | brand and username or email address |"},
		{"rate-limits.md", "| `POST /api/v1/users/auth` | " + rate(d.LoginPerIP) + " | client IP |"},
		{"rate-limits.md", "| `POST /api/v1/users/auth/refresh-auth-key` | " + rate(d.Refresh) + " | client IP (`RateLimits.Refresh`) |"},
		{"rate-limits.md", "| `GET` currencies, countries, cities (together) | " + rate(d.Lists) + " | brand and client IP |"},
		{"rate-limits.md", "| " + rate(d.Updates) + " | user |"},
		{"rate-limits.md", "| `POST /api/v1/users/check-auth-key-available` | " + rate(d.Refresh) + " (`RateLimits.Refresh`, buckets of its own)"},
		{"rate-limits.md", "| `POST /api/v1/users/register` | " + rate(d.Register) + " (`RateLimits.Register`)"},
		{"rate-limits.md", "| " + rate(d.PasswordReset) + " (`RateLimits.PasswordReset`) | client IP |"},
		{"rate-limits.md", fmt.Sprintf("`RateLimit-Policy` (`%d;w=%d`)", d.Lists.Burst, int(time.Duration(d.Lists.Burst)*d.Lists.Per/time.Duration(d.Lists.Limit)/time.Second))},
	} {
		assert.Contains(t, pages[filepath.Join("docs", c.page)], c.says, "docs/%s", c.page)
	}
}

// TestDocsNameTestsThatExist checks that every test, benchmark and fuzz
// target the pages name (`TestX`, `BenchmarkX`, `FuzzX`, alone in a code
// span or opening one) is a function of some _test.go file: a page that
// says which test holds a guarantee must name one that runs.
func TestDocsNameTestsThatExist(t *testing.T) {
	t.Parallel()
	declared := map[string]bool{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && path != "." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv == nil {
				declared[fn.Name.Name] = true
			}
		}
		return nil
	})
	require.NoError(t, err)
	require.True(t, declared["TestDocsNameTestsThatExist"], "the scan finds the tests")
	named := regexp.MustCompile("`((?:Test|Benchmark|Fuzz)[A-Z][A-Za-z0-9_]*)")
	for page, text := range docPages(t) {
		for _, m := range named.FindAllStringSubmatch(text, -1) {
			assert.True(t, declared[m[1]], "%s names %s, which no _test.go declares", page, m[1])
		}
	}
}

// TestDocsNameIdentifiersThatExist checks that every identifier of the
// module's packages the pages name in a code span (`auth.WithKeyCache`,
// `integrations.RotateOptions`, `auth.Service.Login`, `refdata.Paging.Size`)
// is declared: a function, type, constant or variable of that package, or
// a method or field of that type.
func TestDocsNameIdentifiersThatExist(t *testing.T) {
	t.Parallel()
	names := map[string]bool{} // "pkg.Name", "pkg.Type.Member"
	types := map[string]bool{} // "pkg.Type"
	pkgs := map[string]bool{}
	for path, f := range sourceFiles(t) {
		if strings.HasPrefix(path, "examples") || strings.HasPrefix(path, "cmd") || strings.Contains(path, "internal") {
			continue
		}
		pkg := f.Name.Name
		pkgs[pkg] = true
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					names[pkg+"."+d.Name.Name] = true
					continue
				}
				recv := d.Recv.List[0].Type
				if star, ok := recv.(*ast.StarExpr); ok {
					recv = star.X
				}
				if idx, ok := recv.(*ast.IndexExpr); ok {
					recv = idx.X
				}
				if id, ok := recv.(*ast.Ident); ok {
					names[pkg+"."+id.Name+"."+d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						names[pkg+"."+s.Name.Name] = true
						types[pkg+"."+s.Name.Name] = true
						var fields *ast.FieldList
						switch tt := s.Type.(type) {
						case *ast.StructType:
							fields = tt.Fields
						case *ast.InterfaceType:
							fields = tt.Methods
						}
						if fields != nil {
							for _, fl := range fields.List {
								for _, n := range fl.Names {
									names[pkg+"."+s.Name.Name+"."+n.Name] = true
								}
								if len(fl.Names) == 0 { // embedded: its members are promoted
									names[pkg+"."+s.Name.Name+".*"] = true
								}
							}
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							names[pkg+"."+n.Name] = true
						}
					}
				}
			}
		}
	}
	require.True(t, names["auth.Service.Login"], "the scan finds methods")
	ident := regexp.MustCompile("`([a-z]+)\\.([A-Z][A-Za-z0-9_]*)(?:\\.([A-Z][A-Za-z0-9_]*))?")
	for page, text := range docPages(t) {
		if strings.HasSuffix(page, "changelog.md") {
			continue // names what was removed, on purpose
		}
		for _, m := range ident.FindAllStringSubmatch(text, -1) {
			pkg, name, member := m[1], m[2], m[3]
			if !pkgs[pkg] || strings.HasPrefix(name, "Example") {
				continue // examples: TestReadmeNamesRunnableExamples
			}
			if !assert.True(t, names[pkg+"."+name], "%s names %s.%s, which package %s does not declare", page, pkg, name, pkg) || member == "" {
				continue
			}
			if !types[pkg+"."+name] || names[pkg+"."+name+".*"] {
				continue // a variable's methods, and promoted members, are not followed
			}
			assert.True(t, names[pkg+"."+name+"."+member], "%s names %s.%s.%s, which is not a method or field of %s.%s", page, pkg, name, member, pkg, name)
		}
		// The Go of the code fences: what a host would paste.
		for _, block := range regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(text, -1) {
			for _, m := range regexp.MustCompile(`\b([a-z]+)\.([A-Z][A-Za-z0-9_]*)`).FindAllStringSubmatch(block[1], -1) {
				if pkgs[m[1]] && !strings.HasPrefix(m[2], "Example") {
					assert.True(t, names[m[1]+"."+m[2]], "%s: a Go block names %s.%s, which package %s does not declare", page, m[1], m[2], m[1])
				}
			}
		}
	}
}

// TestDocsNameEveryMetric checks that docs/observability.md names every
// metric the library records (the Metric* constants of internal/telemetry).
func TestDocsNameEveryMetric(t *testing.T) {
	t.Parallel()
	var metrics []string
	for path, f := range sourceFiles(t) {
		if filepath.Dir(path) != filepath.Join("internal", "telemetry") {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			vs, ok := n.(*ast.ValueSpec)
			if !ok {
				return true
			}
			for i, name := range vs.Names {
				if lit, ok := valueAt(vs, i).(*ast.BasicLit); ok && strings.HasPrefix(name.Name, "Metric") && lit.Kind == token.STRING {
					metrics = append(metrics, strings.Trim(lit.Value, `"`))
				}
			}
			return true
		})
	}
	require.GreaterOrEqual(t, len(metrics), 10, "the scan finds the metrics")
	page := docPages(t)[filepath.Join("docs", "observability.md")]
	for _, m := range metrics {
		assert.Contains(t, page, "`"+m+"`", "docs/observability.md does not name the metric %s", m)
	}
}

// valueAt returns the i-th value of vs, or nil.
func valueAt(vs *ast.ValueSpec, i int) ast.Expr {
	if i < len(vs.Values) {
		return vs.Values[i]
	}
	return nil
}

// TestDocsExampleFlagDefaults checks the defaults docs/configuration.md
// gives the flags of the programs under examples/ against the literal
// defaults their flag declarations give (fs.StringVar(&x, "addr",
// "127.0.0.1:8080", ...), fs.BoolVar(&x, "rate-limit", true, ...)).
func TestDocsExampleFlagDefaults(t *testing.T) {
	t.Parallel()
	defaults := map[string]map[string]string{} // program -> flag -> default
	for path, f := range sourceFiles(t) {
		dir := filepath.ToSlash(filepath.Dir(path))
		if !strings.HasPrefix(dir, "examples/") {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || !regexp.MustCompile(`^(String|Bool|Int)(Var)?$`).MatchString(sel.Sel.Name) {
				return true
			}
			at := 0
			if strings.HasSuffix(sel.Sel.Name, "Var") {
				at = 1
			}
			if len(call.Args) < at+2 {
				return true
			}
			name, ok := call.Args[at].(*ast.BasicLit)
			if !ok {
				return true
			}
			var def string
			switch v := call.Args[at+1].(type) {
			case *ast.BasicLit:
				def = strings.Trim(v.Value, `"`)
			case *ast.Ident: // true, false
				def = v.Name
			default:
				return true
			}
			if def != "" {
				if defaults[dir] == nil {
					defaults[dir] = map[string]string{}
				}
				defaults[dir][strings.Trim(name.Value, `"`)] = def
			}
			return true
		})
	}
	require.Equal(t, "127.0.0.1:8080", defaults["examples/server"]["addr"], "the scan finds the demo's flags")

	page := docPages(t)[filepath.Join("docs", "configuration.md")]
	_, table, ok := strings.Cut(page, "\n## The programs under examples\n")
	require.True(t, ok, "docs/configuration.md has a section on the programs under examples")
	documented := map[string]map[string]string{} // program -> flag -> the default cell
	program := ""
	for line := range strings.SplitSeq(table, "\n") {
		cells := strings.Split(line, "|")
		if !strings.HasPrefix(line, "| ") || len(cells) < 5 {
			continue
		}
		if m := regexp.MustCompile("^ `(examples/[a-z]+)`").FindStringSubmatch(cells[1]); m != nil {
			program = m[1]
		}
		for _, flag := range regexp.MustCompile("`-([a-z-]+)`").FindAllStringSubmatch(cells[2], -1) {
			if documented[program] == nil {
				documented[program] = map[string]string{}
			}
			documented[program][flag[1]] = strings.TrimSpace(cells[3])
		}
	}
	for program, flags := range defaults {
		for flag, def := range flags {
			cell, ok := documented[program][flag]
			if assert.True(t, ok, "docs/configuration.md has no row for -%s of %s", flag, program) {
				assert.Equal(t, "`"+def+"`", cell, "docs/configuration.md: the default of -%s of %s", flag, program)
			}
		}
	}
	// The README's Two commands give some of the demo server's defaults too.
	quoted := regexp.MustCompile("`-([a-z-]+)` \\(default `([^`]+)`").FindAllStringSubmatch(docPages(t)["README.md"], -1)
	require.NotEmpty(t, quoted, "the README gives the demo server's defaults")
	for _, m := range quoted {
		assert.Equal(t, defaults["examples/server"][m[1]], m[2], "README.md: the default of -%s of examples/server", m[1])
	}
}

// TestDocsListEveryPermission checks that docs/in-process.md, where a
// host learns what a user's permissions let it change, names every
// permission auth declares (its Perm* constants).
func TestDocsListEveryPermission(t *testing.T) {
	t.Parallel()
	var perms []string
	for path, f := range sourceFiles(t) {
		if filepath.Dir(path) != "auth" {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if vs, ok := n.(*ast.ValueSpec); ok {
				for _, name := range vs.Names {
					if strings.HasPrefix(name.Name, "Perm") && name.IsExported() {
						perms = append(perms, name.Name)
					}
				}
			}
			return true
		})
	}
	require.Contains(t, perms, "PermAll", "the scan finds the permissions")
	page := docPages(t)[filepath.Join("docs", "in-process.md")]
	for _, p := range perms {
		assert.Contains(t, page, "`auth."+p+"`", "docs/in-process.md does not name the permission auth.%s", p)
	}
}

// TestDocsNameEveryRateLimitPolicy checks that docs/observability.md,
// where brandbase.rate_limit.policy takes its values, names every policy
// of httpadapter.DefaultRateLimits.
func TestDocsNameEveryRateLimitPolicy(t *testing.T) {
	t.Parallel()
	d := reflect.ValueOf(httpadapter.DefaultRateLimits())
	var names []string
	for i := range d.NumField() {
		if p, ok := d.Field(i).Interface().(ratelimit.Policy); ok {
			names = append(names, p.Name)
		}
	}
	require.GreaterOrEqual(t, len(names), 5, "the scan finds the policies")
	page := docPages(t)[filepath.Join("docs", "observability.md")]
	for _, n := range names {
		assert.Truef(t, strings.Contains(page, "`"+n+"`"), "docs/observability.md does not name the rate-limit policy %s", n)
	}
}

// TestDocsTablesAreWhole checks that no table of a page is cut by a blank
// line: a row that follows a line outside a table opens a table, so the
// next line must be its header's separator (|---|); otherwise Markdown
// shows the rows after the cut as text.
func TestDocsTablesAreWhole(t *testing.T) {
	t.Parallel()
	for path, text := range docPages(t) {
		lines := strings.Split(text, "\n")
		fenced := false
		for i, l := range lines {
			if strings.HasPrefix(strings.TrimSpace(l), "```") {
				fenced = !fenced
			}
			if fenced || !strings.HasPrefix(l, "|") || (i > 0 && strings.HasPrefix(lines[i-1], "|")) {
				continue
			}
			next := ""
			if i+1 < len(lines) {
				next = lines[i+1]
			}
			assert.Regexp(t, `^\|[ :]*-{3,}`, next, "%s:%d: a table row outside a table (a blank line before it?): %s", path, i+1, l)
		}
	}
}

// TestDocsConfigurationNamesEveryOption checks that docs/configuration.md,
// which gives "every option and its default", has a row for every
// exported With* option of the packages a host configures (a function
// returning its package's Option): `pkg.WithX(` opening a table row.
func TestDocsConfigurationNamesEveryOption(t *testing.T) {
	t.Parallel()
	packages := []string{"auth", "integrations", "refdata", "httpadapter", "outbox"}
	var options []string
	for path, f := range sourceFiles(t) {
		pkg := filepath.Dir(path)
		if !slices.Contains(packages, pkg) {
			continue
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !fn.Name.IsExported() || !strings.HasPrefix(fn.Name.Name, "With") ||
				fn.Type.Results == nil || len(fn.Type.Results.List) != 1 {
				continue
			}
			if id, ok := fn.Type.Results.List[0].Type.(*ast.Ident); ok && id.Name == "Option" {
				options = append(options, pkg+"."+fn.Name.Name)
			}
		}
	}
	require.GreaterOrEqual(t, len(options), 25, "the scan finds the options")
	page := docPages(t)[filepath.Join("docs", "configuration.md")]
	for _, o := range options {
		assert.Truef(t, strings.Contains(page, "\n| `"+o+"("), "docs/configuration.md has no row for %s", o)
	}
}

// TestDocsStateTheConfigDefaults checks the defaults the pages give the
// settings of brandbase.Config, the auth options, the limiter, the
// PostgreSQL store's bounds and the subdivision list against the values
// they come from.
func TestDocsStateTheConfigDefaults(t *testing.T) {
	t.Parallel()
	pages := docPages(t)
	codes, notes := subdivisionRows(t)
	words := []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
		"eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"}
	require.Less(t, notes, len(words), "the additions to the subdivision list are counted in words")
	for _, c := range []struct {
		page, says string
	}{
		{"configuration.md", "| `AuthKeyTTL` | " + human(auth.DefaultAuthKeyTTL) + " |"},
		{"configuration.md", "| `RefreshKeyTTL` | " + human(auth.DefaultRefreshKeyTTL) + " |"},
		{"configuration.md", "| `RefreshReuseInterval` | " + human(auth.DefaultRefreshReuseInterval) + " (`auth.DefaultRefreshReuseInterval`)"},
		{"configuration.md", "| `KeyCacheTTL` | " + human(auth.DefaultKeyCacheTTL) + ";"},
		{"configuration.md", "| `MaxHashWait` | " + human(auth.DefaultMaxHashWait) + ";"},
		{"configuration.md", "| `auth.WithMaxHashWait(d)` | `auth.DefaultMaxHashWait`: " + human(auth.DefaultMaxHashWait) + " |"},
		{"configuration.md", "| `auth.WithKeyLifetimes(authKey, refreshKey)` | " + human(auth.DefaultAuthKeyTTL) + ", " + human(auth.DefaultRefreshKeyTTL) + " |"},
		{"configuration.md", "| `auth.WithRefreshReuseInterval(d)` | `auth.DefaultRefreshReuseInterval`: " + human(auth.DefaultRefreshReuseInterval) + " "},
		{"configuration.md", "| `auth.WithKeyCache(ttl, size)` | " + human(auth.DefaultKeyCacheTTL) + ", " + thousands(auth.DefaultKeyCacheSize) + " answers"},
		{"configuration.md", "`ratelimit.New(ratelimit.Config{})`: at most " + thousands(ratelimit.DefaultMaxBuckets) + " buckets"},
		{"configuration.md", fmt.Sprintf("Request bodies up to %d MiB (`httpadapter.MaxBodyBytes`)", httpadapter.MaxBodyBytes>>20)},
		{"several-instances.md", "(" + human(auth.DefaultKeyCacheTTL) + ", at most " + thousands(auth.DefaultKeyCacheSize) + " of each;"},
		{"reliability.md", "| " + human(postgres.DefaultConnectTimeout) + " (`postgres.DefaultConnectTimeout`) |"},
		{"reliability.md", "| " + human(postgres.DefaultQueryTimeout) + " (`postgres.DefaultQueryTimeout`):"},
		{"reliability.md", fmt.Sprintf("`BatchSize` configurations (%d)", integrations.DefaultRotateBatch)},
		{"operations.md", "(`httpadapter.DefaultCheckTimeout`, " + human(httpadapter.DefaultCheckTimeout) + ")"},
		{"operations.md", "(`httpadapter.DefaultReadinessCacheFor`, " + human(httpadapter.DefaultReadinessCacheFor) + ";"},
		{"operations.md", fmt.Sprintf("`ReadinessConfig.RetryAfter` sets the `Retry-After` of a 503 (%d s by\ndefault)", envelope.DefaultRetryAfter)},
		{"reference-data.md", "(" + thousands(codes) + " codes in 2026)"},
		{"reference-data.md", fmt.Sprintf("the %d ISO 3166-1 countries", csvRows(t, filepath.Join("refdata", "data", "countries.csv")))},
		{"reference-data.md", "(`" + auth.DefaultCurrency + "` unless the brand sets another)"},
		{"reference-data.md", "There are " + words[notes] + "."},
		{"data-sources.md", "of every level (" + thousands(codes) + ")"},
		{"data-sources.md", "the " + thousands(auth.CommonPasswordCount) + " most common passwords"},
	} {
		assert.Truef(t, strings.Contains(pages[filepath.Join("docs", c.page)], c.says), "docs/%s does not say %q", c.page, c.says)
	}
}

// subdivisionRows counts the rows of refdata/data/subdivisions.csv and
// those with a note (the additions to its source).
func subdivisionRows(t *testing.T) (rows, notes int) {
	t.Helper()
	f, err := os.Open(filepath.Join("refdata", "data", "subdivisions.csv"))
	require.NoError(t, err)
	defer f.Close()
	r := csv.NewReader(f)
	r.Comment = '#'
	recs, err := r.ReadAll()
	require.NoError(t, err)
	require.Equal(t, []string{"countryCode", "code", "name", "parent", "note"}, recs[0], "the header")
	for _, rec := range recs[1:] {
		if rec[4] != "" {
			notes++
		}
	}
	return len(recs) - 1, notes
}

// human says a duration as the pages do: "24 h", "30 days", "10 s".
func human(d time.Duration) string {
	switch {
	case d >= 48*time.Hour && d%(24*time.Hour) == 0:
		return fmt.Sprintf("%d days", d/(24*time.Hour))
	case d >= time.Hour && d%time.Hour == 0:
		return fmt.Sprintf("%d h", d/time.Hour)
	case d%time.Second == 0:
		return fmt.Sprintf("%d s", d/time.Second)
	}
	return fmt.Sprintf("%d ms", d/time.Millisecond)
}

// thousands says a count as the pages do: "10,000".
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// TestDocsStateTheAuthLimits checks the limits and lifetimes
// docs/authentication.md gives (its lines joined, as a reader reads them)
// against auth's constants.
func TestDocsStateTheAuthLimits(t *testing.T) {
	t.Parallel()
	page := strings.Join(strings.Fields(docPages(t)[filepath.Join("docs", "authentication.md")]), " ")
	// spelt says a few durations in words, as the page does.
	spelt := map[time.Duration]string{time.Minute: "once a minute", time.Hour: "one hour"}
	for _, says := range []string{
		"`authKey` lives " + human(auth.DefaultAuthKeyTTL) + " (`expiresIn`",
		"`refreshAuthKey` " + human(auth.DefaultRefreshKeyTTL) + " (`Config.AuthKeyTTL`, `RefreshKeyTTL`)",
		"more than " + human(auth.DefaultRefreshReuseInterval) + " after its rotation",
		"**Within the reuse interval** (" + human(auth.DefaultRefreshReuseInterval) + ", `auth.DefaultRefreshReuseInterval`;",
		"keeps a checked key for " + human(auth.DefaultKeyCacheTTL) + " (`Config.KeyCacheTTL`;",
		"`Config.MaxHashWait` (" + human(auth.DefaultMaxHashWait) + ")",
		fmt.Sprintf("at least %d characters, at most %d bytes", auth.MinPasswordLen, auth.MaxPasswordBytes),
		"not one of the " + thousands(auth.CommonPasswordCount) + " most common passwords",
		fmt.Sprintf("`MaxDevicesPerUser` is 0 to %d (`auth.MaxDeviceCap`)", auth.MaxDeviceCap),
		fmt.Sprintf("each of `ResetLinkOrigins` (at most %d)", auth.MaxResetLinkOrigins),
		"valid `auth.ResetTokenTTL` (" + spelt[auth.ResetTokenTTL] + ")",
		"`auth.DefaultSendTimeout` (" + human(auth.DefaultSendTimeout) + ")",
		fmt.Sprintf("within the last %d minutes (`auth.OnlineWindow`)", auth.OnlineWindow/time.Minute),
		"at most " + spelt[auth.AccessWriteInterval] + " per device (`auth.AccessWriteInterval`)",
	} {
		assert.Truef(t, strings.Contains(page, says), "docs/authentication.md does not say %q", says)
	}
}

// TestDocsDataSourcesVersions checks the versions docs/data-sources.md
// gives against the module and the data: the dataset's version, x/text's
// version in go.mod, and the counts of the time zones and languages.
func TestDocsDataSourcesVersions(t *testing.T) {
	t.Parallel()
	page := strings.Join(strings.Fields(docPages(t)[filepath.Join("docs", "data-sources.md")]), " ")
	mod, err := os.ReadFile("go.mod")
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^\s*golang\.org/x/text (v\S+)`).FindStringSubmatch(string(mod))
	require.NotNil(t, m, "go.mod requires golang.org/x/text")
	zones, err := os.ReadFile(filepath.Join("locales", "data", "zone.tab"))
	require.NoError(t, err)
	rows := 0
	for line := range strings.SplitSeq(string(zones), "\n") {
		if line != "" && !strings.HasPrefix(line, "#") {
			rows++
		}
	}
	for _, says := range []string{
		"`refdata.DatasetVersion` (`" + refdata.DatasetVersion + "`)",
		"dataset `" + refdata.DatasetVersion + "` | MIT",
		"through `golang.org/x/text` " + m[1] + " |",
		"`golang.org/x/text/language/display` " + m[1] + " (",
		fmt.Sprintf("one row per country and zone (%d)", rows),
		fmt.Sprintf("The %d ISO 639-1 codes in force", len(locales.Languages())),
	} {
		assert.Truef(t, strings.Contains(page, says), "docs/data-sources.md does not say %q", says)
	}
}

// TestDocsIndexesListEachPageOnce checks that docs/README.md and the
// README's Further reading have one row a page.
func TestDocsIndexesListEachPageOnce(t *testing.T) {
	t.Parallel()
	pages := docPages(t)
	row := regexp.MustCompile(`(?m)^\| \[[^\]]+\]\(([^)#]+)\)`)
	for _, index := range []string{filepath.Join("docs", "README.md"), "README.md"} {
		seen := map[string]int{}
		for _, m := range row.FindAllStringSubmatch(pages[index], -1) {
			seen[m[1]]++
		}
		require.NotEmpty(t, seen, "%s has an index of the pages", index)
		for page, n := range seen {
			assert.Equalf(t, 1, n, "%s lists %s %d times", index, page, n)
		}
	}
}

// TestDocsNameScenariosThatExist checks that every conformance scenario a
// page names (`Auth/Users/OneNamespace`, `Auth/KeyPairs/Reissue*`,
// 'TestConformance/Auth/Users/Conflicts') is a path of subtests that
// storage/storagetest runs: each segment a subtest name it declares (a
// trailing * the start of one).
func TestDocsNameScenariosThatExist(t *testing.T) {
	t.Parallel()
	names := map[string]bool{}
	for path, f := range sourceFiles(t) {
		if filepath.Dir(path) != filepath.Join("storage", "storagetest") {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				names[strings.Trim(lit.Value, "`\"")] = true
			}
			return true
		})
	}
	known := func(seg string) bool {
		if prefix, wild := strings.CutSuffix(seg, "*"); wild {
			for n := range names {
				if strings.HasPrefix(n, prefix) {
					return true
				}
			}
			return false
		}
		return names[seg]
	}
	scenario := regexp.MustCompile("[`'](?:TestConformance/)?((?:Brands|RefData|Auth|Integrations|Cancellation|Migrations)(?:/[A-Za-z*]+)+)[`']")
	found := 0
	for path, text := range docPages(t) {
		for _, m := range scenario.FindAllStringSubmatch(text, -1) {
			found++
			for seg := range strings.SplitSeq(m[1], "/") {
				assert.Truef(t, known(seg), "%s names the scenario %s, whose %q storage/storagetest does not run", path, m[1], seg)
			}
		}
	}
	require.GreaterOrEqual(t, found, 8, "the scan finds the scenarios the pages name")
}

// TestDocsTestCommandsSelectSomething checks that every go test command a
// page gives selects, with each of its -run, -bench and -fuzz patterns,
// a function of each package it names (-run '^$' and -run x select none
// on purpose): a renamed or removed test, benchmark or fuzz target leaves
// no command that runs nothing.
func TestDocsTestCommandsSelectSomething(t *testing.T) {
	t.Parallel()
	command := regexp.MustCompile("go test [^\n`]*")
	pattern := regexp.MustCompile(`-(run|bench|fuzz)[ =]('[^']*'|\S+)`)
	funcs := regexp.MustCompile(`(?m)^func ((Test|Benchmark|Fuzz|Example)\w*)\(`)
	funcsOf := func(dir string) []string {
		paths, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
		require.NoError(t, err)
		var names []string
		for _, p := range paths {
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			for _, m := range funcs.FindAllStringSubmatch(string(b), -1) {
				names = append(names, m[1])
			}
		}
		return names
	}
	kinds := map[string][]string{"run": {"Test", "Fuzz", "Example"}, "bench": {"Benchmark"}, "fuzz": {"Fuzz"}}
	found := 0
	for path, text := range docPages(t) {
		for _, cmd := range command.FindAllString(text, -1) {
			var pkgs []string
			for _, arg := range strings.Fields(cmd) {
				if (arg == "." || strings.HasPrefix(arg, "./")) && !strings.Contains(arg, "<") && !strings.HasSuffix(arg, "...") {
					pkgs = append(pkgs, filepath.Clean(arg))
				}
			}
			for _, m := range pattern.FindAllStringSubmatch(cmd, -1) {
				expr := strings.Trim(m[2], "'")
				if m[1] == "run" && (expr == "^$" || expr == "x") {
					continue
				}
				top, _, _ := strings.Cut(expr, "/") // the top-level function's part
				re, err := regexp.Compile(top)
				if !assert.NoError(t, err, "%s: %s", path, cmd) {
					continue
				}
				for _, pkg := range pkgs {
					found++
					selects := slices.ContainsFunc(funcsOf(pkg), func(name string) bool {
						return re.MatchString(name) && slices.ContainsFunc(kinds[m[1]], func(k string) bool { return strings.HasPrefix(name, k) })
					})
					assert.Truef(t, selects, "%s: %q: -%s %s selects nothing in %s", path, cmd, m[1], m[2], pkg)
				}
			}
		}
	}
	require.GreaterOrEqual(t, found, 25, "the scan finds the pages' test commands")
}

// csvRows counts the records of a CSV file under its header.
func csvRows(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	return len(recs) - 1
}

// TestDocsListCacheControl checks that docs/reference-data.md gives the
// Cache-Control a list answers with, as a real answer of the adapter
// carries it.
func TestDocsListCacheControl(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store, err := memory.New(ctx)
	require.NoError(t, err)
	t.Cleanup(func() { store.Close() })
	app, err := brandbase.New(store, brandbase.Config{})
	require.NoError(t, err)
	t.Cleanup(func() { app.Close() })
	_, err = app.Auth.CreateBrand(ctx, auth.NewBrand{URL: "docs.example.com", Name: "Docs"})
	require.NoError(t, err)
	h, err := app.Handler()
	require.NoError(t, err)
	req := httptest.NewRequest(http.MethodGet, "/api/v1/currencies?PageSize=1", nil)
	req.Header.Set("Brand-URL", "docs.example.com")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	cc := rec.Header().Get("Cache-Control")
	require.NotEmpty(t, cc)
	page := docPages(t)[filepath.Join("docs", "reference-data.md")]
	assert.Truef(t, strings.Contains(page, "`Cache-Control: "+cc+"`"), "docs/reference-data.md does not give the lists' Cache-Control, %q", cc)
}

// TestDocsServerTimeouts checks the timeouts docs/operations.md gives the
// http.Server of the demo server and brandbase serve against the server
// internal/serve makes.
func TestDocsServerTimeouts(t *testing.T) {
	t.Parallel()
	srv := serve.NewHTTPServer(http.NotFoundHandler(), slog.New(slog.DiscardHandler))
	page := docPages(t)[filepath.Join("docs", "operations.md")]
	for _, says := range []string{
		"| `ReadHeaderTimeout` | " + human(srv.ReadHeaderTimeout) + " ",
		"| `ReadTimeout` | " + human(srv.ReadTimeout) + " ",
		"| `WriteTimeout` | " + human(srv.WriteTimeout) + " ",
		"| `IdleTimeout` | " + human(srv.IdleTimeout) + " ",
		fmt.Sprintf("| `MaxHeaderBytes` | %d KiB |", srv.MaxHeaderBytes>>10),
		fmt.Sprintf("Request bodies are limited to %d MiB by the adapter", httpadapter.MaxBodyBytes>>20),
	} {
		assert.Truef(t, strings.Contains(page, says), "docs/operations.md does not say %q", says)
	}
}
