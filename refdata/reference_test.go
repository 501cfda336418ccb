package refdata

// The reference implementation of the city list, and the index helpers
// the tests build indexes with: test code only. The engine (cityindex.go)
// must answer every query as selectCities does (TestCodesAndShortName,
// FuzzCityIndex, ...).

import (
	"strings"

	"github.com/brandbase/brandbase/internal/refrows"
	"github.com/brandbase/brandbase/internal/textfold"
)

// newCityIndex returns an empty index.
func newCityIndex() *cityIndex { return newCityIndexSized(0) }

// cityIndexOf returns the index of cs (normalised), upserted in order, ready for
// List.
func cityIndexOf(cs []City) *cityIndex {
	t := newCityIndexSized(len(cs))
	t.upsertAll(cs)
	return t
}

// upsertOne stores c (normalised), replacing the name of the city with its
// natural key and adding c's tags to its own (refrows.MergeTags), and
// reports whether c was added. Strings are copied, so that c may point
// into a larger buffer (a CSV line).
func (t *cityIndex) upsertOne(c City) bool { return t.upsert(c, prepare(&c)) }

// dedupCities returns cs with one city per natural key (cityKey), as a
// store holds them after UpsertCities(cs): at the place of the key's first
// occurrence, with the name of its last and the tags of all (refrows.MergeTags).
func dedupCities(cs []City) []City {
	out := make([]City, 0, len(cs))
	at := make(map[string]int, len(cs))
	for _, c := range cs {
		k := cityKey(c)
		if i, ok := at[k]; ok {
			out[i].Name, out[i].Tags = c.Name, refrows.MergeTags(out[i].Tags, c.Tags)
			continue
		}
		at[k] = len(out)
		out = append(out, c)
	}
	return out
}

// matches reports whether f selects c.
func (f cityFilter) matches(c City) bool { return f.matchFolded(&c, textfold.Fold(c.Name)) }

// matchFolded is Match for a store that keeps each city's folded name:
// foldedName must be textfold.Fold(c.Name).
func (f cityFilter) matchFolded(c *City, foldedName string) bool {
	return !f.Nothing && (f.CountryCode == "" || c.CountryCode == f.CountryCode) &&
		(f.StateCode == "" || c.StateCode == f.StateCode) &&
		strings.Contains(foldedName, f.Name) &&
		textfold.MatchTerms(f.Keywords, foldedName, c.CountryCode, c.StateCode, c.Tags)
}

// selectCities is the reference implementation of a city list: the page of
// cs (in insertion order) that f selects, in f's order, and the number of
// matches. It scans; stores answer the same with indexes.
func selectCities(cs []City, f cityFilter) ([]City, int) {
	var key func(i int) sortKey
	if f.Sort != fieldID {
		key = func(i int) sortKey { return sortKey{s: citySortKey(&cs[i], f.Sort)} }
	}
	idx, total := selectPage(len(cs), func(i int) bool { return f.matches(cs[i]) }, key, f.Desc, f.Page)
	out := make([]City, len(idx))
	for j, i := range idx {
		out[j] = cs[i]
	}
	return out, total
}
