// Command gensubdivisions writes refdata/data/subdivisions.csv, the list of
// ISO 3166-2 subdivisions that the states route answers and that city
// state codes are checked against, from the Unicode CLDR's JSON data
// (under the Unicode License v3): the codes and their parents from
// cldr-core's supplemental/subdivisionContainment.json, the English names
// from cldr-subdivisions-full's subdivisions/en/en.json without the marks
// CLDR puts on names that repeat (cleanName), plus the few rows listed in
// additions below.
//
// go generate runs it from refdata (the //go:generate line in
// refdata/subdivisions.go), with BRANDBASE_CLDR (or -cldr) naming a directory that
// holds the two npm packages unpacked as cldr-core/ and
// cldr-subdivisions-full/ (docs/reference-data.md, "Subdivision codes"):
//
//	BRANDBASE_CLDR=/tmp/cldr go generate ./refdata/
//
// The output is deterministic for a given date: one row per code, sorted
// by country and code, after comment lines naming the source, its version
// and licence, and the date of the conversion.
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
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"

	"golang.org/x/text/language"
	"golang.org/x/text/language/display"
)

// addition is a code that the source does not hold (yet), with the reason
// it is listed all the same.
type addition struct {
	country, code, name, parent, note string
}

// additions are listed after the source's codes. Norway divided three of
// its counties on 2024-01-01 and numbered the new ones; ISO 3166-2, whose
// Norwegian codes are the official county numbers, has not published them
// (nor has CLDR 48). The divided counties' codes (NO-30 Viken, NO-38
// Vestfold og Telemark, NO-54 Troms og Finnmark) stay listed, as the
// source lists them. When the source holds one of these codes, the command
// fails: drop it from here.
var additions = []addition{
	{"NO", "31", "Østfold", "", "county number since 2024-01-01 (from Viken, NO-30); not yet in ISO 3166-2"},
	{"NO", "32", "Akershus", "", "county number since 2024-01-01 (from Viken, NO-30); not yet in ISO 3166-2"},
	{"NO", "33", "Buskerud", "", "county number since 2024-01-01 (from Viken, NO-30); not yet in ISO 3166-2"},
	{"NO", "39", "Vestfold", "", "county number since 2024-01-01 (from Vestfold og Telemark, NO-38); not yet in ISO 3166-2"},
	{"NO", "40", "Telemark", "", "county number since 2024-01-01 (from Vestfold og Telemark, NO-38); not yet in ISO 3166-2"},
	{"NO", "55", "Troms", "", "county number since 2024-01-01 (from Troms og Finnmark, NO-54); not yet in ISO 3166-2"},
	{"NO", "56", "Finnmark", "", "county number since 2024-01-01 (from Troms og Finnmark, NO-54); not yet in ISO 3166-2"},
}

// sameAsRegion are the subdivisions that ISO 3166-1 also codes as a
// country or territory and that CLDR's subdivision names leave unnamed,
// naming them as that region (CLDR's subdivisionAlias says so for most:
// fr-bl is BL; for these three only ISO 3166-2:CN's notes do). The name
// is CLDR's English name of the region, through golang.org/x/text.
var sameAsRegion = map[string]string{"cnhk": "HK", "cnmo": "MO", "cntw": "TW"}

// renaming is a name that the source lags behind: the subdivision (its
// CLDR id), the source's name for it, its name since date (YYYY-MM-DD), and
// where that is said.
type renaming struct {
	id, from, to, date, source string
}

// renamings are applied to the source's names (after cleanName), and the
// row says so in its note. When the source has caught up (names it to) the
// command fails: drop the row; when it names it otherwise, or no longer
// holds it, the command fails too: check the row. Nepal's constitution of
// 2015 numbered its seven provinces and left each provincial assembly to
// name its own; Gandaki and Karnali, named in 2018, are CLDR 48's names
// already. The English spellings are ISO 3166-2:NP's
// (https://www.iso.org/obp/ui/#iso:code:3166:NP); the dates are the
// assemblies' votes, as the cited reports give them.
var renamings = []renaming{
	{"npp1", "Province 1", "Koshi", "2023-03-01",
		"https://kathmandupost.com/province-no-1/2023/03/01/province-1-assembly-endorses-koshi-as-the-name-of-the-province-by-majority-votes"},
	{"npp2", "Province 2", "Madhesh", "2022-01-17",
		"https://www.spotlightnepal.com/2022/01/18/province-2-named-madhesh-province-capital-janakpurdham/"},
	{"npp3", "Province 3", "Bagmati", "2020-01-12",
		"https://www.devdiscourse.com/article/international/828029-nepal-names-province-3-as-bagmati-maintains-hetauda-its-capital"},
	{"npp5", "Province 5", "Lumbini", "2020-10-06",
		"https://thehimalayantimes.com/nepal/province-5-is-lumbini-headquarters-dang"},
	{"npp7", "Province 7", "Sudurpashchim", "2018-09-28",
		"https://sajhasabal.com/?p=44685"},
}

