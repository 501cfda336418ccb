package refdata

import (
	"math"
	"slices"
	"strings"

	"github.com/brandbase/brandbase/envelope"

	"github.com/brandbase/brandbase/internal/textfold"
)

// Paging limits.
const (
	DefaultPageSize = 200
	MaxPageSize     = 1000
	// MaxTextLength is the longest value, in bytes, a text query parameter
	// may have; a longer one is refused with "too_long".
	MaxTextLength = 200
)

// Paging selects one page of a list.
type Paging struct {
	// Number is the page number, from 0.
	Number int
	// Size is the page size. 0 means DefaultPageSize (in-process the zero
	// value, over HTTP PageSize=0 or no PageSize); a size above MaxPageSize
	// is clamped to it; a negative size is refused.
	Size int
}

// offset returns the index of the page's first record.
// It saturates at math.MaxInt instead of overflowing (a far page of a large
// size on a 32-bit platform), which every store reads as past the end.
func (p Paging) offset() int {
	if p.Size > 0 && p.Number > math.MaxInt/p.Size {
		return math.MaxInt
	}
	return p.Number * p.Size
}

// normalize validates p and applies the default and the clamp.
func (p Paging) normalize(v *envelope.Validation) Paging {
	if p.Number < 0 || p.Number > math.MaxInt32 {
		v.Add("PageNumber", "out_of_range", "PageNumber must be between 0 and 2147483647.")
	}
	switch {
	case p.Size < 0:
		v.Add("PageSize", "out_of_range", "PageSize must be between 1 and 1000 (0 means the default, 200).")
	case p.Size == 0:
		p.Size = DefaultPageSize
	case p.Size > MaxPageSize:
		p.Size = MaxPageSize
	}
	return p
}

// bounds returns the half-open range [start, end) of the page within n
// records; start == end past the end.
func (p Paging) bounds(n int) (start, end int) {
	start = min(p.offset(), n)
	return start, start + min(p.Size, n-start)
}

// field names a field of a record, as SortDataField gives it. Its value is
// the field's JSON name.
type field string

// The sortable fields. Each resource accepts its own subset (see
// CurrencyQuery, CountryQuery and CityQuery).
const (
	fieldID            field = "id"
	fieldCode          field = "code"
	fieldName          field = "name"
	fieldNamePlural    field = "namePlural"
	fieldSymbol        field = "symbol"
	fieldSymbolNative  field = "symbolNative"
	fieldDecimalDigits field = "decimalDigits"
	fieldRounding      field = "rounding"
	fieldIsCoin        field = "isCoin"
	fieldIsDefault     field = "isDefault"
	fieldTags          field = "tags"
	fieldRegion        field = "region"
	fieldSubregion     field = "subregion"
	fieldCodeAlpha2    field = "codeAlpha2"
	fieldCodeAlpha3    field = "codeAlpha3"
	fieldCodeNumeric   field = "codeNumeric"
	fieldCodePhone     field = "codePhone"
	fieldCapital       field = "capital"
	fieldCurrency      field = "currency"
	fieldTld           field = "tld"
	fieldNative        field = "native"
	fieldCountryCode   field = "countryCode"
	fieldStateCode     field = "stateCode"
	// fieldCreatedDate is the order in which records were stored (the
	// embedded dataset's order for its records); an upsert that replaces
	// a record keeps its place. Every list sorts by it; for cities it is
	// their id order (insertion order).
	fieldCreatedDate field = "createdDate"
)

// The fields each resource sorts by.
var (
	currencyFields = []field{fieldID, fieldCode, fieldName, fieldNamePlural, fieldSymbol, fieldSymbolNative,
		fieldDecimalDigits, fieldRounding, fieldIsCoin, fieldIsDefault, fieldTags, fieldCreatedDate}
	countryFields = []field{fieldID, fieldRegion, fieldSubregion, fieldCodeAlpha2, fieldCodeAlpha3,
		fieldCodeNumeric, fieldCodePhone, fieldName, fieldCapital, fieldCurrency, fieldTld, fieldNative, fieldTags, fieldCreatedDate}
	cityFields = []field{fieldID, fieldCountryCode, fieldStateCode, fieldName, fieldTags, fieldCreatedDate}
)

// sortField resolves the sort parameter param (SortDataField),
// case-insensitive, among allowed; absent means fieldID.
func sortField(param string, name *string, allowed []field, v *envelope.Validation) field {
	if name == nil || strings.TrimSpace(*name) == "" {
		return fieldID
	}
	n := strings.TrimSpace(*name)
	for _, f := range allowed {
		if strings.EqualFold(n, string(f)) {
			return f
		}
	}
	names := make([]string, len(allowed))
	for i, f := range allowed {
		names[i] = string(f)
	}
	v.Add(param, "invalid_enum", param+" must be one of: "+strings.Join(names, ", ")+".")
	return fieldID
}

// sortDesc resolves the order parameter param (SortOrder): ASC or DESC
// (also ascending, descending), case-insensitive; absent means ascending.
func sortDesc(param string, order *string, v *envelope.Validation) bool {
	if order == nil {
		return false
	}
	switch strings.ToLower(strings.TrimSpace(*order)) {
	case "", "asc", "ascending":
		return false
	case "desc", "descending":
		return true
	}
	v.Add(param, "invalid_enum", param+" must be ASC or DESC.")
	return false
}

