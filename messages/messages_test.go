package messages_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/internal/testkit/teststores"
	"github.com/brandbase/brandbase/messages"
	"github.com/brandbase/brandbase/storage"
)

type world struct {
	store  storage.Storage
	svc    *messages.Service
	brand  string
	other  string
	writer auth.Principal
	reader auth.Principal
	nobody auth.Principal
}

func newWorld(t *testing.T, newStore func(testing.TB) storage.Storage) *world {
	t.Helper()
	store := newStore(t)
	t.Cleanup(func() { store.Close() })
	brands := auth.NewService(store)
	b, err := brands.CreateBrand(t.Context(), auth.NewBrand{URL: "shop.example.com", Name: "Shop"})
	require.NoError(t, err)
	o, err := brands.CreateBrand(t.Context(), auth.NewBrand{URL: "other.example.com", Name: "Other"})
	require.NoError(t, err)
	now := time.Date(2026, 11, 29, 3, 0, 0, 0, time.UTC)
	return &world{store: store, svc: messages.NewService(store, messages.WithClock(func() time.Time { return now })),
		brand: b.ID, other: o.ID,
		writer: auth.Principal{UserID: "w", BrandID: b.ID, Permissions: []auth.Permission{messages.PermWrite}},
		reader: auth.Principal{UserID: "r", BrandID: b.ID, Permissions: []auth.Permission{messages.PermRead}},
		nobody: auth.Principal{UserID: "n", BrandID: b.ID}}
}

func ptr[T any](v T) *T { return &v }

var data = map[string]string{"brandName": "Shop & Co", "userName": `Ann "<b>"`, "brandUrl": "shop.example.com",
	"link": "https://shop.example.com/reset?token=t0k&emailAddress=ann%40shop.example.com", "expiresAt": "2026-11-29T04:00:00Z"}

// TestRenderFallsBack: the language's own template, then its base
// language's, then the brand's default, then the built-in; values are
// escaped in the HTML part; another brand's templates are never used.
func TestRenderFallsBack(t *testing.T) {
	t.Parallel()
	for name, newStore := range teststores.All {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, newStore)
			ctx := t.Context()
			builtin, err := w.svc.Render(ctx, w.brand, "fr", messages.KindPasswordReset, data)
			require.NoError(t, err)
			assert.Equal(t, "Reset your password for Shop & Co", builtin.Subject)
			assert.Contains(t, builtin.Text, data["link"])
			assert.Contains(t, builtin.HTML, `href="https://shop.example.com/reset?token=t0k&amp;emailAddress=ann%40shop.example.com"`)
			assert.Contains(t, builtin.HTML, "Ann &#34;&lt;b&gt;&#34;", "values escaped in HTML")
			assert.NotContains(t, builtin.HTML, "<b>")

			for _, in := range []messages.Input{
				{EventID: messages.KindPasswordReset, LanguageCode: "", Subject: "Default {{.brandName}}", Body: "<p>default</p>"},
				{EventID: messages.KindPasswordReset, LanguageCode: "en", Subject: "English", Body: "<p>en {{.userName}}</p>",
					TextBody: ptr("en text {{.link}}")},
				{EventID: messages.KindPasswordReset, LanguageCode: "en-GB", Subject: "British", Body: "<p>gb</p>"},
			} {
				_, err := w.svc.Create(ctx, w.writer, in)
				require.NoError(t, err)
			}
			_, err = w.svc.Create(ctx, auth.Principal{UserID: "x", BrandID: w.other, Permissions: []auth.Permission{messages.PermWrite}},
				messages.Input{EventID: messages.KindPasswordReset, LanguageCode: "de", Subject: "Other brand", Body: "<p>x</p>"})
			require.NoError(t, err)

			for _, tc := range []struct{ lang, subject, html string }{
				{"en-GB", "British", "<p>gb</p>"},
				{"EN-gb", "British", "<p>gb</p>"},
				{"en-US", "English", "<p>en Ann &#34;&lt;b&gt;&#34;</p>"},
				{"en", "English", "<p>en Ann &#34;&lt;b&gt;&#34;</p>"},
				{"de", "Default Shop & Co", "<p>default</p>"},
				{"", "Default Shop & Co", "<p>default</p>"},
			} {
				r, err := w.svc.Render(ctx, w.brand, tc.lang, messages.KindPasswordReset, data)
				require.NoError(t, err)
				assert.Equal(t, tc.subject, r.Subject, tc.lang)
				assert.Equal(t, tc.html, r.HTML, tc.lang)
			}
			r, err := w.svc.Render(ctx, w.brand, "en", messages.KindPasswordReset, data)
			require.NoError(t, err)
			assert.Equal(t, "en text "+data["link"], r.Text)
			r, err = w.svc.Render(ctx, w.brand, "en-GB", messages.KindPasswordReset, data)
			require.NoError(t, err)
			assert.Equal(t, builtin.Text, r.Text, "an override without a text body takes the built-in one")

			r, err = w.svc.Render(ctx, w.other, "en", messages.KindPasswordReset, data)
			require.NoError(t, err)
			assert.Equal(t, builtin.Subject, r.Subject, "the other brand has no en or default template")

			_, err = w.svc.Render(ctx, w.brand, "en", "no_such_kind", data)
			assert.Equal(t, envelope.KindInvalid, envelope.KindOf(err))
		})
	}
}

