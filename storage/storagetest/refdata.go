package storagetest

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/refdata/refdatatest"
	"github.com/brandbase/brandbase/storage"
)

func contextCancelled(t *testing.T) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	return ctx, cancel
}

func refPtr[T any](v T) *T { return &v }

// Test records. Their codes are ISO's user-assigned ones (XA, XTA, ...), so
// they never collide with the default dataset.
var (
	testCurrencies = []refdata.Currency{
		{ID: refdata.CurrencyID("XTA"), Code: "XTA", Name: "Tëst Álpha", NamePlural: "tëst alphas", Symbol: "Ŧ$",
			SymbolNative: "ŦA", DecimalDigits: 3, Rounding: 0.5, IsCoin: true, Tags: "Test, Alpha", Keywords: "zeta example"},
		{ID: refdata.CurrencyID("XTB"), Code: "XTB", Name: "Test Beta", NamePlural: "test betas", Symbol: "ŦB",
			SymbolNative: "ŦB", DecimalDigits: 0, Rounding: 0, Tags: "test", Keywords: "beta"},
	}
	testCountries = []refdata.Country{
		{ID: refdata.CountryID("XA"), Region: "Testàmerica", Subregion: "North Testàmerica", CodeAlpha2: "XA",
			CodeAlpha3: "XAA", CodeNumeric: 901, CodePhone: "+999", Name: "Zétaland", Capital: "São Zétaville",
			Currency: "XTA", Tld: ".xa", Native: "Zétalandia", Tags: "test,zone-a", Keywords: "fictional"},
		{ID: refdata.CountryID("XB"), Region: "Testàmerica", Subregion: "South Testàmerica", CodeAlpha2: "XB",
			CodeAlpha3: "XBB", CodeNumeric: 902, CodePhone: "+998", Name: "Betaland", Capital: "Zürich-Zeta",
			Currency: "XTB", Tld: ".xb", Native: "Betalandia", Tags: "test", Keywords: ""},
	}
	testCities = []refdata.City{
		{CountryCode: "XA", StateCode: "SP", Name: "São Zétaville", Tags: "capital, port"},
		{CountryCode: "XA", StateCode: "RJ", Name: "Zeta Port", Tags: "seaside"},
		{CountryCode: "XA", StateCode: "SP", Name: "Santo Zeta", Tags: ""},
		{CountryCode: "XB", StateCode: "ZH", Name: "Zürich-Zeta", Tags: "capital"},
		{CountryCode: "XB", StateCode: "", Name: "N'Zetamena", Tags: ""},
	}
)

// shortNameCities are test cities (in XC, another user-assigned code) whose
// names hold accented, ligature and non-Latin letters, for the Name filter
// of one or two runes.
var shortNameCities = []refdata.City{
	{CountryCode: "XC", StateCode: "ZH", Name: "Zürich", Tags: "capital"},
	{CountryCode: "XC", StateCode: "ZG", Name: "Zug"},
	{CountryCode: "XC", StateCode: "13", Name: "東京", Tags: "capital"},
	{CountryCode: "XC", StateCode: "26", Name: "京都"},
	{CountryCode: "XC", StateCode: "27", Name: "東大阪"},
	{CountryCode: "XC", StateCode: "BY", Name: "Straße"},
	{CountryCode: "XC", StateCode: "LD", Name: "Łódź"},
	{CountryCode: "XC", StateCode: "82", Name: "Ærøskøbing", Tags: "port"},
	{CountryCode: "XC", StateCode: "I", Name: "Αθήνα", Tags: "capital"},
	{CountryCode: "XC", StateCode: "B", Name: "Θεσσαλονίκη", Tags: "port"},
	{CountryCode: "XC", StateCode: "MOW", Name: "Москва"},
	{CountryCode: "XC", StateCode: "", Name: "N'Djamena"},
	{CountryCode: "XC", StateCode: "42", Name: "Saint-Étienne"},
	{CountryCode: "XC", StateCode: "SP", Name: "São Paulo", Tags: "port"},
}

// scriptCities are test cities (in XD, another user-assigned code) whose
// names and tags are words of scripts that write combining marks inside
// words (Devanagari, Tamil, Bengali, Khmer, Myanmar, Sinhala), and a name
// with an enclosing mark (U+20DD), for the Keywords filter.
var scriptCities = []refdata.City{
	{CountryCode: "XD", StateCode: "NP", Name: "काठमाडौं", Tags: "नेपाल"},
	{CountryCode: "XD", StateCode: "TN", Name: "சென்னை", Tags: "தமிழ்"},
	{CountryCode: "XD", StateCode: "BD", Name: "ঢাকা"},
	{CountryCode: "XD", StateCode: "KH", Name: "ភ្នំពេញ"},
	{CountryCode: "XD", StateCode: "MM", Name: "ရန်ကုန်"},
	{CountryCode: "XD", StateCode: "LK", Name: "කොළඹ"},
	{CountryCode: "XD", StateCode: "XX", Name: "x\u20ddville"},
}