// text validates a text parameter: trimmed; nil or blank means absent.
// Bytes that are not UTF-8 become U+FFFD (which no name holds), so that
// such a value matches nothing rather than failing.
func text(name string, s *string, v *envelope.Validation) (string, bool) {
	if s == nil {
		return "", false
	}
	t := strings.TrimSpace(*s)
	switch {
	case t == "":
		return "", false
	case len(t) > MaxTextLength:
		v.Add(name, "too_long", name+" must be at most 200 bytes long.")
		return "", false
	}
	return strings.ToValidUTF8(t, "\uFFFD"), true
}

// code normalises an exact-match code parameter (upper case).
func code(name string, s *string, v *envelope.Validation) string {
	t, _ := text(name, s, v)
	return strings.ToUpper(t)
}

// substring normalises a name parameter for the substring match (folded).
func substring(name string, s *string, v *envelope.Validation) string {
	t, _ := text(name, s, v)
	return textfold.Fold(t)
}

// tagList normalises a tags parameter (Tags): the folded, distinct,
// non-empty comma-separated tags.
func tagList(name string, s *string, v *envelope.Validation) []string {
	t, ok := text(name, s, v)
	if !ok {
		return nil
	}
	var tags []string
	for tag := range strings.SplitSeq(t, ",") {
		if tag = textfold.Fold(strings.TrimSpace(tag)); tag != "" && !slices.Contains(tags, tag) {
			tags = append(tags, tag)
		}
	}
	return tags
}

