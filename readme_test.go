package brandbase_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase"
)

// The README and the pages under docs/ are the adopters' manual; these
// tests keep them in step with the code: every error code, every option
// and flag, the runnable examples they name, the demo line's keys, a quick
// start that compiles in a module of its own, links that lead somewhere,
// and no citation of a document that does not ship with the repository.
// A name may be documented on any page (README.md or docs/*.md): the
// checks read them all, so that text can move between pages.

// readme returns README.md.
func readme(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("README.md")
	require.NoError(t, err)
	return string(b)
}

// docPages returns the text of README.md and of every docs/*.md page, by
// path.
func docPages(t *testing.T) map[string]string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("docs", "*.md"))
	require.NoError(t, err)
	require.NotEmpty(t, paths, "the reference pages under docs/")
	pages := map[string]string{}
	for _, p := range append([]string{"README.md"}, paths...) {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		pages[p] = string(b)
	}
	return pages
}

// docs returns the text of README.md and every docs/*.md page together:
// what a name must appear in.
func docs(t *testing.T) string {
	t.Helper()
	pages := docPages(t)
	var b strings.Builder
	for _, p := range slices.Sorted(func(yield func(string) bool) {
		for p := range pages {
			if !yield(p) {
				return
			}
		}
	}) {
		b.WriteString(pages[p])
		b.WriteString("\n")
	}
	return b.String()
}

// sourceFiles parses every non-test Go file of the module.
func sourceFiles(t *testing.T) map[string]*ast.File {
	t.Helper()
	files := map[string]*ast.File{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != "." || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		files[path] = f
		return nil
	})
	require.NoError(t, err)
	require.NotEmpty(t, files)
	return files
}

// codeLiteral matches what an error code looks like.
var codeLiteral = regexp.MustCompile(`^[a-z]+(_[a-z]+)*$`)

// errorTypes are the struct types whose Code field is an error code.
var errorTypes = map[string]bool{"Error": true, "ErrorItem": true, "RowError": true}

// typeName returns the name of a type expression (T or pkg.T), or "".
func typeName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return e.Sel.Name
	}
	return ""
}

// errorCodes returns every error code the code base can answer with, and
// where each is made: the code arguments of envelope.New, envelope.Field
// and Validation.Add calls, the Code of envelope.Error, ErrorItem and
// refdata.RowError literals, and the Code* constants those name.
func errorCodes(t *testing.T) map[string]string {
	t.Helper()
	files := sourceFiles(t)
	consts := map[string]string{} // Code* constant name -> value
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			vs, ok := n.(*ast.ValueSpec)
			if !ok {
				return true
			}
			for i, name := range vs.Names {
				if strings.HasPrefix(name.Name, "Code") && i < len(vs.Values) {
					if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
						consts[name.Name], _ = strconv.Unquote(lit.Value)
					}
				}
			}
			return true
		})
	}
	value := func(e ast.Expr) (string, bool) {
		switch e := e.(type) {
		case *ast.BasicLit:
			if e.Kind == token.STRING {
				s, _ := strconv.Unquote(e.Value)
				return s, codeLiteral.MatchString(s)
			}
		case *ast.Ident:
			v, ok := consts[e.Name]
			return v, ok
		case *ast.SelectorExpr:
			v, ok := consts[e.Sel.Name]
			return v, ok
		}
		return "", false
	}
	codes := map[string]string{}
	for path, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				var name string
				switch fn := n.Fun.(type) {
				case *ast.SelectorExpr:
					name = fn.Sel.Name
				case *ast.Ident:
					name = fn.Name
				}
				if (name == "New" || name == "Field" || name == "Add") && len(n.Args) == 3 {
					if c, ok := value(n.Args[1]); ok {
						codes[c] = path
					}
				}
			case *ast.CompositeLit:
				if !errorTypes[typeName(n.Type)] {
					return true
				}
				for _, e := range n.Elts {
					kv, ok := e.(*ast.KeyValueExpr)
					if key, isIdent := kv.Key.(*ast.Ident); ok && isIdent && key.Name == "Code" {
						if c, ok := value(kv.Value); ok {
							codes[c] = path
						}
					}
				}
			}
			return true
		})
	}
	return codes
}

