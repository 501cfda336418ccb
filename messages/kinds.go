package messages

import (
	"embed"
	htmltemplate "html/template"
	"maps"
	"slices"
	texttemplate "text/template"
)

// The kinds of message brandbase sends.
const (
	// KindPasswordReset carries a password-reset link.
	KindPasswordReset = "password_reset"
)

// kind is one kind of message: its name, its placeholders with a sample
// value each (the data a template is tried with when saved), and its
// built-in templates.
type kind struct {
	name    string
	title   string
	samples map[string]string
	subject *texttemplate.Template
	text    *texttemplate.Template
	html    *htmltemplate.Template
}

//go:embed defaults
var defaults embed.FS

// kinds are the kinds of message, by name. A later kind (a verification
// code, a sign-in link) adds its row here and its three files under
// defaults/ (NAME.subject.txt, NAME.txt, NAME.html); its placeholders are
// the keys of samples, which the code that sends it fills in.
var kinds = map[string]*kind{
	KindPasswordReset: newKind(KindPasswordReset, "Password reset", map[string]string{
		"brandName": "Shop",
		"brandUrl":  "shop.example.com",
		"userName":  "Ann Example",
		"link":      "https://shop.example.com/reset?token=abc&emailAddress=ann%40shop.example.com",
		"expiresAt": "2026-11-29T04:00:00Z",
	}),
}

// newKind parses the built-in templates of the kind name; they are part
// of the program, so a broken one panics at start.
func newKind(name, title string, samples map[string]string) *kind {
	read := func(suffix string) string {
		b, err := defaults.ReadFile("defaults/" + name + suffix)
		if err != nil {
			panic(err)
		}
		return string(b)
	}
	k := &kind{name: name, title: title, samples: samples}
	var err error
	if k.subject, k.text, k.html, err = parse(read(".subject.txt"), read(".txt"), read(".html")); err != nil {
		panic("messages: built-in templates of " + name + ": " + err.Error())
	}
	return k
}

// Kinds returns the kinds of message, sorted.
func Kinds() []string { return slices.Sorted(maps.Keys(kinds)) }

// Placeholders returns the placeholder keys of kind, sorted (nil for an
// unknown kind): a template writes one as {{.key}}.
func Placeholders(kind string) []string {
	k, ok := kinds[kind]
	if !ok {
		return nil
	}
	return slices.Sorted(maps.Keys(k.samples))
}

// PlaceholderKeys returns the placeholder keys of every kind, by kind (the
// answer of GET email-templates/placeholder-keys).
func PlaceholderKeys() map[string][]string {
	out := make(map[string][]string, len(kinds))
	for name := range kinds {
		out[name] = Placeholders(name)
	}
	return out
}

// Default returns the built-in templates of kind, as source text:
// subject, text and HTML. ok is false for an unknown kind.
func Default(kind string) (subject, text, html string, ok bool) {
	if _, ok := kinds[kind]; !ok {
		return "", "", "", false
	}
	read := func(suffix string) string {
		b, _ := defaults.ReadFile("defaults/" + kind + suffix)
		return string(b)
	}
	return read(".subject.txt"), read(".txt"), read(".html"), true
}
