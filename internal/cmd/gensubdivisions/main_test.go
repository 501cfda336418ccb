package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestGenerate(t *testing.T) {
	t.Parallel()
	const source = `{"3166-2": [
  {"code": "FR-ARA", "name": "Auvergne-Rhône-Alpes", "type": "Metropolitan region"},
  {"code": "FR-20R", "name": "Corse", "type": "Metropolitan collectivity with special status"},
  {"code": "FR-01", "name": "Ain", "type": "Metropolitan department", "parent": "FR-ARA"},
  {"code": "BQ-SE", "name": "Sint Eustatius", "type": "Special municipality"},
  {"code": "NO-30", "name": "Viken", "type": "County"}
]}`
	var out bytes.Buffer
	require.NoError(t, generate(strings.NewReader(source), &out, "iso-codes 9.9.9 (2099-01-01)", "2099-01-02"))
	text := out.String()
	assert.Contains(t, text, "# Source: iso-codes 9.9.9 (2099-01-01), data/iso_3166-2.json, https://salsa.debian.org/iso-codes-team/iso-codes\n")
	assert.Contains(t, text, "# Converted: 2099-01-02 by internal/cmd/gensubdivisions.\n")
	_, body, ok := strings.Cut(text, "\ncountryCode,")
	require.True(t, ok, "a header row after the comments")
	lines := strings.Split(strings.TrimSuffix("countryCode,"+body, "\n"), "\n")
	assert.Equal(t, []string{
		"countryCode,code,name,category,parent,note",
		"BQ,SE,Sint Eustatius,Special municipality,,",
		"FR,01,Ain,Metropolitan department,ARA,",
		"FR,20R,Corse,Metropolitan collectivity with special status,,",
		"FR,ARA,Auvergne-Rhône-Alpes,Metropolitan region,,",
		"NO,30,Viken,County,,",
		`NO,31,Østfold,County,,"county number since 2024-01-01 (from Viken, NO-30); not yet in ISO 3166-2"`,
		`NO,32,Akershus,County,,"county number since 2024-01-01 (from Viken, NO-30); not yet in ISO 3166-2"`,
		`NO,33,Buskerud,County,,"county number since 2024-01-01 (from Viken, NO-30); not yet in ISO 3166-2"`,
		`NO,39,Vestfold,County,,"county number since 2024-01-01 (from Vestfold og Telemark, NO-38); not yet in ISO 3166-2"`,
		`NO,40,Telemark,County,,"county number since 2024-01-01 (from Vestfold og Telemark, NO-38); not yet in ISO 3166-2"`,
		`NO,55,Troms,County,,"county number since 2024-01-01 (from Troms og Finnmark, NO-54); not yet in ISO 3166-2"`,
		`NO,56,Finnmark,County,,"county number since 2024-01-01 (from Troms og Finnmark, NO-54); not yet in ISO 3166-2"`,
	}, lines, "sorted by country and code, prefixes dropped, additions noted")
}

func TestGenerateRefuses(t *testing.T) {
	t.Parallel()
	tests := map[string]struct{ source, date, want string }{
		"not JSON":        {`[`, "2099-01-02", "read the source"},
		"no entries":      {`{"3166-1": []}`, "2099-01-02", `no "3166-2" entries`},
		"no prefix":       {`{"3166-2": [{"code": "ARA", "name": "x"}]}`, "2099-01-02", "malformed entry"},
		"twice":           {`{"3166-2": [{"code": "FR-01", "name": "Ain"}, {"code": "FR-01", "name": "Ain"}]}`, "2099-01-02", "FR-01 is listed twice"},
		"addition now in": {`{"3166-2": [{"code": "NO-31", "name": "Østfold"}]}`, "2099-01-02", "NO-31 is in the source now: remove it from the additions"},
		"bad date":        {`{"3166-2": [{"code": "FR-01", "name": "Ain"}]}`, "2099-13-02", "date"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			err := generate(strings.NewReader(tt.source), &bytes.Buffer{}, "x", tt.date)
			assert.ErrorContains(t, err, tt.want)
		})
	}
}