func TestReadmeListsEveryErrorCode(t *testing.T) {
	t.Parallel()
	codes := errorCodes(t)
	for _, c := range []string{"brand_url_required", "invalid_credentials", "required", "rate_limited", "internal_error"} {
		require.Contains(t, codes, c, "the scan finds the codes it must")
	}
	text := docs(t)
	for _, c := range slices.Sorted(func(yield func(string) bool) {
		for c := range codes {
			if !yield(c) {
				return
			}
		}
	}) {
		assert.True(t, strings.Contains(text, "`"+c+"`"), "the documentation (README.md, docs/*.md) does not name the error code %s (made in %s)", c, codes[c])
	}
}

// flagNames returns the flags a command's source defines with the flag
// package (fs.StringVar(&x, "name", ...), fs.Bool("name", ...), ...).
func flagNames(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	for path, f := range sourceFiles(t) {
		if filepath.Dir(path) != dir {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || !regexp.MustCompile(`^(String|Bool|Int|Int64|Uint|Duration|Float64|Func|Text)(Var)?$`).MatchString(sel.Sel.Name) {
				return true
			}
			arg := 0
			if strings.HasSuffix(sel.Sel.Name, "Var") {
				arg = 1
			}
			if len(call.Args) > arg {
				if lit, ok := call.Args[arg].(*ast.BasicLit); ok && lit.Kind == token.STRING {
					s, _ := strconv.Unquote(lit.Value)
					names = append(names, s)
				}
			}
			return true
		})
	}
	return names
}

func TestReadmeListsEveryOption(t *testing.T) {
	t.Parallel()
	text := docs(t)
	cfg := reflect.TypeFor[brandbase.Config]()
	for i := range cfg.NumField() {
		assert.True(t, strings.Contains(text, "`"+cfg.Field(i).Name+"`"), "the documentation (README.md, docs/*.md) does not name Config.%s", cfg.Field(i).Name)
	}
	// Every exported function of httpadapter and auth that returns an Option.
	for path, f := range sourceFiles(t) {
		dir := filepath.Dir(path)
		if dir != "httpadapter" && dir != "auth" && dir != "integrations" {
			continue
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !fn.Name.IsExported() || fn.Type.Results == nil || len(fn.Type.Results.List) != 1 {
				continue
			}
			if id, ok := fn.Type.Results.List[0].Type.(*ast.Ident); ok && id.Name == "Option" {
				assert.True(t, (strings.Contains(text, "`"+dir+"."+fn.Name.Name+"(") || strings.Contains(text, "`"+dir+"."+fn.Name.Name+"`")), "the documentation (README.md, docs/*.md) does not name the option %s.%s", dir, fn.Name.Name)
			}
		}
	}
	for _, dir := range []string{"examples/server", "examples/embed", "examples/inprocess"} {
		names := flagNames(t, dir)
		require.NotEmpty(t, names, dir)
		for _, name := range names {
			assert.True(t, strings.Contains(text, "`-"+name+"`"), "the documentation (README.md, docs/*.md) does not name the flag -%s of %s", name, dir)
		}
	}
}

// quickStart returns the README's Quick start section.
func quickStart(t *testing.T) string {
	t.Helper()
	_, after, ok := strings.Cut(readme(t), "\n## Quick start\n")
	require.True(t, ok, "the README has a Quick start section")
	after, _, _ = strings.Cut(after, "\n## ")
	return after
}

