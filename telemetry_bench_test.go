package brandbase_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/httpadapter"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/internal/testkit/telemetrytest"
	"github.com/brandbase/brandbase/storage/storeurl"
)

// telemetryModes are the two sides of the cost benchmarks: no providers
// (the default); an SDK meter provider recording every metric; and with it
// an SDK tracer provider sampling every span; exporting nothing
// (telemetrytest.Quiet).
var telemetryModes = []struct {
	name           string
	metrics, trace bool
}{{"off", false, false}, {"metrics", true, false}, {"metrics+traces", true, true}}

// telemetryApp returns an App on the memory store with one brand (and a
// user, alice), with the SDK providers metrics and trace ask for.
func telemetryApp(b *testing.B, metrics, trace bool) (*brandbase.App, auth.Brand) {
	b.Helper()
	store, err := storeurl.Open(b.Context(), storeurl.MemoryPath, storeurl.Options{})
	require.NoError(b, err)
	b.Cleanup(func() { store.Close() })
	cfg := brandbase.Config{SecretKeys: integrations.EphemeralKeyRing(), AuthOptions: []auth.Option{auth.WithArgon2Params(fastArgon2)}}
	mp, tp := telemetrytest.Quiet(b)
	if metrics {
		cfg.MeterProvider = mp
	}
	if trace {
		cfg.TracerProvider = tp
	}
	app, err := brandbase.New(store, cfg)
	require.NoError(b, err)
	b.Cleanup(func() { app.Close() })
	brand, err := app.Auth.CreateBrand(b.Context(), auth.NewBrand{URL: "bench.example.com", Name: "Bench"})
	require.NoError(b, err)
	_, err = app.Auth.CreateUser(b.Context(), brand.ID, auth.NewUser{Username: "alice", Password: obsPassword})
	require.NoError(b, err)
	return app, brand
}

// BenchmarkTelemetryList is the list handler (GET /api/v1/cities, a page
// of 10, on the memory store) with telemetry off, metrics on, metrics and traces
// on: "cached" answers
// from the handler's cache, "uncached" computes every answer.
// docs/observability.md gives the figures.
func BenchmarkTelemetryList(b *testing.B) {
	for _, mode := range telemetryModes {
		b.Run(mode.name, func(b *testing.B) {
			app, _ := telemetryApp(b, mode.metrics, mode.trace)
			h, err := app.Handler(httpadapter.WithoutRateLimits(), quiet())
			require.NoError(b, err)
			benchCities(b, h)
		})
	}
}

// BenchmarkTelemetryAuthenticate is the warm key check
// (auth.Service.Authenticate, answered from the key cache) with telemetry
// off, metrics on, metrics and traces on.
func BenchmarkTelemetryAuthenticate(b *testing.B) {
	for _, mode := range telemetryModes {
		b.Run(mode.name, func(b *testing.B) {
			app, brand := telemetryApp(b, mode.metrics, mode.trace)
			ctx := b.Context()
			s, err := app.Auth.Login(ctx, brand, auth.LoginRequest{Username: "alice", Password: obsPassword})
			require.NoError(b, err)
			b.ReportAllocs()
			var p auth.Principal
			for b.Loop() {
				if p, err = app.Auth.Authenticate(ctx, brand, s.AuthKey); err != nil {
					b.Fatal(err)
				}
			}
			require.Equal(b, "alice", p.Username)
		})
	}
}
