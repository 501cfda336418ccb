package refdata

import (
	"cmp"
	"slices"
	"strings"

	"github.com/brandbase/brandbase/internal/textfold"
)

// This file is the reference implementation of the filters and sort orders
// of the lists (docs/reference-data.md): the matches methods and the sort
// keys below define them, the tables of currencies and countries run them,
// and the tests check the city index (cityindex.go) against selectCities,
// the cities' reference (reference_test.go).

// sortKey is the value a record sorts by for one field: text fields by s
// (their folded or normalised form), numbers and flags by n.
type sortKey struct {
	s string
	n float64
}

func compareKeys(a, b sortKey) int {
	return cmp.Or(strings.Compare(a.s, b.s), cmp.Compare(a.n, b.n))
}

func flag(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// currencyView is a currency with the derived values its filters and sort
// keys read, computed once.
type currencyView struct {
	rec                                    Currency
	created                                int    // place in the order of storage
	name, namePlural, symbol, symbolNative string // folded
	tagKey                                 string
	search                                 string
}

func viewCurrency(c Currency) currencyView {
	return currencyView{
		rec: c, name: textfold.Fold(c.Name), namePlural: textfold.Fold(c.NamePlural), symbol: textfold.Fold(c.Symbol),
		symbolNative: textfold.Fold(c.SymbolNative), tagKey: textfold.TagKey(c.Tags), search: c.searchText(),
	}
}

// searchText returns the folded words the Keywords filter searches for c:
// its name, code, tags and keywords.
func (c Currency) searchText() string { return textfold.SearchText(c.Name, c.Code, c.Tags, c.Keywords) }

// matches reports whether f selects c.
func (f currencyFilter) matches(c Currency) bool {
	v := viewCurrency(c)
	return f.match(&v)
}

func (f currencyFilter) match(v *currencyView) bool {
	c := &v.rec
	return !f.Nothing && (f.Code == "" || c.Code == f.Code) &&
		strings.Contains(v.name, f.Name) &&
		strings.Contains(v.namePlural, f.NamePlural) &&
		strings.Contains(v.symbol, f.Symbol) &&
		strings.Contains(v.symbolNative, f.SymbolNative) &&
		(f.DecimalDigits == nil || c.DecimalDigits == *f.DecimalDigits) &&
		(f.Rounding == nil || c.Rounding == *f.Rounding) &&
		(f.IsCoin == nil || c.IsCoin == *f.IsCoin) &&
		textfold.MatchTags(f.Tags, v.tagKey) &&
		textfold.MatchTerms(f.Keywords, v.search)
}

func (f currencyFilter) key(v *currencyView) sortKey {
	c := &v.rec
	switch f.Sort {
	case fieldCode:
		return sortKey{s: c.Code}
	case fieldName:
		return sortKey{s: v.name}
	case fieldNamePlural:
		return sortKey{s: v.namePlural}
	case fieldSymbol:
		return sortKey{s: v.symbol}
	case fieldSymbolNative:
		return sortKey{s: v.symbolNative}
	case fieldDecimalDigits:
		return sortKey{n: float64(c.DecimalDigits)}
	case fieldRounding:
		return sortKey{n: c.Rounding}
	case fieldIsCoin:
		return sortKey{n: flag(c.IsCoin)}
	case fieldIsDefault:
		return sortKey{n: flag(c.Code == f.DefaultCode)}
	case fieldTags:
		return sortKey{s: v.tagKey}
	case fieldCreatedDate:
		return sortKey{n: float64(v.created)}
	}
	return sortKey{s: c.ID}
}

// countryView is a country with the derived values its filters and sort
// keys read.
type countryView struct {
	rec                                      Country
	created                                  int    // place in the order of storage
	region, subregion, name, capital, native string // folded
	tagKey                                   string
	search                                   string
}

func viewCountry(c Country) countryView {
	return countryView{
		rec: c, region: textfold.Fold(c.Region), subregion: textfold.Fold(c.Subregion), name: textfold.Fold(c.Name),
		capital: textfold.Fold(c.Capital), native: textfold.Fold(c.Native), tagKey: textfold.TagKey(c.Tags), search: c.searchText(),
	}
}

// searchText returns the folded words the Keywords filter searches for c:
// its name, alpha-2 and alpha-3 codes, native name, capital, tags and
// keywords.
func (c Country) searchText() string {
	return textfold.SearchText(c.Name, c.CodeAlpha2, c.CodeAlpha3, c.Native, c.Capital, c.Tags, c.Keywords)
}

// matches reports whether f selects c.
func (f countryFilter) matches(c Country) bool {
	v := viewCountry(c)
	return f.match(&v)
}

func (f countryFilter) match(v *countryView) bool {
	c := &v.rec
	return !f.Nothing && (f.CodeAlpha2 == "" || c.CodeAlpha2 == f.CodeAlpha2) &&
		(f.CodeAlpha3 == "" || c.CodeAlpha3 == f.CodeAlpha3) &&
		(f.CodeNumeric == nil || c.CodeNumeric == *f.CodeNumeric) &&
		(f.CodePhone == "" || c.CodePhone == f.CodePhone) &&
		(f.Currency == "" || c.Currency == f.Currency) &&
		(f.Tld == "" || c.Tld == f.Tld) &&
		strings.Contains(v.region, f.Region) &&
		strings.Contains(v.subregion, f.Subregion) &&
		strings.Contains(v.name, f.Name) &&
		strings.Contains(v.capital, f.Capital) &&
		strings.Contains(v.native, f.Native) &&
		textfold.MatchTags(f.Tags, v.tagKey) &&
		textfold.MatchTerms(f.Keywords, v.search)
}

func (f countryFilter) key(v *countryView) sortKey {
	c := &v.rec
	switch f.Sort {
	case fieldRegion:
		return sortKey{s: v.region}
	case fieldSubregion:
		return sortKey{s: v.subregion}
	case fieldCodeAlpha2:
		return sortKey{s: c.CodeAlpha2}
	case fieldCodeAlpha3:
		return sortKey{s: c.CodeAlpha3}
	case fieldCodeNumeric:
		return sortKey{n: float64(c.CodeNumeric)}
	case fieldCodePhone:
		return sortKey{s: c.CodePhone}
	case fieldName:
		return sortKey{s: v.name}
	case fieldCapital:
		return sortKey{s: v.capital}
	case fieldCurrency:
		return sortKey{s: c.Currency}
	case fieldTld:
		return sortKey{s: c.Tld}
	case fieldNative:
		return sortKey{s: v.native}
	case fieldTags:
		return sortKey{s: v.tagKey}
	case fieldCreatedDate:
		return sortKey{n: float64(v.created)}
	}
	return sortKey{s: c.ID}
}

// searchText returns the folded words the Keywords filter searches for c:
// its name, country code, state code and tags.
func (c City) searchText() string {
	return textfold.SearchText(c.Name, c.CountryCode, c.StateCode, c.Tags)
}

// citySortKey returns the text c sorts by for field: the code itself for
// countryCode and stateCode, textfold.Fold(c.Name) for name, textfold.TagKey(c.Tags) for tags.
// Sorting by id is by insertion order, which no key holds; CitySortKey
// returns "" for it.
func citySortKey(c *City, by field) string {
	switch by {
	case fieldCountryCode:
		return c.CountryCode
	case fieldStateCode:
		return c.StateCode
	case fieldName:
		return textfold.Fold(c.Name)
	case fieldTags:
		return textfold.TagKey(c.Tags)
	}
	return ""
}

// selectPage returns the positions of the page of the n records that match
// selects, ordered by key and then by position (reversed when desc; a nil
// key means by position only), and the number of matches.
func selectPage(n int, match func(i int) bool, key func(i int) sortKey, desc bool, p Paging) ([]int, int) {
	idx := make([]int, 0, n)
	for i := range n {
		if match(i) {
			idx = append(idx, i)
		}
	}
	if key != nil {
		keys := make([]sortKey, n)
		for _, i := range idx {
			keys[i] = key(i)
		}
		slices.SortFunc(idx, func(a, b int) int { return cmp.Or(compareKeys(keys[a], keys[b]), cmp.Compare(a, b)) })
	}
	if desc {
		slices.Reverse(idx)
	}
	start, end := p.bounds(len(idx))
	return idx[start:end], len(idx)
}

// currencyTable is an immutable in-memory table of currencies that answers
// currencyFilter queries: the engine's table of currencies, and their
// reference implementation. It is safe for concurrent use.
type currencyTable struct {
	views  []currencyView // by ID
	byCode map[string]int
}

// newCurrencyTable returns the table of cs, given in the order they were
// stored (sort by createdDate); of records with the same ID the last one
// wins, at the place of the first.
func newCurrencyTable(cs []Currency) *currencyTable {
	cs, created := dedupByID(cs, func(c Currency) string { return c.ID })
	t := &currencyTable{views: make([]currencyView, len(cs)), byCode: make(map[string]int, len(cs))}
	for i, c := range cs {
		t.views[i] = viewCurrency(c)
		t.views[i].created = created[i]
		t.byCode[c.Code] = i
	}
	return t
}

// inOrder returns the table's currencies in the order they were
// stored: newCurrencyTable(append(t.inOrder(), more...)) is t
// with more upserted.
func (t *currencyTable) inOrder() []Currency {
	return byCreation(t.views, currencyRecord, func(v *currencyView) int { return v.created })
}

func currencyRecord(v *currencyView) Currency { return v.rec }

// list returns the page of currencies f selects and the number of matches.
func (t *currencyTable) list(f currencyFilter) ([]Currency, int) {
	views := t.views
	if f.Code != "" { // an index lookup instead of a scan
		i, ok := t.byCode[f.Code]
		if !ok {
			return []Currency{}, 0
		}
		views = views[i : i+1]
	}
	return listViews(views, currencyRecord, f.match, f.key, f.Sort == fieldID, f.Desc, f.Page)
}

// countryTable is an immutable in-memory table of countries that answers
// countryFilter queries: the engine's table of countries, and their
// reference implementation. It is safe for concurrent use.
type countryTable struct {
	views  []countryView // by ID
	byCode map[string]int
}

// newCountryTable returns the table of cs, given in the order they were
// stored (sort by createdDate); of records with the same ID the last one
// wins, at the place of the first.
func newCountryTable(cs []Country) *countryTable {
	cs, created := dedupByID(cs, func(c Country) string { return c.ID })
	t := &countryTable{views: make([]countryView, len(cs)), byCode: make(map[string]int, 2*len(cs))}
	for i, c := range cs {
		t.views[i] = viewCountry(c)
		t.views[i].created = created[i]
		t.byCode["2:"+c.CodeAlpha2] = i
		t.byCode["3:"+c.CodeAlpha3] = i
	}
	return t
}

// rows returns the table's countries ordered by ID.
func (t *countryTable) rows() []Country {
	return records(t.views, countryRecord)
}

func countryRecord(v *countryView) Country { return v.rec }

// list returns the page of countries f selects and the number of matches.
func (t *countryTable) list(f countryFilter) ([]Country, int) {
	views := t.views
	if f.CodeAlpha2 != "" || f.CodeAlpha3 != "" { // an index lookup instead of a scan
		k := "2:" + f.CodeAlpha2
		if f.CodeAlpha2 == "" {
			k = "3:" + f.CodeAlpha3
		}
		i, ok := t.byCode[k]
		if !ok {
			return []Country{}, 0
		}
		views = views[i : i+1]
	}
	return listViews(views, countryRecord, f.match, f.key, f.Sort == fieldID, f.Desc, f.Page)
}

// records returns the record of each view, in order.
func records[V, R any](views []V, rec func(*V) R) []R {
	out := make([]R, len(views))
	for i := range views {
		out[i] = rec(&views[i])
	}
	return out
}

// listViews returns the page of the views that match selects, as records,
// and the number of matches: ordered by key (in views' order, which is by
// ID, when byID), reversed when desc.
func listViews[V, R any](views []V, rec func(*V) R, match func(*V) bool, key func(*V) sortKey, byID, desc bool, page Paging) ([]R, int) {
	var keyAt func(i int) sortKey
	if !byID {
		keyAt = func(i int) sortKey { return key(&views[i]) }
	}
	idx, total := selectPage(len(views), func(i int) bool { return match(&views[i]) }, keyAt, desc, page)
	out := make([]R, len(idx))
	for j, i := range idx {
		out[j] = rec(&views[i])
	}
	return out, total
}

// byCreation returns the record of each view, in the order of created
// (a permutation of 0..len(views)-1).
func byCreation[V, R any](views []V, rec func(*V) R, created func(*V) int) []R {
	out := make([]R, len(views))
	for i := range views {
		out[created(&views[i])] = rec(&views[i])
	}
	return out
}

// dedupByID returns recs (in the order they were stored) with one record
// per ID, the last of those with the same ID, sorted by ID, and the place
// of each in the order of storage: that of the first record with its ID.
func dedupByID[T any](recs []T, id func(T) string) ([]T, []int) {
	stored := make([]T, 0, len(recs))
	at := make(map[string]int, len(recs))
	for _, r := range recs {
		if i, ok := at[id(r)]; ok {
			stored[i] = r
			continue
		}
		at[id(r)] = len(stored)
		stored = append(stored, r)
	}
	created := make([]int, len(stored))
	for i := range created {
		created[i] = i
	}
	slices.SortFunc(created, func(a, b int) int { return strings.Compare(id(stored[a]), id(stored[b])) })
	out := make([]T, len(stored))
	for i, c := range created {
		out[i] = stored[c]
	}
	return out, created
}
