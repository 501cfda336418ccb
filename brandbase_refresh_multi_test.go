package brandbase_test

import (
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
)

// TestConcurrentRefreshesOnSeveralInstances: one refresh key sent 30 times
// at once to three instances on one database (the tabs of a jfw-js app
// refreshing together, retries) is within the reuse interval of the
// rotation the first refresh makes: every refresh answers a pair, and
// every pair answered works afterwards on every instance, its refresh key
// too; none is revoked (docs/authentication.md, Refresh key reuse).
func TestConcurrentRefreshesOnSeveralInstances(t *testing.T) {
	t.Parallel()
	nodes := cluster(t, 3)
	ctx := t.Context()
	const shop = "shop.example.com"
	brand, err := nodes[0].app.Auth.CreateBrand(ctx, auth.NewBrand{URL: shop, Name: "Shop"})
	require.NoError(t, err)
	_, err = nodes[0].app.Auth.CreateUser(ctx, brand.ID, auth.NewUser{Username: "admin", Password: "admin password"})
	require.NoError(t, err)
	login := nodes[1].do(t, "POST", "/api/v1/users/auth", shop, "", `{"username":"admin","password":"admin password"}`)
	require.Equal(t, http.StatusOK, login.status)
	body := fmt.Sprintf(`{"refreshAuthKey":%q}`, login.data["refreshAuthKey"])

	const n = 30 // the Refresh limit per client IP lets 30 through at once
	answers := make([]answer, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			answers[i] = nodes[i%3].do(t, "POST", "/api/v1/users/auth/refresh-auth-key", shop, "", body)
		})
	}
	wg.Wait()

	statuses := map[int]int{}
	for _, a := range answers {
		statuses[a.status]++
	}
	require.Equal(t, map[int]int{http.StatusOK: n}, statuses, "every refresh answers a pair")
	keys := map[string]bool{}
	for i, a := range answers {
		authKey, refreshKey := a.data["authKey"].(string), a.data["refreshAuthKey"].(string)
		keys[authKey] = true
		for _, in := range nodes {
			assert.Equal(t, http.StatusOK, in.do(t, "GET", "/api/v1/users/me", shop, authKey, "").status,
				"pair %d works on %s", i, in.name)
		}
		next, err := nodes[(i+1)%3].app.Auth.Refresh(ctx, brand, auth.RefreshRequest{RefreshAuthKey: refreshKey})
		require.NoError(t, err, "pair %d's refresh key works", i)
		assert.Equal(t, http.StatusOK, nodes[i%3].do(t, "GET", "/api/v1/users/me", shop, next.AuthKey, "").status,
			"pair %d's successor works", i)
	}
	assert.Len(t, keys, n, "each refresh a pair of its own")
}
