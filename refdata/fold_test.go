package refdata_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/brandbase/brandbase/refdata"
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
		got := refdata.Fold(in)
		assert.Equal(t, want, got, "Fold(%q)", in)
		assert.Equal(t, got, refdata.Fold(got), "Fold is idempotent on %q", in)
	}
}

func TestWordsAndSearchText(t *testing.T) {
	t.Parallel()
	assert.Equal(t, []string{"n", "djamena"}, refdata.Words("N'Djamena"))
	assert.Equal(t, []string{"sao", "paulo", "br", "sp"}, refdata.Words("  São-Paulo, BR/SP. "))
	assert.Equal(t, []string{"東京", "tokyo"}, refdata.Words("東京 (Tokyo)"))
	assert.Empty(t, refdata.Words("-- , !"))
	assert.Equal(t, "sao paulo br capital metro", refdata.SearchText("São Paulo", "BR", "", "capital,metro"))
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
		assert.Equal(t, want, refdata.MatchTerms(refdata.Words(terms), fields...), "terms %q", terms)
	}
	// Matching the raw fields and matching their SearchText agree.
	text := refdata.SearchText(fields...)
	for _, terms := range []string{"sao", "stat cap", "me", "x", "paulo br"} {
		ws := refdata.Words(terms)
		assert.Equal(t, refdata.MatchTerms(ws, fields...), refdata.MatchTerms(ws, text), terms)
	}
}

func TestTags(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "", refdata.TagKey(""))
	assert.Equal(t, "", refdata.TagKey(" , ,"))
	key := refdata.TagKey(" EU , g7,Zône-A,")
	assert.Equal(t, ",eu,g7,zone-a,", key)
	assert.True(t, refdata.MatchTags(nil, key))
	assert.True(t, refdata.MatchTags([]string{"nato", "g7"}, key))
	assert.True(t, refdata.MatchTags([]string{"zone-a"}, key))
	assert.False(t, refdata.MatchTags([]string{"g"}, key), "whole tags only")
	assert.False(t, refdata.MatchTags([]string{"eu"}, ""))
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
		folded := refdata.Fold(s)
		if refdata.Fold(folded) != folded {
			t.Errorf("Fold not idempotent on %q", s)
		}
		// Words of the raw text and of the folded text are the same.
		assert.Equal(t, refdata.Words(s), refdata.Words(folded), "%q", s)
	})
}