// scriptKeywords are Keywords values whose words hold combining marks
// (spacing, enclosing) or are a mark alone: each is one word, which a
// store must not split.
var scriptKeywords = []string{
	"नेपाल", "नेपा", "काठमाडौं", "தமிழ்", "தமி", "த", "சென்னை", "சென", "ঢাকা", "ঢা", "ភ្នំពេញ", "ភ្នំ",
	"ရန်ကုန်", "ရန်", "කොළඹ", "කො", "x\u20dd", "x\u20ddv", "x", "\u0dd9", "\u20dd", "नेपाल xd", "tn தமிழ்",
}

func runRefData(t *testing.T, newStore NewStore) {
	t.Run("DefaultDatasetLoaded", func(t *testing.T) {
		t.Parallel()
		s := open(t, newStore)
		ctx := t.Context()
		v, err := s.DatasetVersion(ctx)
		require.NoError(t, err)
		assert.Equal(t, refdata.DatasetVersion, v)

		currencies, err := refdata.DefaultCurrencies()
		require.NoError(t, err)
		got, total, err := s.ListCurrencies(ctx, currencyFilter(t, refdata.CurrencyQuery{Page: refdata.Paging{Size: refdata.MaxPageSize}}))
		require.NoError(t, err)
		assert.Equal(t, len(currencies), total)
		assert.Equal(t, refdata.NewCurrencyTable(currencies).Records(), got, "every currency, ordered by ID")

		countries, err := refdata.DefaultCountries()
		require.NoError(t, err)
		gotCountries, total, err := s.ListCountries(ctx, countryFilter(t, refdata.CountryQuery{Page: refdata.Paging{Size: refdata.MaxPageSize}}))
		require.NoError(t, err)
		assert.Equal(t, len(countries), total)
		assert.Equal(t, refdata.NewCountryTable(countries).Records(), gotCountries, "every country, ordered by ID")

		cities, err := refdata.DefaultCities()
		require.NoError(t, err)
		assert.Equal(t, refdata.DedupCities(cities), allCities(t, s), "every city, in file order")
	})

	t.Run("CurrencyFilters", func(t *testing.T) {
		t.Parallel()
		s := open(t, newStore)
		require.NoError(t, s.UpsertCurrencies(t.Context(), testCurrencies))
		scenarios := []struct {
			name    string
			q       refdata.CurrencyQuery
			in, out []string
		}{
			{"code exact, case-insensitive", refdata.CurrencyQuery{Code: refPtr(" xta ")}, []string{"XTA"}, []string{"XTB"}},
			{"code is not a substring", refdata.CurrencyQuery{Code: refPtr("XT")}, nil, []string{"XTA", "XTB"}},
			{"name substring, accents and case", refdata.CurrencyQuery{Name: refPtr("TEST ALP")}, []string{"XTA"}, []string{"XTB"}},
			{"name with accents finds plain", refdata.CurrencyQuery{Name: refPtr("Tést bÉta")}, []string{"XTB"}, []string{"XTA"}},
			{"name plural", refdata.CurrencyQuery{NamePlural: refPtr("betas")}, []string{"XTB"}, []string{"XTA"}},
			{"symbol", refdata.CurrencyQuery{Symbol: refPtr("ŧ$")}, []string{"XTA"}, []string{"XTB"}},
			{"symbol native", refdata.CurrencyQuery{SymbolNative: refPtr("tb")}, []string{"XTB"}, []string{"XTA"}},
			{"decimal digits", refdata.CurrencyQuery{DecimalDigits: refPtr(int32(3)), Tags: refPtr("test")}, []string{"XTA"}, []string{"XTB"}},
			{"rounding", refdata.CurrencyQuery{Rounding: refPtr(0.5), Tags: refPtr("test")}, []string{"XTA"}, []string{"XTB"}},
			{"is coin", refdata.CurrencyQuery{IsCoin: refPtr(false), Tags: refPtr("test")}, []string{"XTB"}, []string{"XTA"}},
			{"tags any of", refdata.CurrencyQuery{Tags: refPtr("nothing, ALPHA")}, []string{"XTA"}, []string{"XTB"}},
			{"tags are whole tags", refdata.CurrencyQuery{Tags: refPtr("alp")}, nil, []string{"XTA", "XTB"}},
			{"keywords from keywords and code", refdata.CurrencyQuery{Keywords: refPtr("zet xt")}, []string{"XTA"}, []string{"XTB"}},
			{"keywords from name", refdata.CurrencyQuery{Keywords: refPtr("TËST be")}, []string{"XTB"}, []string{"XTA"}},
			{"keywords all words", refdata.CurrencyQuery{Keywords: refPtr("zeta beta")}, nil, []string{"XTA", "XTB"}},
			{"keywords prefix only", refdata.CurrencyQuery{Keywords: refPtr("eta")}, nil, []string{"XTA", "XTB"}},
			{"filters combine", refdata.CurrencyQuery{Tags: refPtr("test"), IsCoin: refPtr(true), Keywords: refPtr("alpha")}, []string{"XTA"}, []string{"XTB"}},
		}
		oracle := refdata.NewCurrencyTable(append(defaultsOf(t, refdata.DefaultCurrencies), testCurrencies...))
		for _, sc := range scenarios {
			f := currencyFilter(t, sc.q)
			got, total, err := s.ListCurrencies(t.Context(), f)
			require.NoError(t, err, sc.name)
			want, wantTotal := oracle.List(f)
			assertSelection(t, sc.name, got, total, want, wantTotal, func(c refdata.Currency) string { return c.Code }, sc.in, sc.out)
		}
	})

	t.Run("CountryFilters", func(t *testing.T) {
		t.Parallel()
		s := open(t, newStore)
		require.NoError(t, s.UpsertCountries(t.Context(), testCountries))
		scenarios := []struct {
			name    string
			q       refdata.CountryQuery
			in, out []string
		}{
			{"alpha-2", refdata.CountryQuery{CodeAlpha2: refPtr("xa")}, []string{"XA"}, []string{"XB"}},
			{"alpha-3", refdata.CountryQuery{CodeAlpha3: refPtr("Xbb")}, []string{"XB"}, []string{"XA"}},
			{"numeric", refdata.CountryQuery{CodeNumeric: refPtr(int32(902))}, []string{"XB"}, []string{"XA"}},
			{"phone with +", refdata.CountryQuery{CodePhone: refPtr("+999")}, []string{"XA"}, []string{"XB"}},
			{"phone without +", refdata.CountryQuery{CodePhone: refPtr("999")}, []string{"XA"}, []string{"XB"}},
			{"phone is exact", refdata.CountryQuery{CodePhone: refPtr("99")}, nil, []string{"XA", "XB"}},
			{"currency", refdata.CountryQuery{Currency: refPtr("xtb")}, []string{"XB"}, []string{"XA"}},
			{"tld with dot", refdata.CountryQuery{Tld: refPtr(".XA")}, []string{"XA"}, []string{"XB"}},
			{"tld without dot", refdata.CountryQuery{Tld: refPtr("xb")}, []string{"XB"}, []string{"XA"}},
			{"region substring", refdata.CountryQuery{Region: refPtr("TESTAMER")}, []string{"XA", "XB"}, nil},
			{"subregion substring", refdata.CountryQuery{Subregion: refPtr("south testà")}, []string{"XB"}, []string{"XA"}},
			{"name substring", refdata.CountryQuery{Name: refPtr("ZETAL")}, []string{"XA"}, []string{"XB"}},
			{"capital substring", refdata.CountryQuery{Capital: refPtr("sao zé")}, []string{"XA"}, []string{"XB"}},
			{"native substring", refdata.CountryQuery{Native: refPtr("talandia")}, []string{"XA", "XB"}, nil},
			{"tags any of", refdata.CountryQuery{Tags: refPtr("zone-a,none")}, []string{"XA"}, []string{"XB"}},
			{"keywords capital accent-insensitive", refdata.CountryQuery{Keywords: refPtr("sao")}, []string{"XA"}, []string{"XB"}},
			{"keywords capital word after hyphen", refdata.CountryQuery{Keywords: refPtr("zeta zur")}, []string{"XB"}, []string{"XA"}},
			{"keywords code and keywords", refdata.CountryQuery{Keywords: refPtr("xaa fict")}, []string{"XA"}, []string{"XB"}},
			{"keywords native", refdata.CountryQuery{Keywords: refPtr("betalandia")}, []string{"XB"}, []string{"XA"}},
			{"filters combine", refdata.CountryQuery{Region: refPtr("testamerica"), Tags: refPtr("test"), Keywords: refPtr("beta")}, []string{"XB"}, []string{"XA"}},
		}
		oracle := refdata.NewCountryTable(append(defaultsOf(t, refdata.DefaultCountries), testCountries...))
		for _, sc := range scenarios {
			f := countryFilter(t, sc.q)
			got, total, err := s.ListCountries(t.Context(), f)
			require.NoError(t, err, sc.name)
			want, wantTotal := oracle.List(f)
			assertSelection(t, sc.name, got, total, want, wantTotal, func(c refdata.Country) string { return c.CodeAlpha2 }, sc.in, sc.out)
		}
	})

	t.Run("CityFilters", func(t *testing.T) {
		t.Parallel()
		s := open(t, newStore)
		added, err := s.UpsertCities(t.Context(), testCities)
		require.NoError(t, err)
		require.Equal(t, len(testCities), added)
		scenarios := []struct {
			name string
			q    refdata.CityQuery
			want []string // names of the test cities (XA, XB) in the answer, in order
		}{
			{"country code, case-insensitive", refdata.CityQuery{CountryCode: refPtr("xb")}, []string{"Zürich-Zeta", "N'Zetamena"}},
			{"country and state", refdata.CityQuery{CountryCode: refPtr("XA"), StateCode: refPtr("sp")}, []string{"São Zétaville", "Santo Zeta"}},
			{"state alone", refdata.CityQuery{StateCode: refPtr("ZH")}, []string{"Zürich-Zeta"}},
			{"name substring accent-insensitive", refdata.CityQuery{CountryCode: refPtr("XA"), Name: refPtr("ZETA")}, []string{"São Zétaville", "Zeta Port", "Santo Zeta"}},
			{"name substring across words", refdata.CityQuery{Name: refPtr("o zétav")}, []string{"São Zétaville"}},
			{"name of two letters", refdata.CityQuery{CountryCode: refPtr("XB"), Name: refPtr("ÜR")}, []string{"Zürich-Zeta"}},
			{"keywords: sao finds São", refdata.CityQuery{Keywords: refPtr("sao zet")}, []string{"São Zétaville"}},
			{"keywords: word after punctuation", refdata.CityQuery{Keywords: refPtr("zetam")}, []string{"N'Zetamena"}},
			{"keywords: codes and tags", refdata.CityQuery{Keywords: refPtr("xa capital")}, []string{"São Zétaville"}},
			{"keywords: state code", refdata.CityQuery{Keywords: refPtr("zh zeta")}, []string{"Zürich-Zeta"}},
			{"keywords: every word must match", refdata.CityQuery{Keywords: refPtr("sao port xb")}, []string{}},
			{"keywords: prefixes, not infixes", refdata.CityQuery{Keywords: refPtr("etav")}, []string{}},
			{"sorted by name descending", refdata.CityQuery{CountryCode: refPtr("XA"), SortDataField: refPtr("NAME"), SortOrder: refPtr("desc")},
				[]string{"Zeta Port", "São Zétaville", "Santo Zeta"}},
			{"sorted by state, ties by insertion", refdata.CityQuery{CountryCode: refPtr("XA"), SortDataField: refPtr("stateCode")},
				[]string{"Zeta Port", "São Zétaville", "Santo Zeta"}},
		}
		oracleSet := refdata.DedupCities(append(defaultsOf(t, refdata.DefaultCities), testCities...))
		for _, sc := range scenarios {
			f := cityFilter(t, sc.q)
			got, total, err := s.ListCities(t.Context(), f)
			require.NoError(t, err, sc.name)
			want, wantTotal := refdata.SelectCities(oracleSet, f)
			assert.Equal(t, want, got, sc.name)
			assert.Equal(t, wantTotal, total, sc.name)
			names := []string{}
			for _, c := range got {
				if c.CountryCode == "XA" || c.CountryCode == "XB" {
					names = append(names, c.Name)
				}
			}
			assert.Equal(t, sc.want, names, sc.name)
		}
	})

	t.Run("SortEveryField", func(t *testing.T) {
		t.Parallel()
		s := open(t, newStore)
		ctx := t.Context()
		require.NoError(t, s.UpsertCurrencies(ctx, testCurrencies))
		require.NoError(t, s.UpsertCountries(ctx, testCountries))
		_, err := s.UpsertCities(ctx, testCities)
		require.NoError(t, err)
		currencies := refdata.NewCurrencyTable(append(defaultsOf(t, refdata.DefaultCurrencies), testCurrencies...))
		countries := refdata.NewCountryTable(append(defaultsOf(t, refdata.DefaultCountries), testCountries...))
		cities := refdata.DedupCities(append(defaultsOf(t, refdata.DefaultCities), testCities...))
		for _, order := range []string{"ASC", "descending"} {
			for _, field := range []string{"id", "CODE", "name", "namePlural", "symbol", "symbolNative",
				"decimalDigits", "rounding", "isCoin", "isDefault", "tags"} {
				f := currencyFilter(t, refdata.CurrencyQuery{SortDataField: &field, SortOrder: &order, Page: refdata.Paging{Number: 1, Size: 50}})
				got, _, err := s.ListCurrencies(ctx, f)
				require.NoError(t, err)
				want, _ := currencies.List(f)
				assert.Equal(t, want, got, "currencies by %s %s", field, order)
			}
			for _, field := range []string{"id", "region", "subregion", "codeAlpha2", "codeAlpha3", "codeNumeric",
				"codePhone", "name", "capital", "currency", "tld", "native", "tags"} {
				f := countryFilter(t, refdata.CountryQuery{SortDataField: &field, SortOrder: &order, Page: refdata.Paging{Number: 1, Size: 50}})
				got, _, err := s.ListCountries(ctx, f)
				require.NoError(t, err)
				want, _ := countries.List(f)
				assert.Equal(t, want, got, "countries by %s %s", field, order)
			}
			for _, field := range []string{"id", "countryCode", "statecode", "name", "tags"} {
				for _, page := range []int{0, 3} {
					f := cityFilter(t, refdata.CityQuery{SortDataField: &field, SortOrder: &order, Page: refdata.Paging{Number: page, Size: 100}})
					got, _, err := s.ListCities(ctx, f)
					require.NoError(t, err)
					want, _ := refdata.SelectCities(cities, f)
					assert.Equal(t, want, got, "cities by %s %s page %d", field, order, page)
				}
			}
		}
	})

	t.Run("Paging", func(t *testing.T) {
		t.Parallel()
		s := open(t, newStore)
		ctx := t.Context()
		own := map[string]refdata.City{} // generated cities moved to the test countries
		for i, c := range refdatatest.Cities(80, 7) {
			c.CountryCode = []string{"XA", "XB"}[i%2]
			own[refdata.CityKey(c)] = c
		}
		var cities []refdata.City
		for _, c := range own {
			cities = append(cities, c)
		}
		_, err := s.UpsertCities(ctx, cities)
		require.NoError(t, err)
		for _, sortBy := range []string{"id", "name", "stateCode"} {
			for _, order := range []string{"asc", "desc"} {
				base := refdata.CityQuery{Keywords: refPtr("x"), SortDataField: &sortBy, SortOrder: &order}
				all, total, err := s.ListCities(ctx, cityFilter(t, withPage(base, 0, refdata.MaxPageSize)))
				require.NoError(t, err)
				require.Equal(t, len(all), total)
				require.Greater(t, total, 7)
				var paged []refdata.City
				for n := 0; ; n++ {
					page, pt, err := s.ListCities(ctx, cityFilter(t, withPage(base, n, 7)))
					require.NoError(t, err)
					assert.Equal(t, total, pt, "total is of the whole query")
					if len(page) == 0 {
						assert.Equal(t, (total+6)/7, n, "the first empty page is the one past the end")
						break
					}
					assert.LessOrEqual(t, len(page), 7)
					paged = append(paged, page...)
				}
				assert.Equal(t, all, paged, "pages neither overlap nor skip (%s %s)", sortBy, order)
			}
		}
		got, total, err := s.ListCurrencies(ctx, currencyFilter(t, refdata.CurrencyQuery{Page: refdata.Paging{Number: 1 << 20, Size: 5}}))
		require.NoError(t, err)
		assert.Empty(t, got, "a page past the end is empty")
		assert.Positive(t, total)
		_, total2, err := s.ListCurrencies(ctx, currencyFilter(t, refdata.CurrencyQuery{Page: refdata.Paging{Size: 1}}))
		require.NoError(t, err)
		assert.Equal(t, total, total2)
	})

	t.Run("CitiesAgainstReference", func(t *testing.T) {
		t.Parallel()
		s := open(t, newStore)
		ctx := t.Context()
		generated := refdatatest.Cities(1500, 42)
		_, err := s.UpsertCities(ctx, generated)
		require.NoError(t, err)
		all := refdata.DedupCities(append(defaultsOf(t, refdata.DefaultCities), generated...))
		r := rand.New(rand.NewPCG(1, 2))
		pick := func(options ...string) *string {
			if r.IntN(3) == 0 {
				return nil
			}
			return refPtr(options[r.IntN(len(options))])
		}
		for i := range 150 {
			q := refdata.CityQuery{
				CountryCode:   pick("us", "BR", "fr", "XX"),
				StateCode:     pick("AA", "bh", "07", "12"),
				Name:          pick("san", "o", "SÃO", "ville", "mü", "ber lin", "zz", "ü", "zü", "a", "r", "東"),
				Keywords:      pick("sao", "jo ber", "port", "c", "capital", "new yo", "br", "lodz", "zuri"),
				SortDataField: pick("id", "name", "countryCode", "stateCode", "tags"),
				SortOrder:     pick("asc", "DESC"),
				Page:          refdata.Paging{Number: r.IntN(3), Size: []int{5, 50, 1000}[r.IntN(3)]},
			}
			f := cityFilter(t, q)
			got, total, err := s.ListCities(ctx, f)
			require.NoError(t, err)
			want, wantTotal := refdata.SelectCities(all, f)
			require.Equal(t, wantTotal, total, "query %d: %+v", i, f)
			require.Equal(t, want, got, "query %d: %+v", i, f)
		}
	})

	t.Run("CityShortNames", func(t *testing.T) {
		t.Parallel()
		s := open(t, newStore)
		ctx := t.Context()
		_, err := s.UpsertCities(ctx, shortNameCities)
		require.NoError(t, err)
		// Again, and renamed with the same folded name: nothing is added,
		// so no total moves.
		_, err = s.UpsertCities(ctx, shortNameCities)
		require.NoError(t, err)
		renamed := refdata.City{CountryCode: "XC", StateCode: "13", Name: "東京", Tags: "capital, metropolis"}
		added, err := s.UpsertCities(ctx, []refdata.City{renamed, {CountryCode: "XC", StateCode: "ZH", Name: "ZÜRICH"}})
		require.NoError(t, err)
		require.Zero(t, added)
		all := refdata.DedupCities(append(append(defaultsOf(t, refdata.DefaultCities), shortNameCities...),
			renamed, refdata.City{CountryCode: "XC", StateCode: "ZH", Name: "ZÜRICH"}))

		// The names of XC cities a Name of one or two runes finds: folded
		// (accents, case, ß → ss, æ → ae, ł → l), whatever the script.
		scenarios := []struct {
			name string
			want []string // in insertion order
		}{
			{"ü", []string{"ZÜRICH", "Zug", "São Paulo"}},
			{"zü", []string{"ZÜRICH", "Zug"}},
			{"Zu", []string{"ZÜRICH", "Zug"}},
			{"東", []string{"東京", "東大阪"}},
			{"京", []string{"東京", "京都"}},
			{"東京", []string{"東京"}},
			{"ß", []string{"Straße"}},
			{"SS", []string{"Straße"}},
			{"Æ", []string{"Ærøskøbing"}},
			{"ł", []string{"Łódź", "São Paulo"}},
			{"dz", []string{"Łódź"}},
			{"Θ", []string{"Αθήνα", "Θεσσαλονίκη"}},
			{"ΣΣ", []string{"Θεσσαλονίκη"}},
			{"ή", []string{"Αθήνα", "Θεσσαλονίκη"}},
			{"мо", []string{"Москва"}},
			{"'", []string{"N'Djamena"}},
			{"n'", []string{"N'Djamena"}},
			{"-", []string{"Saint-Étienne"}},
			{"t-", []string{"Saint-Étienne"}},
			{"ÃO", []string{"São Paulo"}},
			{"ã", []string{"Straße", "Ærøskøbing", "N'Djamena", "Saint-Étienne", "São Paulo"}}, // not Greek α
			{"q", []string{}},
			{"ж", []string{}},
		}
		for _, sc := range scenarios {
			for _, q := range []refdata.CityQuery{
				{Name: &sc.name, CountryCode: refPtr("XC")},
				{Name: &sc.name},
				{Name: &sc.name, StateCode: refPtr("13")},
				{Name: &sc.name, Keywords: refPtr("xc")},
				{Name: &sc.name, Keywords: refPtr("capital")},
				{Name: &sc.name, SortDataField: refPtr("name"), SortOrder: refPtr("desc"), Page: refdata.Paging{Number: 1, Size: 7}},
				{Name: &sc.name, SortDataField: refPtr("tags")},
				{Name: &sc.name, SortDataField: refPtr("stateCode"), Page: refdata.Paging{Number: 2, Size: 50}},
				{Name: &sc.name, SortOrder: refPtr("desc"), Page: refdata.Paging{Number: 3, Size: 20}},
			} {
				f := cityFilter(t, q)
				got, total, err := s.ListCities(ctx, f)
				require.NoError(t, err, "%+v", f)
				want, wantTotal := refdata.SelectCities(all, f)
				assert.Equal(t, wantTotal, total, "%+v", f)
				assert.Equal(t, want, got, "%+v", f)
			}
			got, _, err := s.ListCities(ctx, cityFilter(t, refdata.CityQuery{Name: &sc.name, CountryCode: refPtr("XC")}))
			require.NoError(t, err)
			names := []string{}
			for _, c := range got {
				names = append(names, c.Name)
			}
			assert.Equal(t, sc.want, names, "Name=%s", sc.name)
		}
	})

	t.Run("KeywordsAnyScript", func(t *testing.T) {
		t.Parallel()
		s := open(t, newStore)
		ctx := t.Context()
		_, err := s.UpsertCities(ctx, scriptCities)
		require.NoError(t, err)
		require.NoError(t, s.UpsertCurrencies(ctx, testCurrencies))

		// Every default country is found by the words of its native name
		// and of its name, in whatever script.
		defaults := defaultsOf(t, refdata.DefaultCountries)
		countries := refdata.NewCountryTable(defaults)
		for _, c := range defaults {
			for _, kw := range []string{c.Native, c.Name} {
				f := countryFilter(t, refdata.CountryQuery{Keywords: &kw})
				if f.Nothing {
					continue
				}
				got, total, err := s.ListCountries(ctx, f)
				require.NoError(t, err, "Keywords=%s", kw)
				want, wantTotal := countries.List(f)
				assert.Equal(t, wantTotal, total, "Keywords=%s", kw)
				assert.Equal(t, want, got, "Keywords=%s", kw)
				assert.Contains(t, codesOf(got, func(c refdata.Country) string { return c.CodeAlpha2 }), c.CodeAlpha2, "Keywords=%s", kw)
			}
		}

		currencies := refdata.NewCurrencyTable(append(defaultsOf(t, refdata.DefaultCurrencies), testCurrencies...))
		cities := refdata.DedupCities(append(defaultsOf(t, refdata.DefaultCities), scriptCities...))
		for _, c := range scriptCities {
			kw := c.Name + " " + c.Tags
			f := cityFilter(t, refdata.CityQuery{Keywords: &kw})
			got, _, err := s.ListCities(ctx, f)
			require.NoError(t, err, "Keywords=%s", kw)
			assert.Equal(t, []refdata.City{c}, got, "a city is found by its own name: Keywords=%s", kw)
		}
		for _, kw := range scriptKeywords {
			for _, q := range []refdata.CityQuery{
				{Keywords: &kw},
				{Keywords: &kw, CountryCode: refPtr("XD")},
				{Keywords: &kw, Name: refPtr("x")},
				{Keywords: &kw, SortDataField: refPtr("name")},
			} {
				f := cityFilter(t, q)
				if f.Nothing {
					continue
				}
				got, total, err := s.ListCities(ctx, f)
				require.NoError(t, err, "%+v", f)
				want, wantTotal := refdata.SelectCities(cities, f)
				assert.Equal(t, wantTotal, total, "%+v", f)
				assert.Equal(t, want, got, "%+v", f)
			}
			if f := countryFilter(t, refdata.CountryQuery{Keywords: &kw}); !f.Nothing {
				got, total, err := s.ListCountries(ctx, f)
				require.NoError(t, err, "Keywords=%s", kw)
				want, wantTotal := countries.List(f)
				assert.Equal(t, wantTotal, total, "Keywords=%s", kw)
				assert.Equal(t, want, got, "Keywords=%s", kw)
			}
			if f := currencyFilter(t, refdata.CurrencyQuery{Keywords: &kw}); !f.Nothing {
				got, total, err := s.ListCurrencies(ctx, f)
				require.NoError(t, err, "Keywords=%s", kw)
				want, wantTotal := currencies.List(f)
				assert.Equal(t, wantTotal, total, "Keywords=%s", kw)
				assert.Equal(t, want, got, "Keywords=%s", kw)
			}
		}
	})

	t.Run("UpsertCities", func(t *testing.T) {
		t.Parallel()
		s := open(t, newStore)
		ctx := t.Context()
		before := allCities(t, s)
		require.Equal(t, refdata.DedupCities(defaultsOf(t, refdata.DefaultCities)), before)
		added, err := s.UpsertCities(ctx, testCities)
		require.NoError(t, err)
		assert.Equal(t, len(testCities), added)
		rev, err := s.RefDataRevision(ctx)
		require.NoError(t, err)

		added, err = s.UpsertCities(ctx, testCities)
		require.NoError(t, err)
		assert.Zero(t, added, "the same cities again add nothing")
		assert.Equal(t, append(before, testCities...), allCities(t, s))

		// Same natural key (country, state, folded name): replaced in place.
		renamed := refdata.City{CountryCode: "XA", StateCode: "RJ", Name: "ZETA PÖRT", Tags: "harbour"}
		added, err = s.UpsertCities(ctx, []refdata.City{renamed, renamed})
		require.NoError(t, err)
		assert.Zero(t, added)
		want := append(before, testCities...)
		want[len(before)+1] = renamed
		assert.Equal(t, want, allCities(t, s), "replaced, keeping its place")
		rev2, err := s.RefDataRevision(ctx)
		require.NoError(t, err)
		assert.NotEqual(t, rev, rev2, "a change moves the revision")

		byTag := func(kw string) []refdata.City {
			got, _, err := s.ListCities(ctx, cityFilter(t, refdata.CityQuery{CountryCode: refPtr("XA"), Keywords: &kw}))
			require.NoError(t, err)
			return got
		}
		assert.Equal(t, []refdata.City{renamed}, byTag("harb"), "new tags are searched")
		assert.Empty(t, byTag("seas"), "old tags are not")
		got, _, err := s.ListCities(ctx, cityFilter(t, refdata.CityQuery{CountryCode: refPtr("XA"), SortDataField: refPtr("tags")}))
		require.NoError(t, err)
		assert.Equal(t, []refdata.City{testCities[2], testCities[0], renamed}, got, "tags order follows the change")

		other := open(t, newStore)
		assert.Equal(t, before, allCities(t, other), "another store is not affected")
	})

	t.Run("UpsertCurrenciesAndCountries", func(t *testing.T) {
		t.Parallel()
		s := open(t, newStore)
		ctx := t.Context()
		_, before, err := s.ListCurrencies(ctx, currencyFilter(t, refdata.CurrencyQuery{}))
		require.NoError(t, err)
		require.NoError(t, s.UpsertCurrencies(ctx, testCurrencies))
		c := testCurrencies[0]
		c.Name, c.Keywords = "Renamed", "other"
		require.NoError(t, s.UpsertCurrencies(ctx, []refdata.Currency{c}), "upsert replaces")
		got, after, err := s.ListCurrencies(ctx, currencyFilter(t, refdata.CurrencyQuery{Code: refPtr("XTA")}))
		require.NoError(t, err)
		assert.Equal(t, []refdata.Currency{c}, got)
		assert.Equal(t, 1, after)
		_, after, err = s.ListCurrencies(ctx, currencyFilter(t, refdata.CurrencyQuery{}))
		require.NoError(t, err)
		assert.Equal(t, before+2, after)
		got, _, err = s.ListCurrencies(ctx, currencyFilter(t, refdata.CurrencyQuery{Keywords: refPtr("zeta")}))
		require.NoError(t, err)
		assert.Empty(t, got, "replaced keywords are not searched")

		require.NoError(t, s.UpsertCountries(ctx, testCountries))
		k := testCountries[1]
		k.Capital = "Betaville"
		require.NoError(t, s.UpsertCountries(ctx, []refdata.Country{k}))
		gotCountries, n, err := s.ListCountries(ctx, countryFilter(t, refdata.CountryQuery{Keywords: refPtr("betav")}))
		require.NoError(t, err)
		assert.Equal(t, []refdata.Country{k}, gotCountries)
		assert.Equal(t, 1, n)
	})

	t.Run("CancelledContext", func(t *testing.T) {
		t.Parallel()
		s := open(t, newStore)
		ctx, cancel := contextCancelled(t)
		defer cancel()
		_, _, err := s.ListCurrencies(ctx, currencyFilter(t, refdata.CurrencyQuery{}))
		assert.Equal(t, envelope.KindUnavailable, envelope.KindOf(err))
		_, _, err = s.ListCountries(ctx, countryFilter(t, refdata.CountryQuery{}))
		assert.Equal(t, envelope.KindUnavailable, envelope.KindOf(err))
		_, _, err = s.ListCities(ctx, cityFilter(t, refdata.CityQuery{}))
		assert.Equal(t, envelope.KindUnavailable, envelope.KindOf(err))
		_, err = s.UpsertCities(ctx, testCities)
		assert.Equal(t, envelope.KindUnavailable, envelope.KindOf(err))
		got, _, err := s.ListCities(t.Context(), cityFilter(t, refdata.CityQuery{CountryCode: refPtr("XA")}))
		require.NoError(t, err)
		assert.Empty(t, got, "a cancelled write stores nothing")
	})
}

