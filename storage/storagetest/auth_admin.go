package storagetest

import (
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/storage"
)

// runAdmin runs the auth.AdminStore scenarios: the list of a brand's
// users, their deletion and their counts.
func runAdmin(t *testing.T, newStore NewStore) {
	runScenarios(t, newStore, []scenario{
		{"ListFilters", testAdminListFilters},
		{"ListSorts", testAdminListSorts},
		{"ListPaging", testAdminListPaging},
		{"Keywords", testAdminKeywords},
		{"KeywordsFollowUpdates", testAdminKeywordsFollowUpdates},
		{"Delete", testAdminDelete},
		{"DeleteCheckAborts", testAdminDeleteCheckAborts},
		{"CountByStatus", testAdminCountByStatus},
		{"CountCreated", testAdminCountCreated},
	})
}

// adminUsers are the users the list scenarios store in one brand, in
// creation order: username, email, first name, last name, status and
// minutes after t0 of creation.
var adminUsers = []struct {
	username, email, first, last string
	status                       auth.Status
	minutes                      int
}{
	{"zoe", "zoe@shop.example", "Zoé", "Durand", auth.StatusActive, 0},
	{"adam", "adam.smith@mail.example", "Adam", "Smith", auth.StatusLocked, 10},
	{"Marie", "", "Marie-Claire", "Ångström", auth.StatusActive, 20},
	{"bob", "bob@shop.example", "Bob", "Søren", auth.StatusSuspended, 30},
	{"eve", "eve@other.example", "Ève", "Smith", auth.StatusInactive, 30},
}

// seedAdminUsers stores adminUsers in a new brand, and one user of another
// brand named like the first, and returns the brand and the users by
// username.
func seedAdminUsers(t *testing.T, s storage.Storage) (auth.Brand, map[string]auth.UserRecord) {
	t.Helper()
	b := seedBrand(t, s, "admin.example.com")
	byName := map[string]auth.UserRecord{}
	for _, a := range adminUsers {
		u := testUser(b.ID, a.username, a.email)
		u.FirstName, u.LastName, u.Status = a.first, a.last, a.status
		u.CreatedAt = t0.Add(time.Duration(a.minutes) * time.Minute)
		require.NoError(t, s.CreateUser(t.Context(), u))
		byName[a.username] = u
	}
	other := seedBrand(t, s, "elsewhere.example.com")
	require.NoError(t, s.CreateUser(t.Context(), testUser(other.ID, "zoe", "zoe@shop.example")))
	return b, byName
}

// listNames returns the usernames of the page f selects in brandID, and
// the total.
func listNames(t *testing.T, s storage.Storage, brandID string, f auth.UserFilter) ([]string, int) {
	t.Helper()
	if f.Limit == 0 {
		f.Limit = 100
	}
	recs, total, err := s.ListUserPage(t.Context(), brandID, f)
	require.NoError(t, err)
	return codesOf(recs, func(r auth.UserRecord) string { return r.Username }), total
}

// testAdminListFilters checks each filter of ListUserPage alone and
// together, in the brand only, with the exact total.
func testAdminListFilters(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	b, u := seedAdminUsers(t, s)
	created := func(f auth.UserFilter) auth.UserFilter { f.Sort = auth.UserSortCreated; return f }
	tests := []struct {
		name string
		f    auth.UserFilter
		want []string
	}{
		{"none", auth.UserFilter{}, []string{"zoe", "adam", "Marie", "bob", "eve"}},
		{"ids", auth.UserFilter{IDs: []string{u["bob"].ID, u["zoe"].ID, uuid.NewString()}}, []string{"zoe", "bob"}},
		{"empty ids", auth.UserFilter{IDs: []string{}}, []string{}},
		{"username key", auth.UserFilter{UsernameKey: "marie"}, []string{"Marie"}},
		{"email key", auth.UserFilter{EmailKey: "bob@shop.example"}, []string{"bob"}},
		{"status", auth.UserFilter{Status: auth.StatusActive}, []string{"zoe", "Marie"}},
		{"created from", auth.UserFilter{CreatedFrom: t0.Add(20 * time.Minute)}, []string{"Marie", "bob", "eve"}},
		{"created before", auth.UserFilter{CreatedBefore: t0.Add(20 * time.Minute)}, []string{"zoe", "adam"}},
		{"created range", auth.UserFilter{CreatedFrom: t0.Add(10 * time.Minute), CreatedBefore: t0.Add(30 * time.Minute)}, []string{"adam", "Marie"}},
		{"status and range", auth.UserFilter{Status: auth.StatusActive, CreatedFrom: t0.Add(time.Minute)}, []string{"Marie"}},
		{"nothing", auth.UserFilter{Nothing: true}, []string{}},
	}
	for _, tt := range tests {
		names, total := listNames(t, s, b.ID, created(tt.f))
		assert.Equal(t, tt.want, names, tt.name)
		assert.Equal(t, len(tt.want), total, tt.name)
	}
	names, total := listNames(t, s, uuid.NewString(), auth.UserFilter{})
	assert.Empty(t, names, "an unknown brand has no users")
	assert.Zero(t, total)
}

