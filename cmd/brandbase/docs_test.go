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
