package refdata_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/brandbase/brandbase/refdata"
)

func TestMergeTags(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 195)
	tests := []struct {
		name, stored, added, want string
	}{
		{"no tags added keeps the stored", "capital, port", "", "capital, port"},
		{"blank tags added keep the stored", "capital", " , ", "capital"},
		{"nothing stored takes the added as given", "", "metro, port", "metro, port"},
		{"new tags after the stored", "capital,metro", "hub", "capital,metro,hub"},
		{"a tag held in any case or accent is not repeated", "Capital,são", "capital, SAO, hub", "Capital,são,hub"},
		{"a tag added twice once", "a", "b, b ,c", "a,b,c"},
		{"a tag that would pass 200 bytes is dropped, a shorter one kept", long, "toolong,xyz", long + ",xyz"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, refdata.MergeTags(tt.stored, tt.added), tt.name)
	}
}

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