// testAdminListSorts checks each order, ascending and descending (ties
// reversed too).
func testAdminListSorts(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	b, u := seedAdminUsers(t, s)
	byID := []string{"zoe", "adam", "Marie", "bob", "eve"}
	slicesSortBy(byID, func(n string) string { return u[n].ID })
	tests := []struct {
		sort auth.UserSort
		want []string
	}{
		{auth.UserSortCreated, []string{"zoe", "adam", "Marie", "bob", "eve"}},
		{auth.UserSortUsername, []string{"adam", "bob", "eve", "Marie", "zoe"}},
		{auth.UserSortStatus, []string{"zoe", "Marie", "eve", "adam", "bob"}},
		{auth.UserSortID, byID},
	}
	for _, tt := range tests {
		names, _ := listNames(t, s, b.ID, auth.UserFilter{Sort: tt.sort})
		assert.Equal(t, tt.want, names, string(tt.sort))
		names, _ = listNames(t, s, b.ID, auth.UserFilter{Sort: tt.sort, Desc: true})
		assert.Equal(t, reversed(tt.want), names, string(tt.sort)+" DESC")
	}
}

// testAdminListPaging checks pages that neither overlap nor skip, a page
// past the end, and the total beside each.
func testAdminListPaging(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	b, _ := seedAdminUsers(t, s)
	var all []string
	for off := 0; off < 6; off += 2 {
		names, total := listNames(t, s, b.ID, auth.UserFilter{Sort: auth.UserSortCreated, Offset: off, Limit: 2})
		assert.Equal(t, 5, total)
		all = append(all, names...)
	}
	assert.Equal(t, []string{"zoe", "adam", "Marie", "bob", "eve"}, all)
	names, total := listNames(t, s, b.ID, auth.UserFilter{Offset: 10, Limit: 2})
	assert.Empty(t, names)
	assert.Equal(t, 5, total, "the total holds past the end")
}

// testAdminKeywords checks the keyword search: every term the start of a
// word of the username, address or names, case and accents ignored.
func testAdminKeywords(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	b, _ := seedAdminUsers(t, s)
	tests := []struct {
		terms []string
		want  []string
	}{
		{[]string{"smith"}, []string{"adam", "eve"}},
		{[]string{"smi", "ev"}, []string{"eve"}},
		{[]string{"zoe"}, []string{"zoe"}},                     // username, and Zoé folded
		{[]string{"angstrom"}, []string{"Marie"}},              // Ångström folded
		{[]string{"claire"}, []string{"Marie"}},                // a word of Marie-Claire
		{[]string{"soren"}, []string{"bob"}},                   // ø spelled o
		{[]string{"shop"}, []string{"zoe", "bob"}},             // the address's words
		{[]string{"mail", "adam"}, []string{"adam"}},           // two words of one address
		{[]string{"mith"}, []string{}},                         // not the start of a word
		{[]string{"smith", "zoe"}, []string{}},                 // every term must match
		{[]string{"e"}, []string{"zoe", "adam", "bob", "eve"}}, // example, eve, Ève
	}
	for _, tt := range tests {
		names, total := listNames(t, s, b.ID, auth.UserFilter{Terms: tt.terms, Sort: auth.UserSortCreated})
		assert.Equal(t, tt.want, names, "%v", tt.terms)
		assert.Equal(t, len(tt.want), total, "%v", tt.terms)
	}
}

// testAdminKeywordsFollowUpdates checks that an update's words replace the
// old ones, and that the other brand's user is never found.
func testAdminKeywordsFollowUpdates(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	b, u := seedAdminUsers(t, s)
	_, err := s.UpdateUser(t.Context(), u["zoe"].ID, func(r *auth.UserRecord) error {
		r.LastName, r.FirstName = "Lefèvre", "Zoé"
		return nil
	})
	require.NoError(t, err)
	names, _ := listNames(t, s, b.ID, auth.UserFilter{Terms: []string{"durand"}})
	assert.Empty(t, names, "the old name's word is gone")
	names, _ = listNames(t, s, b.ID, auth.UserFilter{Terms: []string{"lefevre"}})
	assert.Equal(t, []string{"zoe"}, names)
	names, _ = listNames(t, s, b.ID, auth.UserFilter{Terms: []string{"zoe"}})
	assert.Equal(t, []string{"zoe"}, names, "a word kept stays, in the brand only")
}

