package refdata

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/brandbase/brandbase/envelope"
)

// ParamKind says how a list query parameter selects records. It is declared
// once per parameter, in the `query` tag of its field of CurrencyQuery,
// CountryQuery or CityQuery, and that one declaration drives the parsing
// of text values ([ParseQuery]), the validation and normalisation of the
// query (its Filter method) and the documentation ([Params]).
type ParamKind string

// The ways a parameter matches.
const (
	// ParamExact: a number or a flag, equal (a float must be finite).
	ParamExact ParamKind = "exact"
	// ParamCode: a code, exact, any case (compared upper-case).
	ParamCode ParamKind = "code"
	// ParamSubstring: a substring of the name, case and accents ignored.
	ParamSubstring ParamKind = "substring"
	// ParamPhone: a dialing prefix, exact, with or without "+".
	ParamPhone ParamKind = "phone"
	// ParamTld: a top-level domain, exact, any case, with or without its dot.
	ParamTld ParamKind = "tld"
	// ParamTags: comma-separated tags, any of which the record holds.
	ParamTags ParamKind = "tags"
	// ParamKeywords: free text whose every word starts a word of the record.
	ParamKeywords ParamKind = "keywords"
	// ParamSort: the field the page is sorted by (SortDataField).
	ParamSort ParamKind = "sort"
	// ParamOrder: the sort order, ASC or DESC (SortOrder).
	ParamOrder ParamKind = "order"
	// ParamPage: the page selection, PageNumber and PageSize (a Paging).
	ParamPage ParamKind = "page"
)

// kindDocs describe each ParamKind, for a parameter without its own `doc`.
var kindDocs = map[ParamKind]string{
	ParamExact:     "Exact.",
	ParamCode:      "Exact, any case.",
	ParamSubstring: "Substring, any case, accents ignored.",
	ParamPhone:     "Exact, with or without +.",
	ParamTld:       "Exact, any case, with or without its dot.",
	ParamTags:      "Comma-separated; matches when any of them is one of the record's tags.",
	ParamKeywords: "Free text: every word must be the start of a word of the record (its name, codes, tags and, " +
		"for countries, native name and capital), case and accents ignored.",
	ParamSort: "A field name of the item, or createdDate (the order the records were stored in), any case; " +
		"default ID. Ties break by ID.",
	ParamOrder: "ASC or DESC (any case; ascending and descending too); default ASC.",
}

// Param is the declaration of one query parameter of a list, as
// [Params] reports it.
type Param struct {
	// Name is the parameter's name (matched in any case over HTTP) and the
	// name of its field in the query type; the Paging field is the two
	// parameters PageNumber and PageSize.
	Name string
	// Type is the type of its value: string, int32, float64 or bool.
	Type reflect.Type
	// Kind is how it selects records.
	Kind ParamKind
	// Doc says how it matches, for documentation.
	Doc string
}

// Query is the constraint satisfied by the list query types.
type Query interface {
	CurrencyQuery | CountryQuery | CityQuery
}

// paramDecl is one declared field of a query type.
type paramDecl struct {
	Param
	field int // the field's index in the query type
	out   int // the index of the field it normalises into in the filter type
}

// paramSet is the declaration of one query type's parameters, read from
// its `query` and `doc` tags, and the filter type they normalise into.
type paramSet struct {
	decls      []paramDecl
	filterType reflect.Type
	sortable   []field
	nothing    int // the index of the filter's Nothing field; -1 without keywords
}

// The declarations of the three lists, read once.
var (
	currencyParams = declare[CurrencyQuery, currencyFilter](currencyFields)
	countryParams  = declare[CountryQuery, countryFilter](countryFields)
	cityParams     = declare[CityQuery, cityFilter](cityFields)
)

// paramsOf returns the declaration of Q's parameters.
func paramsOf[Q Query]() *paramSet {
	switch any((*Q)(nil)).(type) {
	case *CurrencyQuery:
		return currencyParams
	case *CountryQuery:
		return countryParams
	default:
		return cityParams
	}
}

// declare reads the parameter declaration of query type Q and checks it
// against its filter type F. A malformed declaration is a programming
// error of this package, found by any test that loads it: it panics.
func declare[Q Query, F any](sortable []field) *paramSet {
	ps, err := readDecls(reflect.TypeFor[Q](), reflect.TypeFor[F]())
	if err != nil {
		panic(err)
	}
	ps.sortable = sortable
	return ps
}

