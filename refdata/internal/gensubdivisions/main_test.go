package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func testSource() source {
	return source{
		version: "99.0.0", cldr: "99",
		containment: map[string][]string{
			"FR":    {"frara", "fr20r", "frbl", "fr973"},
			"frara": {"fr01"},
			"BQ":    {"bqse"},
			"NO":    {"no30"},
			"CN":    {"cnhk", "cnnm"},
			"EE":    {"ee897", "ee899"},
			"MA":    {"mataf"},
		},
		names: map[string]string{
			"frara": "Auvergne-Rhône-Alpes", "fr20r": "Corsica", "fr01": "Ain", "bqse": "Sint Eustatius", "no30": "Viken",
			"ee897": "Viljandi²", "ee899": "Viljandi³ ", "mataf": "Tarfaya (EH-partial)", "fr973": "Guyane (française)",
		},
		aliases: map[string]string{"frbl": "BL"},
	}
}

func TestGenerate(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	require.NoError(t, generate(testSource(), &out, "2099-01-02"))
	text := out.String()
	assert.Contains(t, text, "# Source: Unicode CLDR 99 (cldr-json 99.0.0: ")
	assert.Contains(t, text, "under the Unicode License v3 (refdata/data/LICENSE-CLDR).\n")
	assert.Contains(t, text, "# Converted: 2099-01-02 by refdata/internal/gensubdivisions.\n")
	_, body, ok := strings.Cut(text, "\ncountryCode,")
	require.True(t, ok, "a header row after the comments")
	lines := strings.Split(strings.TrimSuffix("countryCode,"+body, "\n"), "\n")
	assert.Equal(t, []string{
		"countryCode,code,name,parent,note",
		"BQ,SE,Sint Eustatius,,",
		"CN,HK,Hong Kong SAR China,,",
		"CN,NM,Inner Mongolia,,no English name in CLDR 48; the English name in common use (ISO: Nei Mongol Zizhiqu)",
		"EE,897,Viljandi,,",
		"EE,899,Viljandi,,",
		"FR,01,Ain,ARA,",
		"FR,20R,Corsica,,",
		"FR,973,Guyane (française),,",
		"FR,ARA,Auvergne-Rhône-Alpes,,",
		"FR,BL,St. Barthélemy,,",
		"MA,TAF,Tarfaya,,",
		"NO,30,Viken,,",
		`NO,31,Østfold,,"county number since 2024-01-01 (from Viken, NO-30); not yet in ISO 3166-2"`,
		`NO,32,Akershus,,"county number since 2024-01-01 (from Viken, NO-30); not yet in ISO 3166-2"`,
		`NO,33,Buskerud,,"county number since 2024-01-01 (from Viken, NO-30); not yet in ISO 3166-2"`,
		`NO,39,Vestfold,,"county number since 2024-01-01 (from Vestfold og Telemark, NO-38); not yet in ISO 3166-2"`,
		`NO,40,Telemark,,"county number since 2024-01-01 (from Vestfold og Telemark, NO-38); not yet in ISO 3166-2"`,
		`NO,55,Troms,,"county number since 2024-01-01 (from Troms og Finnmark, NO-54); not yet in ISO 3166-2"`,
		`NO,56,Finnmark,,"county number since 2024-01-01 (from Troms og Finnmark, NO-54); not yet in ISO 3166-2"`,
	}, lines, "sorted by country and code, prefixes dropped, parents from containment, unnamed ones named as their region, "+
		"footnote marks and annotations stripped (a name's own parentheses kept), additions noted")
}

func TestGenerateRefuses(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		change func(*source)
		date   string
		want   string
	}{
		"no subdivisions": {func(s *source) { s.containment = nil }, "2099-01-02", "no subdivisions"},
		"malformed id":    {func(s *source) { s.containment["FR"] = append(s.containment["FR"], "FR01") }, "2099-01-02", "malformed"},
		"twice":           {func(s *source) { s.containment["BQ"] = append(s.containment["BQ"], "fr01") }, "2099-01-02", "fr01 is contained twice"},
		"no name":         {func(s *source) { delete(s.names, "fr01") }, "2099-01-02", "fr01 has no English name"},
		"addition now in": {func(s *source) {
			s.containment["NO"] = append(s.containment["NO"], "no31")
			s.names["no31"] = "Østfold"
		}, "2099-01-02", "NO-31 is in the source now: remove it from the additions"},
		"bad date":                 {func(*source) {}, "2099-13-02", "date"},
		"mark inside a name":       {func(s *source) { s.names["fr01"] = "Ain² Nord" }, "2099-01-02", `fr01: name "Ain² Nord" holds a mark`},
		"annotation inside a name": {func(s *source) { s.names["fr01"] = "Ain (EH-partial) Nord" }, "2099-01-02", "fr01: name"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			src := testSource()
			tt.change(&src)
			err := generate(src, &bytes.Buffer{}, tt.date)
			assert.ErrorContains(t, err, tt.want)
		})
	}
}

func TestCleanName(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"Île-de-France²":        "Île-de-France",
		"Viljandi³":             "Viljandi",
		"Zombo²":                "Zombo",
		"Rakvere¹⁰":             "Rakvere",
		"Aerodrom †":            "Aerodrom",
		"Butel ‡":               "Butel",
		"Lacs*":                 "Lacs",
		"Tarfaya (EH-partial)":  "Tarfaya",
		"Tarfaya² (EH-partial)": "Tarfaya",
		" Gandaki² ":            "Gandaki",
		"Guyane (française)":    "Guyane (française)",
		"Prague 10":             "Prague 10",
		"Province 1":            "Province 1",
		"Ain":                   "Ain",
	}
	for in, want := range tests {
		t.Run(in, func(t *testing.T) {
			t.Parallel()
			got := cleanName(in)
			assert.Equal(t, want, got)
			assert.False(t, hasMark(got), "no mark is left")
		})
	}
}
