package storagetest

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
)

// testBrand returns a brand record with the given URL, as the service would
// build it.
func testBrand(url string) auth.Brand {
	return auth.Brand{
		ID: uuid.NewString(), URL: url, Name: "Brand " + url, Status: auth.StatusActive,
		DefaultCurrency: "USD", CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC),
	}
}

// testBrandCreateAndFind checks that a created brand is found by its ID and
// its URL, as stored.
func testBrandCreateAndFind(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	ctx := t.Context()
	b := testBrand("shop.example.com")
	require.NoError(t, s.CreateBrand(ctx, b))

	got, err := s.BrandByID(ctx, b.ID)
	require.NoError(t, err)
	assert.Equal(t, b, got)
	assert.True(t, got.CreatedAt.Equal(b.CreatedAt))

	got, err = s.BrandByURL(ctx, "shop.example.com")
	require.NoError(t, err)
	assert.Equal(t, b.ID, got.ID)
}

// testBrandNotFound checks that an unknown brand, by ID, by URL or in an
// update, is KindNotFound.
func testBrandNotFound(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	ctx := t.Context()
	_, err := s.BrandByID(ctx, uuid.NewString())
	assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err))
	_, err = s.BrandByURL(ctx, "nobody.example.com")
	assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err))
	err = s.UpdateBrand(ctx, testBrand("ghost.example.com"))
	assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err))
}

// testBrandConflicts checks that a taken URL or ID is KindConflict, on
// create and on update, and that a refused write stores nothing.
func testBrandConflicts(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	ctx := t.Context()
	a := seedBrand(t, s, "a.example.com")

	sameURL := testBrand("a.example.com")
	assert.Equal(t, envelope.KindConflict, envelope.KindOf(s.CreateBrand(ctx, sameURL)))
	_, err := s.BrandByID(ctx, sameURL.ID)
	assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err), "a refused create stores nothing")
	sameID := testBrand("other.example.com")
	sameID.ID = a.ID
	assert.Equal(t, envelope.KindConflict, envelope.KindOf(s.CreateBrand(ctx, sameID)))

	b := seedBrand(t, s, "b.example.com")
	b.URL = a.URL
	assert.Equal(t, envelope.KindConflict, envelope.KindOf(s.UpdateBrand(ctx, b)))

	got, err := s.BrandByURL(ctx, "b.example.com")
	require.NoError(t, err, "a refused update changes nothing")
	assert.Equal(t, b.ID, got.ID)
}

// testBrandUpdate checks that an update replaces every field and frees the
// old URL.
func testBrandUpdate(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	ctx := t.Context()
	b := seedBrand(t, s, "old.example.com")
	b.URL, b.Name, b.Status, b.DefaultCurrency = "new.example.com", "Renamed", auth.StatusInactive, "EUR"
	require.NoError(t, s.UpdateBrand(ctx, b))

	got, err := s.BrandByID(ctx, b.ID)
	require.NoError(t, err)
	assert.Equal(t, b, got)
	_, err = s.BrandByURL(ctx, "old.example.com")
	assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err), "the old URL is free again")
	list, err := s.ListBrands(ctx)
	require.NoError(t, err)
	assert.Equal(t, []auth.Brand{b}, list, "the list holds the updated record")
	got, err = s.BrandByURL(ctx, "new.example.com")
	require.NoError(t, err, "the new URL finds it")
	assert.Equal(t, b, got)
}

// testBrandListInCreationOrder checks that ListBrands is empty on a fresh
// store and lists brands in creation order.
func testBrandListInCreationOrder(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	ctx := t.Context()
	list, err := s.ListBrands(ctx)
	require.NoError(t, err)
	assert.Empty(t, list)
	var want []string
	for i := range 5 {
		b := testBrand(fmt.Sprintf("b%d.example.com", i))
		require.NoError(t, s.CreateBrand(ctx, b))
		want = append(want, b.ID)
	}
	list, err = s.ListBrands(ctx)
	require.NoError(t, err)
	got := codesOf(list, func(r auth.Brand) string { return r.ID })
	assert.Equal(t, want, got)
}

// testBrandConcurrentCreates checks that concurrent creates of one URL
// store it once, and every other brand.
func testBrandConcurrentCreates(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	ctx := t.Context()
	const n = 20
	var wg sync.WaitGroup
	errs := make(chan error, 2*n)
	for i := range n {
		wg.Go(func() {
			errs <- s.CreateBrand(ctx, testBrand(fmt.Sprintf("c%d.example.com", i)))
			errs <- s.CreateBrand(ctx, testBrand("same.example.com"))
		})
	}
	wg.Wait()
	close(errs)
	ok, conflicts := countOutcomes(t, errs)
	assert.Equal(t, n+1, ok)
	assert.Equal(t, n-1, conflicts)
	list, err := s.ListBrands(ctx)
	require.NoError(t, err)
	assert.Len(t, list, n+1)
}

// testBrandCancelledContext checks that a create under a cancelled context
// fails KindUnavailable and stores nothing.
func testBrandCancelledContext(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	ctx, cancel := contextCancelled(t)
	defer cancel()
	err := s.CreateBrand(ctx, testBrand("cancel.example.com"))
	assert.Error(t, err)
	assert.Equal(t, envelope.KindUnavailable, envelope.KindOf(err))
	_, err = s.BrandByURL(t.Context(), "cancel.example.com")
	assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err), "a cancelled write stores nothing")
}

// countOutcomes drains errs (closed by the caller) and counts the
// successes and the conflicts; any other error fails t.
func countOutcomes(t *testing.T, errs <-chan error) (ok, conflicts int) {
	t.Helper()
	for err := range errs {
		switch envelope.KindOf(err) {
		case "":
			ok++
		case envelope.KindConflict:
			conflicts++
		default:
			t.Errorf("unexpected error: %v", err)
		}
	}
	return ok, conflicts
}
