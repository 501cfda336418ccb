package sqlite_test

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/storage"
	"github.com/brandbase/brandbase/storage/sqlite"
	"github.com/brandbase/brandbase/storage/storagetest"
)

func BenchmarkRefData(b *testing.B) {
	storagetest.BenchRefData(b, func(b *testing.B) storage.Storage {
		s, err := sqlite.Open(b.Context(), filepath.Join(b.TempDir(), "bench.db"))
		if err != nil {
			b.Fatal(err)
		}
		return s
	})
}

// BenchmarkOpen times opening a new database: migrations and the default
// dataset (a copy of the template image), in a new file and in memory.
func BenchmarkOpen(b *testing.B) {
	b.Run("file", func(b *testing.B) {
		dir := b.TempDir()
		i := 0
		for b.Loop() {
			i++
			s, err := sqlite.Open(b.Context(), filepath.Join(dir, fmt.Sprintf("open%d.db", i)))
			if err != nil {
				b.Fatal(err)
			}
			s.Close()
		}
	})
	b.Run("memory", func(b *testing.B) {
		for b.Loop() {
			s, err := sqlite.Open(b.Context(), ":memory:")
			if err != nil {
				b.Fatal(err)
			}
			s.Close()
		}
	})
}

// TestDefaultDatasetNotInstalledOverData checks that a database that holds
// data but no dataset (as one whose load was interrupted) gets the dataset
// by upserts, keeping its data, and not by the template image.
func TestDefaultDatasetNotInstalledOverData(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "partial.db")
	s, err := sqlite.Open(ctx, path)
	require.NoError(t, err)
	b, err := auth.NewService(s).CreateBrand(ctx, auth.NewBrand{URL: "kept.example.com", Name: "Kept"})
	require.NoError(t, err)
	_, err = s.UpsertCities(ctx, []refdata.City{{CountryCode: "XA", Name: "Kept City"}})
	require.NoError(t, err)
	require.NoError(t, s.Close())

	raw, err := sql.Open("sqlite", path)
	require.NoError(t, err)
	_, err = raw.Exec(`DELETE FROM meta WHERE key = 'refdata.dataset_version'`)
	require.NoError(t, err)
	require.NoError(t, raw.Close())

	s, err = sqlite.Open(ctx, path)
	require.NoError(t, err)
	defer s.Close()
	got, err := s.BrandByURL(ctx, "kept.example.com")
	require.NoError(t, err)
	assert.Equal(t, b.ID, got.ID)
	v, err := s.DatasetVersion(ctx)
	require.NoError(t, err)
	assert.Equal(t, refdata.DatasetVersion, v)
	f, err := refdata.CityQuery{CountryCode: refPtr("XA")}.Filter()
	require.NoError(t, err)
	cities, _, err := s.ListCities(ctx, f)
	require.NoError(t, err)
	assert.Equal(t, []refdata.City{{CountryCode: "XA", Name: "Kept City"}}, cities)
}

// TestInstalledDatabaseIsWritable checks a database made from the
// template: WAL mode, and writes to every reference-data index work.
func TestInstalledDatabaseIsWritable(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "fresh.db")
	s, err := sqlite.Open(ctx, path)
	require.NoError(t, err)
	defer s.Close()
	raw, err := sql.Open("sqlite", path)
	require.NoError(t, err)
	defer raw.Close()
	var mode string
	require.NoError(t, raw.QueryRow(`PRAGMA journal_mode`).Scan(&mode))
	assert.Equal(t, "wal", mode)
	require.NoError(t, s.Check(ctx))
	added, err := s.UpsertCities(ctx, []refdata.City{{CountryCode: "XA", StateCode: "01", Name: "Zétaburg", Tags: "new"}})
	require.NoError(t, err)
	assert.Equal(t, 1, added)
	f, err := refdata.CityQuery{Keywords: refPtr("zetab new"), Name: refPtr("ÉTAB")}.Filter()
	require.NoError(t, err)
	cities, total, err := s.ListCities(ctx, f)
	require.NoError(t, err)
	assert.Equal(t, 1, total)
	assert.Equal(t, "Zétaburg", cities[0].Name)
}

