package auth_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
)

func TestUpdateBrand(t *testing.T) {
	forEachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		_, err := e.svc.ResolveBrand(ctx, "shop.example.com") // cached
		require.NoError(t, err)
		b, err := e.svc.UpdateBrand(ctx, e.brand.ID, auth.BrandUpdate{URL: new("https://Shop2.Example.com/"),
			Name: new(" Shop Two "), DefaultCurrency: new("eur")})
		require.NoError(t, err)
		assert.Equal(t, "shop2.example.com", b.URL)
		assert.Equal(t, "Shop Two", b.Name)
		assert.Equal(t, "EUR", b.DefaultCurrency)
		assert.Equal(t, auth.StatusActive, b.Status, "a field not named keeps its value")

		got, err := e.svc.ResolveBrand(ctx, "shop2.example.com")
		require.NoError(t, err, "the new URL is seen at once")
		assert.Equal(t, b, got)
		_, err = e.svc.ResolveBrand(ctx, "shop.example.com")
		assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err), "the old URL is forgotten at once")

		_, err = e.svc.UpdateBrand(ctx, e.brand.ID, auth.BrandUpdate{URL: new("other.example.com")})
		assert.ErrorIs(t, err, auth.ErrBrandExists)
		_, err = e.svc.UpdateBrand(ctx, e.brand.ID, auth.BrandUpdate{Name: new(" "), Status: new(auth.Status("Paused"))})
		assert.Equal(t, envelope.KindInvalid, envelope.KindOf(err))
		_, err = e.svc.UpdateBrand(ctx, "no-such-brand", auth.BrandUpdate{Name: new("x")})
		assert.ErrorIs(t, err, auth.ErrBrandNotFound)

		b, err = e.svc.UpdateBrand(ctx, e.brand.ID, auth.BrandUpdate{Status: new(auth.Status("inactive"))})
		require.NoError(t, err)
		assert.Equal(t, auth.StatusInactive, b.Status)
	})
}
