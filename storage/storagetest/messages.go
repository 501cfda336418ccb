package storagetest

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/messages"
)

// runMessages runs the scenarios of messages.Store.
func runMessages(t *testing.T, newStore NewStore) {
	runScenarios(t, newStore, []scenario{
		{"CreateAndRead", testTemplateCreateAndRead},
		{"Conflicts", testTemplateConflicts},
		{"NotFound", testTemplateNotFound},
		{"UpdateAndDelete", testTemplateUpdateAndDelete},
		{"ListOrder", testTemplateListOrder},
	})
}

var tplT0 = time.Date(2026, 3, 4, 5, 6, 7, 123456000, time.UTC)

func testTemplate(brandID, kind, language string) messages.Template {
	return messages.Template{ID: uuid.NewString(), BrandID: brandID, Kind: kind, Language: language,
		Subject: "Reset {{.brandName}}", Text: "Open {{.link}}", HTML: `<a href="{{.link}}">Open</a>`,
		CreatedAt: tplT0, UpdatedAt: tplT0}
}

// testTemplateCreateAndRead: a template reads back as written, by ID and
// in its brand's list only.
func testTemplateCreateAndRead(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	ctx := t.Context()
	b, o := seedBrand(t, s, "shop.example.com"), seedBrand(t, s, "other.example.com")
	tpl := testTemplate(b.ID, "password_reset", "en")
	require.NoError(t, s.CreateTemplate(ctx, tpl))
	got, err := s.TemplateByID(ctx, b.ID, tpl.ID)
	require.NoError(t, err)
	assert.Equal(t, tpl, got)
	list, err := s.ListTemplates(ctx, b.ID, "")
	require.NoError(t, err)
	assert.Equal(t, []messages.Template{tpl}, list)
	list, err = s.ListTemplates(ctx, o.ID, "")
	require.NoError(t, err)
	assert.Empty(t, list, "another brand's")
	_, err = s.TemplateByID(ctx, o.ID, tpl.ID)
	assert.ErrorIs(t, err, messages.ErrTemplateNotFound, "not through another brand")
}

// testTemplateConflicts: one template per brand, kind and language; the
// same kind and language in another brand is fine.
func testTemplateConflicts(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	ctx := t.Context()
	b, o := seedBrand(t, s, "shop.example.com"), seedBrand(t, s, "other.example.com")
	require.NoError(t, s.CreateTemplate(ctx, testTemplate(b.ID, "password_reset", "en")))
	err := s.CreateTemplate(ctx, testTemplate(b.ID, "password_reset", "en"))
	assert.Equal(t, messages.CodeTemplateExists, envelope.CodeOf(err))
	assert.Equal(t, envelope.KindConflict, envelope.KindOf(err))
	require.NoError(t, s.CreateTemplate(ctx, testTemplate(o.ID, "password_reset", "en")), "another brand")
	fr := testTemplate(b.ID, "password_reset", "fr")
	require.NoError(t, s.CreateTemplate(ctx, fr), "another language")
	fr.Language = "en"
	fr.UpdatedAt = tplT0.Add(time.Second)
	err = s.UpdateTemplate(ctx, fr)
	assert.Equal(t, messages.CodeTemplateExists, envelope.CodeOf(err), "an update onto a taken language")
	err = s.CreateTemplate(ctx, testTemplate(uuid.NewString(), "password_reset", ""))
	assert.ErrorIs(t, err, auth.ErrBrandNotFound)
}

// testTemplateNotFound: reads, updates and deletes of an absent template.
func testTemplateNotFound(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	ctx := t.Context()
	b := seedBrand(t, s, "shop.example.com")
	_, err := s.TemplateByID(ctx, b.ID, uuid.NewString())
	assert.ErrorIs(t, err, messages.ErrTemplateNotFound)
	assert.ErrorIs(t, s.UpdateTemplate(ctx, testTemplate(b.ID, "password_reset", "en")), messages.ErrTemplateNotFound)
	assert.ErrorIs(t, s.DeleteTemplate(ctx, b.ID, uuid.NewString()), messages.ErrTemplateNotFound)
}

// testTemplateUpdateAndDelete: an update replaces all but the creation
// time; a delete removes it; neither reaches another brand's.
func testTemplateUpdateAndDelete(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	ctx := t.Context()
	b, o := seedBrand(t, s, "shop.example.com"), seedBrand(t, s, "other.example.com")
	tpl := testTemplate(b.ID, "password_reset", "en")
	require.NoError(t, s.CreateTemplate(ctx, tpl))
	next := tpl
	next.Language, next.Subject, next.Text, next.HTML = "", "New {{.userName}}", "", "<p>{{.link}}</p>"
	next.UpdatedAt = tplT0.Add(time.Hour)
	next.CreatedAt = tplT0.Add(2 * time.Hour) // ignored
	require.NoError(t, s.UpdateTemplate(ctx, next))
	got, err := s.TemplateByID(ctx, b.ID, tpl.ID)
	require.NoError(t, err)
	next.CreatedAt = tplT0
	assert.Equal(t, next, got)
	moved := next
	moved.BrandID = o.ID
	assert.ErrorIs(t, s.UpdateTemplate(ctx, moved), messages.ErrTemplateNotFound, "not through another brand")
	assert.ErrorIs(t, s.DeleteTemplate(ctx, o.ID, tpl.ID), messages.ErrTemplateNotFound, "not through another brand")
	require.NoError(t, s.DeleteTemplate(ctx, b.ID, tpl.ID))
	_, err = s.TemplateByID(ctx, b.ID, tpl.ID)
	assert.ErrorIs(t, err, messages.ErrTemplateNotFound)
}

// testTemplateListOrder: by kind, then language, then creation; a kind
// selects its own.
func testTemplateListOrder(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	ctx := t.Context()
	b := seedBrand(t, s, "shop.example.com")
	var want []messages.Template
	for _, k := range []struct{ kind, lang string }{{"a_kind", ""}, {"a_kind", "en"}, {"password_reset", ""},
		{"password_reset", "de"}, {"password_reset", "en"}, {"password_reset", "en-gb"}} {
		want = append(want, testTemplate(b.ID, k.kind, k.lang))
	}
	for _, i := range []int{4, 1, 5, 0, 3, 2} {
		require.NoError(t, s.CreateTemplate(ctx, want[i]))
	}
	got, err := s.ListTemplates(ctx, b.ID, "")
	require.NoError(t, err)
	assert.Equal(t, want, got)
	got, err = s.ListTemplates(ctx, b.ID, "password_reset")
	require.NoError(t, err)
	assert.Equal(t, want[2:], got)
}
