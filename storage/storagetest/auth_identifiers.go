package storagetest

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
)

// testUserOneNamespace checks that usernames and email addresses share one
// namespace per brand: a new user whose username key is another user's
// email key, or whose email key is another's username key (look-alikes
// folded by auth.FoldKey included), is KindConflict and stores nothing;
// a user's username may be its own address; other brands do not collide.
func testUserOneNamespace(t *testing.T, newStore NewStore) {
	s, b, _ := openWithUser(t, newStore, "ann") // email ann@example.com
	ctx := t.Context()
	other := seedBrand(t, s, "namespace-other.example.com")
	require.NoError(t, s.CreateUser(ctx, testUser(b.ID, "carl@example.com", "")), "stored before the rule")
	tests := []struct {
		name string
		user auth.UserRecord
		ok   bool
	}{
		{"username is another's address", testUser(b.ID, "ANN@example.com ", "mallory@example.com"), false},
		{"look-alike username", testUser(b.ID, "ａnn", ""), false},
		{"fullwidth address as username", testUser(b.ID, "ａnn@example.com", ""), false},
		{"address is another's username", testUser(b.ID, "dan", "Carl@Example.com"), false},
		{"address is another's username, look-alike", testUser(b.ID, "dan", "ｃarl@example.com"), false},
		{"username is its own address", testUser(b.ID, "Eve@example.com", "eve@example.com"), true},
		{"other brand", testUser(other.ID, "ann@example.com", "carl@example.com"), true},
	}
	for _, tt := range tests {
		err := s.CreateUser(ctx, tt.user)
		if tt.ok {
			assert.NoError(t, err, tt.name)
			continue
		}
		assert.Equal(t, envelope.KindConflict, envelope.KindOf(err), tt.name)
		_, err = s.UserByID(ctx, tt.user.ID)
		assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err), "%s: a refused create stores nothing", tt.name)
	}
}

// testUserUpdateOneNamespace checks that UpdateUser refuses a username
// that is another user's email key and an email that is another user's
// username key, that a key a change gives up is free for another user at
// once, and that an update leaving the keys as they are is not checked.
func testUserUpdateOneNamespace(t *testing.T, newStore NewStore) {
	s, b, ann := openWithUser(t, newStore, "ann") // email ann@example.com
	ctx := t.Context()
	bob := testUser(b.ID, "bob", "bob@example.com")
	require.NoError(t, s.CreateUser(ctx, bob))
	set := func(id, username, email string) error {
		_, err := s.UpdateUser(ctx, id, func(r *auth.UserRecord) error {
			r.Username, r.UsernameKey = username, auth.FoldKey(username)
			r.EmailAddress, r.EmailKey = email, auth.FoldKey(email)
			return nil
		})
		return err
	}
	assert.Equal(t, envelope.KindConflict, envelope.KindOf(set(bob.ID, "Ann@Example.com", "bob@example.com")),
		"a username that is another's address")
	assert.Equal(t, envelope.KindConflict, envelope.KindOf(set(bob.ID, "bob", "ANN")),
		"an address that is another's username")
	got, err := s.UserByID(ctx, bob.ID)
	require.NoError(t, err)
	assert.Equal(t, bob, got, "a refused update changes nothing")

	require.NoError(t, set(bob.ID, "bob@example.com", "bob@example.com"), "a username may be its own address")
	require.NoError(t, set(bob.ID, "bob@example.com", "bob@example.com"), "the same keys again")
	require.NoError(t, set(ann.ID, "ann2", ""), "ann gives up her name and address")
	require.NoError(t, s.CreateUser(ctx, testUser(b.ID, "ANN@example.com", "ann@example.com")),
		"a key given up is free")
	require.NoError(t, s.CreateUser(ctx, testUser(b.ID, "ann", "")), "a username given up is free")
	_, err = s.UpdateUser(ctx, bob.ID, func(r *auth.UserRecord) error { r.PhoneNumber = "+1 555 0111"; return nil })
	assert.NoError(t, err)
}

// testUserNamespaceRace checks that of concurrent creates that take one
// key, some as username and some as email address, exactly one succeeds.
func testUserNamespaceRace(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	ctx := t.Context()
	b := seedBrand(t, s, "namespace-race.example.com")
	const n, key = 8, "race@example.com"
	var ok atomic.Int32
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			u := testUser(b.ID, key, "")
			if i%2 == 1 {
				u = testUser(b.ID, fmt.Sprintf("racer%d", i), key)
			}
			err := s.CreateUser(ctx, u)
			if err == nil {
				ok.Add(1)
				return
			}
			assert.Equal(t, envelope.KindConflict, envelope.KindOf(err), "%v", err)
		})
	}
	wg.Wait()
	assert.Equal(t, int32(1), ok.Load(), "exactly one holds the key")
}
