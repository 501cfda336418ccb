package auth_test

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/internal/testkit/teststores"
	"github.com/brandbase/brandbase/storage"
)

// stores are the backends the service tests run on.
var stores = teststores.All

// fastArgon2 makes hashing cheap in tests that are not about its cost.
var fastArgon2 = auth.Argon2Params{Memory: 64, Iterations: 1, Parallelism: 1, SaltLen: 16, KeyLen: 32}

// clock is a settable clock for auth.WithClock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// env is a service on a fresh store with two brands and users in them.
type env struct {
	store  storage.Storage
	svc    *auth.Service
	clock  *clock
	brand  auth.Brand // shop.example.com
	other  auth.Brand // other.example.com
	admin  auth.User  // of brand: every permission, email admin@shop.example.com
	viewer auth.User  // of brand: no permission
	stray  auth.User  // of other: username "admin" too, another password
}

const (
	adminPassword = "correct horse battery"
	strayPassword = "another brand's secret"
)

// forEachStore runs fn as a parallel subtest on a fresh env of each
// store, named after the store.
func forEachStore(t *testing.T, fn func(t *testing.T, e *env)) {
	t.Helper()
	for name, newStore := range stores {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fn(t, newEnv(t, newStore))
		})
	}
}

func newEnv(t testing.TB, newStore func(t testing.TB) storage.Storage, opts ...auth.Option) *env {
	t.Helper()
	store := newStore(t)
	t.Cleanup(func() { store.Close() })
	c := newClock()
	opts = append([]auth.Option{auth.WithClock(c.Now), auth.WithArgon2Params(fastArgon2)}, opts...)
	svc := auth.NewService(store, opts...)
	ctx := t.Context()
	e := &env{store: store, svc: svc, clock: c}
	var err error
	e.brand, err = svc.CreateBrand(ctx, auth.NewBrand{URL: "shop.example.com", Name: "Shop"})
	require.NoError(t, err)
	e.other, err = svc.CreateBrand(ctx, auth.NewBrand{URL: "other.example.com", Name: "Other"})
	require.NoError(t, err)
	e.admin, err = svc.CreateUser(ctx, e.brand.ID, auth.NewUser{Username: "Admin", EmailAddress: "admin@shop.example.com",
		PhoneNumber: "+1 555 0100", Password: adminPassword, Permissions: []auth.Permission{auth.PermAll}})
	require.NoError(t, err)
	e.viewer, err = svc.CreateUser(ctx, e.brand.ID, auth.NewUser{Username: "viewer", Password: "viewer password"})
	require.NoError(t, err)
	e.stray, err = svc.CreateUser(ctx, e.other.ID, auth.NewUser{Username: "admin", EmailAddress: "admin@shop.example.com",
		Password: strayPassword})
	require.NoError(t, err)
	return e
}

// login logs the admin in and returns the session.
func (e *env) login(t *testing.T, opts ...func(*auth.LoginRequest)) auth.Session {
	t.Helper()
	req := auth.LoginRequest{Username: "admin", Password: adminPassword}
	for _, o := range opts {
		o(&req)
	}
	s, err := e.svc.Login(t.Context(), e.brand, req)
	require.NoError(t, err)
	return s
}
