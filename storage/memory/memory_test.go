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

// openDatabases counts the open databases that the goroutine self
// (goroutineID) opened: the goroutines of their connection openers, the one goroutine
// sql.OpenDB starts for each database and that its Close ends. They are
// counted by their "created by database/sql.OpenDB in goroutine N" line,
// which every state of the goroutine prints (one not scheduled yet, as on
// a loaded machine right after New, shows its wrapper,
// database/sql.OpenDB.gowrap1, not database/sql.(*DB).connectionOpener),
// N being self: the databases of other tests, and those earlier
// rounds of a -count run left to be released, are not counted.
func openDatabases(self string) int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return strings.Count(string(buf[:n]), "\ncreated by database/sql.OpenDB in goroutine "+self+"\n")
		}
		buf = make([]byte, 2*len(buf))
	}
}

// goroutineID returns the number of the calling goroutine, from the first
// line of its stack ("goroutine N [running]:").
func goroutineID() string {
	var b [64]byte
	return strings.Fields(string(b[:runtime.Stack(b[:], false)]))[1]
}

// TestUnclosedStoreIsReleased: a Store that is never closed releases its
// database once it is garbage, and Close releases it at once. It counts
// the databases its own goroutine opened, so other tests (and what earlier
// rounds of a -count run left to be released) do not change its counts.
func TestUnclosedStoreIsReleased(t *testing.T) {
	self := goroutineID()
	s, err := memory.New(t.Context())
	require.NoError(t, err)
	require.NoError(t, s.Close())
	require.Eventually(t, func() bool { return openDatabases(self) == 0 }, 10*time.Second, time.Millisecond,
		"Close closes the database")
	open := make([]*memory.Store, 5)
	for i := range open {
		open[i], err = memory.New(t.Context())
		require.NoError(t, err)
		require.NoError(t, open[i].Ping(t.Context()))
	}
	require.Equal(t, 5, openDatabases(self), "an open store holds a database")
	runtime.KeepAlive(open) // the stores' last use: garbage from here, never closed
	assert.Eventually(t, func() bool {
		runtime.GC()
		return openDatabases(self) == 0
	}, 10*time.Second, 10*time.Millisecond, "the stores' databases are closed once they are garbage")
}
