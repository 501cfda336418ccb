package integrations_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/internal/testkit/teststores"
	"github.com/brandbase/brandbase/storage"
)

// stores are the backends every domain test runs on.
var stores = teststores.All

// clock is a settable clock for tests.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

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

// world is a fresh service with two brands, each with an admin, and one
// app integration of each type per brand.
type world struct {
	store             storage.Storage
	svc               *integrations.Service
	clock             *clock
	keys              *integrations.KeyRing
	brand             string
	other             string
	admin             auth.Principal // every permission in brand
	analyst           auth.Principal // analytics only, in brand
	viewer            auth.Principal // no permission, in brand
	otherAdmin        auth.Principal // every permission in other
	analyticsApp      integrations.AppIntegration
	gatewayApp        integrations.AppIntegration
	otherAnalyticsApp integrations.AppIntegration
	otherGatewayApp   integrations.AppIntegration
}

var testKeys = func() *integrations.KeyRing {
	k, err := integrations.NewKeyRing("k1", map[string][]byte{"k1": []byte("0123456789abcdef0123456789abcdef")})
	if err != nil {
		panic(err)
	}
	return k
}()

func newWorld(t testing.TB, newStore func(t testing.TB) storage.Storage) *world {
	t.Helper()
	store := newStore(t)
	t.Cleanup(func() { store.Close() })
	w := &world{store: store, clock: &clock{t: time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)}, keys: testKeys}
	w.svc = integrations.NewService(store, integrations.WithClock(w.clock.Now), integrations.WithKeyRing(w.keys))
	ctx := t.Context()
	brands := auth.NewService(store)
	b, err := brands.CreateBrand(ctx, auth.NewBrand{URL: "shop.example.com", Name: "Shop"})
	require.NoError(t, err)
	o, err := brands.CreateBrand(ctx, auth.NewBrand{URL: "other.example.com", Name: "Other"})
	require.NoError(t, err)
	w.brand, w.other = b.ID, o.ID
	w.admin = auth.Principal{UserID: "admin", BrandID: b.ID, Permissions: []auth.Permission{auth.PermAll}}
	w.analyst = auth.Principal{UserID: "analyst", BrandID: b.ID, Permissions: []auth.Permission{auth.PermAnalyticsWrite}}
	w.viewer = auth.Principal{UserID: "viewer", BrandID: b.ID}
	w.otherAdmin = auth.Principal{UserID: "other-admin", BrandID: o.ID, Permissions: []auth.Permission{auth.PermAll}}
	w.analyticsApp = w.app(t, w.admin, integrations.TypeAnalytics)
	w.gatewayApp = w.app(t, w.admin, integrations.TypePaymentGateway)
	w.otherAnalyticsApp = w.app(t, w.otherAdmin, integrations.TypeAnalytics)
	w.otherGatewayApp = w.app(t, w.otherAdmin, integrations.TypePaymentGateway)
	return w
}

// app creates an app integration of typ in actor's brand.
func (w *world) app(t testing.TB, actor auth.Principal, typ integrations.Type) integrations.AppIntegration {
	t.Helper()
	a, err := w.svc.CreateAppIntegration(t.Context(), actor, integrations.AppIntegrationInput{
		Type: typ, Name: string(typ) + " app", Domain: "https://" + string(typ) + ".example.com",
	})
	require.NoError(t, err)
	return a
}

func (w *world) analyticsInput(appID string) integrations.AnalyticsInput {
	return integrations.AnalyticsInput{
		AppIntegrationID: &appID, TrackingID: ptr("G-12345"), APIKey: ptr("ak_live_0123456789abcdef"),
		APISecret: ptr("as_secret_value_987654"), Metadata: ptr("env=prod"),
	}
}

// analytics creates an analytics configuration in brand.
func (w *world) analytics(t testing.TB, mutate ...func(*integrations.AnalyticsInput)) integrations.Analytics {
	t.Helper()
	in := w.analyticsInput(w.analyticsApp.ID)
	for _, m := range mutate {
		m(&in)
	}
	a, err := w.svc.CreateAnalytics(t.Context(), w.admin, in)
	require.NoError(t, err)
	return a
}

func (w *world) gatewayInput(appID string) integrations.PaymentGatewayInput {
	return integrations.PaymentGatewayInput{
		AppIntegrationID: &appID, Name: ptr("Stripe"), IPNListenerLink: ptr("https://shop.example.com/ipn"),
		CancelLink: ptr("https://shop.example.com/cancel"), ReturnLink: ptr("https://shop.example.com/return"),
		CancelLinkWithoutLogin: ptr("https://shop.example.com/cancel-guest"),
		PublicKey:              ptr("pk_live_abc"), PrivateKey: ptr("sk_live_private_424242"),
	}
}

// gateway creates a payment-gateway configuration in brand.
func (w *world) gateway(t testing.TB, mutate ...func(*integrations.PaymentGatewayInput)) integrations.PaymentGateway {
	t.Helper()
	in := w.gatewayInput(w.gatewayApp.ID)
	for _, m := range mutate {
		m(&in)
	}
	p, err := w.svc.CreatePaymentGateway(t.Context(), w.admin, in)
	require.NoError(t, err)
	return p
}

func ptr[T any](v T) *T { return &v }

// fieldCodes returns field → code of an invalid-input error.
func fieldCodes(t *testing.T, err error) map[string]string {
	t.Helper()
	var e *envelope.Error
	require.ErrorAs(t, err, &e)
	require.Equal(t, envelope.KindInvalid, e.Kind, "%v", err)
	out := map[string]string{}
	for _, f := range e.Fields {
		out[f.Field] = f.Code
	}
	return out
}

// forEachStore runs fn on a fresh world of every store.
func forEachStore(t *testing.T, fn func(t *testing.T, w *world)) {
	t.Helper()
	for name, newStore := range stores {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fn(t, newWorld(t, newStore))
		})
	}
}

// recorder collects the events of a service.
type recorder struct {
	mu     sync.Mutex
	events []integrations.IntegrationUpdated
}

func (r *recorder) hook(_ context.Context, ev integrations.IntegrationUpdated) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, ev)
}

func (r *recorder) all() []integrations.IntegrationUpdated {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]integrations.IntegrationUpdated(nil), r.events...)
}

func assertKind(t *testing.T, want envelope.Kind, err error, msg string) {
	t.Helper()
	assert.Equal(t, want, envelope.KindOf(err), "%s: %v", msg, err)
}