// outName returns the name of the filter field a parameter of match m and
// name normalises into.
func outName(m ParamKind, name string) string {
	switch m {
	case ParamSort:
		return "Sort"
	case ParamOrder:
		return "Desc"
	}
	return name
}

// readDecls reads the declaration of query type qt, whose filter type is
// ft, from its tags.
func readDecls(qt, ft reflect.Type) (*paramSet, error) {
	ps := &paramSet{filterType: ft, nothing: -1}
	if f, ok := ft.FieldByName("Nothing"); ok {
		ps.nothing = f.Index[0]
	}
	for i := range qt.NumField() {
		f := qt.Field(i)
		if f.Tag.Get("query") == "-" {
			continue // not a parameter (CurrencyQuery.DefaultCurrency)
		}
		m := ParamKind(f.Tag.Get("query"))
		doc := f.Tag.Get("doc")
		if doc == "" {
			doc = kindDocs[m]
		}
		if err := checkDecl(f, m); err != nil {
			return nil, fmt.Errorf("refdata: %v.%s: %w", qt, f.Name, err)
		}
		out, ok := ft.FieldByName(outName(m, f.Name))
		if !ok {
			return nil, fmt.Errorf("refdata: %v has no field for parameter %s", ft, f.Name)
		}
		typ := f.Type
		if typ.Kind() == reflect.Pointer {
			typ = typ.Elem()
		}
		ps.decls = append(ps.decls, paramDecl{Param: Param{Name: f.Name, Type: typ, Kind: m, Doc: doc}, field: i, out: out.Index[0]})
	}
	return ps, nil
}

// checkDecl checks that field f may be declared with match m.
func checkDecl(f reflect.StructField, m ParamKind) error {
	switch m {
	case ParamPage:
		if f.Type != reflect.TypeFor[Paging]() {
			return errors.New("a page parameter must be a Paging")
		}
	case ParamExact:
		switch f.Type {
		case reflect.TypeFor[*int32](), reflect.TypeFor[*float64](), reflect.TypeFor[*bool]():
		default:
			return errors.New("an exact parameter must be *int32, *float64 or *bool")
		}
	case ParamCode, ParamSubstring, ParamPhone, ParamTld, ParamTags, ParamKeywords, ParamSort, ParamOrder:
		if f.Type != reflect.TypeFor[*string]() {
			return fmt.Errorf("a %s parameter must be *string", m)
		}
	default:
		return fmt.Errorf("no query tag, or an unknown one: %q", m)
	}
	return nil
}

// Params returns the declared query parameters of Q, in the order of its
// fields (the Paging field as PageNumber then PageSize).
func Params[Q Query]() []Param {
	var out []Param
	for _, d := range paramsOf[Q]().decls {
		if d.Kind != ParamPage {
			out = append(out, d.Param)
			continue
		}
		page := Param{Type: reflect.TypeFor[int32](), Kind: ParamPage}
		page.Name, page.Doc = "PageNumber", "From 0; default 0. A page past the end has no items."
		out = append(out, page)
		page.Name, page.Doc = "PageSize", "1 to "+strconv.Itoa(MaxPageSize)+"; 0 or absent means "+strconv.Itoa(DefaultPageSize)+
			"; a larger size is clamped and pageSize says the size used."
		out = append(out, page)
	}
	return out
}