// TestReadmeQuickStartBuilds compiles the quick start's program as a
// newcomer would: in a module of its own that uses a local copy of
// brandbase (this repository) in each of the two ways the README gives,
// running the README's own go work / go mod edit lines with ../brandbase
// pointing here. The go mod tidy the README asks for is left out: go build
// adds the requirements instead (-mod=mod). The builds share the module
// cache and proxy of the go test that runs them, and fetch what they lack
// as it does: a workspace reads the go.mod of every module brandbase
// requires, even one no package built here imports (go-isatty, which
// modernc.org/libc imports on other systems than Linux), which go test
// itself never fetched, so a build from the cache only failed on an empty
// module cache.
func TestReadmeQuickStartBuilds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	t.Parallel()
	section := quickStart(t)
	m := regexp.MustCompile("(?s)```go\n(package main\n.*?)```").FindStringSubmatch(section)
	require.NotNil(t, m, "the Quick start holds a ```go block with a main package")
	program := m[1]
	assert.NotContains(t, section, "\ngo get ", "go get fails: the module is not published")
	assert.Contains(t, section, "\nrequire github.com/brandbase/brandbase v0.0.0\nreplace github.com/brandbase/brandbase => ../brandbase\n",
		"the Quick start gives the go.mod lines of a local copy")
	root, err := os.Getwd()
	require.NoError(t, err)
	// command returns the Quick start's command line that starts with
	// prefix, split into words, ../brandbase replaced by this repository.
	command := func(prefix string) []string {
		line := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(prefix) + `.*$`).FindString(section)
		require.NotEmpty(t, line, "the Quick start has a %q line", prefix)
		words := strings.Fields(strings.ReplaceAll(line, "../brandbase", root))
		return words[1:] // without "go"
	}
	for _, way := range []struct {
		name string
		args []string // the README's line
		env  []string
	}{
		{"workspace", command("go work init "), nil},
		{"replace", command("go mod edit "), []string{"GOFLAGS=-mod=mod " + os.Getenv("GOFLAGS"), "GOSUMDB=off"}},
	} {
		t.Run(way.name, func(t *testing.T) {
			dir := t.TempDir()
			env := append(os.Environ(), "GOWORK=")
			run := func(env []string, args ...string) {
				t.Helper()
				cmd := exec.Command(goTool, args...)
				cmd.Dir, cmd.Env = dir, env
				out, err := cmd.CombinedOutput()
				require.NoError(t, err, "go %s:\n%s", strings.Join(args, " "), out)
			}
			require.NoError(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte(program), 0o644))
			run(env, "mod", "init", "example.com/app")
			run(env, way.args...)
			run(append(env, way.env...), "build", "-o", os.DevNull, ".")
		})
	}
}

func TestReadmeIsShort(t *testing.T) {
	t.Parallel()
	n := strings.Count(readme(t), "\n")
	assert.Less(t, n, 300, "README.md has %d lines: keep it under 300, the reference belongs in docs/", n)
}

// headingAnchors returns the anchors GitHub gives a Markdown page's
// headings: lower case, punctuation dropped, spaces as hyphens, a repeated
// one numbered (-1, -2, ...). Lines inside code fences are not headings.
// The patterns of a heading line, inline code and a link's target.
var (
	headingLine = regexp.MustCompile(`^#{1,6} +(.*?) *#*$`)
	inlineCode  = regexp.MustCompile("`[^`]*`")
	linkTarget  = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	urlScheme   = regexp.MustCompile(`^[a-z][a-z0-9+.-]*:`)
)

