package auth_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
)

// sinkPrincipal keeps benchmark results alive.
var sinkPrincipal auth.Principal

// BenchmarkAuthenticate measures the per-request key check: "warm" with the
// cache (the target is at most 5 µs on the memory store, and PostgreSQL as
// fast as SQLite), "nocache" with a store read every time (PostgreSQL runs
// only with BRANDBASE_TEST_POSTGRES set).
func BenchmarkAuthenticate(b *testing.B) {
	for _, bc := range []struct {
		name  string
		store string
		opts  []auth.Option
	}{
		{"memory/warm", "memory", nil},
		{"sqlite/warm", "sqlite", nil},
		{"postgres/warm", "postgres", nil},
		{"memory/nocache", "memory", []auth.Option{auth.WithKeyCache(0, 1)}},
		{"sqlite/nocache", "sqlite", []auth.Option{auth.WithKeyCache(0, 1)}},
		{"postgres/nocache", "postgres", []auth.Option{auth.WithKeyCache(0, 1)}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			e, key := benchEnv(b, bc.store, bc.opts...)
			ctx := b.Context()
			var p auth.Principal
			var err error
			for b.Loop() {
				p, err = e.svc.Authenticate(ctx, e.brand, key)
			}
			require.NoError(b, err)
			sinkPrincipal = p
		})
	}
}

// BenchmarkAuthenticateParallel is the warm check from every core at once.
func BenchmarkAuthenticateParallel(b *testing.B) {
	e, key := benchEnv(b, "memory")
	ctx := b.Context()
	b.RunParallel(func(pb *testing.PB) {
		var p auth.Principal
		for pb.Next() {
			var err error
			if p, err = e.svc.Authenticate(ctx, e.brand, key); err != nil {
				b.Error(err)
				return
			}
		}
		sinkPrincipal = p
	})
}

// sinkSession keeps login results alive.
var sinkSession auth.Session

// BenchmarkLogin measures one password login with the default argon2id
// parameters (the target is 20 to 60 ms), on the memory store.
func BenchmarkLogin(b *testing.B) {
	e, _ := benchEnv(b, "memory", auth.WithArgon2Params(auth.DefaultArgon2Params))
	ctx := b.Context()
	req := auth.LoginRequest{Username: "admin", Password: adminPassword}
	var s auth.Session
	var err error
	for b.Loop() {
		s, err = e.svc.Login(ctx, e.brand, req)
	}
	require.NoError(b, err)
	sinkSession = s
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/login")
}

// benchEnv returns an env on the named store and a valid auth key, checked
// once so that the cache (if any) is warm.
func benchEnv(b *testing.B, store string, opts ...auth.Option) (*env, string) {
	b.Helper()
	e := newEnv(b, stores[store], opts...)
	s, err := e.svc.Login(b.Context(), e.brand, auth.LoginRequest{Username: "admin", Password: adminPassword})
	require.NoError(b, err)
	_, err = e.svc.Authenticate(b.Context(), e.brand, s.AuthKey)
	require.NoError(b, err)
	return e, s.AuthKey
}
