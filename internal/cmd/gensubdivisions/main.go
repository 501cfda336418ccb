// Command gensubdivisions writes refdata/data/subdivisions.csv, the list of
// ISO 3166-2 subdivision codes the library checks city state codes
// against, from the iso_3166-2.json file of Debian's iso-codes project
// (https://salsa.debian.org/iso-codes-team/iso-codes, data/iso_3166-2.json),
// plus the few codes listed in additions below.
//
// It is run by hand when iso-codes publishes a new release; see
// docs/reference-data.md, section "Subdivision codes":
//
//	go run ./internal/cmd/gensubdivisions -in iso_3166-2.json \
//	    -source 'iso-codes 4.20.1 (2026-01-01)' >refdata/data/subdivisions.csv
//
// The output is deterministic: one row per code, sorted by country and
// code, after a header of comment lines naming the source and the date of
// the conversion.
package main

import (
	"cmp"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"
)

// addition is a code that the source does not hold (yet), with the reason
// it is listed all the same.
type addition struct {
	country, code, name, category, note string
}

// additions are listed after the source's codes. Norway divided three of
// its counties on 2024-01-01 and numbered the new ones; ISO 3166-2, whose
// Norwegian codes are the official county numbers, has not published them
// (iso-codes 4.20.1, and the changes of ISO's Online Browsing Platform as
// github.com/amckenna41/iso3166-updates collects them, latest 2025-07-22,
// end with the 2020 counties). The divided counties'
// codes (NO-30 Viken, NO-38 Vestfold og Telemark, NO-54 Troms og Finnmark)
// stay listed, as the source lists them. When the source holds one of
// these codes, the command fails: drop it from here.
var additions = []addition{
	{"NO", "31", "Østfold", "County", "county number since 2024-01-01 (from Viken, NO-30); not yet in ISO 3166-2"},
	{"NO", "32", "Akershus", "County", "county number since 2024-01-01 (from Viken, NO-30); not yet in ISO 3166-2"},
	{"NO", "33", "Buskerud", "County", "county number since 2024-01-01 (from Viken, NO-30); not yet in ISO 3166-2"},
	{"NO", "39", "Vestfold", "County", "county number since 2024-01-01 (from Vestfold og Telemark, NO-38); not yet in ISO 3166-2"},
	{"NO", "40", "Telemark", "County", "county number since 2024-01-01 (from Vestfold og Telemark, NO-38); not yet in ISO 3166-2"},
	{"NO", "55", "Troms", "County", "county number since 2024-01-01 (from Troms og Finnmark, NO-54); not yet in ISO 3166-2"},
	{"NO", "56", "Finnmark", "County", "county number since 2024-01-01 (from Troms og Finnmark, NO-54); not yet in ISO 3166-2"},
}

func main() {
	in := flag.String("in", "", "path of iso-codes' data/iso_3166-2.json")
	source := flag.String("source", "", "the source's name, version and release date, e.g. 'iso-codes 4.20.1 (2026-01-01)'")
	date := flag.String("date", time.Now().UTC().Format(time.DateOnly), "the day of the conversion, YYYY-MM-DD")
	flag.Parse()
	if *in == "" || *source == "" {
		fmt.Fprintln(os.Stderr, "usage: gensubdivisions -in iso_3166-2.json -source 'iso-codes X.Y.Z (YYYY-MM-DD)' >refdata/data/subdivisions.csv")
		os.Exit(2)
	}
	f, err := os.Open(*in)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gensubdivisions:", err)
		os.Exit(1)
	}
	defer f.Close()
	if err := generate(f, os.Stdout, *source, *date); err != nil {
		fmt.Fprintln(os.Stderr, "gensubdivisions:", err)
		os.Exit(1)
	}
}

// entry is one element of iso-codes' "3166-2" array.
type entry struct {
	Code   string `json:"code"`   // "FR-20R"
	Name   string `json:"name"`   // "Corse"
	Type   string `json:"type"`   // "Metropolitan collectivity with special status"
	Parent string `json:"parent"` // "FR-ARA", or "" for a first-level subdivision
}

// row is one line of the output.
type row struct {
	country, code, name, category, parent, note string
}

// generate reads iso-codes' iso_3166-2.json from r and writes the CSV list
// to w, naming source and the day of the conversion (YYYY-MM-DD) in its
// header.
func generate(r io.Reader, w io.Writer, source, date string) error {
	if _, err := time.Parse(time.DateOnly, date); err != nil {
		return fmt.Errorf("date: %w", err)
	}
	var doc struct {
		Entries []entry `json:"3166-2"`
	}
	if err := json.NewDecoder(r).Decode(&doc); err != nil {
		return fmt.Errorf("read the source: %w", err)
	}
	if len(doc.Entries) == 0 {
		return errors.New("the source holds no \"3166-2\" entries")
	}
	rows := make([]row, 0, len(doc.Entries)+len(additions))
	seen := make(map[string]bool, len(doc.Entries))
	for _, e := range doc.Entries {
		country, code, ok := strings.Cut(e.Code, "-")
		if !ok || len(country) != 2 || code == "" || strings.TrimSpace(e.Name) == "" {
			return fmt.Errorf("malformed entry %+v", e)
		}
		if seen[e.Code] {
			return fmt.Errorf("%s is listed twice", e.Code)
		}
		seen[e.Code] = true
		parent := strings.TrimPrefix(e.Parent, country+"-")
		rows = append(rows, row{country, code, strings.TrimSpace(e.Name), e.Type, parent, ""})
	}
	for _, a := range additions {
		if seen[a.country+"-"+a.code] {
			return fmt.Errorf("%s-%s is in the source now: remove it from the additions", a.country, a.code)
		}
		rows = append(rows, row{a.country, a.code, a.name, a.category, "", a.note})
	}
	slices.SortFunc(rows, func(a, b row) int {
		return cmp.Or(cmp.Compare(a.country, b.country), cmp.Compare(a.code, b.code))
	})

	header := []string{
		"# ISO 3166-2 subdivision codes, every level: refdata checks city state codes against this list.",
		"# Generated: do not edit. Refresh as docs/reference-data.md (section \"Subdivision codes\") says.",
		"# Source: " + source + ", data/iso_3166-2.json, https://salsa.debian.org/iso-codes-team/iso-codes",
		"#   (iso-codes' data files are under LGPL-2.1-or-later).",
		"# Converted: " + date + " by internal/cmd/gensubdivisions.",
		fmt.Sprintf("# Rows with a note (%d) are not in the source; the note says why they are listed.", len(additions)),
		"# code and parent are given without the country prefix (FR-20R is FR,20R).",
	}
	for _, line := range header {
		if _, err := io.WriteString(w, line+"\n"); err != nil {
			return err
		}
	}
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"countryCode", "code", "name", "category", "parent", "note"})
	for _, r := range rows {
		_ = cw.Write([]string{r.country, r.code, r.name, r.category, r.parent, r.note})
	}
	cw.Flush()
	return cw.Error()
}