// terms normalises a keywords parameter (Keywords): its distinct folded
// words, and whether it has text but no word (as "%" or "--"), which no
// record matches.
func terms(name string, s *string, v *envelope.Validation) ([]string, bool) {
	t, ok := text(name, s, v)
	if !ok {
		return nil, false
	}
	var out []string
	for _, w := range textfold.Words(t) {
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out, len(out) == 0
}

// normalizeTld returns a top-level domain in its stored form: lower case
// with one leading dot (".uk" for "UK", "uk" or ".uk"); "" stays "".
func normalizeTld(s string) string {
	s = strings.TrimPrefix(strings.ToLower(strings.TrimSpace(s)), ".")
	if s == "" {
		return ""
	}
	return "." + s
}

// normalizePhone returns a dialing prefix in its stored form: with one
// leading "+" ("+44" for "44" or "+44"); "" stays "".
func normalizePhone(s string) string {
	s = strings.TrimPrefix(strings.TrimSpace(s), "+")
	if s == "" {
		return ""
	}
	return "+" + s
}

// CurrencyQuery selects currencies (GET /api/v1/currencies). Nil fields are
// not filtered on; docs/reference-data.md says how each one matches.
// Each field but DefaultCurrency is the query parameter of the field's
// name (matched in any case over HTTP); its `query` tag is not a name but
// the [ParamKind] that says how the parameter matches.
type CurrencyQuery struct {
	Code          *string  `query:"code"`      // exact, case-insensitive
	Name          *string  `query:"substring"` // case- and accent-insensitive substring
	NamePlural    *string  `query:"substring"` // substring
	Symbol        *string  `query:"substring"` // substring
	SymbolNative  *string  `query:"substring"` // substring
	DecimalDigits *int32   `query:"exact"`     // exact
	Rounding      *float64 `query:"exact"`     // exact, finite
	Tags          *string  `query:"tags"`      // any of these comma-separated tags
	IsCoin        *bool    `query:"exact" doc:"true for cryptocurrencies."`
	Keywords      *string  `query:"keywords"` // every word prefix-matches a word of name, code, tags or keywords
	// SortDataField is one of id (default), code, name, namePlural, symbol,
	// symbolNative, decimalDigits, rounding, isCoin, isDefault, tags,
	// createdDate (the order the currencies were stored in);
	// case-insensitive.
	SortDataField *string `query:"sort"`
	// SortOrder is ASC (default) or DESC; case-insensitive, ascending and
	// descending accepted.
	SortOrder *string `query:"order"`
	Page      Paging  `query:"page"`
	// DefaultCurrency is the requesting brand's default currency code (any
	// case): the currency with that code is answered with IsDefault set,
	// and sorting by isDefault puts it apart. It is not a query parameter:
	// the HTTP adapter sets it from the brand; empty marks no currency as
	// the default.
	DefaultCurrency string `query:"-"`
}

// currencyFilter is a validated CurrencyQuery in the normalised form the
// engine compares with: codes upper-case, names folded (lower-case, without accents), tags and keywords
// split and folded. Empty strings and nil pointers do not filter.
type currencyFilter struct {
	Code                                   string
	Name, NamePlural, Symbol, SymbolNative string
	DecimalDigits                          *int32
	Rounding                               *float64
	IsCoin                                 *bool
	Tags                                   []string
	Keywords                               []string
	// Nothing is set when the filter can match no record (Keywords with
	// no word in it): the Service answers an empty page without reading
	// its snapshot.
	Nothing bool
	// DefaultCode is the requesting brand's default currency, upper-case:
	// what sorting by isDefault compares with.
	DefaultCode string
	Sort        field
	Desc        bool
	Page        Paging
}

// filter validates q and returns its normalised form (DefaultCode is
// q.DefaultCurrency, upper-case). It fails with KindInvalid, one field
// error per bad parameter.
func (q CurrencyQuery) filter() (currencyFilter, error) {
	f := currencyFilter{DefaultCode: strings.ToUpper(strings.TrimSpace(q.DefaultCurrency))}
	err := filterQuery(q, &f)
	return f, err
}

// CountryQuery selects countries (GET /api/v1/countries). Nil fields are
// not filtered on; docs/reference-data.md says how each one matches.
//
// Each field is the query parameter of the field's name (matched in any
// case over HTTP); its `query` tag is not a name but the [ParamKind] that
// says how the parameter matches (two fields may share one).
type CountryQuery struct {
	Region      *string `query:"substring"` // substring
	Subregion   *string `query:"substring"` // substring
	CodeAlpha2  *string `query:"code"`      // exact, case-insensitive
	CodeAlpha3  *string `query:"code"`      // exact, case-insensitive
	CodeNumeric *int32  `query:"exact"`     // exact
	CodePhone   *string `query:"phone"`     // exact, with or without "+"
	Name        *string `query:"substring"` // substring
	Capital     *string `query:"substring"` // substring
	Currency    *string `query:"code" doc:"ISO 4217 code, exact, any case."`
	Tld         *string `query:"tld"`       // exact, with or without the leading dot
	Native      *string `query:"substring"` // substring
	Tags        *string `query:"tags"`      // any of these comma-separated tags
	Keywords    *string `query:"keywords"`  // every word prefix-matches a word of name, codes, native, capital, tags or keywords
	// SortDataField is id (default) or any other field of Country, by its
	// JSON name, or createdDate (the order the countries were stored in);
	// case-insensitive.
	SortDataField *string `query:"sort"`
	// SortOrder is ASC (default) or DESC.
	SortOrder *string `query:"order"`
	Page      Paging  `query:"page"`
}

// countryFilter is a validated CountryQuery in normalised form: codes
// upper-case, Tld lower-case with its dot, CodePhone with its "+", names
// folded, tags and keywords split and folded. Empty strings and nil pointers
// do not filter.
type countryFilter struct {
	Region, Subregion, Name, Capital, Native string
	CodeAlpha2, CodeAlpha3, Currency         string
	CodeNumeric                              *int32
	CodePhone                                string
	Tld                                      string
	Tags                                     []string
	Keywords                                 []string
	Nothing                                  bool // as currencyFilter.Nothing
	Sort                                     field
	Desc                                     bool
	Page                                     Paging
}

// filter validates q and returns its normalised form. It fails with
// KindInvalid, one field error per bad parameter.
func (q CountryQuery) filter() (countryFilter, error) {
	var f countryFilter
	err := filterQuery(q, &f)
	return f, err
}

// CityQuery selects cities (GET /api/v1/cities). Nil fields are not
// filtered on; docs/reference-data.md says how each one matches.
// Each field is the query parameter of the field's name (matched in any
// case over HTTP); its `query` tag is not a name but the [ParamKind] that
// says how the parameter matches (two fields may share one).
type CityQuery struct {
	Keywords    *string `query:"keywords"` // every word prefix-matches a word of name, country code, state code or tags
	CountryCode *string `query:"code" doc:"ISO 3166-1 alpha-2, exact, any case."`
	StateCode   *string `query:"code" doc:"ISO 3166-2 subdivision without the country prefix, exact, any case."`
	Name        *string `query:"substring"` // case- and accent-insensitive substring
	// SortDataField is id (default: insertion order, as cities have no
	// id), countryCode, stateCode, name, tags or createdDate (insertion
	// order too); case-insensitive.
	SortDataField *string `query:"sort"`
	// SortOrder is ASC (default) or DESC.
	SortOrder *string `query:"order"`
	Page      Paging  `query:"page"`
}

// cityFilter is a validated CityQuery in normalised form: codes upper-case,
// Name folded, Keywords split into folded words. Empty values do not filter.
type cityFilter struct {
	CountryCode, StateCode string
	Name                   string
	Keywords               []string
	Nothing                bool // as currencyFilter.Nothing
	// Sort is never fieldCreatedDate: a city's place in insertion order is
	// its id order, and filter says fieldID for it.
	Sort field
	Desc bool
	Page Paging
}

// filter validates q and returns its normalised form. It fails with
// KindInvalid, one field error per bad parameter.
func (q CityQuery) filter() (cityFilter, error) {
	var f cityFilter
	err := filterQuery(q, &f)
	if f.Sort == fieldCreatedDate {
		f.Sort = fieldID
	}
	return f, err
}

// unfiltered reports whether f selects every city (only sort and page set).
func (f cityFilter) unfiltered() bool {
	return f.CountryCode == "" && f.StateCode == "" && f.Name == "" && len(f.Keywords) == 0 && !f.Nothing
}
