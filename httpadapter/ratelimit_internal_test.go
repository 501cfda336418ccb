package httpadapter

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/ratelimit"
)

// A flood of keys under one policy must not evict another policy's
// buckets: else cheap list requests from many addresses would reset the
// per-account login limit.
func TestPolicyLimitersIsolateEviction(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	login := ratelimit.Policy{Name: "login-identifier", Limit: 2, Per: time.Minute}
	lists := ratelimit.Policy{Name: "lists", Limit: 50, Per: time.Second, Burst: 100}
	l := newPolicyLimiters([]string{login.Name, lists.Name}, ratelimit.Config{MaxBuckets: 16, Shards: 1})

	for range 2 {
		d, err := l.Allow(ctx, "brand admin", login, now)
		require.NoError(t, err)
		require.True(t, d.Allowed)
	}
	for i := range 1000 {
		_, err := l.Allow(ctx, fmt.Sprintf("brand 2001:db8:%x::", i), lists, now)
		require.NoError(t, err)
	}
	d, err := l.Allow(ctx, "brand admin", login, now)
	require.NoError(t, err)
	assert.False(t, d.Allowed, "the login bucket survived the list flood")

	_, err = l.Allow(ctx, "k", ratelimit.Policy{Name: "unknown", Limit: 1, Per: time.Second}, now)
	assert.Error(t, err, "a policy without a limiter is an error, not a panic")
}

// The login bucket key has the same small size whatever identifier the
// body sends, and folds it as the login lookup does.
func TestLoginKeyIsBounded(t *testing.T) {
	t.Parallel()
	huge := loginKey("b1", auth.LoginRequest{Username: strings.Repeat("x", 1<<20)})
	small := loginKey("b1", auth.LoginRequest{Username: "Admin"})
	assert.Len(t, huge, len(small))
	assert.Less(t, len(huge), 64)
	assert.Equal(t, small, loginKey("b1", auth.LoginRequest{Username: "ADMIN"}))
	assert.Equal(t, loginKey("b1", auth.LoginRequest{EmailAddress: "a@example.com"}),
		loginKey("b1", auth.LoginRequest{Username: "  ", EmailAddress: "A@Example.com"}))
	assert.NotEqual(t, small, loginKey("b2", auth.LoginRequest{Username: "admin"}), "per brand")
}
