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
	cities, err := refdata.NewService(s).ListCities(ctx, refdata.CityQuery{CountryCode: refPtr("XA")})
	require.NoError(t, err)
	assert.Equal(t, []refdata.City{{CountryCode: "XA", Name: "Kept City"}}, cities.Items)
}

// TestInstalledDatabaseIsWritable checks a database made from the
// template: WAL mode, and a city written is listed.
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
	cities, err := refdata.NewService(s).ListCities(ctx, refdata.CityQuery{Keywords: refPtr("zetab new"), Name: refPtr("ÉTAB")})
	require.NoError(t, err)
	assert.Equal(t, 1, cities.TotalItems)
	assert.Equal(t, "Zétaburg", cities.Items[0].Name)
}

func refPtr[T any](v T) *T { return &v }

// FuzzCityQuery checks odd filter values against the reference answer.
func FuzzCityQuery(f *testing.F) {
	s, err := sqlite.Open(f.Context(), ":memory:")
	require.NoError(f, err)
	f.Cleanup(func() { s.Close() })
	storagetest.FuzzCityQuery(f, s)
}
