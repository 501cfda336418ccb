package refdata_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/storage/memory"
)

// Import a CSV file of cities, then find one by keywords: every word is a
// prefix of a word of the city, accents and case aside.
func ExampleService_ImportCities() {
	ctx := context.Background()
	store, err := memory.New(ctx) // loads the default dataset
	if err != nil {
		panic(err)
	}
	svc := refdata.NewService(store)

	file := "countryCode,stateCode,name,tags,population\n" +
		"BR,SP,São Zé dos Campos,,729737\n" +
		"BR,,Nowhere,,0\n" + // kept: the state code is optional
		"XX,SP,Bad Country,,0\n"
	report, err := svc.ImportCities(ctx, strings.NewReader(file), refdata.ImportOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("added %d, skipped %d: %s\n", report.Added, report.Skipped, report.Errors[0])

	page, err := svc.ListCities(ctx, refdata.CityQuery{Keywords: ptr("SAO ze cam")})
	if err != nil {
		panic(err)
	}
	fmt.Println(page.TotalItems, page.Items[0].Name, page.Items[0].StateCode)
	// Output:
	// added 2, skipped 1: line 4: countryCode: countryCode XX is not a known country.
	// 1 São Zé dos Campos SP
}

// List countries in-process: the same query as
// GET /api/v1/countries?CodePhone=33&SortDataField=name.
func ExampleService_ListCountries() {
	ctx := context.Background()
	store, err := memory.New(ctx)
	if err != nil {
		panic(err)
	}
	svc := refdata.NewService(store)
	page, err := svc.ListCountries(ctx, refdata.CountryQuery{CodePhone: ptr("33"), SortDataField: ptr("name")})
	if err != nil {
		panic(err)
	}
	fmt.Println(page.TotalItems, page.PageSize, page.Items[0].CodeAlpha2, page.Items[0].Tld)

	_, err = svc.ListCountries(ctx, refdata.CountryQuery{SortDataField: ptr("population")})
	fmt.Println(envelope.KindOf(err), envelope.As(err).Fields[0].Field)
	// Output:
	// 1 200 FR .fr
	// invalid SortDataField
}

func TestListCurrenciesDefault(t *testing.T) {
	t.Parallel()
	store, err := memory.New(t.Context())
	require.NoError(t, err)
	svc := refdata.NewService(store)
	page, err := svc.ListCurrencies(t.Context(), refdata.CurrencyQuery{Code: ptr("EUR"), DefaultCurrency: "eur"})
	require.NoError(t, err)
	require.Len(t, page.Items, 1)
	assert.True(t, page.Items[0].IsDefault, "the brand's default, case-insensitive")
	page, err = svc.ListCurrencies(t.Context(), refdata.CurrencyQuery{Code: ptr("EUR"), DefaultCurrency: "USD"})
	require.NoError(t, err)
	assert.False(t, page.Items[0].IsDefault)

	page, err = svc.ListCurrencies(t.Context(), refdata.CurrencyQuery{Code: ptr("nothing"), DefaultCurrency: "USD"})
	require.NoError(t, err)
	assert.NotNil(t, page.Items, "an empty page has items [], not null")
	assert.Zero(t, page.TotalItems)

	_, err = svc.ListCities(t.Context(), refdata.CityQuery{SortOrder: ptr("sideways")})
	assert.Equal(t, envelope.KindInvalid, envelope.KindOf(err))
	rev, err := svc.Revision(t.Context())
	require.NoError(t, err)
	_, err = svc.ImportCities(t.Context(), strings.NewReader("countryCode,stateCode,name,tags\nFR,75,Zétaville,\n"), refdata.ImportOptions{})
	require.NoError(t, err)
	rev2, err := svc.Revision(t.Context())
	require.NoError(t, err)
	assert.NotEqual(t, rev, rev2, "an import changes the revision")
}
