package auth_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/storage/memory"
)

func TestNormalizeBrandURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want string
		ok   bool
	}{
		{"shop.example.com", "shop.example.com", true},
		{"https://Shop.Example.com/", "shop.example.com", true},
		{"  http://SHOP.example.com./cart?x=1#top ", "shop.example.com", true},
		{"//shop.example.com/path", "shop.example.com", true},
		{"https://user:pw@shop.example.com", "shop.example.com", true},
		{"Shop.Example.com:8443", "shop.example.com:8443", true},
		{"https://localhost:8080/api", "localhost:8080", true},
		{"[::1]:8080", "[::1]:8080", true},
		{"", "", false},
		{"   ", "", false},
		{"https://", "", false},
		{"exa mple.com", "", false},
		{"shop.example.com:abc", "", false},
		{"shop.example.com'--", "", false},
		{"bad\x00host", "", false},
	}
	for _, tt := range tests {
		got, ok := auth.NormalizeBrandURL(tt.in)
		assert.Equal(t, tt.ok, ok, "%q", tt.in)
		assert.Equal(t, tt.want, got, "%q", tt.in)
	}
}

func TestCreateBrandValidation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		nb     auth.NewBrand
		fields []string
	}{
		{"missing everything", auth.NewBrand{}, []string{"url", "name"}},
		{"bad url", auth.NewBrand{URL: "not a domain", Name: "X"}, []string{"url"}},
		{"bad currency", auth.NewBrand{URL: "x.example.com", Name: "X", DefaultCurrency: "dollars!"}, []string{"defaultCurrency"}},
		{"bad status", auth.NewBrand{URL: "x.example.com", Name: "X", Status: "Paused"}, []string{"status"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := memory.New(t.Context())
			require.NoError(t, err)
			_, err = auth.NewService(s).CreateBrand(t.Context(), tt.nb)
			var e *envelope.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, envelope.KindInvalid, e.Kind)
			var fields []string
			for _, f := range e.Fields {
				fields = append(fields, f.Field)
			}
			assert.ElementsMatch(t, tt.fields, fields)
		})
	}
}

func TestCreateAndResolveBrand(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, err := memory.New(ctx)
	require.NoError(t, err)
	svc := auth.NewService(s)

	b, err := svc.CreateBrand(ctx, auth.NewBrand{URL: "HTTPS://Shop.Example.com/", Name: " Shop ", DefaultCurrency: "eur"})
	require.NoError(t, err)
	assert.Equal(t, "shop.example.com", b.URL)
	assert.Equal(t, "Shop", b.Name)
	assert.Equal(t, "EUR", b.DefaultCurrency)
	assert.Equal(t, auth.StatusActive, b.Status)
	assert.NotEmpty(t, b.ID)

	_, err = svc.CreateBrand(ctx, auth.NewBrand{URL: "shop.example.com", Name: "Again"})
	assert.Equal(t, envelope.KindConflict, envelope.KindOf(err))

	plain, err := svc.CreateBrand(ctx, auth.NewBrand{URL: "plain.example.com", Name: "Plain"})
	require.NoError(t, err)
	assert.Equal(t, auth.DefaultCurrency, plain.DefaultCurrency)

	got, err := svc.ResolveBrand(ctx, "shop.EXAMPLE.com.")
	require.NoError(t, err)
	assert.Equal(t, b, got)

	_, err = svc.ResolveBrand(ctx, "")
	assert.Equal(t, auth.CodeBrandURLRequired, envelope.CodeOf(err))
	_, err = svc.ResolveBrand(ctx, "ghost.example.com")
	assert.Equal(t, auth.CodeBrandNotFound, envelope.CodeOf(err))

	_, err = svc.SetBrandStatus(ctx, b.ID, "inactive")
	require.NoError(t, err)
	_, err = svc.ResolveBrand(ctx, "shop.example.com")
	assert.Equal(t, auth.CodeBrandInactive, envelope.CodeOf(err))
	assert.Equal(t, envelope.KindForbidden, envelope.KindOf(err))

	_, err = svc.SetBrandStatus(ctx, b.ID, "Paused")
	assert.Equal(t, envelope.KindInvalid, envelope.KindOf(err))
	_, err = svc.SetBrandStatus(ctx, "missing", auth.StatusActive)
	assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err))

	list, err := svc.Brands(ctx)
	require.NoError(t, err)
	assert.Len(t, list, 2)
}

func TestResolveBrandCache(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, err := memory.New(ctx)
	require.NoError(t, err)
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	svc := auth.NewService(s, auth.WithClock(clock), auth.WithKeyCache(10*time.Second, 100))
	other := auth.NewService(s, auth.WithClock(clock)) // another process sharing the store

	b, err := svc.CreateBrand(ctx, auth.NewBrand{URL: "cached.example.com", Name: "Cached"})
	require.NoError(t, err)
	_, err = svc.ResolveBrand(ctx, "cached.example.com")
	require.NoError(t, err)

	_, err = other.SetBrandStatus(ctx, b.ID, auth.StatusInactive)
	require.NoError(t, err)
	_, err = svc.ResolveBrand(ctx, "cached.example.com")
	assert.NoError(t, err, "another process's change is not seen within the cache TTL")

	now = now.Add(11 * time.Second)
	_, err = svc.ResolveBrand(ctx, "cached.example.com")
	assert.Equal(t, auth.CodeBrandInactive, envelope.CodeOf(err), "seen once the TTL has passed")

	_, err = svc.SetBrandStatus(ctx, b.ID, auth.StatusActive)
	require.NoError(t, err)
	_, err = svc.ResolveBrand(ctx, "cached.example.com")
	assert.NoError(t, err, "a change through the same service is seen at once")
}

// TestTextNoStoreCanHold checks that text no store can hold (a NUL, which
// PostgreSQL's text refuses, or invalid UTF-8) is a field error on every
// store, not a store failure: a brand name, and a login's device headers.
func TestTextNoStoreCanHold(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		_, err := e.svc.CreateBrand(ctx, auth.NewBrand{URL: "nul.example.com", Name: "Nul\x00Shop"})
		assert.ElementsMatch(t, []string{"name:invalid_format"}, fieldsOf(t, err))
		_, err = e.svc.ResolveBrand(ctx, "nul.example.com")
		assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err), "nothing stored")
		_, err = e.svc.Login(ctx, e.brand, auth.LoginRequest{Username: "admin", Password: adminPassword,
			Device: auth.DeviceInfo{Code: "phone-1", Name: "My\x00Phone", OS: "\xffOS"}})
		assert.ElementsMatch(t, []string{"X-Device-Name:invalid_format", "X-Os-Device:too_long"}, fieldsOf(t, err))
	})
}