func headingAnchors(text string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for line := range strings.SplitSeq(text, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		m := headingLine.FindStringSubmatch(line)
		if fenced || m == nil {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(m[1]) {
			switch {
			case unicode.IsLetter(r), unicode.IsDigit(r), r == '-', r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteRune('-')
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			seen[a]++
			a = fmt.Sprintf("%s-%d", a, n)
		} else {
			seen[a] = 1
		}
		anchors[a] = true
	}
	return anchors
}

// markdownLinks returns the targets of a page's inline links and images,
// outside code fences and code spans.
func markdownLinks(text string) []string {
	var links []string
	fenced := false
	for line := range strings.SplitSeq(text, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		line = inlineCode.ReplaceAllString(line, "code")
		for _, m := range linkTarget.FindAllStringSubmatch(line, -1) {
			links = append(links, m[1])
		}
	}
	return links
}

func TestDocsLinksResolve(t *testing.T) {
	t.Parallel()
	pages := docPages(t)
	checked := 0
	anchors := map[string]map[string]bool{} // by file
	for page, text := range pages {
		for _, link := range markdownLinks(text) {
			if urlScheme.MatchString(link) {
				continue // https:, mailto:: not a file of the repository
			}
			checked++
			file, anchor, _ := strings.Cut(link, "#")
			target := page
			if file != "" {
				target = filepath.Join(filepath.Dir(page), filepath.FromSlash(file))
				if _, err := os.Stat(target); err != nil {
					assert.Failf(t, "a link leads nowhere", "%s links %s: %v", page, link, err)
					continue
				}
			}
			if anchor == "" {
				continue
			}
			if anchors[target] == nil {
				b, err := os.ReadFile(target)
				if !assert.NoError(t, err, "%s links %s", page, link) {
					continue
				}
				anchors[target] = headingAnchors(string(b))
			}
			assert.True(t, anchors[target][anchor], "%s links %s: %s has no heading #%s", page, link, target, anchor)
		}
	}
	assert.Greater(t, checked, 20, "the pages link each other")
}

// TestDocsIndexListsEveryPage checks that docs/README.md, the index of the
// reference, and the README's Further reading link every page under docs/,
// and that the README links the index.
func TestDocsIndexListsEveryPage(t *testing.T) {
	t.Parallel()
	pages := docPages(t)
	index := filepath.Join("docs", "README.md")
	linked := map[string]bool{}      // by the index
	readmeLinks := map[string]bool{} // by the README
	for _, link := range markdownLinks(pages[index]) {
		file, _, _ := strings.Cut(link, "#")
		linked[filepath.Join("docs", filepath.FromSlash(file))] = true
	}
	for _, link := range markdownLinks(pages["README.md"]) {
		file, _, _ := strings.Cut(link, "#")
		readmeLinks[filepath.FromSlash(file)] = true
	}
	for page := range pages {
		if strings.HasPrefix(page, "docs"+string(filepath.Separator)) && page != index {
			assert.True(t, linked[page], "docs/README.md, the index, does not link %s", page)
			assert.True(t, readmeLinks[page], "the README does not link %s: list it under Further reading", page)
		}
	}
	assert.Contains(t, markdownLinks(readme(t)), "docs/README.md", "the README links the index of docs/")
}

// TestHeadingAnchors checks the anchor rule the link check relies on.
func TestHeadingAnchors(t *testing.T) {
	t.Parallel()
	got := headingAnchors("# Mount the adapter on your own mux\n```sh\n# not a heading\n```\n## The stores' own list queries\n" +
		"## `auth` options\n## Figures (2 shared cores, PostgreSQL 15)\n## Notes\n## Notes\n")
	assert.Equal(t, map[string]bool{
		"mount-the-adapter-on-your-own-mux": true, "the-stores-own-list-queries": true, "auth-options": true,
		"figures-2-shared-cores-postgresql-15": true, "notes": true, "notes-1": true,
	}, got)
}

// missingDocument matches a citation of a document that does not ship
// with the repository: the design notes, the numbered sections of the
// interface specification the code was written from, and the numbered
// issues of the tracker. The words of a citation may be split by one line
// break, as a comment or a paragraph wraps them ("(spec\n// 4.5)"): the
// text is read as the comment's or paragraph's lines joined.
var missingDocument = regexp.MustCompile(`DESIGN\.md|\b[Ss]pec(ification)?` + wordBreak + `(section` + wordBreak + `)?[0-9]+(\.[0-9]+)?\b|\b[Ii]ssue` + wordBreak + `#?[0-9]+`)

// wordBreak is what may stand between two words of a citation: spaces, or
// one line break with the next line's indentation and comment marker.
const wordBreak = `(?:[ \t]+|[ \t]*\n[ \t]*(?://+[ \t]*|\*[ \t]*)?)`

// TestNoCitationOfMissingDocuments fails when a Go file (test or not), the
// README or a page under docs/ cites a document a reader of the
// repository or of go doc cannot open: the rule must be said where it is
// cited, or a page under docs/ linked.
func TestNoCitationOfMissingDocuments(t *testing.T) {
	t.Parallel()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != "." || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, ".md") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		text := string(b)
		for _, at := range missingDocument.FindAllStringIndex(text, -1) {
			line := 1 + strings.Count(text[:at[0]], "\n")
			assert.Failf(t, "a citation of a document that does not ship", "%s:%d cites %q: say the rule, or link a page under docs/", path, line, regexp.MustCompile(wordBreak).ReplaceAllString(text[at[0]:at[1]], " "))
		}
		return nil
	})
	require.NoError(t, err)
}

