package refdata_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/refdata"
)

func ptr[T any](v T) *T { return &v }

// fieldErrors returns "field:code" for each field error of err.
func fieldErrors(t *testing.T, err error) []string {
	t.Helper()
	if err == nil {
		return nil
	}
	e := envelope.As(err)
	require.Equal(t, envelope.KindInvalid, e.Kind, err)
	var out []string
	for _, it := range e.Fields {
		assert.NotEmpty(t, it.Details)
		out = append(out, it.Field+":"+it.Code)
	}
	return out
}

func TestQueryValidation(t *testing.T) {
	t.Parallel()
	long := string(make([]byte, refdata.MaxTextLength+1))
	for _, sc := range []struct {
		name string
		q    refdata.CityQuery
		want []string
	}{
		{"empty", refdata.CityQuery{}, nil},
		{"every sort field, any case", refdata.CityQuery{SortDataField: ptr("COUNTRYcode"), SortOrder: ptr("Descending")}, nil},
		{"unknown sort field", refdata.CityQuery{SortDataField: ptr("population")}, []string{"SortDataField:invalid_enum"}},
		{"a field of another resource", refdata.CityQuery{SortDataField: ptr("capital")}, []string{"SortDataField:invalid_enum"}},
		{"bad order", refdata.CityQuery{SortOrder: ptr("up")}, []string{"SortOrder:invalid_enum"}},
		{"negative page", refdata.CityQuery{Page: refdata.Paging{Number: -1}}, []string{"PageNumber:out_of_range"}},
		{"huge page", refdata.CityQuery{Page: refdata.Paging{Number: math.MaxInt32 + 1}}, []string{"PageNumber:out_of_range"}},
		{"negative size", refdata.CityQuery{Page: refdata.Paging{Size: -5}}, []string{"PageSize:out_of_range"}},
		{"too long", refdata.CityQuery{Name: &long}, []string{"Name:too_long"}},
		{"not UTF-8 is not an error", refdata.CityQuery{Name: ptr("s\xffo")}, nil},
		{"all at once", refdata.CityQuery{CountryCode: &long, SortDataField: ptr("x"), SortOrder: ptr("y"),
			Page: refdata.Paging{Number: -1, Size: -1}},
			[]string{"CountryCode:too_long", "SortDataField:invalid_enum", "SortOrder:invalid_enum", "PageNumber:out_of_range", "PageSize:out_of_range"}},
	} {
		_, err := sc.q.Filter()
		assert.Equal(t, sc.want, fieldErrors(t, err), sc.name)
	}
	_, err := refdata.CurrencyQuery{Rounding: ptr(math.Inf(1)), DefaultCurrency: "USD"}.Filter()
	assert.Equal(t, []string{"Rounding:invalid_type"}, fieldErrors(t, err))
	_, err = refdata.CurrencyQuery{SortDataField: ptr("ISDEFAULT"), DefaultCurrency: "USD"}.Filter()
	assert.NoError(t, err)
	_, err = refdata.CountryQuery{SortDataField: ptr("codenumeric"), Tags: &long}.Filter()
	assert.Equal(t, []string{"Tags:too_long"}, fieldErrors(t, err))
}

func TestQueryNormalisation(t *testing.T) {
	t.Parallel()
	f, err := refdata.CountryQuery{
		CodeAlpha2: ptr(" fr "), CodePhone: ptr("33"), Tld: ptr("FR"), Name: ptr(" Fránce "),
		Tags: ptr("EU, g7,eu,, "), Keywords: ptr("Île  de-France île"), SortDataField: ptr("NATIVE"), SortOrder: ptr("desc"),
	}.Filter()
	require.NoError(t, err)
	assert.Equal(t, refdata.CountryFilter{
		CodeAlpha2: "FR", CodePhone: "+33", Tld: ".fr", Name: "france", Tags: []string{"eu", "g7"},
		Keywords: []string{"ile", "de", "france"}, Sort: refdata.FieldNative, Desc: true,
		Page: refdata.Paging{Size: refdata.DefaultPageSize},
	}, f)

	for size, want := range map[int]int{0: 200, 1: 1, 1000: 1000, 1001: 1000, math.MaxInt32: 1000} {
		f, err := refdata.CityQuery{Page: refdata.Paging{Size: size}}.Filter()
		require.NoError(t, err)
		assert.Equal(t, want, f.Page.Size, "PageSize %d", size)
	}
	blank, err := refdata.CityQuery{Name: ptr("  "), Keywords: ptr("  "), SortOrder: ptr("")}.Filter()
	require.NoError(t, err)
	assert.True(t, blank.Unfiltered(), "blank values do not filter")
	none, err := refdata.CityQuery{Keywords: ptr(" %, _ ")}.Filter()
	require.NoError(t, err)
	assert.True(t, none.Nothing, "keywords without a word match nothing")
	assert.False(t, none.Unfiltered())
	assert.False(t, none.Match(refdata.City{CountryCode: "FR", Name: "Paris"}))
}

func TestSelectCities(t *testing.T) {
	t.Parallel()
	cs := []refdata.City{
		{CountryCode: "BR", StateCode: "SP", Name: "São Paulo"},
		{CountryCode: "BR", StateCode: "RJ", Name: "Rio de Janeiro", Tags: "port"},
		{CountryCode: "BR", StateCode: "SP", Name: "Santos", Tags: "port"},
		{CountryCode: "PT", StateCode: "11", Name: "Lisboa", Tags: "capital,port"},
	}
	names := func(q refdata.CityQuery) ([]string, int) {
		f, err := q.Filter()
		require.NoError(t, err)
		got, total := refdata.SelectCities(cs, f)
		out := []string{}
		for _, c := range got {
			out = append(out, c.Name)
		}
		return out, total
	}
	got, total := names(refdata.CityQuery{Keywords: ptr("port"), SortDataField: ptr("name")})
	assert.Equal(t, []string{"Lisboa", "Rio de Janeiro", "Santos"}, got)
	assert.Equal(t, 3, total)
	got, _ = names(refdata.CityQuery{Keywords: ptr("port"), SortDataField: ptr("countryCode"), SortOrder: ptr("desc")})
	assert.Equal(t, []string{"Lisboa", "Santos", "Rio de Janeiro"}, got, "ties in reverse insertion order")
	got, total = names(refdata.CityQuery{CountryCode: ptr("br"), Page: refdata.Paging{Number: 1, Size: 2}})
	assert.Equal(t, []string{"Santos"}, got)
	assert.Equal(t, 3, total)
	got, _ = names(refdata.CityQuery{Name: ptr("SAO")})
	assert.Equal(t, []string{"São Paulo"}, got)
}

func TestPagingNeverOverflows(t *testing.T) {
	t.Parallel()
	far := refdata.Paging{Number: math.MaxInt32, Size: refdata.MaxPageSize}
	assert.GreaterOrEqual(t, far.Offset(), 0, "saturates instead of wrapping")
	start, end := far.Bounds(150_000)
	assert.Equal(t, 150_000, start)
	assert.Equal(t, 150_000, end, "past the end: empty")
	huge := refdata.Paging{Number: math.MaxInt, Size: 2}
	assert.Equal(t, math.MaxInt, huge.Offset())
	start, end = huge.Bounds(10)
	assert.Equal(t, [2]int{10, 10}, [2]int{start, end})
	start, end = refdata.Paging{Number: 1, Size: 4}.Bounds(10)
	assert.Equal(t, [2]int{4, 8}, [2]int{start, end})
	start, end = refdata.Paging{Number: 2, Size: 4}.Bounds(10)
	assert.Equal(t, [2]int{8, 10}, [2]int{start, end})
}