// named are subdivisions CLDR holds but names in no locale, with the name
// this list gives them and why.
var named = map[string]struct{ name, note string }{
	"cnnm": {"Inner Mongolia", "no English name in CLDR 48; the English name in common use (ISO: Nei Mongol Zizhiqu)"},
}

func main() {
	dir := flag.String("cldr", os.Getenv("BRANDBASE_CLDR"), "directory holding the npm packages cldr-core/ and cldr-subdivisions-full/ (default $BRANDBASE_CLDR)")
	out := flag.String("out", "", "file to write (standard output when empty)")
	date := flag.String("date", time.Now().UTC().Format(time.DateOnly), "the day of the conversion, YYYY-MM-DD")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "usage: gensubdivisions -cldr DIR [-out FILE]: set BRANDBASE_CLDR for go generate (docs/reference-data.md, \"Subdivision codes\")")
		os.Exit(2)
	}
	src, err := readSource(*dir)
	if err == nil {
		err = write(src, *out, *date)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gensubdivisions:", err)
		os.Exit(1)
	}
}

// write generates the list from src into path (standard output when
// empty), replacing it only once the whole list is written.
func write(src source, path, date string) error {
	if path == "" {
		return generate(src, os.Stdout, date)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".subdivisions-*.csv")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := generate(src, tmp, date); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// source is what the command reads from CLDR.
type source struct {
	// version is the cldr-json release, e.g. "48.2.0"; cldr the CLDR
	// version, e.g. "48".
	version, cldr string
	// containment maps a country (upper case, "FR") or a subdivision
	// (CLDR's id, "frara") to the subdivisions it contains.
	containment map[string][]string
	// names maps CLDR's subdivision ids to their English names.
	names map[string]string
	// aliases maps an id to the region that replaces it ("frbl": "BL").
	aliases map[string]string
}

// readSource reads the three files of the two packages under dir.
func readSource(dir string) (source, error) {
	var src source
	var core, subs struct {
		Version     string `json:"version"`
		CLDRVersion string `json:"cldrVersion"`
	}
	var cont struct {
		Supplemental struct {
			SubdivisionContainment map[string]struct {
				Contains []string `json:"_contains"`
			} `json:"subdivisionContainment"`
		} `json:"supplemental"`
	}
	var en struct {
		Subdivisions struct {
			LocaleDisplayNames struct {
				Subdivisions map[string]string `json:"subdivisions"`
			} `json:"localeDisplayNames"`
		} `json:"subdivisions"`
	}
	var aliases struct {
		Supplemental struct {
			Metadata struct {
				Alias struct {
					SubdivisionAlias map[string]struct {
						Replacement string `json:"_replacement"`
					} `json:"subdivisionAlias"`
				} `json:"alias"`
			} `json:"metadata"`
		} `json:"supplemental"`
	}
	for path, v := range map[string]any{
		"cldr-core/package.json":                             &core,
		"cldr-subdivisions-full/package.json":                &subs,
		"cldr-core/supplemental/subdivisionContainment.json": &cont,
		"cldr-core/supplemental/aliases.json":                &aliases,
		"cldr-subdivisions-full/subdivisions/en/en.json":     &en,
	} {
		b, err := os.ReadFile(filepath.Join(dir, path))
		if err != nil {
			return src, err
		}
		if err := json.Unmarshal(b, v); err != nil {
			return src, fmt.Errorf("%s: %w", path, err)
		}
	}
	if core.Version != subs.Version || core.Version == "" {
		return src, fmt.Errorf("cldr-core %q and cldr-subdivisions-full %q: want one release", core.Version, subs.Version)
	}
	src.version, src.cldr = core.Version, core.CLDRVersion
	src.containment = map[string][]string{}
	for k, v := range cont.Supplemental.SubdivisionContainment {
		src.containment[k] = v.Contains
	}
	src.names = en.Subdivisions.LocaleDisplayNames.Subdivisions
	src.aliases = map[string]string{}
	for k, v := range aliases.Supplemental.Metadata.Alias.SubdivisionAlias {
		if len(v.Replacement) == 2 && strings.ToUpper(v.Replacement) == v.Replacement {
			src.aliases[k] = v.Replacement
		}
	}
	return src, nil
}

// row is one line of the output.
type row struct {
	country, code, name, parent, note string
}

// generate writes the CSV list of src to w, naming the source and the day
// of the conversion (YYYY-MM-DD) in its header.
func generate(src source, w io.Writer, date string) error {
	if _, err := time.Parse(time.DateOnly, date); err != nil {
		return fmt.Errorf("date: %w", err)
	}
	parents, err := parentsOf(src.containment)
	if err != nil {
		return err
	}
	rows, err := sourceRows(src, parents)
	if err != nil {
		return err
	}
	if rows, err = withAdditions(rows); err != nil {
		return err
	}
	slices.SortFunc(rows, func(a, b row) int {
		return cmp.Or(cmp.Compare(a.country, b.country), cmp.Compare(a.code, b.code))
	})
	return writeList(w, src, date, rows)
}

// parentsOf maps each subdivision id of containment to the id of the
// subdivision that contains it, "" for a first level (one a country
// contains).
func parentsOf(containment map[string][]string) (map[string]string, error) {
	parents := map[string]string{}
	for k, ids := range containment {
		for _, id := range ids {
			if _, dup := parents[id]; dup {
				return nil, fmt.Errorf("%s is contained twice", id)
			}
			parents[id] = ""
			if len(k) > 2 {
				parents[id] = k
			}
		}
	}
	if len(parents) == 0 {
		return nil, errors.New("the source holds no subdivisions")
	}
	return parents, nil
}

// sourceRows returns one row for each subdivision of parents, in no order.
func sourceRows(src source, parents map[string]string) ([]row, error) {
	for _, rn := range renamings {
		if _, ok := parents[rn.id]; !ok {
			return nil, fmt.Errorf("%s is not in the source: check its renaming", rn.id)
		}
	}
	en := display.English.Regions()
	rows := make([]row, 0, len(parents)+len(additions))
	for id, parent := range parents {
		r, err := sourceRow(src, en, id, parent)
		if err != nil {
			return nil, err
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// sourceRow returns the row of the subdivision id, contained by parent
// ("" for a first level), with its English name: the source's, else its
// region's in en (sameAsRegion, the source's aliases), else named's.
func sourceRow(src source, en display.Namer, id, parent string) (row, error) {
	if len(id) < 3 || strings.ToLower(id) != id {
		return row{}, fmt.Errorf("malformed subdivision id %q", id)
	}
	r := row{country: strings.ToUpper(id[:2]), code: strings.ToUpper(id[2:]), name: cleanName(src.names[id])}
	if parent != "" {
		if !strings.HasPrefix(parent, id[:2]) {
			return row{}, fmt.Errorf("%s: parent %s is of another country", id, parent)
		}
		r.parent = strings.ToUpper(parent[2:])
	}
	if r.name == "" {
		region := cmp.Or(src.aliases[id], sameAsRegion[id])
		switch n, ok := named[id]; {
		case region != "":
			r.name = en.Name(language.MustParseRegion(region))
		case ok:
			r.name, r.note = n.name, n.note
		}
	}
	if r.name == "" {
		return row{}, fmt.Errorf("%s has no English name: add it to named", id)
	}
	if hasMark(r.name) {
		return row{}, fmt.Errorf("%s: name %q holds a mark that is not at its end: extend cleanName", id, r.name)
	}
	return r, rename(&r, id, src.cldr)
}

// rename gives r, the row of the subdivision id as CLDR release cldr
// names it, its name since, if renamings lists it.
func rename(r *row, id, cldr string) error {
	i := slices.IndexFunc(renamings, func(rn renaming) bool { return rn.id == id })
	if i < 0 {
		return nil
	}
	rn := renamings[i]
	switch r.name {
	case rn.to:
		return fmt.Errorf("%s: the source names it %q now: remove it from the renamings", id, rn.to)
	case rn.from:
		r.name, r.note = rn.to, fmt.Sprintf("named %s on %s (CLDR %s: %s)", rn.to, rn.date, cldr, rn.from)
		return nil
	}
	return fmt.Errorf("%s: the source names it %q, not %q: check its renaming", id, r.name, rn.from)
}

// annotation is a CLDR annotation at the end of a name: a region code and
// a word in parentheses, as in "Tarfaya (EH-partial)" (the province is
// partly in Western Sahara, EH). A name's own parentheses, as in "Guyane
// (française)", are not one.
var annotation = regexp.MustCompile(`\s*\([A-Z]{2}-[A-Za-z]+\)`)

// isMark reports whether r is a footnote mark: a superscript digit or any
// other Unicode "No" number (¹²³, ⁴...), a dagger, a double dagger or an
// asterisk.
func isMark(r rune) bool {
	return unicode.Is(unicode.No, r) || r == '†' || r == '‡' || r == '*'
}

// cleanName returns a name of the source without the marks CLDR puts at
// the end of names that repeat, which are no part of the name: footnote
// superscripts ("Viljandi²" and "Viljandi³", Estonia's town and rural
// municipality; "Île-de-France²"), daggers ("Aerodrom †", a municipality of
// the City of Skopje) and annotations ("Tarfaya (EH-partial)"). After it,
// two subdivisions can share a name; their codes tell them apart.
func cleanName(name string) string {
	for {
		n := strings.TrimSpace(name)
		if loc := annotation.FindStringIndex(n); loc != nil && loc[1] == len(n) {
			n = n[:loc[0]]
		}
		n = strings.TrimSpace(strings.TrimRightFunc(n, isMark))
		if n == name {
			return n
		}
		name = n
	}
}

// hasMark reports whether name holds a footnote mark or a CLDR annotation
// anywhere.
func hasMark(name string) bool {
	return strings.ContainsFunc(name, isMark) || annotation.MatchString(name)
}

// withAdditions appends the additions to rows, the source's, failing when
// the source holds one of them.
func withAdditions(rows []row) ([]row, error) {
	seen := make(map[string]bool, len(rows))
	for _, r := range rows {
		seen[r.country+"-"+r.code] = true
	}
	for _, a := range additions {
		if seen[a.country+"-"+a.code] {
			return nil, fmt.Errorf("%s-%s is in the source now: remove it from the additions", a.country, a.code)
		}
		rows = append(rows, row{a.country, a.code, a.name, a.parent, a.note})
	}
	return rows, nil
}

// writeList writes the sorted rows to w as CSV, after the comment lines
// naming src and the day of the conversion.
func writeList(w io.Writer, src source, date string, rows []row) error {
	notes := 0
	for _, r := range rows {
		if r.note != "" {
			notes++
		}
	}
	header := []string{
		"# ISO 3166-2 subdivisions, every level: the states route answers them; city state codes are checked against them.",
		"# Generated by go generate ./refdata/ (refdata/internal/gensubdivisions): do not edit. Refresh as docs/reference-data.md (\"Subdivision codes\") says.",
		"# Source: Unicode CLDR " + src.cldr + " (cldr-json " + src.version + ": cldr-core supplemental/subdivisionContainment.json, " +
			"cldr-subdivisions-full subdivisions/en/en.json), https://github.com/unicode-org/cldr-json",
		"#   Copyright © 2004-2026 Unicode, Inc.; under the Unicode License v3 (refdata/data/LICENSE-CLDR).",
		"# Converted: " + date + " by refdata/internal/gensubdivisions.",
		fmt.Sprintf("# Rows with a note (%d) are missing from the source, unnamed there, or named there by an old name; the note says why.", notes),
		"# code and parent are given without the country prefix (FR-20R is FR,20R).",
	}
	for _, line := range header {
		if _, err := io.WriteString(w, line+"\n"); err != nil {
			return err
		}
	}
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"countryCode", "code", "name", "parent", "note"})
	for _, r := range rows {
		_ = cw.Write([]string{r.country, r.code, r.name, r.parent, r.note})
	}
	cw.Flush()
	return cw.Error()
}
