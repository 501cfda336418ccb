package postgres_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/internal/testkit/pgtest"
	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/storage"
	"github.com/brandbase/brandbase/storage/internal/sqlstore"
	"github.com/brandbase/brandbase/storage/postgres"
	"github.com/brandbase/brandbase/storage/storagetest"
)

// TestConformance runs the storage conformance suite, each store on a
// schema of its own. It skips without BRANDBASE_TEST_POSTGRES.
func TestConformance(t *testing.T) {
	pgtest.URL(t)
	storagetest.Run(t, func(t *testing.T) storage.Storage {
		s, err := postgres.Open(t.Context(), pgtest.Schema(t))
		require.NoError(t, err)
		return s
	})
}

// open opens a store on url, closed when t ends.
func open(t *testing.T, url string) *postgres.Store {
	t.Helper()
	s, err := postgres.Open(t.Context(), url)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

// migrationCount returns the number of embedded migrations.
const migrationCount = 16

// TestConcurrentOpen opens three stores on one fresh schema at once: all
// succeed, each migration is applied once, and the default dataset is
// loaded once.
func TestConcurrentOpen(t *testing.T) {
	t.Parallel()
	url := pgtest.Schema(t)
	stores := make([]*postgres.Store, 3)
	errs := make([]error, 3)
	var wg sync.WaitGroup
	for i := range stores {
		wg.Go(func() { stores[i], errs[i] = postgres.Open(t.Context(), url) })
	}
	wg.Wait()
	for i, s := range stores {
		require.NoError(t, errs[i], "store %d", i)
		t.Cleanup(func() { s.Close() })
	}
	ctx := t.Context()
	var versions, distinct int
	require.NoError(t, stores[0].Pool().QueryRow(ctx,
		`SELECT count(*), count(DISTINCT version) FROM schema_migrations`).Scan(&versions, &distinct))
	assert.Equal(t, migrationCount, versions, "each migration recorded once")
	assert.Equal(t, migrationCount, distinct)

	defaults, err := refdata.DefaultCities()
	require.NoError(t, err)
	rev, err := stores[0].RefDataRevision(ctx)
	require.NoError(t, err)
	assert.EqualValues(t, 3, rev, "one load: currencies, countries and cities written once")
	for i, s := range stores {
		page, err := refdata.NewService(s).ListCities(ctx, refdata.CityQuery{Page: refdata.Paging{Size: 1}})
		require.NoError(t, err)
		assert.Equal(t, len(sqlstore.DedupCities(defaults)), page.TotalItems, "store %d", i)
		assert.Equal(t, stores[0].Channel(), s.Channel(), "one channel per schema")
	}
}

// TestMigrateForward makes a schema as the first version of the package
// left it (migration 1 only), stores a brand in it, and opens it: the
// other migrations are applied and the brand is kept.
func TestMigrateForward(t *testing.T) {
	t.Parallel()
	url := pgtest.Schema(t)
	ctx := t.Context()
	conn, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	defer conn.Close(ctx)
	require.NoError(t, postgres.MigrateTo(ctx, conn, 1))
	created := time.Date(2025, 1, 2, 3, 4, 5, 6000, time.UTC)
	_, err = conn.Exec(ctx, `INSERT INTO brands (id, url, name, status, default_currency, created_at)
		VALUES ('b1', 'old.example.com', 'Old', 'Active', 'EUR', $1)`, created)
	require.NoError(t, err)

	s := open(t, url)
	got, err := s.BrandByID(ctx, "b1")
	require.NoError(t, err, "the brand is kept")
	assert.Equal(t, auth.Brand{ID: "b1", URL: "old.example.com", Name: "Old", Status: auth.StatusActive,
		DefaultCurrency: "EUR", CreatedAt: created}, got)
	var versions int
	require.NoError(t, conn.QueryRow(ctx, `SELECT count(*) FROM schema_migrations`).Scan(&versions))
	assert.Equal(t, migrationCount, versions)
	v, err := s.DatasetVersion(ctx)
	require.NoError(t, err)
	assert.Equal(t, refdata.DatasetVersion, v, "the dataset is loaded")
	require.NoError(t, s.CreateUser(ctx, auth.UserRecord{User: auth.User{ID: "u1", BrandID: "b1", Username: "ann",
		Status: auth.StatusActive, CreatedAt: created, UpdatedAt: created}, UsernameKey: "ann"}), "the new tables work with the old rows")
}

// TestNotifications checks that writes notify their changes on the
// store's channel when they commit, and that a refused write notifies
// nothing.
func TestNotifications(t *testing.T) {
	t.Parallel()
	url := pgtest.Schema(t)
	s := open(t, url)
	ctx := t.Context()
	conn, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	defer conn.Close(context.Background())
	_, err = conn.Exec(ctx, "LISTEN "+pgx.Identifier{s.Channel()}.Sanitize())
	require.NoError(t, err)
	// next returns the next change's payload; each comes after an "at:"
	// one from the same backend that tells its write time, which next
	// checks and skips.
	next := func() string {
		t.Helper()
		var at bool
		for {
			wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			n, err := conn.WaitForNotification(wctx)
			cancel()
			require.NoError(t, err)
			assert.Equal(t, s.Channel(), n.Channel)
			if rest, ok := strings.CutPrefix(n.Payload, "at:"); ok {
				us, err := strconv.ParseInt(rest, 10, 64)
				require.NoError(t, err, "at: a time in µs")
				assert.WithinDuration(t, time.Now(), time.UnixMicro(us), time.Minute)
				at = true
				continue
			}
			assert.True(t, at, "%s comes after its time", n.Payload)
			return n.Payload
		}
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b := auth.Brand{ID: "b1", URL: "n.example.com", Name: "N", Status: auth.StatusActive, DefaultCurrency: "USD", CreatedAt: now}
	require.NoError(t, s.CreateBrand(ctx, b))
	assert.Equal(t, "brand:b1", next())
	require.Error(t, s.CreateBrand(ctx, b), "a refused write")
	b.Name = "Renamed"
	require.NoError(t, s.UpdateBrand(ctx, b))
	assert.Equal(t, "brand:b1", next(), "the refused write notified nothing")

	u := auth.UserRecord{User: auth.User{ID: "u1", BrandID: "b1", Username: "ann", Status: auth.StatusActive,
		CreatedAt: now, UpdatedAt: now}, UsernameKey: "ann"}
	require.NoError(t, s.CreateUser(ctx, u))
	_, err = s.UpdateUser(ctx, "u1", func(r *auth.UserRecord) error { r.Permissions = []auth.Permission{"x:read"}; return nil })
	require.NoError(t, err)
	assert.Equal(t, "user:u1", next())
	for i := range 2 {
		require.NoError(t, s.CreateKeyPair(ctx, auth.KeyPair{ID: fmt.Sprint("k", i), FamilyID: "f", BrandID: "b1", UserID: "u1",
			AuthHash: hash(byte(2 * i)), RefreshHash: hash(byte(2*i + 1)), CreatedAt: now, AuthExpiresAt: now, RefreshExpiresAt: now}))
	}
	n, err := s.RevokeKeyPairs(ctx, auth.KeySelector{FamilyID: "f"}, now)
	require.NoError(t, err)
	require.Equal(t, 2, n)
	assert.Equal(t, "user:u1", next(), "one notification per user")

	_, err = s.UpsertCities(ctx, []refdata.City{{CountryCode: "XA", Name: "Notified"}})
	require.NoError(t, err)
	assert.Equal(t, "refdata:", next())
	_, err = s.UpsertCities(ctx, []refdata.City{{CountryCode: "XA", Name: "Notified"}})
	require.NoError(t, err)
	assert.Equal(t, "refdata:", next(), "a write that changes nothing moves the revision too, and says so")
	require.NoError(t, s.SetDatasetVersion(ctx, refdata.DatasetVersion))
	assert.Equal(t, "refdata:", next())

	c, ok := postgres.ParseChange(next2(t, s, ctx, conn))
	assert.True(t, ok)
	assert.Equal(t, postgres.Change{Kind: postgres.ChangeBrand, ID: "b2"}, c, "payloads decode")
}

// next2 creates brand b2 and returns the payload it notified.
func next2(t *testing.T, s *postgres.Store, ctx context.Context, conn *pgx.Conn) string {
	t.Helper()
	require.NoError(t, s.CreateBrand(ctx, auth.Brand{ID: "b2", URL: "b2.example.com", Name: "B2", Status: auth.StatusActive,
		DefaultCurrency: "USD", CreatedAt: time.Now()}))
	wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	for {
		n, err := conn.WaitForNotification(wctx)
		require.NoError(t, err)
		if !strings.HasPrefix(n.Payload, "at:") { // its time (TestNotifications checks it)
			return n.Payload
		}
	}
}

func hash(b byte) []byte {
	h := make([]byte, 32)
	h[0] = b
	return h
}

// TestChannelName checks that the channel is "brandbase_" and the schema,
// at most 63 bytes.
func TestChannelName(t *testing.T) {
	t.Parallel()
	s := open(t, pgtest.Schema(t))
	assert.Regexp(t, `^brandbase_test_[0-9a-f]{12}$`, s.Channel())
	assert.Equal(t, "refdata:", postgres.Change{Kind: postgres.ChangeRefData}.String())
}

// FuzzCityQuery checks ListCities against the reference for any filter
// values (go test runs the seeds; go test -fuzz explores).
func FuzzCityQuery(f *testing.F) {
	s, err := postgres.Open(f.Context(), pgtest.Schema(f))
	require.NoError(f, err)
	f.Cleanup(func() { s.Close() })
	storagetest.FuzzCityQuery(f, s)
}

// TestKeyPairsRaceEpoch creates key pairs of a user's epoch on two stores
// while a third ends the user's sessions (bumps the epoch, then revokes
// the user's pairs): every pair is refused or revoked, none stays usable.
func TestKeyPairsRaceEpoch(t *testing.T) {
	t.Parallel()
	url := pgtest.Schema(t)
	ctx := t.Context()
	a, b, c := open(t, url), open(t, url), open(t, url)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	require.NoError(t, a.CreateBrand(ctx, auth.Brand{ID: "b1", URL: "r.example.com", Name: "R", Status: auth.StatusActive,
		DefaultCurrency: "USD", CreatedAt: now}))
	require.NoError(t, a.CreateUser(ctx, auth.UserRecord{User: auth.User{ID: "u1", BrandID: "b1", Username: "ann",
		Status: auth.StatusActive, CreatedAt: now, UpdatedAt: now}, UsernameKey: "ann"}))
	const n = 40
	var wg sync.WaitGroup
	for i := range n {
		s := a
		if i%2 == 1 {
			s = b
		}
		wg.Go(func() {
			err := s.CreateKeyPair(ctx, auth.KeyPair{ID: fmt.Sprint("k", i), FamilyID: fmt.Sprint("f", i), BrandID: "b1",
				UserID: "u1", AuthHash: hash2(i, 0), RefreshHash: hash2(i, 1), CreatedAt: now, AuthExpiresAt: now,
				RefreshExpiresAt: now})
			if err != nil {
				assert.ErrorIs(t, err, auth.ErrKeysRevoked)
			}
		})
	}
	wg.Go(func() {
		_, err := c.UpdateUser(ctx, "u1", func(r *auth.UserRecord) error { r.SessionEpoch++; return nil })
		assert.NoError(t, err)
		_, err = c.RevokeKeyPairs(ctx, auth.KeySelector{UserID: "u1"}, now)
		assert.NoError(t, err)
	})
	wg.Wait()
	var live int
	require.NoError(t, c.Pool().QueryRow(ctx, `SELECT count(*) FROM key_pairs WHERE revoked_at IS NULL`).Scan(&live))
	assert.Zero(t, live, "no pair of the old epoch stays usable")
}

func hash2(i, j int) []byte {
	h := make([]byte, 32)
	h[0], h[1] = byte(i), byte(j)
	return h
}

// TestCityUpsertIsBoundedAsABulkWrite: a city upsert's transaction is
// bounded by the query timeout for each started thousand cities, not by
// one: 5,000 cities wait out a lock of the revision row held for 2.5
// query timeouts, which fails a write of one timeout.
func TestCityUpsertIsBoundedAsABulkWrite(t *testing.T) {
	t.Parallel()
	const timeout = time.Second
	ctx := t.Context()
	s, err := postgres.Open(ctx, pgtest.Schema(t), postgres.WithQueryTimeout(timeout))
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	cities := make([]refdata.City, 5000)
	for i := range cities {
		cities[i] = refdata.City{CountryCode: "XB", StateCode: "BL", Name: fmt.Sprintf("Bulkton %d", i)}
	}
	hold, err := s.Pool().Begin(ctx)
	require.NoError(t, err)
	_, err = hold.Exec(ctx, `SELECT revision FROM refdata_state WHERE id = 1 FOR UPDATE`)
	require.NoError(t, err)
	release := time.AfterFunc(5*timeout/2, func() { hold.Rollback(context.Background()) }) //nolint:errcheck // the lock's end
	defer release.Stop()
	// A write that fails early must not leave the lock's connection out of
	// the pool: Close (in Cleanup) would wait for it for ever.
	defer hold.Rollback(context.Background()) //nolint:errcheck // ErrTxClosed once the timer rolled it back
	added, err := s.UpsertCities(ctx, cities)
	require.NoError(t, err, "the write waits out the lock within its bound of 5 timeouts")
	assert.Equal(t, len(cities), added)
}
