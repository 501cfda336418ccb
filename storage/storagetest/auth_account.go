package storagetest

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/storage"
)

// runAccount runs the auth.AccountStore scenarios: brand settings and
// password-reset tokens.
func runAccount(t *testing.T, newStore NewStore) {
	runScenarios(t, newStore, []scenario{
		{"SettingsDefault", testSettingsDefault},
		{"SettingsSetAndReplace", testSettingsSetAndReplace},
		{"SettingsUnknownBrand", testSettingsUnknownBrand},
	})
}

// accountCalls returns one call of every auth.AccountStore method, named,
// on the records of c (for the cancellation scenario).
func accountCalls(s storage.Storage, c cancelled) map[string]func(ctx context.Context) error {
	return map[string]func(ctx context.Context) error{
		"BrandSettings": func(ctx context.Context) error { _, err := s.BrandSettings(ctx, c.b.ID); return err },
		"SetBrandSettings": func(ctx context.Context) error {
			return s.SetBrandSettings(ctx, c.b.ID, auth.BrandSettings{RegistrationOpen: true})
		},
	}
}

// testSettingsDefault checks that a brand whose settings were never set
// has the zero BrandSettings (sign-up closed, no cap, no origin).
func testSettingsDefault(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	b := seedBrand(t, s, "defaults.example.com")
	got, err := s.BrandSettings(t.Context(), b.ID)
	require.NoError(t, err)
	assert.Equal(t, auth.BrandSettings{}, got)
}

// testSettingsSetAndReplace checks that settings round-trip (every
// field, the origins in order), that a second write replaces the first
// whole, and that one brand's settings leave another's alone.
func testSettingsSetAndReplace(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	ctx := t.Context()
	b := seedBrand(t, s, "settings.example.com")
	other := seedBrand(t, s, "other.example.com")

	first := auth.BrandSettings{RegistrationOpen: true, MaxDevicesPerUser: 2,
		ResetLinkOrigins: []string{"http://localhost:5173", "https://app.example.com", "http://127.0.0.1:5173"}}
	require.NoError(t, s.SetBrandSettings(ctx, b.ID, first))
	got, err := s.BrandSettings(ctx, b.ID)
	require.NoError(t, err)
	assert.Equal(t, first, got)

	second := auth.BrandSettings{MaxDevicesPerUser: 7}
	require.NoError(t, s.SetBrandSettings(ctx, b.ID, second))
	got, err = s.BrandSettings(ctx, b.ID)
	require.NoError(t, err)
	assert.Equal(t, second, got, "a write replaces the settings whole; no origin reads back as nil")

	got, err = s.BrandSettings(ctx, other.ID)
	require.NoError(t, err)
	assert.Equal(t, auth.BrandSettings{}, got, "another brand keeps its defaults")
}

// testSettingsUnknownBrand checks that reading or writing the settings
// of a brand that does not exist is KindNotFound, and writes nothing.
func testSettingsUnknownBrand(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	ctx := t.Context()
	ghost := uuid.NewString()
	_, err := s.BrandSettings(ctx, ghost)
	assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err))
	assert.ErrorIs(t, err, auth.ErrBrandNotFound)
	err = s.SetBrandSettings(ctx, ghost, auth.BrandSettings{RegistrationOpen: true})
	assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err))
	assert.ErrorIs(t, err, auth.ErrBrandNotFound)
}
