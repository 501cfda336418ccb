package sqlite_test

import (
	"database/sql"
	"fmt"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	msqlite "modernc.org/sqlite"

	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/storage/sqlite"
)

// putBack copies the database at from into the one at to, page by page,
// while stores hold it open: SQLite's online backup API, as the sqlite3
// shell's .restore does (the other connections see the restored file at
// their next read).
func putBack(t *testing.T, from, to string) {
	t.Helper()
	ctx := t.Context()
	db, err := sql.Open("sqlite", to+"?_pragma=busy_timeout(10000)")
	require.NoError(t, err)
	defer db.Close()
	conn, err := db.Conn(ctx)
	require.NoError(t, err)
	defer conn.Close()
	require.NoError(t, conn.Raw(func(dc any) error {
		r, ok := dc.(interface {
			NewRestore(string) (*msqlite.Backup, error)
		})
		if !ok {
			return fmt.Errorf("the driver's connection %T cannot restore", dc)
		}
		b, err := r.NewRestore(from)
		if err != nil {
			return err
		}
		if _, err := b.Step(-1); err != nil {
			_ = b.Finish()
			return err
		}
		return b.Finish()
	}))
}

// TestRestoreReachesEveryInstance: two running instances (a store and a
// reference-data service each) share an SQLite file. A backup of it is
// taken (VACUUM INTO), cities are written and listed by both, and the
// backup is put back into the running file (the revision goes back, the
// generation is the same, and nothing tells the instances): within 2 s
// every instance lists what the file holds; then writes move the
// revision past where it was, and every instance lists those writes and
// not the cities the restore took away. Then a copy of another database
// (another generation) at the very revision the instances hold is put
// back: they list what the file holds, though the revision did not move.
func TestRestoreReachesEveryInstance(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dir := t.TempDir()
	path := filepath.Join(dir, "brandbase.db")
	quietLog := slog.New(slog.DiscardHandler)
	var stores []*sqlite.Store
	var svcs []*refdata.Service
	for range 2 {
		s, err := sqlite.Open(ctx, path)
		require.NoError(t, err)
		t.Cleanup(func() { s.Close() })
		svc := refdata.NewService(s, refdata.WithLogger(quietLog))
		t.Cleanup(svc.Close)
		require.NoError(t, svc.Ready(ctx))
		stores, svcs = append(stores, s), append(svcs, svc)
	}
	all := refdata.CityQuery{SortDataField: new("name"), Page: refdata.Paging{Size: refdata.MaxPageSize}, CountryCode: new("XA")}
	// held returns what the file holds now, read whole by a fresh
	// service on a store of its own.
	held := func() refdata.Page[refdata.City] {
		s, err := sqlite.Open(ctx, path)
		require.NoError(t, err)
		defer s.Close()
		svc := refdata.NewService(s, refdata.WithLogger(quietLog))
		defer svc.Close()
		p, err := svc.ListCities(ctx, all)
		require.NoError(t, err)
		return p
	}
	// agree waits up to 2 s for every instance to list what the file
	// holds, and fails t naming the one that does not.
	agree := func(what string) {
		t.Helper()
		want := held()
		start := time.Now()
		for i, svc := range svcs {
			var got refdata.Page[refdata.City]
			if !assert.Eventually(t, func() bool {
				var err error
				got, err = svc.ListCities(ctx, all)
				return err == nil && assert.ObjectsAreEqual(want, got)
			}, 2*time.Second-time.Since(start), 10*time.Millisecond, "%s: instance %d lists what the file holds", what, i) {
				assert.Equal(t, want, got, "%s: instance %d", what, i)
			}
		}
		t.Logf("%s: every instance lists what the file holds after %v", what, time.Since(start).Round(time.Millisecond))
	}
	city := func(name string) refdata.City { return refdata.City{CountryCode: "XA", StateCode: "AA", Name: name} }
	write := func(i int, name string) {
		t.Helper()
		_, err := stores[i%2].UpsertCities(ctx, []refdata.City{city(name)})
		require.NoError(t, err)
	}
	write(0, "Dumpville")
	agree("before the backup")

	backup := filepath.Join(dir, "backup.db")
	db, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(10000)")
	require.NoError(t, err)
	_, err = db.ExecContext(ctx, `VACUUM INTO ?`, backup)
	require.NoError(t, err)
	require.NoError(t, db.Close())
	for i := range 3 {
		write(i, fmt.Sprintf("Lostville %d", i))
	}
	agree("after writes past the backup")
	require.Len(t, held().Items, 4, "Dumpville and the three written after the backup")

	putBack(t, backup, path)
	require.Len(t, held().Items, 1, "the file holds what the backup held")
	agree("after the backup is put back")

	// Writes move the revision back past where the instances were: they
	// list these, never the cities the restore took away.
	for i := range 5 {
		write(i, fmt.Sprintf("Newville %d", i))
	}
	require.Len(t, held().Items, 6, "Dumpville and the five written after the restore")
	agree("after writes past the old revision")

	// Another database, of another generation, at the revision the
	// instances hold: only its generation tells it apart.
	rev, err := stores[0].RefDataRevision(ctx)
	require.NoError(t, err)
	otherPath := filepath.Join(dir, "other.db")
	other, err := sqlite.Open(ctx, otherPath)
	require.NoError(t, err)
	for n := 0; ; n++ {
		r, err := other.RefDataRevision(ctx)
		require.NoError(t, err)
		if r >= rev {
			require.Equal(t, rev, r, "the other database reaches the very revision")
			break
		}
		_, err = other.UpsertCities(ctx, []refdata.City{city(fmt.Sprintf("Otherville %d", n))})
		require.NoError(t, err)
	}
	require.NoError(t, other.Close())
	putBack(t, otherPath, path)
	got := held()
	require.NotEmpty(t, got.Items)
	require.Equal(t, "Otherville 0", got.Items[0].Name, "the file holds the other database's cities")
	agree("after another database is put back")
}
