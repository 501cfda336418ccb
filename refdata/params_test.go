package refdata_test

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/refdata"
)

// names returns the name and kind of each parameter.
func names(ps []refdata.Param) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Name + ":" + string(p.Kind)
	}
	return out
}

func TestParamsDeclared(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		params []refdata.Param
		want   []string
	}{
		{"currencies", refdata.Params[refdata.CurrencyQuery](), []string{
			"Code:code", "Name:substring", "NamePlural:substring", "Symbol:substring", "SymbolNative:substring",
			"DecimalDigits:exact", "Rounding:exact", "Tags:tags", "IsCoin:exact", "Keywords:keywords",
			"SortDataField:sort", "SortOrder:order", "PageNumber:page", "PageSize:page"}},
		{"countries", refdata.Params[refdata.CountryQuery](), []string{
			"Region:substring", "Subregion:substring", "CodeAlpha2:code", "CodeAlpha3:code", "CodeNumeric:exact",
			"CodePhone:phone", "Name:substring", "Capital:substring", "Currency:code", "Tld:tld", "Native:substring",
			"Tags:tags", "Keywords:keywords", "SortDataField:sort", "SortOrder:order", "PageNumber:page", "PageSize:page"}},
		{"cities", refdata.Params[refdata.CityQuery](), []string{
			"Keywords:keywords", "CountryCode:code", "StateCode:code", "Name:substring",
			"SortDataField:sort", "SortOrder:order", "PageNumber:page", "PageSize:page"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, names(tc.params))
			for _, p := range tc.params {
				assert.NotEmpty(t, p.Doc, p.Name)
				assert.Contains(t, []reflect.Kind{reflect.String, reflect.Int32, reflect.Float64, reflect.Bool}, p.Type.Kind(), p.Name)
			}
		})
	}
	currency := refdata.Params[refdata.CurrencyQuery]()
	assert.Equal(t, "true for cryptocurrencies.", currency[8].Doc, "a doc tag replaces the kind's description")
	assert.Equal(t, reflect.TypeFor[float64](), currency[6].Type)
}

// values is a get function over a map, as a URL query gives values.
func values(m map[string]string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		v, ok := m[name]
		return v, ok
	}
}

func TestParseQuery(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", refdata.MaxTextLength+1)
	tests := []struct {
		name string
		in   map[string]string
		want refdata.CurrencyQuery
		errs []string // field:code, in order
	}{
		{name: "nothing given", in: nil, want: refdata.CurrencyQuery{}},
		{name: "every kind", in: map[string]string{"Code": " usd ", "DecimalDigits": " 2", "Rounding": "0.5", "IsCoin": "TRUE",
			"Keywords": "dollar", "SortOrder": "desc", "PageNumber": "3", "PageSize": "5000"},
			want: refdata.CurrencyQuery{Code: ptr(" usd "), DecimalDigits: ptr(int32(2)), Rounding: ptr(0.5), IsCoin: ptr(true),
				Keywords: ptr("dollar"), SortOrder: ptr("desc"), Page: refdata.Paging{Number: 3, Size: 5000}}},
		{name: "integer out of int32", in: map[string]string{"DecimalDigits": "2147483648"}, errs: []string{"DecimalDigits:out_of_range"}},
		{name: "not an integer", in: map[string]string{"PageSize": "ten"}, errs: []string{"PageSize:invalid_type"}},
		{name: "not a finite number", in: map[string]string{"Rounding": "NaN"}, errs: []string{"Rounding:invalid_type"}},
		{name: "infinite", in: map[string]string{"Rounding": "1e309"}, errs: []string{"Rounding:invalid_type"}},
		{name: "the largest finite number", in: map[string]string{"Rounding": "1.7976931348623157e308"},
			want: refdata.CurrencyQuery{Rounding: ptr(math.MaxFloat64)}},
		{name: "not a flag", in: map[string]string{"IsCoin": "yes"}, errs: []string{"IsCoin:invalid_type"}},
		{name: "parse errors first, then what Filter finds in the rest",
			in:   map[string]string{"SortOrder": "up", "IsCoin": "maybe", "Name": long, "PageNumber": "-1"},
			errs: []string{"IsCoin:invalid_type", "Name:too_long", "SortOrder:invalid_enum", "PageNumber:out_of_range"}},
		{name: "valid text Filter refuses is left to Filter", in: map[string]string{"SortOrder": "up"},
			want: refdata.CurrencyQuery{SortOrder: ptr("up")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			q, err := refdata.ParseQuery[refdata.CurrencyQuery](values(tc.in))
			assert.Equal(t, tc.errs, fieldErrors(t, err))
			if tc.errs == nil {
				assert.Equal(t, tc.want, q)
			}
		})
	}

	city, err := refdata.ParseQuery[refdata.CityQuery](values(map[string]string{"CountryCode": "br", "PageSize": "2"}))
	require.NoError(t, err)
	assert.Equal(t, refdata.CityQuery{CountryCode: ptr("br"), Page: refdata.Paging{Size: 2}}, city)
	country, err := refdata.ParseQuery[refdata.CountryQuery](values(map[string]string{"CodeNumeric": "250", "Tld": "FR"}))
	require.NoError(t, err)
	assert.Equal(t, refdata.CountryQuery{CodeNumeric: ptr(int32(250)), Tld: ptr("FR")}, country)
}

// Field errors come in the order the query type declares its parameters.
func TestFilterErrorsInDeclarationOrder(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", refdata.MaxTextLength+1)
	_, err := refdata.CurrencyQuery{Keywords: &long, Rounding: ptr(math.NaN()), SortOrder: ptr("up"), Code: &long,
		Page: refdata.Paging{Size: -1}, DefaultCurrency: "USD"}.Filter()
	assert.Equal(t, []string{"Code:too_long", "Rounding:invalid_type", "Keywords:too_long", "SortOrder:invalid_enum", "PageSize:out_of_range"},
		fieldErrors(t, err))
	_, err = refdata.CountryQuery{Keywords: &long, CodePhone: &long, Tld: &long, Region: &long}.Filter()
	assert.Equal(t, []string{"Region:too_long", "CodePhone:too_long", "Tld:too_long", "Keywords:too_long"}, fieldErrors(t, err))
}

// The default currency travels in the query but is not a parameter: a
// client cannot set it through the URL, and only it marks IsDefault.
func TestDefaultCurrencyIsNotAParameter(t *testing.T) {
	t.Parallel()
	for _, p := range refdata.Params[refdata.CurrencyQuery]() {
		assert.NotEqual(t, "DefaultCurrency", p.Name)
	}
	q, err := refdata.ParseQuery[refdata.CurrencyQuery](func(name string) (string, bool) {
		if strings.EqualFold(name, "DefaultCurrency") {
			return "EUR", true
		}
		return "", false
	})
	require.NoError(t, err)
	assert.Empty(t, q.DefaultCurrency)

	q.DefaultCurrency = " eur "
	f, err := q.Filter()
	require.NoError(t, err)
	assert.Equal(t, "EUR", f.DefaultCode)
}
