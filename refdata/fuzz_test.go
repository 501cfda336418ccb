package refdata_test

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/internal/refrows"
	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/storage/memory"
)

// FuzzImportCities imports any bytes as a cities file (CSV, or JSON when it
// starts with "[" or "{") into one memory store per fuzz process and
// checks: no panic; a failure is a KindInvalid input error; every reported
// bad row has a line number inside the input, a code and details; the
// store gained exactly the reported Added cities; on success every row is
// counted once (added, updated or skipped), importing the same bytes again
// adds nothing, and every good CSV row (one that NormalizeCity accepts,
// of a known country) is stored as the import says. The seed corpus is in
// testdata/fuzz/FuzzImportCities; fuzz beyond it with
//
//	go test -run '^$' -fuzz FuzzImportCities -fuzztime 60s ./refdata
func FuzzImportCities(f *testing.F) {
	for _, s := range []string{
		"countryCode,stateCode,name,tags\nBR,SP,Campinas,\"metro, tech\"\nBR,,Nowhere Town,\n",
		"\ufeffPopulation,Name,TAGS,stateCode,countryCode\n1,São Paulo,metro,BR-SP,br\n",
		"countryCode,stateCode,name,tags\nZZ,,Atlantis,\nBR,TOOLONGSTATE,X,\nBR,SP,,\n",
		"countryCode,stateCode,name,tags\nBR,SP,\"unterminated\nBR,SP,Santos,port\n",
		"countryCode,stateCode,name,tags\nBR,SP,bad\"quote,\nBR,SP,Ok City,\n",
		"countryCode,stateCode,name,tags\nBR,SP,Name\x00With NUL,\nBR,SP,\xff\xfe,\n",
		"countryCode,stateCode,name,tags\nBR,SP,Same,a\nbr,sp,SAME,b\n",
		"countryCode,name\nBR,Missing columns\n",
		"",
		"\n\n\n",
		"countryCode,stateCode,name,tags\n" + strings.Repeat("US,CA,Town,\n", 20),
		"countryCode,stateCode,name,tags\nUS,CA,'; DROP TABLE cities; --,%_\n",
		`[{"countryCode":"BR","stateCode":"SP","name":"Jundiaí","tags":["a","b"]}]`,
		"[\n{\"countryCode\":\"BR\",\"name\":\"Ok\"},\n{\"countryCode\":1},\n\"x\",\n{\"name\":\"No country\"}\n]",
		`{"countryCode":"BR"}`,
		"[{\"countryCode\":\"BR\",\"name\":\"Open\"",
		"[" + strings.Repeat("[", 100) + strings.Repeat("]", 100) + "]",
		"\ufeff  [ ]",
	} {
		f.Add([]byte(s))
	}
	store, err := memory.New(f.Context())
	require.NoError(f, err)
	svc := refdata.NewService(store)
	countries, err := refdata.DefaultCountries()
	require.NoError(f, err)
	known := map[string]bool{}
	for _, c := range countries {
		known[c.CodeAlpha2] = true
	}
	total := func(t *testing.T) int {
		p, err := svc.ListCities(t.Context(), refdata.CityQuery{Page: refdata.Paging{Size: 1}})
		require.NoError(t, err)
		return p.TotalItems
	}

	f.Fuzz(func(t *testing.T, data []byte) {
		ctx := t.Context()
		before := total(t)
		report, err := svc.ImportCities(ctx, bytes.NewReader(data), refdata.ImportOptions{BatchSize: 7})
		lines := bytes.Count(data, []byte("\n")) + 1
		for _, e := range report.Errors {
			assert.True(t, e.Line >= 1 && e.Line <= lines, "row error on line %d of %d: %+v", e.Line, lines, e)
			assert.NotEmpty(t, e.Code)
			assert.NotEmpty(t, e.Details)
		}
		assert.Equal(t, before+report.Added, total(t), "the store gained the cities reported added")
		if err != nil {
			assert.Equal(t, envelope.KindInvalid, envelope.KindOf(err), "a failed import is an input error: %v", err)
			return
		}
		assert.Equal(t, report.Rows, report.Added+report.Updated+report.Skipped, "every row counted once: %+v", report)

		again, err := svc.ImportCities(ctx, bytes.NewReader(data), refdata.ImportOptions{BatchSize: 7})
		require.NoError(t, err, "an import that succeeded succeeds again")
		assert.Zero(t, again.Added, "importing again adds nothing")
		assert.Equal(t, report.Added+report.Updated, again.Updated)
		assert.Equal(t, report.Skipped, again.Skipped)

		if !looksJSON(data) {
			for _, want := range goodCSVRows(data, known) {
				assert.Truef(t, stored(t, svc, want), "good row %+v is stored", want)
			}
		}
	})
}

// looksJSON tells a JSON cities file from a CSV one as ImportCities does:
// by its first non-blank byte after a byte-order mark.
func looksJSON(data []byte) bool {
	head := data[:min(len(data), 4096)]
	first := bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\ufeff")), " \t\r\n")
	return len(first) > 0 && (first[0] == '[' || first[0] == '{')
}

// goodCSVRows reads data as a cities CSV file with encoding/csv and returns
// the cities of its good rows (NormalizeCity accepts them, and their
// country is known) as the store must hold them: one per natural key, with
// the last row's name and tags.
func goodCSVRows(data []byte, known map[string]bool) []refdata.City {
	cr := csv.NewReader(bytes.NewReader(data))
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err != nil {
		return nil
	}
	col := map[string]int{}
	for i, h := range header {
		if i == 0 {
			h = strings.TrimPrefix(h, "\ufeff")
		}
		h = strings.ToLower(strings.TrimSpace(h))
		if _, dup := col[h]; !dup {
			col[h] = i
		}
	}
	at := func(rec []string, name string) string {
		if i, ok := col[strings.ToLower(name)]; ok && i < len(rec) {
			return rec[i]
		}
		return ""
	}
	var good []refdata.City
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			continue // a malformed row is reported, not imported
		}
		c, err := refdata.NormalizeCity(refdata.City{CountryCode: at(rec, "countryCode"), StateCode: at(rec, "stateCode"),
			Name: at(rec, "name"), Tags: at(rec, "tags")})
		if err == nil && known[c.CountryCode] {
			good = append(good, c)
		}
	}
	return refdata.DedupCities(good)
}

// stored reports whether svc lists city c: its codes and name, and its
// tags among the stored ones (an import adds tags to those a city has;
// a tag that would take its list past 200 bytes is dropped).
func stored(t *testing.T, svc *refdata.Service, c refdata.City) bool {
	t.Helper()
	p, err := svc.ListCities(t.Context(), refdata.CityQuery{CountryCode: &c.CountryCode, StateCode: &c.StateCode,
		Name: &c.Name, Page: refdata.Paging{Size: refdata.MaxPageSize}})
	require.NoError(t, err)
	for _, got := range p.Items {
		if got.CountryCode == c.CountryCode && got.StateCode == c.StateCode && got.Name == c.Name &&
			refrows.MergeTags(got.Tags, c.Tags) == got.Tags {
			return true
		}
	}
	return p.TotalItems > len(p.Items) // too many matches to tell: not a failure
}
