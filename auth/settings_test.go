package auth_test

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
)

func TestNormalizeOrigin(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want string
		ok   bool
	}{
		{"https://shop.example.com", "https://shop.example.com", true},
		{"HTTPS://Shop.Example.com/", "https://shop.example.com", true},
		{"http://localhost:5173", "http://localhost:5173", true},
		{"http://127.0.0.1:5173", "http://127.0.0.1:5173", true},
		{"http://[::1]:5173", "http://[::1]:5173", true},
		{"", "", false},
		{"shop.example.com", "", false},
		{"//shop.example.com", "", false},
		{"ftp://shop.example.com", "", false},
		{"javascript:alert(1)", "", false},
		{"https://shop.example.com/reset", "", false},
		{"https://shop.example.com?x=1", "", false},
		{"https://shop.example.com?", "", false},
		{"https://shop.example.com#top", "", false},
		{"https://user@shop.example.com", "", false},
		{"https://shop.example.com.", "", false},
		{"https://shop.example.com:", "", false},
		{"https://exa mple.com", "", false},
		{" https://shop.example.com", "", false},
		{"https://", "", false},
	}
	for _, tt := range tests {
		got, ok := auth.NormalizeOrigin(tt.in)
		assert.Equal(t, tt.ok, ok, "%q", tt.in)
		assert.Equal(t, tt.want, got, "%q", tt.in)
	}
}

func TestSetBrandSettingsValidation(t *testing.T) {
	t.Parallel()
	many := make([]string, auth.MaxResetLinkOrigins+1)
	for i := range many {
		many[i] = "https://a" + string(rune('a'+i)) + ".example.com"
	}
	tests := []struct {
		name   string
		bs     auth.BrandSettings
		fields []string
	}{
		{"negative cap", auth.BrandSettings{MaxDevicesPerUser: -1}, []string{"maxDevicesPerUser"}},
		{"cap too large", auth.BrandSettings{MaxDevicesPerUser: auth.MaxDeviceCap + 1}, []string{"maxDevicesPerUser"}},
		{"origin with a path", auth.BrandSettings{ResetLinkOrigins: []string{"https://x.example.com/reset"}}, []string{"resetLinkOrigins"}},
		{"origin of another scheme", auth.BrandSettings{ResetLinkOrigins: []string{"ftp://x.example.com"}}, []string{"resetLinkOrigins"}},
		{"too many origins", auth.BrandSettings{ResetLinkOrigins: many}, []string{"resetLinkOrigins"}},
		{"both", auth.BrandSettings{MaxDevicesPerUser: -5, ResetLinkOrigins: []string{"x"}}, []string{"maxDevicesPerUser", "resetLinkOrigins"}},
	}
	e := newEnv(t, stores["memory"])
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := e.svc.SetBrandSettings(t.Context(), e.brand.ID, tt.bs)
			require.Equal(t, envelope.KindInvalid, envelope.KindOf(err))
			var fields []string
			for _, it := range envelope.As(err).Fields {
				fields = append(fields, it.Field)
			}
			assert.Equal(t, tt.fields, fields)
			got, err := e.svc.BrandSettings(t.Context(), e.brand.ID)
			require.NoError(t, err)
			assert.Equal(t, auth.BrandSettings{ResetLinkOrigins: []string{}}, got, "nothing written")
		})
	}
}

// TestBrandSettings checks the defaults, a write read back in canonical
// form, an unknown brand, and that the caller's slice is its own.
func TestBrandSettings(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		got, err := e.svc.BrandSettings(ctx, e.brand.ID)
		require.NoError(t, err)
		assert.Equal(t, auth.BrandSettings{ResetLinkOrigins: []string{}}, got, "closed, no cap, no origin by default")

		require.NoError(t, e.svc.SetBrandSettings(ctx, e.brand.ID, auth.BrandSettings{RegistrationOpen: true,
			MaxDevicesPerUser: 2, ResetLinkOrigins: []string{"HTTP://LocalHost:5173/", "http://localhost:5173", "https://app.example.com"}}))
		got, err = e.svc.BrandSettings(ctx, e.brand.ID)
		require.NoError(t, err)
		want := auth.BrandSettings{RegistrationOpen: true, MaxDevicesPerUser: 2,
			ResetLinkOrigins: []string{"http://localhost:5173", "https://app.example.com"}}
		assert.Equal(t, want, got, "origins canonical and distinct, in the order given")

		got.ResetLinkOrigins[0] = "https://evil.example.com"
		again, err := e.svc.BrandSettings(ctx, e.brand.ID)
		require.NoError(t, err)
		assert.Equal(t, want, again, "the slice returned is the caller's own")

		other, err := e.svc.BrandSettings(ctx, e.other.ID)
		require.NoError(t, err)
		assert.False(t, other.RegistrationOpen, "another brand keeps its defaults")

		ghost := uuid.NewString()
		_, err = e.svc.BrandSettings(ctx, ghost)
		assert.ErrorIs(t, err, auth.ErrBrandNotFound)
		assert.ErrorIs(t, e.svc.SetBrandSettings(ctx, ghost, auth.BrandSettings{}), auth.ErrBrandNotFound)
	})
}

// TestBrandSettingsCachedUntilForgotten checks that settings are cached,
// so that a change written by another process (here: to the store
// directly) is seen once Forget hears of it, by a ChangeBrand of the
// brand or a ChangeAll, and not before.
func TestBrandSettingsCachedUntilForgotten(t *testing.T) {
	t.Parallel()
	e := newEnv(t, stores["sqlite"])
	ctx := t.Context()
	read := func() auth.BrandSettings {
		t.Helper()
		bs, err := e.svc.BrandSettings(ctx, e.brand.ID)
		require.NoError(t, err)
		return bs
	}
	require.False(t, read().RegistrationOpen)

	require.NoError(t, e.store.SetBrandSettings(ctx, e.brand.ID, auth.BrandSettings{RegistrationOpen: true}))
	assert.False(t, read().RegistrationOpen, "cached")
	e.svc.Forget(auth.Change{Kind: auth.ChangeBrand, ID: e.other.ID})
	assert.False(t, read().RegistrationOpen, "another brand's change leaves it cached")
	e.svc.Forget(auth.Change{Kind: auth.ChangeBrand, ID: e.brand.ID})
	assert.True(t, read().RegistrationOpen, "seen once its brand's change is heard")

	require.NoError(t, e.store.SetBrandSettings(ctx, e.brand.ID, auth.BrandSettings{MaxDevicesPerUser: 3}))
	assert.True(t, read().RegistrationOpen, "cached")
	e.svc.Forget(auth.Change{Kind: auth.ChangeAll})
	assert.Equal(t, 3, read().MaxDevicesPerUser, "seen once every cache is dropped")
}