// testAdminDelete checks that a deletion takes the user's keys, devices,
// tokens, lookup keys and words with it, and that the user is gone.
func testAdminDelete(t *testing.T, newStore NewStore) {
	s, b, u := openWithUser(t, newStore, "doomed")
	ctx := t.Context()
	k := testKey(u, "", "")
	require.NoError(t, s.CreateKeyPair(ctx, k))
	seedDevice(t, s, u, "phone")
	tok := resetToken(u)
	require.NoError(t, s.PutResetToken(ctx, tok))

	got, err := s.DeleteUser(ctx, u.ID, nil)
	require.NoError(t, err)
	assert.Equal(t, u.ID, got.ID)

	_, err = s.UserByID(ctx, u.ID)
	assert.ErrorIs(t, err, auth.ErrUserNotFound)
	_, err = s.KeyPairByAuthHash(ctx, k.AuthHash)
	assert.ErrorIs(t, err, auth.ErrKeyPairNotFound, "the user's pairs go with it")
	devices, err := s.ListDevices(ctx, u.ID)
	require.NoError(t, err)
	assert.Empty(t, devices, "its devices go with it")
	_, err = s.UseResetToken(ctx, tok.Hash, t0, func(*auth.UserRecord) error { return nil })
	assert.ErrorIs(t, err, auth.ErrResetTokenInvalid, "its tokens end")
	names, total := listNames(t, s, b.ID, auth.UserFilter{Terms: []string{"doomed"}})
	assert.Empty(t, names)
	assert.Zero(t, total)
	again := testUser(b.ID, "doomed", "doomed@example.com")
	require.NoError(t, s.CreateUser(ctx, again), "its username and address are free again")
	_, err = s.DeleteUser(ctx, u.ID, nil)
	assert.ErrorIs(t, err, auth.ErrUserNotFound)
}

// testAdminDeleteCheckAborts checks that an error of the check keeps the
// user and is returned as is.
func testAdminDeleteCheckAborts(t *testing.T, newStore NewStore) {
	s, _, u := openWithUser(t, newStore, "kept")
	refused := envelope.New(envelope.KindForbidden, "access_denied", "no")
	var seen auth.UserRecord
	_, err := s.DeleteUser(t.Context(), u.ID, func(r auth.UserRecord) error { seen = r; return refused })
	assert.True(t, errors.Is(err, refused))
	assert.Equal(t, u.ID, seen.ID, "the check sees the stored user")
	_, err = s.UserByID(t.Context(), u.ID)
	assert.NoError(t, err, "the user is kept")
}

// testAdminCountByStatus checks the counts by status of one brand.
func testAdminCountByStatus(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	b, _ := seedAdminUsers(t, s)
	got, err := s.CountUsersByStatus(t.Context(), b.ID)
	require.NoError(t, err)
	assert.Equal(t, map[auth.Status]int{auth.StatusActive: 2, auth.StatusInactive: 1, auth.StatusLocked: 1, auth.StatusSuspended: 1}, got)
	got, err = s.CountUsersByStatus(t.Context(), uuid.NewString())
	require.NoError(t, err)
	assert.Empty(t, got)
}

// testAdminCountCreated checks the counts of users created between
// bounds, each start included and each end excluded.
func testAdminCountCreated(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	b, _ := seedAdminUsers(t, s)
	m := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Minute) }
	got, err := s.CountUsersCreated(t.Context(), b.ID, []time.Time{m(-5), m(10), m(30), m(31), m(60)})
	require.NoError(t, err)
	assert.Equal(t, []int{1, 2, 2, 0}, got)
	bounds := []time.Time{m(-1000)}
	for i := 1; i <= 250; i++ { // more periods than one statement counts
		bounds = append(bounds, m(-1000+8*i))
	}
	got, err = s.CountUsersCreated(t.Context(), b.ID, bounds)
	require.NoError(t, err)
	require.Len(t, got, 250)
	sum := 0
	for _, n := range got {
		sum += n
	}
	assert.Equal(t, 5, sum)
	assert.Equal(t, 2, got[128], "the two users of minute 30 (period 128: minutes 24 to 32)")
	got, err = s.CountUsersCreated(t.Context(), b.ID, bounds[:1])
	require.NoError(t, err)
	assert.Empty(t, got)
}

// reversed returns a reversed copy of ss.
func reversed(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[len(ss)-1-i] = s
	}
	return out
}

// slicesSortBy sorts ss by key, byte order.
func slicesSortBy(ss []string, key func(string) string) {
	for i := 1; i < len(ss); i++ {
		for j := i; j > 0 && key(ss[j]) < key(ss[j-1]); j-- {
			ss[j], ss[j-1] = ss[j-1], ss[j]
		}
	}
}
