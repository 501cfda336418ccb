package refdata_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/refdata/refdatatest"
)

// BenchmarkColdList answers, on the index of refdatatest.Large, the city
// query kinds of httpadapter's BenchmarkColdListsHTTP, each query
// different from the last (50 a page): a Name of 3 to 5 runes, Keywords, a
// Name within a country sorted by name (page 1), and a country's cities
// sorted by another field and deep-paged.
func BenchmarkColdList(b *testing.B) {
	cities := refdatatest.Large()
	t := refdata.Of(cities)
	sorts := []string{"name", "stateCode", "tags", "countryCode", "id"}
	kinds := map[string][]refdata.CityFilter{}
	add := func(kind string, q refdata.CityQuery) {
		f, err := q.Filter()
		require.NoError(b, err)
		kinds[kind] = append(kinds[kind], f)
	}
	for i, c := range cities {
		if i%7 != 0 {
			continue
		}
		page := refdata.Paging{Number: 0, Size: 50}
		rs := []rune(strings.ToLower(c.Name))
		if n := 3 + i%3; len(rs) >= n {
			off := (i / 3) % (len(rs) - n + 1)
			sub := string(rs[off : off+n])
			whole := sub
			add("name", refdata.CityQuery{Name: &whole, Page: page})
			sub = sub[:len(sub)-utf8.RuneLen(rs[off+n-1])]
			name, country, sort := sub, c.CountryCode, "name"
			add("name-country-sorted", refdata.CityQuery{Name: &name, CountryCode: &country, SortDataField: &sort,
				Page: refdata.Paging{Number: 1, Size: 50}})
		}
		if fs := strings.Fields(c.Name); len(fs) > 0 {
			w := []rune(strings.ToLower(fs[len(fs)-1]))
			kw := string(w[:min(len(w), 3+i%4)])
			if len(fs) > 1 && i%2 == 0 {
				kw = strings.ToLower(fs[0]) + " " + kw
			}
			add("keywords", refdata.CityQuery{Keywords: &kw, Page: page})
		}
		country, sort, order := c.CountryCode, sorts[i%len(sorts)], []string{"ASC", "DESC"}[i/len(sorts)%2]
		add("code-sorted-deep", refdata.CityQuery{CountryCode: &country, SortDataField: &sort, SortOrder: &order,
			Page: refdata.Paging{Number: i / 10 % 90, Size: 50}})
	}
	for _, kind := range []string{"name", "keywords", "name-country-sorted", "code-sorted-deep"} {
		fs := kinds[kind]
		b.Run(kind, func(b *testing.B) {
			i := 0
			for b.Loop() {
				page, _ := t.List(fs[i%len(fs)])
				sinkCities = page
				i++
			}
		})
	}
}

var sinkCities []refdata.City
