package storagetest

import (
	"errors"
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

// testUserCreateAndFind checks that a created user is found by ID, username
// key and email key, that no permissions round-trip as nil, and that a
// returned record is the caller's copy.
func testUserCreateAndFind(t *testing.T, newStore NewStore) {
	s, b, u := openWithUser(t, newStore, "Alice")
	ctx := t.Context()

	got, err := s.UserByID(ctx, u.ID)
	require.NoError(t, err)
	assert.Equal(t, u, got)
	got, err = s.UserByUsername(ctx, b.ID, "alice")
	require.NoError(t, err)
	assert.Equal(t, u, got)
	got, err = s.UserByEmail(ctx, b.ID, "alice@example.com")
	require.NoError(t, err)
	assert.Equal(t, u, got)

	noPerms := testUser(b.ID, "bob", "")
	require.NoError(t, s.CreateUser(ctx, noPerms))
	got, err = s.UserByID(ctx, noPerms.ID)
	require.NoError(t, err)
	assert.Nil(t, got.Permissions, "no permissions round-trip as nil")
	assert.Empty(t, got.EmailKey)

	got.Permissions = append(got.Permissions, auth.PermAll)
	again, err := s.UserByID(ctx, noPerms.ID)
	require.NoError(t, err)
	assert.Nil(t, again.Permissions, "a returned record is the caller's copy")
}

// testUserNotFound checks that an unknown user, a user of another brand, an
// empty email key and a user of an unknown brand are KindNotFound.
func testUserNotFound(t *testing.T, newStore NewStore) {
	s, b, _ := openWithUser(t, newStore, "carol")
	ctx := t.Context()
	other := seedBrand(t, s, "elsewhere.example.com")
	noEmail := testUser(b.ID, "dave", "")
	require.NoError(t, s.CreateUser(ctx, noEmail))

	_, err := s.UserByID(ctx, uuid.NewString())
	assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err))
	_, err = s.UserByUsername(ctx, b.ID, "nobody")
	assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err))
	_, err = s.UserByUsername(ctx, other.ID, "carol")
	assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err), "a user is found in its own brand only")
	_, err = s.UserByEmail(ctx, other.ID, "carol@example.com")
	assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err))
	_, err = s.UserByEmail(ctx, b.ID, "")
	assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err), "an empty email key never matches")
	_, err = s.UpdateUser(ctx, uuid.NewString(), func(*auth.UserRecord) error { return nil })
	assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err))
	err = s.CreateUser(ctx, testUser(uuid.NewString(), "eve", ""))
	assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err), "the brand must exist")
}

// testUserConflicts checks that a taken username key, email key or ID in a
// brand is KindConflict, while other brands and empty emails do not
// collide.
func testUserConflicts(t *testing.T, newStore NewStore) {
	s, b, u := openWithUser(t, newStore, "frank")
	ctx := t.Context()
	other := seedBrand(t, s, "other.example.com")

	sameName := testUser(b.ID, "FRANK", "")
	assert.Equal(t, envelope.KindConflict, envelope.KindOf(s.CreateUser(ctx, sameName)))
	_, err := s.UserByID(ctx, sameName.ID)
	assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err), "a refused create stores nothing")
	sameEmail := testUser(b.ID, "frank2", "Frank@Example.com")
	assert.Equal(t, envelope.KindConflict, envelope.KindOf(s.CreateUser(ctx, sameEmail)))
	sameID := testUser(b.ID, "frank3", "")
	sameID.ID = u.ID
	assert.Equal(t, envelope.KindConflict, envelope.KindOf(s.CreateUser(ctx, sameID)))

	require.NoError(t, s.CreateUser(ctx, testUser(other.ID, "frank", "frank@example.com")),
		"names are unique per brand")
	require.NoError(t, s.CreateUser(ctx, testUser(b.ID, "noemail1", "")))
	require.NoError(t, s.CreateUser(ctx, testUser(b.ID, "noemail2", "")), "empty emails do not collide")

	list, err := s.ListUsers(ctx, b.ID)
	require.NoError(t, err)
	assert.Len(t, list, 3)
}

