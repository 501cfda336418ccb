package refdata_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/brandbase/brandbase/refdata"
)

func TestDedupCitiesMergesTags(t *testing.T) {
	t.Parallel()
	got := refdata.DedupCities([]refdata.City{
		{CountryCode: "PT", StateCode: "11", Name: "Lisboa", Tags: "capital"},
		{CountryCode: "PT", StateCode: "13", Name: "Porto", Tags: ""},
		{CountryCode: "PT", StateCode: "11", Name: "LISBOA", Tags: ""},
		{CountryCode: "PT", StateCode: "11", Name: "Lisboa", Tags: "port"},
	})
	assert.Equal(t, []refdata.City{
		{CountryCode: "PT", StateCode: "11", Name: "Lisboa", Tags: "capital,port"},
		{CountryCode: "PT", StateCode: "13", Name: "Porto", Tags: ""},
	}, got, "the name of the last, the tags of all, at the place of the first")
}

func TestCreatedDateOrder(t *testing.T) {
	t.Parallel()
	by := "CreatedDate"
	cf, err := refdata.CurrencyQuery{SortDataField: &by, DefaultCurrency: "USD"}.Filter()
	assert.NoError(t, err)
	assert.Equal(t, refdata.FieldCreatedDate, cf.Sort)
	kf, err := refdata.CountryQuery{SortDataField: &by}.Filter()
	assert.NoError(t, err)
	assert.Equal(t, refdata.FieldCreatedDate, kf.Sort)
	f, err := refdata.CityQuery{SortDataField: &by}.Filter()
	assert.NoError(t, err)
	assert.Equal(t, refdata.FieldID, f.Sort, "a city's order of storage is its id order")

	// Stored C, A, B, then A replaced: A keeps its place.
	c := func(code, name string) refdata.Currency {
		return refdata.Currency{ID: refdata.CurrencyID(code), Code: code, Name: name}
	}
	table := refdata.NewCurrencyTable([]refdata.Currency{c("XTC", "c"), c("XTA", "a"), c("XTB", "b"), c("XTA", "a2")})
	assert.Equal(t, []refdata.Currency{c("XTC", "c"), c("XTA", "a2"), c("XTB", "b")}, table.RecordsByCreation())
	cf.Page.Size = 10
	got, total := table.List(cf)
	assert.Equal(t, 3, total)
	assert.Equal(t, table.RecordsByCreation(), got)
	cf.Desc = true
	got, _ = table.List(cf)
	assert.Equal(t, []refdata.Currency{c("XTB", "b"), c("XTA", "a2"), c("XTC", "c")}, got)
}
