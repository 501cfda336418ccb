package sqlite_test

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/storage"
	"github.com/brandbase/brandbase/storage/sqlite"
	"github.com/brandbase/brandbase/storage/storagetest"
)

func TestConformanceFile(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T) storage.Storage {
		s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "test.db"))
		require.NoError(t, err)
		return s
	})
}

func TestReopenKeepsData(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "reopen.db")
	ctx := t.Context()

	s, err := sqlite.Open(ctx, path)
	require.NoError(t, err)
	svc := auth.NewService(s)
	b, err := svc.CreateBrand(ctx, auth.NewBrand{URL: "https://Persist.Example.com/", Name: "Persist"})
	require.NoError(t, err)
	require.NoError(t, s.Close())

	s, err = sqlite.Open(ctx, path)
	require.NoError(t, err, "reopening migrates nothing twice and reloads nothing")
	defer s.Close()
	got, err := s.BrandByURL(ctx, "persist.example.com")
	require.NoError(t, err)
	assert.Equal(t, b, got)
}

func TestOpenRejectsBadPath(t *testing.T) {
	t.Parallel()
	for _, p := range []string{"", "x.db?mode=ro", "a#b"} {
		_, err := sqlite.Open(t.Context(), p)
		assert.Error(t, err, p)
	}
}

// TestOpenKeepsHostTables opens the store on files that hold a host's own
// tables and no brandbase table, one in WAL mode with a page size other
// than SQLite's default: Open adds its schema and the default dataset
// beside the host's tables, whose rows are all kept.
func TestOpenKeepsHostTables(t *testing.T) {
	t.Parallel()
	for _, sc := range []struct {
		name, pragmas string
	}{
		{"rollback journal", ""},
		{"WAL, page size 8192", "PRAGMA page_size = 8192; PRAGMA journal_mode = WAL;"},
		{"WAL, page size 1024", "PRAGMA page_size = 1024; PRAGMA journal_mode = WAL;"},
	} {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			path := filepath.Join(t.TempDir(), "host.db")
			raw, err := sql.Open("sqlite", path)
			require.NoError(t, err)
			_, err = raw.Exec(sc.pragmas + `CREATE TABLE host_orders (id INTEGER PRIMARY KEY, item TEXT NOT NULL);
				INSERT INTO host_orders (item) VALUES ('one'), ('two'), ('three');`)
			require.NoError(t, err)
			require.NoError(t, raw.Close())

			s, err := sqlite.Open(ctx, path)
			require.NoError(t, err)
			v, err := s.DatasetVersion(ctx)
			require.NoError(t, err)
			assert.Equal(t, refdata.DatasetVersion, v)
			_, err = auth.NewService(s).CreateBrand(ctx, auth.NewBrand{URL: "host.example.com", Name: "Host"})
			require.NoError(t, err)
			require.NoError(t, s.Close())

			raw, err = sql.Open("sqlite", path)
			require.NoError(t, err)
			defer raw.Close()
			var items []string
			rows, err := raw.Query(`SELECT item FROM host_orders ORDER BY id`)
			require.NoError(t, err)
			for rows.Next() {
				var item string
				require.NoError(t, rows.Scan(&item))
				items = append(items, item)
			}
			require.NoError(t, rows.Err())
			assert.Equal(t, []string{"one", "two", "three"}, items, "the host's rows survive Open")
			var brands int
			require.NoError(t, raw.QueryRow(`SELECT count(*) FROM brands`).Scan(&brands))
			assert.Equal(t, 1, brands)
		})
	}
}

// TestOpenEmptyFile opens the store on an existing empty file (as a host
// that created it first): it gets the schema and the dataset.
func TestOpenEmptyFile(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "empty.db")
	require.NoError(t, os.WriteFile(path, nil, 0o600))
	s, err := sqlite.Open(ctx, path)
	require.NoError(t, err)
	defer s.Close()
	v, err := s.DatasetVersion(ctx)
	require.NoError(t, err)
	assert.Equal(t, refdata.DatasetVersion, v)
	require.NoError(t, s.Check(ctx))
}

// TestConcurrentOpensOfNewFile opens one new path from several goroutines
// at once, each writing a brand as soon as its Open returns: no Open may
// fail and no write may be lost (as when an Open copied the dataset over a
// file another Open had already written). Many rounds, as the race it
// guards against showed in one round in ten.
func TestConcurrentOpensOfNewFile(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	const rounds, opens = 40, 3
	dir := t.TempDir()
	for round := range rounds {
		path := filepath.Join(dir, fmt.Sprintf("race%d.db", round))
		var wg sync.WaitGroup
		errs := make([]error, opens)
		for i := range opens {
			wg.Go(func() {
				s, err := sqlite.Open(ctx, path)
				if err != nil {
					errs[i] = err
					return
				}
				_, err = auth.NewService(s).CreateBrand(ctx, auth.NewBrand{URL: fmt.Sprintf("b%d.example.com", i), Name: "B"})
				errs[i] = errors.Join(err, s.Close())
			})
		}
		wg.Wait()
		for i, err := range errs {
			require.NoError(t, err, "round %d, open %d", round, i)
		}
		s, err := sqlite.Open(ctx, path)
		require.NoError(t, err)
		for i := range opens {
			_, err := s.BrandByURL(ctx, fmt.Sprintf("b%d.example.com", i))
			assert.NoError(t, err, "round %d: the brand of open %d is lost", round, i)
		}
		v, err := s.DatasetVersion(ctx)
		require.NoError(t, err)
		assert.Equal(t, refdata.DatasetVersion, v)
		require.NoError(t, s.Close())
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		assert.True(t, strings.HasPrefix(e.Name(), "race"), "no file is left beside the databases: %s", e.Name())
	}
}
