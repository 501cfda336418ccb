package main_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTemplateCommands: template set creates, then replaces, a brand's
// template; list shows it; a template that does not render is refused
// (exit 1, the field named); delete removes it.
func TestTemplateCommands(t *testing.T) {
	t.Parallel()
	for name, newDB := range stores(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			env := []string{"BRANDBASE_DATABASE_URL=" + newDB(t, dir)}
			ok(t, dir, env, "", "migrate", "up")
			ok(t, dir, env, "", "brand", "create", "shop.example.com", "--name", "Shop")
			html := filepath.Join(dir, "reset.html")
			require.NoError(t, os.WriteFile(html, []byte(`<a href="{{.link}}">Reset</a>`), 0o600))
			var set struct{ ID, Kind, Language, Subject string }
			okJSON(t, dir, env, "", &set, "template", "set", "--brand", "shop.example.com", "--language", "en",
				"--subject", "Reset {{.brandName}}", "--html-file", html)
			assert.Equal(t, "password_reset", set.Kind)
			assert.Equal(t, "en", set.Language)
			var again struct{ ID, Subject string }
			okJSON(t, dir, env, "", &again, "template", "set", "--brand", "shop.example.com", "--language", "en",
				"--subject", "New {{.userName}}", "--html-file", html)
			assert.Equal(t, set.ID, again.ID, "the same kind and language: replaced")
			assert.Equal(t, "New {{.userName}}", again.Subject)

			bad := filepath.Join(dir, "bad.html")
			require.NoError(t, os.WriteFile(bad, []byte(`<p>{{.password}}</p>`), 0o600))
			failsWith(t, dir, env, "", 1, "body", "template", "set", "--brand", "shop.example.com",
				"--subject", "s", "--html-file", bad)

			var list []struct{ ID, Language string }
			okJSON(t, dir, env, "", &list, "template", "list", "--brand", "shop.example.com")
			require.Len(t, list, 1)
			assert.Equal(t, set.ID, list[0].ID)
			ok(t, dir, env, "", "template", "delete", "--brand", "shop.example.com", set.ID)
			okJSON(t, dir, env, "", &list, "template", "list", "--brand", "shop.example.com")
			assert.Empty(t, list)
			failsWith(t, dir, env, "", 1, "not", "template", "delete", "--brand", "shop.example.com", set.ID)
		})
	}
}
