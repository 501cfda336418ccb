package brandbase_test

import (
	"encoding/json"
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

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase"
)

// The README is the adopters' manual; these tests keep it in step with the
// code: every error code, every option and flag, and a quick start that
// compiles.

func readme(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("README.md")
	require.NoError(t, err)
	return string(b)
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
	text := readme(t)
	for _, c := range slices.Sorted(func(yield func(string) bool) {
		for c := range codes {
			if !yield(c) {
				return
			}
		}
	}) {
		assert.True(t, strings.Contains(text, "`"+c+"`"), "the README does not name the error code %s (made in %s)", c, codes[c])
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
	text := readme(t)
	cfg := reflect.TypeFor[brandbase.Config]()
	for i := range cfg.NumField() {
		assert.True(t, strings.Contains(text, "`"+cfg.Field(i).Name+"`"), "the README does not name Config.%s", cfg.Field(i).Name)
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
				assert.True(t, regexp.MustCompile("`"+regexp.QuoteMeta(dir+"."+fn.Name.Name)+"[(`]").MatchString(text), "the README does not name the option %s.%s", dir, fn.Name.Name)
			}
		}
	}
	for _, dir := range []string{"examples/server", "examples/embed", "examples/inprocess"} {
		names := flagNames(t, dir)
		require.NotEmpty(t, names, dir)
		for _, name := range names {
			assert.True(t, strings.Contains(text, "`-"+name+"`"), "the README does not name the flag -%s of %s", name, dir)
		}
	}
}

// TestReadmeQuickStartBuilds compiles the quick start's program as if it
// were pasted into a main package of a module that requires brandbase.
func TestReadmeQuickStartBuilds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	t.Parallel()
	text := readme(t)
	_, after, ok := strings.Cut(text, "\n## Quick start\n")
	require.True(t, ok, "the README has a Quick start section")
	after, _, _ = strings.Cut(after, "\n## ")
	m := regexp.MustCompile("(?s)```go\n(package main\n.*?)```").FindStringSubmatch(after)
	require.NotNil(t, m, "the Quick start holds a ```go block with a main package")
	dir := t.TempDir()
	src := filepath.Join(dir, "main.go")
	require.NoError(t, os.WriteFile(src, []byte(m[1]), 0o644))
	root, err := os.Getwd()
	require.NoError(t, err)
	overlay, err := json.Marshal(map[string]any{"Replace": map[string]string{
		filepath.Join(root, "internal", "readmequickstart", "main.go"): src,
	}})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "overlay.json"), overlay, 0o644))
	out, err := exec.Command(goTool, "build", "-overlay", filepath.Join(dir, "overlay.json"), "-o", os.DevNull, "./internal/readmequickstart").CombinedOutput()
	assert.NoError(t, err, "go build of the quick start:\n%s", out)
}