// testUserUpdate checks that UpdateUser applies fn's changes but not to ID,
// brand or creation time, frees the old name and email, and changes nothing
// when fn fails or the change conflicts.
func testUserUpdate(t *testing.T, newStore NewStore) {
	s, b, u := openWithUser(t, newStore, "grace")
	ctx := t.Context()
	taken := testUser(b.ID, "heidi", "heidi@example.com")
	require.NoError(t, s.CreateUser(ctx, taken))
	later := t0.Add(time.Hour)

	got, err := s.UpdateUser(ctx, u.ID, func(r *auth.UserRecord) error {
		r.Username, r.UsernameKey = "Grace2", "grace2"
		r.EmailAddress, r.EmailKey = "", ""
		r.Permissions = []auth.Permission{auth.PermAll}
		r.Status = auth.StatusInactive
		r.PasswordHash = "new"
		r.UpdatedAt = later
		r.ID, r.BrandID, r.CreatedAt = "hijack", "hijack", later
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, u.ID, got.ID, "the ID cannot change")
	assert.Equal(t, b.ID, got.BrandID)
	assert.True(t, got.CreatedAt.Equal(t0))
	stored, err := s.UserByID(ctx, u.ID)
	require.NoError(t, err)
	assert.Equal(t, got, stored)
	assert.Equal(t, "new", stored.PasswordHash)
	assert.True(t, stored.UpdatedAt.Equal(later))
	_, err = s.UserByUsername(ctx, b.ID, "grace")
	assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err), "the old name is free")
	_, err = s.UserByUsername(ctx, b.ID, "grace2")
	assert.NoError(t, err)
	_, err = s.UserByEmail(ctx, b.ID, "grace@example.com")
	assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err), "the old email is free")

	_, err = s.UpdateUser(ctx, u.ID, func(r *auth.UserRecord) error {
		r.EmailAddress, r.EmailKey = "heidi@example.com", "heidi@example.com"
		return nil
	})
	assert.Equal(t, envelope.KindConflict, envelope.KindOf(err))
	boom := errors.New("boom")
	_, err = s.UpdateUser(ctx, u.ID, func(r *auth.UserRecord) error {
		r.PasswordHash = "lost"
		return boom
	})
	assert.ErrorIs(t, err, boom, "fn's error is returned as is")
	stored, err = s.UserByID(ctx, u.ID)
	require.NoError(t, err)
	assert.Equal(t, got, stored, "a refused update changes nothing")
	list, err := s.ListUsers(ctx, b.ID)
	require.NoError(t, err)
	assert.Contains(t, list, got, "the list holds the updated record")
}

// testUserConcurrentUpdatesAreAtomic checks that concurrent updates of one
// user lose none.
func testUserConcurrentUpdatesAreAtomic(t *testing.T, newStore NewStore) {
	s, _, u := openWithUser(t, newStore, "ivan")
	ctx := t.Context()
	const n = 20
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			_, err := s.UpdateUser(ctx, u.ID, func(r *auth.UserRecord) error {
				r.Permissions = append(r.Permissions, auth.Permission(fmt.Sprintf("p%02d", i)))
				return nil
			})
			assert.NoError(t, err)
		})
	}
	wg.Wait()
	got, err := s.UserByID(ctx, u.ID)
	require.NoError(t, err)
	assert.Len(t, got.Permissions, n+1, "no update is lost")
}

// testUserListInCreationOrder checks that ListUsers lists a brand's users,
// only, in creation order.
func testUserListInCreationOrder(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	ctx := t.Context()
	b := seedBrand(t, s, "list.example.com")
	other := seedBrand(t, s, "list-other.example.com")
	require.NoError(t, s.CreateUser(ctx, testUser(other.ID, "stranger", "")))
	var want []string
	for i := range 5 {
		u := testUser(b.ID, fmt.Sprintf("user%d", i), "")
		require.NoError(t, s.CreateUser(ctx, u))
		want = append(want, u.ID)
	}
	assertListedInOrder(t, s.ListUsers, b.ID, want, func(r auth.UserRecord) string { return r.ID })
}

// testUserCancelledContext checks that a create under a cancelled context
// fails KindUnavailable and stores nothing.
func testUserCancelledContext(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	b := seedBrand(t, s, "cancel-user.example.com")
	ctx, cancel := contextCancelled(t)
	defer cancel()
	u := testUser(b.ID, "judy", "")
	err := s.CreateUser(ctx, u)
	assert.Error(t, err)
	assert.Equal(t, envelope.KindUnavailable, envelope.KindOf(err))
	_, err = s.UserByID(t.Context(), u.ID)
	assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err), "a cancelled write stores nothing")
}
