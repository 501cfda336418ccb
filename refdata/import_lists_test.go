package refdata_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/storage/memory"
)

func TestImportCurrenciesAndCountriesCSV(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	store, err := memory.New(ctx)
	require.NoError(t, err)
	t.Cleanup(func() { store.Close() })
	svc := refdata.NewService(store)
	t.Cleanup(svc.Close)

	rep, err := svc.ImportCurrenciesCSV(ctx, strings.NewReader("Code,Name,symbol,decimalDigits\n"+
		"usd,US Dollar (edited),$,2\nxts,Test Coin,T,\n,No code,,\nABC,,,\n"), refdata.ImportOptions{})
	require.NoError(t, err)
	assert.Equal(t, 4, rep.Rows)
	assert.Equal(t, 1, rep.Added, "XTS is new")
	assert.Equal(t, 1, rep.Updated, "USD was stored")
	assert.Equal(t, 2, rep.Skipped)
	require.Len(t, rep.Errors, 2)
	assert.Equal(t, 4, rep.Errors[0].Line)
	page, err := svc.ListCurrencies(ctx, refdata.CurrencyQuery{Code: new("XTS")})
	require.NoError(t, err)
	require.Len(t, page.Items, 1, "the new currency is listed")
	assert.Equal(t, "Test Coin", page.Items[0].Name)
	assert.Equal(t, int32(2), page.Items[0].DecimalDigits, "an empty column takes its default")
	page, err = svc.ListCurrencies(ctx, refdata.CurrencyQuery{Code: new("USD")})
	require.NoError(t, err)
	assert.Equal(t, "US Dollar (edited)", page.Items[0].Name)

	rep, err = svc.ImportCountriesCSV(ctx, strings.NewReader("codeAlpha2,codeAlpha3,name,codePhone,tld\nqz,qzz,Testland,383,qz\nfr,fra,France (edited),33,fr\n"), refdata.ImportOptions{})
	require.NoError(t, err)
	assert.Equal(t, 1, rep.Added, "QZ is new")
	assert.Equal(t, 1, rep.Updated, "FR was stored")
	cp, err := svc.ListCountries(ctx, refdata.CountryQuery{CodeAlpha2: new("QZ")})
	require.NoError(t, err)
	require.Len(t, cp.Items, 1)
	assert.Equal(t, "+383", cp.Items[0].CodePhone, "normalised as the dataset is")
	assert.Equal(t, ".qz", cp.Items[0].Tld)

	_, err = svc.ImportCountriesCSV(ctx, strings.NewReader("alpha,name\nFR,France\n"), refdata.ImportOptions{})
	assert.Equal(t, envelope.KindInvalid, envelope.KindOf(err), "a required column missing")
}
