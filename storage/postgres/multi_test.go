package postgres

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/internal/testkit/pgtest"
	"github.com/brandbase/brandbase/refdata"
)

// openStores opens n stores on one fresh schema, closed when the test
// ends: n instances sharing a database.
func openStores(t *testing.T, n int) []*Store {
	t.Helper()
	url := pgtest.Schema(t)
	var ss []*Store
	for range n {
		s, err := Open(t.Context(), url)
		require.NoError(t, err)
		t.Cleanup(func() { s.Close() })
		ss = append(ss, s)
	}
	return ss
}

// TestChangesReachEveryInstance writes through one store and hears the
// changes on both: the other instance, and the one that wrote.
func TestChangesReachEveryInstance(t *testing.T) {
	t.Parallel()
	ss := openStores(t, 2)
	a, b := ss[0], ss[1]
	require.True(t, a.Listening())
	ctx := t.Context()
	all, own := &recorder{}, &recorder{}
	a.OnChange(all.add)
	b.OnChange(own.add)
	var (
		mu          sync.Mutex
		authChanges []auth.Change
	)
	a.OnAuthChange(func(c auth.Change) {
		mu.Lock()
		defer mu.Unlock()
		authChanges = append(authChanges, c)
	})

	now := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
	brand := auth.Brand{ID: "b-1", URL: "multi.example.com", Name: "Multi", Status: auth.StatusActive, CreatedAt: now}
	require.NoError(t, b.CreateBrand(ctx, brand))
	user := auth.UserRecord{User: auth.User{ID: "u-1", BrandID: brand.ID, Username: "u",
		Status: auth.StatusActive, CreatedAt: now, UpdatedAt: now}, UsernameKey: "u", PasswordHash: "x"}
	require.NoError(t, b.CreateUser(ctx, user))
	_, err := b.UpdateUser(ctx, user.ID, func(r *auth.UserRecord) error { r.Status = auth.StatusInactive; return nil })
	require.NoError(t, err)
	require.NoError(t, b.SetDatasetVersion(ctx, "test"))

	for _, c := range []Change{{Kind: ChangeBrand, ID: brand.ID}, {Kind: ChangeUser, ID: user.ID}, {Kind: ChangeRefData}} {
		eventually(t, func() bool { return all.count(c) == 1 }, "the other instance hears %v", c)
		eventually(t, func() bool { return own.count(c) == 1 }, "the writer hears %v too", c)
	}
	mu.Lock()
	defer mu.Unlock()
	// Each change carries the time it was written (the database's clock,
	// the same machine's here).
	for i, c := range authChanges {
		assert.WithinDuration(t, time.Now(), c.At, time.Minute, "%v carries its write time", c)
		authChanges[i].At = time.Time{}
	}
	assert.Equal(t, []auth.Change{{Kind: auth.ChangeBrand, ID: brand.ID}, {Kind: auth.ChangeUser, ID: user.ID}}, authChanges,
		"the auth subscriber hears brands and users, not reference data")
}

// TestRefDataRevisionAcrossInstances: a reference-data write through one
// instance changes the revision it reads at once, and the revision the
// other reads as soon as it hears of the change.
func TestRefDataRevisionAcrossInstances(t *testing.T) {
	t.Parallel()
	ss := openStores(t, 2)
	ctx := t.Context()
	revision := func(s *Store) uint64 {
		n, err := s.RefDataRevision(ctx)
		require.NoError(t, err)
		return n
	}
	before := revision(ss[0])
	require.Equal(t, before, revision(ss[1]))
	err := ss[1].UpsertCurrencies(ctx, []refdata.Currency{{ID: "xts", Code: "XTS", Name: "Test", NamePlural: "tests",
		Symbol: "XTS", SymbolNative: "XTS", DecimalDigits: 2}})
	require.NoError(t, err)
	after := revision(ss[1])
	assert.NotEqual(t, before, after, "the writer sees its write at once")
	eventually(t, func() bool { return revision(ss[0]) == after }, "the other instance hears of it")
}

// TestRefDataRevisionCache: the revision is read once and kept while
// nothing is heard; a notification, or the loss of the listening
// connection, makes the store read it again.
func TestRefDataRevisionCache(t *testing.T) {
	t.Parallel()
	s := openStores(t, 1)[0]
	ctx := t.Context()
	revision := func() uint64 {
		n, err := s.RefDataRevision(ctx)
		require.NoError(t, err)
		return n
	}
	bump := func() {
		// As a writer whose notification is lost would.
		_, err := s.pool.Exec(ctx, `UPDATE refdata_state SET revision = revision + 1 WHERE id = 1`)
		require.NoError(t, err)
	}
	first := revision()
	bump()
	assert.Equal(t, first, revision(), "kept: nothing was heard")

	_, err := s.pool.Exec(ctx, "SELECT pg_notify($1, 'refdata:')", s.Channel())
	require.NoError(t, err)
	eventually(t, func() bool { return revision() == first+1 }, "read again once the change is heard")

	bump()
	assert.Equal(t, first+1, revision(), "kept again")
	var killed bool
	require.NoError(t, s.pool.QueryRow(ctx, "SELECT pg_terminate_backend($1)", s.multi.listener.pid.Load()).Scan(&killed))
	require.True(t, killed)
	eventually(t, func() bool { return revision() == first+2 }, "read again when the listener cannot vouch")
	eventually(t, s.Listening, "listening again")
}
