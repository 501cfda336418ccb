package main_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFlagDefaultsDocumented: the default of every serve flag, as --help
// gives it, is the one docs/operations.md's table of variables states on
// the flag's row ("default `:8080`", or "`json` (default)").
func TestFlagDefaultsDocumented(t *testing.T) {
	t.Parallel()
	help := ok(t, t.TempDir(), nil, "", "serve", "--help")
	doc, err := os.ReadFile("../../docs/operations.md")
	require.NoError(t, err)
	flagDefault := regexp.MustCompile(`(?m)^  --([a-z-]+)\n      .*\(default ([^)]+)\)`)
	found := flagDefault.FindAllStringSubmatch(help, -1)
	require.GreaterOrEqual(t, len(found), 5, "the defaults in --help:\n%s", help)
	for _, m := range found {
		name, def := m[1], strings.ToLower(m[2])
		var row string
		for line := range strings.SplitSeq(string(doc), "\n") {
			if strings.HasPrefix(line, "| `BRANDBASE_") && strings.Contains(line, "| `--"+name+"` |") {
				row = strings.ToLower(line)
			}
		}
		if !assert.NotEmpty(t, row, "docs/operations.md has no row for --%s", name) {
			continue
		}
		assert.True(t, strings.Contains(row, "default `"+def+"`") || strings.Contains(row, "`"+def+"` (default)"),
			"docs/operations.md: the row of --%s does not give its default %s: %s", name, def, row)
	}
}

// TestCommandsDocumented: the command list of docs/operations.md (the
// "brandbase COMMAND SUB | SUB" lines of its first code block) names
// every command --help lists and, for a command of subcommands, exactly
// the subcommands its --help lists.
func TestCommandsDocumented(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	doc, err := os.ReadFile("../../docs/operations.md")
	require.NoError(t, err)
	_, block, _ := strings.Cut(string(doc), "```\nbrandbase ")
	block, _, _ = strings.Cut("brandbase "+block, "```")
	documented := map[string][]string{}
	for line := range strings.SplitSeq(strings.TrimSpace(block), "\n") {
		words := strings.Fields(strings.SplitN(line, "  ", 2)[0]) // "brandbase user create | list ...   what it does"
		require.GreaterOrEqual(t, len(words), 2, "a line of the command list: %q", line)
		var subs []string
		for alt := range strings.SplitSeq(strings.Join(words[2:], " "), " | ") {
			if f := strings.Fields(alt); len(f) > 0 && !strings.HasPrefix(f[0], "-") {
				subs = append(subs, f[0])
			}
		}
		documented[words[1]] = subs
	}
	listed := regexp.MustCompile(`(?m)^  ([a-z]+) {2,}`).FindAllStringSubmatch(ok(t, dir, nil, "", "--help"), -1)
	require.GreaterOrEqual(t, len(listed), 5, "the commands of --help")
	for _, m := range listed {
		name := m[1]
		subs, found := documented[name]
		if !assert.True(t, found, "docs/operations.md's command list has no line for brandbase %s", name) {
			continue
		}
		help := ok(t, dir, nil, "", name, "--help")
		if _, list, isGroup := strings.Cut(help, "Subcommands: "); isGroup {
			list, _, _ = strings.Cut(list, "\n")
			assert.ElementsMatch(t, strings.Split(list, ", "), subs, "docs/operations.md: the subcommands of brandbase %s", name)
		}
	}
}

// TestVariablesDocumented: docs/operations.md's table of variables has a
// row for every variable --help lists, naming the same flag (or none).
func TestVariablesDocumented(t *testing.T) {
	t.Parallel()
	help := ok(t, t.TempDir(), nil, "", "--help")
	doc, err := os.ReadFile("../../docs/operations.md")
	require.NoError(t, err)
	vars := regexp.MustCompile(`(?m)^  (BRANDBASE_[A-Z_]+)(?: \(--([a-z-]+)\))?$`).FindAllStringSubmatch(help, -1)
	require.GreaterOrEqual(t, len(vars), 10, "the variables of --help:\n%s", help)
	for _, v := range vars {
		flag := "none"
		if v[2] != "" {
			flag = "`--" + v[2] + "`"
		}
		row := "\n| `" + v[1] + "` | " + flag + " |"
		assert.Truef(t, strings.Contains(string(doc), row), "docs/operations.md has no row %q", row)
	}
}
