package refdata_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/brandbase/brandbase/refdata"

	"github.com/brandbase/brandbase/internal/textfold"
)

func TestFold(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"":                   "",
		"paris":              "paris",
		"São Paulo":          "sao paulo",
		"SAO PAULO":          "sao paulo",
		"Sa\u0303o Paulo":    "sao paulo", // already decomposed
		"ZÜRICH":             "zurich",
		"Straße":             "strasse",
		"Łódź":               "lodz",
		"Ærøskøbing":         "aeroskobing",
		"İstanbul":           "istanbul",
		"Đà Nẵng":            "da nang",
		"Þórshöfn":           "thorshofn",
		"Ελλάδα":             "ελλαδα",
		"東京":                 "東京",
		"N'Djamena":          "n'djamena",
		"Frýdek-Místek, CZ!": "frydek-mistek, cz!",
	} {
		got := textfold.Fold(in)
		assert.Equal(t, want, got, "Fold(%q)", in)
		assert.Equal(t, got, textfold.Fold(got), "Fold is idempotent on %q", in)
	}
}

func TestWordsAndSearchText(t *testing.T) {
	t.Parallel()
	assert.Equal(t, []string{"n", "djamena"}, textfold.Words("N'Djamena"))
	assert.Equal(t, []string{"sao", "paulo", "br", "sp"}, textfold.Words("  São-Paulo, BR/SP. "))
	assert.Equal(t, []string{"東京", "tokyo"}, textfold.Words("東京 (Tokyo)"))
	assert.Empty(t, textfold.Words("-- , !"))
	assert.Equal(t, "sao paulo br capital metro", textfold.SearchText("São Paulo", "BR", "", "capital,metro"))
	c := refdata.City{CountryCode: "CI", StateCode: "AB", Name: "Abidjan", Tags: "port"}
	assert.Equal(t, "abidjan ci ab port", c.SearchText())
}

func TestMatchTerms(t *testing.T) {
	t.Parallel()
	fields := []string{"São Paulo", "BR", "SP", "state-capital,metro"}
	for terms, want := range map[string]bool{
		"":                    true,
		"sao":                 true,
		"SAO PAU":             true,
		"são paulo br":        true,
		"paulo sao":           true, // any order
		"ao":                  false,
		"sao rio":             false,
		"capital":             true, // a word after the hyphen
		"state capital metro": true,
		"sp br":               true,
		"spx":                 false,
	} {
		assert.Equal(t, want, textfold.MatchTerms(textfold.Words(terms), fields...), "terms %q", terms)
	}
	// Matching the raw fields and matching their SearchText agree.
	text := textfold.SearchText(fields...)
	for _, terms := range []string{"sao", "stat cap", "me", "x", "paulo br"} {
		ws := textfold.Words(terms)
		assert.Equal(t, textfold.MatchTerms(ws, fields...), textfold.MatchTerms(ws, text), terms)
	}
}

func TestTags(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "", textfold.TagKey(""))
	assert.Equal(t, "", textfold.TagKey(" , ,"))
	key := textfold.TagKey(" EU , g7,Zône-A,")
	assert.Equal(t, ",eu,g7,zone-a,", key)
	assert.True(t, textfold.MatchTags(nil, key))
	assert.True(t, textfold.MatchTags([]string{"nato", "g7"}, key))
	assert.True(t, textfold.MatchTags([]string{"zone-a"}, key))
	assert.False(t, textfold.MatchTags([]string{"g"}, key), "whole tags only")
	assert.False(t, textfold.MatchTags([]string{"eu"}, ""))
}

func TestNormalizeCodes(t *testing.T) {
	t.Parallel()
	assert.Equal(t, ".uk", refdata.NormalizeTld("UK"))
	assert.Equal(t, ".uk", refdata.NormalizeTld(" .uk "))
	assert.Equal(t, "", refdata.NormalizeTld(""))
	assert.Equal(t, "+44", refdata.NormalizePhone("44"))
	assert.Equal(t, "+1-684", refdata.NormalizePhone("+1-684"))
	assert.Equal(t, "", refdata.NormalizePhone(" "))
}

func FuzzFold(f *testing.F) {
	for _, s := range []string{"São Paulo", "Straße", "İ", "a\u0301", strings.Repeat("é", 10)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		folded := textfold.Fold(s)
		if textfold.Fold(folded) != folded {
			t.Errorf("Fold not idempotent on %q", s)
		}
		// Words of the raw text and of the folded text are the same.
		assert.Equal(t, textfold.Words(s), textfold.Words(folded), "%q", s)
	})
}
