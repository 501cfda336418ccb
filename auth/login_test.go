package auth_test

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/bcrypt"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
)

func TestLogin(t *testing.T) {
	t.Parallel()
	type result struct {
		kind envelope.Kind
		code string
	}
	ok := result{}
	denied := result{envelope.KindUnauthenticated, auth.CodeInvalidCredentials}
	scenarios := []struct {
		name string
		req  auth.LoginRequest
		want result
	}{
		{"username", auth.LoginRequest{Username: "admin", Password: adminPassword}, ok},
		{"username any case, trimmed", auth.LoginRequest{Username: "  ADMIN ", Password: adminPassword}, ok},
		{"email any case", auth.LoginRequest{EmailAddress: "Admin@SHOP.example.com", Password: adminPassword}, ok},
		{"both, same user", auth.LoginRequest{Username: "admin", EmailAddress: "admin@shop.example.com", Password: adminPassword}, ok},
		{"both, different users", auth.LoginRequest{Username: "viewer", EmailAddress: "admin@shop.example.com", Password: "viewer password"}, denied},
		{"wrong password", auth.LoginRequest{Username: "admin", Password: adminPassword + "!"}, denied},
		{"password in other case", auth.LoginRequest{Username: "admin", Password: strings.ToUpper(adminPassword)}, denied},
		{"unknown user", auth.LoginRequest{Username: "nobody", Password: adminPassword}, denied},
		{"unknown email", auth.LoginRequest{EmailAddress: "nobody@shop.example.com", Password: adminPassword}, denied},
		{"other brand's user", auth.LoginRequest{Username: "admin", Password: strayPassword}, denied},
	}
	forEachStore(t, func(t *testing.T, e *env) {
		for _, sc := range scenarios {
			sess, err := e.svc.Login(t.Context(), e.brand, sc.req)
			assert.Equal(t, sc.want.kind, envelope.KindOf(err), sc.name)
			assert.Equal(t, sc.want.code, envelope.CodeOf(err), sc.name)
			if err != nil {
				assert.Equal(t, "The username or password is incorrect.", envelope.As(err).Message,
					"one answer for every wrong identifier or password")
				continue
			}
			assert.Equal(t, e.admin, sess.User, sc.name)
		}
		// The other brand's admin logs in there, with its own password.
		sess, err := e.svc.Login(t.Context(), e.other, auth.LoginRequest{Username: "admin", Password: strayPassword})
		require.NoError(t, err)
		assert.Equal(t, e.stray.ID, sess.User.ID)
	})
}

func TestLoginValidation(t *testing.T) {
	t.Parallel()
	e := newEnv(t, stores["memory"])
	tests := []struct {
		name string
		req  auth.LoginRequest
		want []string
	}{
		{"empty", auth.LoginRequest{}, []string{"username:required", "password:required"}},
		{"no identifier", auth.LoginRequest{Username: "  ", Password: "x"}, []string{"username:required"}},
		{"no password", auth.LoginRequest{Username: "admin"}, []string{"password:required"}},
		{"huge password", auth.LoginRequest{Username: "admin", Password: strings.Repeat("x", 1025)}, []string{"password:too_long"}},
		{"huge email", auth.LoginRequest{EmailAddress: strings.Repeat("x", 255), Password: "x"}, []string{"emailAddress:too_long"}},
		{"huge device code", auth.LoginRequest{Username: "admin", Password: "x", Device: auth.DeviceInfo{Code: strings.Repeat("x", 201)}},
			[]string{"X-Device-Code:too_long"}},
	}
	for _, tt := range tests {
		_, err := e.svc.Login(t.Context(), e.brand, tt.req)
		assert.ElementsMatch(t, tt.want, fieldsOf(t, err), tt.name)
	}
}

func TestLoginInactiveUser(t *testing.T) {
	t.Parallel()
	e := newEnv(t, stores["memory"])
	ctx := t.Context()
	_, err := e.svc.SetUserStatus(ctx, e.admin.ID, "inactive")
	require.NoError(t, err)
	_, err = e.svc.Login(ctx, e.brand, auth.LoginRequest{Username: "admin", Password: "wrong password"})
	assert.Equal(t, auth.CodeInvalidCredentials, envelope.CodeOf(err), "a wrong password learns nothing about the status")
	_, err = e.svc.Login(ctx, e.brand, auth.LoginRequest{Username: "admin", Password: adminPassword})
	assert.Equal(t, envelope.KindForbidden, envelope.KindOf(err))
	assert.Equal(t, auth.CodeUserInactive, envelope.CodeOf(err))
	_, err = e.svc.SetUserStatus(ctx, e.admin.ID, "Paused")
	assert.Equal(t, envelope.KindInvalid, envelope.KindOf(err))
}

