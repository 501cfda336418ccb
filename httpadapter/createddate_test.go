package httpadapter_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/refdata"
)

// TestListsSortByCreatedDate checks that every list accepts
// SortDataField=createdDate (any case, both orders) with 200, and answers
// the order of storage: the embedded dataset's order for its records.
func TestListsSortByCreatedDate(t *testing.T) {
	t.Parallel()
	currencies, err := refdata.DefaultCurrencies()
	require.NoError(t, err)
	countries, err := refdata.DefaultCountries()
	require.NoError(t, err)
	cities, err := refdata.DefaultCities()
	require.NoError(t, err)
	scenarios := []struct {
		path  string
		first string // the "code" of the first item, as first gives it
		get   func(item map[string]any) string
	}{
		{"/api/v1/currencies?SortDataField=createdDate", currencies[0].Code, field("code")},
		{"/api/v1/currencies?SortDataField=CREATEDDATE&SortOrder=DESC", currencies[len(currencies)-1].Code, field("code")},
		{"/api/v1/countries?SortDataField=createdDate", countries[0].CodeAlpha2, field("codeAlpha2")},
		{"/api/v1/countries?sortdatafield=createddate&SortOrder=descending", countries[len(countries)-1].CodeAlpha2, field("codeAlpha2")},
		{"/api/v1/cities?SortDataField=createdDate", cities[0].Name, field("name")},
	}
	for name, newStore := range stores {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, newStore)
			for _, sc := range scenarios {
				rec, e := f.do(t, http.MethodGet, sc.path, shopBrand, "")
				require.Equal(t, http.StatusOK, rec.Code, "%s: %s", sc.path, rec.Body.String())
				p := pageOf[map[string]any](t, e)
				require.NotEmpty(t, p.Items, sc.path)
				assert.Equal(t, sc.first, sc.get(p.Items[0]), sc.path)
			}
		})
	}
}

// field returns a getter of the text field name of a decoded item.
func field(name string) func(map[string]any) string {
	return func(item map[string]any) string {
		s, _ := item[name].(string)
		return s
	}
}