// filter validates the query qv (an addressable Q) and normalises it into
// the filter fv (an addressable F), one declared parameter after the other, adding a
// field error to v for each bad one.
func (ps *paramSet) filter(qv, fv reflect.Value, v *envelope.Validation) {
	for _, d := range ps.decls {
		in, out := qv.Field(d.field), fv.Field(d.out)
		s, _ := in.Interface().(*string)
		switch d.Kind {
		case ParamCode:
			out.SetString(code(d.Name, s, v))
		case ParamSubstring:
			out.SetString(substring(d.Name, s, v))
		case ParamPhone:
			t, _ := text(d.Name, s, v)
			out.SetString(normalizePhone(t))
		case ParamTld:
			t, _ := text(d.Name, s, v)
			out.SetString(normalizeTld(t))
		case ParamTags:
			*out.Addr().Interface().(*[]string) = tagList(d.Name, s, v)
		case ParamKeywords:
			words, nothing := terms(d.Name, s, v)
			*out.Addr().Interface().(*[]string) = words
			fv.Field(ps.nothing).SetBool(nothing)
		case ParamSort:
			out.SetString(string(sortField(d.Name, s, ps.sortable, v)))
		case ParamOrder:
			out.SetBool(sortDesc(d.Name, s, v))
		case ParamPage:
			*out.Addr().Interface().(*Paging) = in.Addr().Interface().(*Paging).normalize(v)
		case ParamExact:
			if f, ok := in.Interface().(*float64); ok && f != nil && (math.IsNaN(*f) || math.IsInf(*f, 0)) {
				v.Add(d.Name, "invalid_type", d.Name+" must be a finite number.")
			}
			out.Set(in)
		}
	}
}

// ParseQuery builds a query of type Q from text values, as a URL query
// gives them: get returns the value of a parameter by its declared name
// ([Params]) and whether it is given; a parameter not given stays nil. A
// text value is kept as it is (Filter trims it); a number or flag must
// parse. It fails with KindInvalid, naming each value that does not parse
// (invalid_type, or out_of_range for an integer outside int32) and, so
// that one answer names every bad parameter, each error the query's
// Filter finds in the others.
func ParseQuery[Q Query](get func(name string) (string, bool)) (Q, error) {
	var q Q
	var v envelope.Validation
	ps := paramsOf[Q]()
	qv := reflect.ValueOf(&q).Elem()
	for _, d := range ps.decls {
		field := qv.Field(d.field)
		if d.Kind == ParamPage {
			var p Paging
			if n := parseInt32("PageNumber", get, &v); n != nil {
				p.Number = int(*n)
			}
			if n := parseInt32("PageSize", get, &v); n != nil {
				p.Size = int(*n)
			}
			field.Set(reflect.ValueOf(p))
			continue
		}
		var val any
		switch d.Type.Kind() {
		case reflect.Int32:
			val = parseInt32(d.Name, get, &v)
		case reflect.Float64:
			val = parseFloat(d.Name, get, &v)
		case reflect.Bool:
			val = parseBool(d.Name, get, &v)
		default:
			if s, ok := get(d.Name); ok {
				val = &s
			}
		}
		if rv := reflect.ValueOf(val); val != nil && !rv.IsNil() {
			field.Set(rv)
		}
	}
	if v.Err() == nil {
		return q, nil
	}
	ps.filter(qv, reflect.New(ps.filterType).Elem(), &v)
	return *new(Q), v.Err()
}

// filterQuery validates q and normalises it into f, as its declaration
// says. It fails with KindInvalid, one field error per bad parameter, in
// the order of the query type's fields.
func filterQuery[Q Query, F any](q Q, f *F) error {
	var v envelope.Validation
	paramsOf[Q]().filter(reflect.ValueOf(&q).Elem(), reflect.ValueOf(f).Elem(), &v)
	return v.Err()
}

// parseInt32 returns the parameter name as an int32, or nil when absent or
// invalid (adding its field error to v).
func parseInt32(name string, get func(string) (string, bool), v *envelope.Validation) *int32 {
	s, ok := get(name)
	if !ok {
		return nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 32)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			v.Add(name, "out_of_range", name+" is out of range.")
		} else {
			v.Add(name, "invalid_type", name+" must be an integer.")
		}
		return nil
	}
	i := int32(n)
	return &i
}

// parseFloat returns the parameter name as a finite float64, or nil when
// absent or invalid (adding its field error to v).
func parseFloat(name string, get func(string) (string, bool), v *envelope.Validation) *float64 {
	s, ok := get(name)
	if !ok {
		return nil
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		v.Add(name, "invalid_type", name+" must be a number.")
		return nil
	}
	return &f
}

// parseBool returns the parameter name as a bool, or nil when absent or
// invalid (adding its field error to v).
func parseBool(name string, get func(string) (string, bool), v *envelope.Validation) *bool {
	s, ok := get(name)
	if !ok {
		return nil
	}
	b, err := strconv.ParseBool(strings.TrimSpace(s))
	if err != nil {
		v.Add(name, "invalid_type", name+" must be true or false.")
		return nil
	}
	return &b
}