func TestSessionKeys(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		now := e.clock.Now()
		a, b := e.login(t), e.login(t)
		for _, s := range []auth.Session{a, b} {
			for _, key := range []string{s.AuthKey, s.RefreshAuthKey} {
				raw, err := base64.RawURLEncoding.DecodeString(key)
				require.NoError(t, err, "base64url without padding")
				assert.Len(t, raw, 32, "256 random bits")
			}
			assert.Equal(t, now.Add(auth.DefaultAuthKeyTTL), s.ExpiresAt)
			assert.Equal(t, time.UTC, s.ExpiresAt.Location())
			assert.Equal(t, now.Add(auth.DefaultRefreshKeyTTL), s.RefreshExpiresAt)
		}
		keys := []string{a.AuthKey, a.RefreshAuthKey, b.AuthKey, b.RefreshAuthKey}
		assert.Len(t, slices.Compact(slices.Sorted(slices.Values(keys))), 4, "every key is new")

		h := sha256.Sum256([]byte(a.AuthKey))
		stored, err := e.store.KeyPairByAuthHash(t.Context(), h[:])
		require.NoError(t, err, "the key is stored as its SHA-256")
		assert.Equal(t, a.KeyID, stored.ID)
		assert.Equal(t, e.brand.ID, stored.BrandID)
		assert.NotContains(t, string(stored.AuthHash)+string(stored.RefreshHash), a.AuthKey)
	})
}

func TestKeyLifetimesOption(t *testing.T) {
	t.Parallel()
	e := newEnv(t, stores["memory"], auth.WithKeyLifetimes(time.Hour, 2*time.Hour))
	s := e.login(t)
	assert.Equal(t, e.clock.Now().Add(time.Hour), s.ExpiresAt)
	assert.Equal(t, e.clock.Now().Add(2*time.Hour), s.RefreshExpiresAt)
}

func TestRandomSourceIsInjectable(t *testing.T) {
	t.Parallel()
	src := &switchReader{}
	e := newEnv(t, stores["memory"], auth.WithRandom(src))
	src.fail.Store(true)
	_, err := e.svc.Login(t.Context(), e.brand, auth.LoginRequest{Username: "admin", Password: adminPassword})
	assert.Equal(t, envelope.KindInternal, envelope.KindOf(err), "keys come from the injected source")
	src.fail.Store(false)
	_, err = e.svc.Login(t.Context(), e.brand, auth.LoginRequest{Username: "admin", Password: adminPassword})
	assert.NoError(t, err)
}

// switchReader reads from crypto/rand until fail is set.
type switchReader struct{ fail atomic.Bool }

func (r *switchReader) Read(p []byte) (int, error) {
	if r.fail.Load() {
		return 0, errors.New("no entropy")
	}
	return rand.Read(p)
}

func TestBcryptHashIsAcceptedAndRehashed(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		hash, err := bcrypt.GenerateFromPassword([]byte("imported secret"), bcrypt.MinCost)
		require.NoError(t, err)
		u, err := e.svc.CreateUser(ctx, e.brand.ID, auth.NewUser{Username: "legacy", PasswordHash: string(hash)})
		require.NoError(t, err)

		_, err = e.svc.Login(ctx, e.brand, auth.LoginRequest{Username: "legacy", Password: "wrong secret"})
		assert.Equal(t, auth.CodeInvalidCredentials, envelope.CodeOf(err))
		rec, err := e.store.UserByID(ctx, u.ID)
		require.NoError(t, err)
		assert.Equal(t, string(hash), rec.PasswordHash, "a failed login rehashes nothing")

		_, err = e.svc.Login(ctx, e.brand, auth.LoginRequest{Username: "legacy", Password: "imported secret"})
		require.NoError(t, err)
		rec, err = e.store.UserByID(ctx, u.ID)
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(rec.PasswordHash, "$argon2id$v=19$m=64,t=1,p=1$"), rec.PasswordHash)
		_, err = e.svc.Login(ctx, e.brand, auth.LoginRequest{Username: "legacy", Password: "imported secret"})
		assert.NoError(t, err, "the new hash verifies")
	})
}

func TestArgon2ParameterChangeRehashes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, stores["sqlite"])
	ctx := t.Context()
	stronger := fastArgon2
	stronger.Iterations = 2
	svc := auth.NewService(e.store, auth.WithArgon2Params(stronger))
	_, err := svc.Login(ctx, e.brand, auth.LoginRequest{Username: "admin", Password: adminPassword})
	require.NoError(t, err, "a hash with the old parameters still verifies")
	rec, err := e.store.UserByID(ctx, e.admin.ID)
	require.NoError(t, err)
	assert.Contains(t, rec.PasswordHash, "$m=64,t=2,p=1$")
}