func currencyFilter(t *testing.T, q refdata.CurrencyQuery) refdata.CurrencyFilter {
	t.Helper()
	f, err := q.Filter("USD")
	require.NoError(t, err)
	return f
}

func countryFilter(t *testing.T, q refdata.CountryQuery) refdata.CountryFilter {
	t.Helper()
	f, err := q.Filter()
	require.NoError(t, err)
	return f
}

func cityFilter(t *testing.T, q refdata.CityQuery) refdata.CityFilter {
	t.Helper()
	f, err := q.Filter()
	require.NoError(t, err)
	return f
}

func withPage(q refdata.CityQuery, number, size int) refdata.CityQuery {
	q.Page = refdata.Paging{Number: number, Size: size}
	return q
}

// allCities returns every city of s in insertion order.
func allCities(t *testing.T, s storage.Storage) []refdata.City {
	t.Helper()
	var all []refdata.City
	for n := 0; ; n++ {
		page, total, err := s.ListCities(t.Context(), cityFilter(t, refdata.CityQuery{Page: refdata.Paging{Number: n, Size: refdata.MaxPageSize}}))
		require.NoError(t, err)
		all = append(all, page...)
		if len(all) >= total || len(page) == 0 {
			require.Len(t, all, total)
			return all
		}
	}
}

func defaultsOf[T any](t *testing.T, get func() ([]T, error)) []T {
	t.Helper()
	v, err := get()
	require.NoError(t, err)
	return v
}

// assertSelection checks a store's answer (got, total) against the
// reference implementation's (want, wantTotal), and that it holds the
// records of every code of in and of none of out.
func assertSelection[T any](t *testing.T, name string, got []T, total int, want []T, wantTotal int, code func(T) string, in, out []string) {
	t.Helper()
	assert.Equal(t, want, got, name)
	assert.Equal(t, wantTotal, total, name)
	codes := codesOf(got, code)
	assert.Subset(t, codes, in, name)
	for _, c := range out {
		assert.NotContains(t, codes, c, name)
	}
}

// codesOf returns code(r) for each record r of recs, in order.
func codesOf[T any](recs []T, code func(T) string) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = code(r)
	}
	return out
}
