package storagetest

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/storage"
	"github.com/brandbase/brandbase/storage/memory"
)

// refPtr returns a pointer to a copy of v.
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

// currencyFilter returns q with USD as the default currency. Lists are
// validated by the Service that answers them (lists).
func currencyFilter(_ *testing.T, q refdata.CurrencyQuery) refdata.CurrencyQuery {
	q.DefaultCurrency = "USD"
	return q
}

// countryFilter returns q.
func countryFilter(_ *testing.T, q refdata.CountryQuery) refdata.CountryQuery { return q }

// cityFilter returns q.
func cityFilter(_ *testing.T, q refdata.CityQuery) refdata.CityQuery { return q }

// services holds the refdata.Service of each store a case lists from, so
// that its snapshot is read once and then patched, as an App's is.
var services sync.Map // refdata.Store -> *refdata.Service

// lists returns the lists of s: those of a refdata.Service on s (one per
// store), every store's list engine. Every list case of the suite runs
// through it, so that a store is checked end to end.
func lists(s refdata.Store) lister {
	if v, ok := services.Load(s); ok {
		return lister{v.(*refdata.Service)}
	}
	v, _ := services.LoadOrStore(s, refdata.NewService(s))
	return lister{v.(*refdata.Service)}
}

// lister answers lists as a store's List methods did: the page's items,
// the total, the error.
type lister struct{ svc *refdata.Service }

// ListCurrencies returns the currencies as stored: IsDefault, which the
// Service sets on the brand's currency, is cleared (refdata's and the
// adapter's tests check it).
func (l lister) ListCurrencies(ctx context.Context, q refdata.CurrencyQuery) ([]refdata.Currency, int, error) {
	p, err := l.svc.ListCurrencies(ctx, q)
	for i := range p.Items {
		p.Items[i].IsDefault = false
	}
	return p.Items, p.TotalItems, err
}

func (l lister) ListCountries(ctx context.Context, q refdata.CountryQuery) ([]refdata.Country, int, error) {
	p, err := l.svc.ListCountries(ctx, q)
	return p.Items, p.TotalItems, err
}

func (l lister) ListCities(ctx context.Context, q refdata.CityQuery) ([]refdata.City, int, error) {
	p, err := l.svc.ListCities(ctx, q)
	return p.Items, p.TotalItems, err
}

// withPage returns q asking for page number of the given size.
func withPage(q refdata.CityQuery, number, size int) refdata.CityQuery {
	q.Page = refdata.Paging{Number: number, Size: size}
	return q
}

// allCities returns every city of s in insertion order.
func allCities(t *testing.T, s storage.Storage) []refdata.City {
	t.Helper()
	var all []refdata.City
	for n := 0; ; n++ {
		page, total, err := lists(s).ListCities(t.Context(), cityFilter(t, refdata.CityQuery{Page: refdata.Paging{Number: n, Size: refdata.MaxPageSize}}))
		require.NoError(t, err)
		all = append(all, page...)
		if len(all) >= total || len(page) == 0 {
			require.Len(t, all, total)
			return all
		}
	}
}

// defaultsOf returns the default dataset's records that get returns.
func defaultsOf[T any](t *testing.T, get func() ([]T, error)) []T {
	t.Helper()
	v, err := get()
	require.NoError(t, err)
	return v
}

// assertAsReference lists f from a store (list) and from the reference
// implementation (ref), asserts that both answer the same page and total,
// and returns the store's page.
func assertAsReference[F, T any](t *testing.T, list func(context.Context, F) ([]T, int, error),
	ref func(F) ([]T, int), f F, msgAndArgs ...any) []T {
	t.Helper()
	got, total, err := list(t.Context(), f)
	require.NoError(t, err, msgAndArgs...)
	want, wantTotal := ref(f)
	assert.Equal(t, wantTotal, total, msgAndArgs...)
	assert.Equal(t, want, got, msgAndArgs...)
	return got
}

// reference is the reference lists over the default dataset plus some
// records: a refdata.Service over a memory store holding them. The list
// engine itself is checked against refdata's reference implementation
// (selectCities, the tables) in package refdata's tests; the suite checks
// that a store keeps what the engine reads as the memory store does.
type reference struct {
	currencies func(refdata.CurrencyQuery) ([]refdata.Currency, int)
	countries  func(refdata.CountryQuery) ([]refdata.Country, int)
	cities     func(refdata.CityQuery) ([]refdata.City, int)
}

// newReference returns the reference over the default dataset plus
// currencies, countries and cities (upserted in that order).
func newReference(t *testing.T, currencies []refdata.Currency, countries []refdata.Country, cities []refdata.City) reference {
	t.Helper()
	ctx := context.WithoutCancel(t.Context())
	m, err := memory.New(ctx)
	require.NoError(t, err)
	require.NoError(t, m.UpsertCurrencies(ctx, currencies))
	require.NoError(t, m.UpsertCountries(ctx, countries))
	_, err = m.UpsertCities(ctx, cities)
	require.NoError(t, err)
	l := lists(m)
	return reference{
		currencies: func(q refdata.CurrencyQuery) ([]refdata.Currency, int) {
			items, n, err := l.ListCurrencies(ctx, q)
			require.NoError(t, err)
			return items, n
		},
		countries: func(q refdata.CountryQuery) ([]refdata.Country, int) {
			items, n, err := l.ListCountries(ctx, q)
			require.NoError(t, err)
			return items, n
		},
		cities: func(q refdata.CityQuery) ([]refdata.City, int) {
			items, n, err := l.ListCities(ctx, q)
			require.NoError(t, err)
			return items, n
		},
	}
}

// filterCase is one filter scenario: the records of every code of in, and
// of none of out, are in the answer to q.
type filterCase[Q any] struct {
	name    string
	q       Q
	in, out []string
}

// assertFilterCases checks a store's answer (list) to each case's query
// against the reference implementation's (ref), and its codes against the
// case's in and out.
func assertFilterCases[Q, F, T any](t *testing.T, cases []filterCase[Q], filter func(*testing.T, Q) F,
	list func(context.Context, F) ([]T, int, error), ref func(F) ([]T, int), code func(T) string) {
	t.Helper()
	for _, c := range cases {
		codes := codesOf(assertAsReference(t, list, ref, filter(t, c.q), c.name), code)
		assert.Subset(t, codes, c.in, c.name)
		for _, o := range c.out {
			assert.NotContains(t, codes, o, c.name)
		}
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