func TestSetPasswordEndsSessions(t *testing.T) {
	t.Parallel()
	e := newEnv(t, stores["sqlite"])
	ctx := t.Context()
	s := e.login(t)
	_, err := e.svc.Authenticate(ctx, e.brand, s.AuthKey)
	require.NoError(t, err)

	assert.Equal(t, []string{"password:too_short"}, fieldsOf(t, e.svc.SetPassword(ctx, e.admin.ID, "short")))
	require.NoError(t, e.svc.SetPassword(ctx, e.admin.ID, "a brand new password"))
	_, err = e.svc.Authenticate(ctx, e.brand, s.AuthKey)
	assert.Equal(t, envelope.KindUnauthenticated, envelope.KindOf(err), "old keys are revoked")
	_, err = e.svc.Login(ctx, e.brand, auth.LoginRequest{Username: "admin", Password: adminPassword})
	assert.Equal(t, auth.CodeInvalidCredentials, envelope.CodeOf(err))
	_, err = e.svc.Login(ctx, e.brand, auth.LoginRequest{Username: "admin", Password: "a brand new password"})
	assert.NoError(t, err)
	assert.Equal(t, envelope.KindNotFound, envelope.KindOf(e.svc.SetPassword(ctx, "missing", "long enough")))
}

// TestUnknownUserCostsAWrongPassword checks, with real argon2id hashes,
// that a login for an unknown user takes as long as one with a wrong
// password: both compute one hash. Samples alternate so that load on the
// machine hits both alike, and the fastest of each is compared: the
// minimum is what the work costs, load only ever adds to it. The service
// hashes at a fourteenth of the default work (2 MiB, 2 passes; far above
// a store lookup's cost), which the race detector makes take a tenth of a
// second instead of seconds: a dummy hash made at the defaults, not at the
// service's parameters, would cost fourteen times a wrong password.
func TestUnknownUserCostsAWrongPassword(t *testing.T) {
	if testing.Short() {
		t.Skip("measures real argon2id logins")
	}
	e := newEnv(t, stores["memory"], auth.WithArgon2Params(auth.Argon2Params{Memory: 2048, Iterations: 2, Parallelism: 1, SaltLen: 16, KeyLen: 32}))
	ctx := t.Context()
	unknown := auth.LoginRequest{Username: "nobody", Password: "wrong password"}
	wrong := auth.LoginRequest{Username: "admin", Password: "wrong password"}
	_, _ = e.svc.Login(ctx, e.brand, unknown) // makes the dummy hash
	var tu, tw []time.Duration
	for range 7 {
		for _, r := range []struct {
			req auth.LoginRequest
			out *[]time.Duration
		}{{unknown, &tu}, {wrong, &tw}} {
			start := time.Now()
			_, err := e.svc.Login(ctx, e.brand, r.req)
			*r.out = append(*r.out, time.Since(start))
			require.Equal(t, auth.CodeInvalidCredentials, envelope.CodeOf(err))
		}
	}
	mu, mw := slices.Min(tu), slices.Min(tw)
	t.Logf("fastest unknown user %v, wrong password %v", mu, mw)
	ratio := float64(mu) / float64(mw)
	assert.True(t, ratio > 0.5 && ratio < 2, "unknown user %v vs wrong password %v", mu, mw)
}

func TestConcurrentLogins(t *testing.T) {
	t.Parallel()
	for name, newStore := range stores {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// A wait bound no load reaches: the test is about concurrent
			// logins, not about shedding them (a loaded machine under
			// -race makes 16 logins on 2 slots wait longer than 1 s).
			e := newEnv(t, newStore, auth.WithMaxConcurrentHashes(2), auth.WithMaxHashWait(time.Minute))
			const n = 16
			keys := make(chan string, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Go(func() {
					req := auth.LoginRequest{Username: "admin", Password: adminPassword}
					if i%2 == 1 {
						req = auth.LoginRequest{EmailAddress: "nobody@x.example", Password: "whatever"}
					}
					s, err := e.svc.Login(t.Context(), e.brand, req)
					if i%2 == 1 {
						assert.Equal(t, auth.CodeInvalidCredentials, envelope.CodeOf(err))
						return
					}
					if assert.NoError(t, err) {
						keys <- s.AuthKey
					}
				})
			}
			wg.Wait()
			close(keys)
			seen := map[string]bool{}
			for k := range keys {
				assert.False(t, seen[k])
				seen[k] = true
				_, err := e.svc.Authenticate(t.Context(), e.brand, k)
				assert.NoError(t, err)
			}
			assert.Len(t, seen, n/2)
		})
	}
}

func TestCancelledLogin(t *testing.T) {
	t.Parallel()
	e := newEnv(t, stores["memory"])
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := e.svc.Login(ctx, e.brand, auth.LoginRequest{Username: "admin", Password: adminPassword})
	assert.Equal(t, envelope.KindUnavailable, envelope.KindOf(err))
}
