package refindex_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/refdata/refdatatest"
	"github.com/brandbase/brandbase/refdata/refindex"
)

// TestCodesAndShortName checks code filters with more than a few cities,
// with a short Name or alone (answered by the code's posting list itself),
// against the reference, in several orders and pages.
func TestCodesAndShortName(t *testing.T) {
	t.Parallel()
	cities := refdatatest.Cities(20_000, 5)
	idx := refindex.Of(cities)
	for _, q := range []refdata.CityQuery{
		{CountryCode: ptr("BR"), Name: ptr("a")},
		{CountryCode: ptr("FR"), Name: ptr("zü"), SortDataField: ptr("name")},
		{CountryCode: ptr("US"), StateCode: ptr("AA"), Name: ptr("an")},
		{StateCode: ptr("BH"), Name: ptr("sé"), SortDataField: ptr("tags"), SortOrder: ptr("desc")},
		{CountryCode: ptr("DE"), Name: ptr("ber"), Page: refdata.Paging{Number: 1, Size: 5}},
		{CountryCode: ptr("DE"), Name: ptr("ra"), Keywords: ptr("b")},
		{CountryCode: ptr("JP"), SortDataField: ptr("stateCode"), Page: refdata.Paging{Number: 7, Size: 50}},
		{CountryCode: ptr("JP"), SortOrder: ptr("desc"), Page: refdata.Paging{Number: 2, Size: 50}},
		// A country's cities in another order (cityOrder.byCountry).
		{CountryCode: ptr("BR"), SortDataField: ptr("name"), SortOrder: ptr("desc"), Page: refdata.Paging{Number: 3, Size: 50}},
		{CountryCode: ptr("FR"), SortDataField: ptr("countryCode"), SortOrder: ptr("desc"), Page: refdata.Paging{Number: 2, Size: 50}},
		{CountryCode: ptr("US"), SortDataField: ptr("tags"), Page: refdata.Paging{Number: 1, Size: 50}},
		// Name postings intersected with a code's (merged or galloped).
		{CountryCode: ptr("DE"), Name: ptr("an"), SortDataField: ptr("name"), Page: refdata.Paging{Number: 1, Size: 50}},
		{CountryCode: ptr("US"), StateCode: ptr("AA"), Name: ptr("ros")},
		{CountryCode: ptr("BR"), Name: ptr("münl"), SortDataField: ptr("stateCode")},
	} {
		f := cityFilter(t, q)
		want, wantTotal := refdata.SelectCities(cities, f)
		got, total := idx.List(f)
		assert.Equal(t, wantTotal, total, "%+v", f)
		assert.Equal(t, want, got, "%+v", f)
		assert.Positive(t, total, "%+v matches some", f)
	}
}