// TestSaveRefusesBadTemplates: a template that does not parse or render
// with sample data is refused when saved, with a field error, and nothing
// is stored.
func TestSaveRefusesBadTemplates(t *testing.T) {
	t.Parallel()
	w := newWorld(t, teststores.All["sqlite"])
	ctx := t.Context()
	good := messages.Input{EventID: messages.KindPasswordReset, LanguageCode: "en", Subject: "Hi {{.userName}}",
		Body: `<a href="{{.link}}">go</a>`}
	tests := []struct {
		name   string
		change func(in *messages.Input)
		field  string
		code   string
	}{
		{"unclosed action in the body", func(in *messages.Input) { in.Body = "<p>{{.link</p>" }, "body", messages.CodeInvalidTemplate},
		{"unknown placeholder in the body", func(in *messages.Input) { in.Body = "<p>{{.password}}</p>" }, "body", messages.CodeInvalidTemplate},
		{"unknown placeholder in the subject", func(in *messages.Input) { in.Subject = "{{.token}}" }, "subject", messages.CodeInvalidTemplate},
		{"bad text body", func(in *messages.Input) { in.TextBody = ptr("{{if .link}}") }, "textBody", messages.CodeInvalidTemplate},
		{"a function that fails", func(in *messages.Input) { in.Body = `{{index .link 99}}` }, "body", messages.CodeInvalidTemplate},
		{"HTML the escaper refuses", func(in *messages.Input) { in.Body = `<a href="{{.link}}` }, "body", messages.CodeInvalidTemplate},
		{"unknown kind", func(in *messages.Input) { in.EventID = "welcome" }, "eventId", "invalid_enum"},
		{"no kind", func(in *messages.Input) { in.EventID = "" }, "eventId", "required"},
		{"bad language", func(in *messages.Input) { in.LanguageCode = "english please" }, "languageCode", "invalid_format"},
		{"no subject", func(in *messages.Input) { in.Subject = " " }, "subject", "required"},
		{"two-line subject", func(in *messages.Input) { in.Subject = "a\r\nBcc: x@example.com" }, "subject", "invalid_format"},
		{"no body", func(in *messages.Input) { in.Body = "" }, "body", "required"},
	}
	for _, tc := range tests {
		in := good
		tc.change(&in)
		_, err := w.svc.Create(ctx, w.writer, in)
		require.Equal(t, envelope.KindInvalid, envelope.KindOf(err), tc.name)
		fields := envelope.As(err).Fields
		require.NotEmpty(t, fields, tc.name)
		assert.Equal(t, tc.field+":"+tc.code, fields[0].Field+":"+fields[0].Code, tc.name)
	}
	list, err := w.svc.Templates(ctx, w.reader, messages.Filter{})
	require.NoError(t, err)
	assert.Empty(t, list, "nothing stored")

	saved, err := w.svc.Create(ctx, w.writer, good)
	require.NoError(t, err)
	bad := good
	bad.Body = "{{.nope}}"
	_, err = w.svc.Update(ctx, w.writer, saved.ID, bad)
	assert.Equal(t, envelope.KindInvalid, envelope.KindOf(err), "an update too")
	got, err := w.svc.Template(ctx, w.reader, saved.ID)
	require.NoError(t, err)
	assert.Equal(t, good.Body, got.HTML, "the stored one stands")
}

// TestTemplatePermissions: reading needs email-templates.read (or
// .write), writing .write, and a principal acts only in its brand.
func TestTemplatePermissions(t *testing.T) {
	t.Parallel()
	w := newWorld(t, teststores.All["memory"])
	ctx := t.Context()
	in := messages.Input{EventID: messages.KindPasswordReset, Subject: "s", Body: "b"}
	_, err := w.svc.Create(ctx, w.reader, in)
	assert.Equal(t, messages.CodeAccessDenied, envelope.CodeOf(err))
	_, err = w.svc.Templates(ctx, w.nobody, messages.Filter{})
	assert.Equal(t, messages.CodeAccessDenied, envelope.CodeOf(err))
	tpl, err := w.svc.Create(ctx, auth.SystemPrincipal(w.brand), in)
	require.NoError(t, err, "the host acts as the system")
	_, err = w.svc.Template(ctx, w.writer, tpl.ID)
	require.NoError(t, err, "write includes read")
	assert.Equal(t, messages.CodeAccessDenied, envelope.CodeOf(w.svc.Delete(ctx, w.reader, tpl.ID)))
	otherWriter := auth.Principal{UserID: "o", BrandID: w.other, Permissions: []auth.Permission{auth.PermAll}}
	assert.ErrorIs(t, w.svc.Delete(ctx, otherWriter, tpl.ID), messages.ErrTemplateNotFound)
	require.NoError(t, w.svc.Delete(ctx, w.writer, tpl.ID))
	_, err = w.svc.Create(ctx, w.writer, in)
	require.NoError(t, err)
	_, err = w.svc.Create(ctx, w.writer, in)
	assert.Equal(t, messages.CodeTemplateExists, envelope.CodeOf(err))
}

func TestPlaceholderKeys(t *testing.T) {
	t.Parallel()
	assert.Equal(t, map[string][]string{"password_reset": {"brandName", "brandUrl", "expiresAt", "link", "userName"}},
		messages.PlaceholderKeys())
	assert.Equal(t, []string{"password_reset"}, messages.Kinds())
}
