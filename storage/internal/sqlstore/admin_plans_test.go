package sqlstore_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/storage/internal/sqlstore"
	"github.com/brandbase/brandbase/storage/memory"
)

// TestKeywordPagesOfBothPlans: a keyword search answers the same pages
// whether it reads them from its first word's range (at most wordsDriven
// matches) or by walking the order's index (more), in every order, both
// directions, every page. Not parallel: it sets wordsDriven.
func TestKeywordPagesOfBothPlans(t *testing.T) {
	ctx := t.Context()
	s, err := memory.New(ctx)
	require.NoError(t, err)
	defer s.Close()
	b := auth.Brand{ID: "b", URL: "plans.example.com", Name: "Plans", Status: auth.StatusActive, DefaultCurrency: "USD", CreatedAt: time.Now()}
	require.NoError(t, s.CreateBrand(ctx, b))
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	statuses := []auth.Status{auth.StatusActive, auth.StatusLocked, auth.StatusSuspended}
	for i := range 40 {
		name := fmt.Sprintf("user%02d", 39-i) // usernames against creation order
		u := auth.UserRecord{User: auth.User{ID: fmt.Sprintf("id%02d", (i*7)%40), BrandID: b.ID, Username: name,
			LastName: []string{"Smith", "Smithson", "Jones"}[i%3], FirstName: "Ann", NickName: "Annie", Status: statuses[i%3],
			CreatedAt: t0.Add(time.Duration(i/2) * time.Minute), UpdatedAt: t0},
			UsernameKey: auth.FoldKey(name), PasswordHash: "x"}
		require.NoError(t, s.CreateUser(ctx, u))
	}
	pages := func(f auth.UserFilter) ([][]string, int) {
		var out [][]string
		total := 0
		for off := 0; off < 40; off += 3 {
			f.Offset, f.Limit = off, 3
			recs, n, err := s.ListUserPage(ctx, b.ID, f)
			require.NoError(t, err)
			total = n
			var ids []string
			for _, r := range recs {
				ids = append(ids, r.ID)
			}
			out = append(out, ids)
		}
		return out, total
	}
	for _, terms := range [][]string{{"smi"}, {"ann", "smith"}, {"user1"}, {"ann"}} {
		for _, sort := range []auth.UserSort{auth.UserSortID, auth.UserSortCreated, auth.UserSortUsername, auth.UserSortStatus} {
			for _, desc := range []bool{false, true} {
				f := auth.UserFilter{Terms: terms, Sort: sort, Desc: desc}
				byWords, total := pages(f)
				restore := sqlstore.SetWordsDriven(0)
				byWalk, walkTotal := pages(f)
				restore()
				assert.Equal(t, total, walkTotal)
				assert.Equal(t, byWords, byWalk, "%v by %s desc %v", terms, sort, desc)
				assert.Positive(t, total, "%v matches some", terms)
			}
		}
	}
}
