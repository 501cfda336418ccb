package memory_test

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/storage"
	"github.com/brandbase/brandbase/storage/memory"
	"github.com/brandbase/brandbase/storage/storagetest"
)

func TestConformance(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T) storage.Storage {
		s, err := memory.New(t.Context())
		require.NoError(t, err)
		return s
	})
}

// newBrand returns a brand record to store, with id and url.
func newBrand(id, url string) auth.Brand {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return auth.Brand{ID: id, URL: url, Name: "Shop", Status: auth.StatusActive,
		DefaultCurrency: "USD", CreatedAt: now}
}

// TestStoresShareNothing: two Stores open at once are two databases: a
// write to one is not seen by the other, and closing one leaves the
// other's data; a Store is ephemeral.
func TestStoresShareNothing(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	a, err := memory.New(ctx)
	require.NoError(t, err)
	b, err := memory.New(ctx)
	require.NoError(t, err)
	defer b.Close()
	assert.True(t, a.Ephemeral())

	require.NoError(t, a.CreateBrand(ctx, newBrand("01J0000000000000000000000A", "a.example.com")))
	require.NoError(t, b.CreateBrand(ctx, newBrand("01J0000000000000000000000B", "b.example.com")))
	for _, s := range []*memory.Store{a, b} {
		brands, err := s.ListBrands(ctx)
		require.NoError(t, err)
		require.Len(t, brands, 1, "each store holds its own brand only")
	}
	_, err = b.BrandByURL(ctx, "a.example.com")
	assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err))

	require.NoError(t, a.Close())
	_, err = a.ListBrands(ctx)
	assert.Error(t, err, "a closed store serves nothing")
	got, err := b.BrandByURL(ctx, "b.example.com")
	require.NoError(t, err)
	assert.Equal(t, "01J0000000000000000000000B", got.ID)
}

// openDatabases counts the process's open databases: the goroutines of
// their connection openers, the one goroutine sql.OpenDB starts for each
// database and that its Close ends. They are counted by their "created by
// database/sql.OpenDB" line, which every state of the goroutine prints: one
// not scheduled yet (as on a loaded machine, right after New) shows its
// wrapper, database/sql.OpenDB.gowrap1, not database/sql.(*DB).connectionOpener.
func openDatabases() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return strings.Count(string(buf[:n]), "\ncreated by database/sql.OpenDB in goroutine ")
		}
		buf = make([]byte, 2*len(buf))
	}
}

// TestUnclosedStoreIsReleased: a Store that is never closed releases its
// database once it is garbage, and Close releases it at once. Not
// parallel: it counts the process's open databases.
//
// It counts from the databases open when it starts (after a collection):
// none in a run of the package, but a -count run's later rounds start
// beside the stores the earlier rounds' parallel tests still hold.
func TestUnclosedStoreIsReleased(t *testing.T) {
	runtime.GC()
	base := openDatabases()
	s, err := memory.New(t.Context())
	require.NoError(t, err)
	require.NoError(t, s.Close())
	require.Eventually(t, func() bool { return openDatabases() == base }, 10*time.Second, time.Millisecond,
		"Close closes the database")
	open := make([]*memory.Store, 5)
	for i := range open {
		open[i], err = memory.New(t.Context())
		require.NoError(t, err)
		require.NoError(t, open[i].Ping(t.Context()))
	}
	require.Equal(t, base+5, openDatabases(), "an open store holds a database")
	runtime.KeepAlive(open) // the stores' last use: garbage from here, never closed
	assert.Eventually(t, func() bool {
		runtime.GC()
		return openDatabases() == base
	}, 10*time.Second, 10*time.Millisecond, "the stores' databases are closed once they are garbage")
}