func refPtr[T any](v T) *T { return &v }

// FuzzCityQuery checks odd filter values against the reference answer.
func FuzzCityQuery(f *testing.F) {
	s, err := sqlite.Open(f.Context(), ":memory:")
	require.NoError(f, err)
	f.Cleanup(func() { s.Close() })
	storagetest.FuzzCityQuery(f, s)
}

// TestKeywordsTermsBuiltByHand checks Keywords terms that textfold.Words
// never gives (a filter built by hand): no term is an FTS5 error, and the
// answers are the reference's: a term with a space, punctuation, a quote,
// NUL or upper case matches nothing, "" every record, Nothing no record.
func TestKeywordsTermsBuiltByHand(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "terms.db"))
	require.NoError(t, err)
	defer s.Close()
	cities, err := refdata.DefaultCities()
	require.NoError(t, err)
	cities = refdata.DedupCities(cities)
	countries, err := refdata.DefaultCountries()
	require.NoError(t, err)
	currencies, err := refdata.DefaultCurrencies()
	require.NoError(t, err)
	countryTable, currencyTable := refdata.NewCountryTable(countries), refdata.NewCurrencyTable(currencies)

	for _, sc := range []struct {
		terms   []string
		nothing bool
	}{
		{terms: []string{"sao paulo"}}, {terms: []string{"new", "yo rk"}}, {terms: []string{"a-b"}},
		{terms: []string{"Sao"}}, {terms: []string{"SAN"}}, {terms: []string{"x\x00"}}, {terms: []string{`"*`}},
		{terms: []string{"x\u20dd v"}}, {terms: []string{"நே பாளம்"}}, {terms: []string{""}},
		{terms: []string{"", "sao"}}, {terms: []string{"sao", ""}}, {nothing: true}, {terms: []string{"sao"}, nothing: true},
	} {
		name := fmt.Sprintf("%q nothing=%v", sc.terms, sc.nothing)
		for _, sort := range []refdata.Field{refdata.FieldID, refdata.FieldName} {
			cf := refdata.CityFilter{Keywords: sc.terms, Nothing: sc.nothing, Sort: sort, Page: refdata.Paging{Size: 50}}
			got, total, err := s.ListCities(ctx, cf)
			require.NoError(t, err, name)
			want, wantTotal := refdata.SelectCities(cities, cf)
			assert.Equal(t, wantTotal, total, name)
			assert.Equal(t, want, got, name)
			cf.CountryCode = "BR"
			got, total, err = s.ListCities(ctx, cf)
			require.NoError(t, err, name)
			want, wantTotal = refdata.SelectCities(cities, cf)
			assert.Equal(t, wantTotal, total, name)
			assert.Equal(t, want, got, name)

			kf := refdata.CountryFilter{Keywords: sc.terms, Nothing: sc.nothing, Sort: sort, Page: refdata.Paging{Size: 50}}
			gotCountries, total, err := s.ListCountries(ctx, kf)
			require.NoError(t, err, name)
			wantCountries, wantTotal := countryTable.List(kf)
			assert.Equal(t, wantTotal, total, name)
			assert.Equal(t, wantCountries, gotCountries, name)

			uf := refdata.CurrencyFilter{Keywords: sc.terms, Nothing: sc.nothing, Sort: sort, Page: refdata.Paging{Size: 50}}
			gotCurrencies, total, err := s.ListCurrencies(ctx, uf)
			require.NoError(t, err, name)
			wantCurrencies, wantTotal := currencyTable.List(uf)
			assert.Equal(t, wantTotal, total, name)
			assert.Equal(t, wantCurrencies, gotCurrencies, name)
		}
	}
}