// TestMissingDocumentPattern checks what the citation test counts as a
// citation: one on a line, or split by a comment's or paragraph's line
// break, and not the words apart. (The cases are cut where they would
// cite, or the citation test would flag this file.)
func TestMissingDocumentPattern(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		text string
		cite bool
	}{
		{"see DESIGN" + ".md", true},
		{"(spec " + "4.5)", true},
		{"the specification section " + "3", true},
		{"// answers PUT /api/v1/app-integrations/analytics/{id} (spec\n// 4.5); the route", true},
		{"\t// the spec\n\t// section 4.5 says", true},
		{" * the spec\n * 4.5", true},
		{"a paragraph on the spec\n4.5 of it", true},
		{"fixes issue " + "#32", true},
		{"fixes issue\n// #32", true},
		{"the spec's origin's client", false},
		{"spec.\n4", false},
		{"the spec\n\n1. a list after a blank line", false},
		{"the specific 4", false},
		{"x := spec\n\tn := 4", false},
	} {
		assert.Equal(t, c.cite, missingDocument.MatchString(c.text), "%q", c.text)
	}
}

// TestReadmeNamesRunnableExamples checks that every runnable example the
// documentation names (`pkg.ExampleX`) exists, in a test file of package
// pkg.
func TestReadmeNamesRunnableExamples(t *testing.T) {
	t.Parallel()
	examples := map[string]bool{} // "pkg.ExampleX"
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != "." || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		pkg := strings.TrimSuffix(f.Name.Name, "_test")
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && strings.HasPrefix(fn.Name.Name, "Example") {
				examples[pkg+"."+fn.Name.Name] = true
			}
		}
		return nil
	})
	require.NoError(t, err)
	require.Contains(t, examples, "brandbase.Example", "the scan finds the examples")
	named := regexp.MustCompile("`([a-z]+\\.Example[A-Za-z0-9_]*)`").FindAllStringSubmatch(docs(t), -1)
	require.NotEmpty(t, named)
	for _, m := range named {
		assert.True(t, examples[m[1]], "the documentation names the example %s, which does not exist", m[1])
	}
}

// TestDocsNameTheDemoLineKeys checks that docs/operations.md names every
// key of the demo server's "demo {...}" line (the JSON names of demoInfo).
func TestDocsNameTheDemoLineKeys(t *testing.T) {
	t.Parallel()
	var keys []string
	for path, f := range sourceFiles(t) {
		if filepath.Dir(path) != filepath.Join("examples", "server") {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok || ts.Name.Name != "demoInfo" {
				return true
			}
			for _, field := range ts.Type.(*ast.StructType).Fields.List {
				if field.Tag != nil {
					tag, _ := strconv.Unquote(field.Tag.Value)
					name, _, _ := strings.Cut(reflect.StructTag(tag).Get("json"), ",")
					keys = append(keys, name)
				}
			}
			return false
		})
	}
	require.NotEmpty(t, keys, "the scan finds demoInfo")
	page := docPages(t)[filepath.Join("docs", "operations.md")]
	for _, k := range keys {
		assert.Contains(t, page, "`"+k+"`", "docs/operations.md does not name the demo line's key %s", k)
	}
}
