package postgres_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/internal/testkit/pgtest"
)

// TestKeysNoColumnHolds looks records up by keys that no text column can
// hold (NUL, invalid UTF-8): they are not found, as on every store, rather
// than failing.
func TestKeysNoColumnHolds(t *testing.T) {
	t.Parallel()
	s := open(t, pgtest.Schema(t))
	ctx := t.Context()
	for _, key := range []string{"a\x00b", "\xff\xfe"} {
		_, err := s.BrandByURL(ctx, key)
		assert.ErrorIs(t, err, auth.ErrBrandNotFound, "%q", key)
		_, err = s.BrandByID(ctx, key)
		assert.ErrorIs(t, err, auth.ErrBrandNotFound, "%q", key)
		_, err = s.UserByUsername(ctx, key, key)
		assert.ErrorIs(t, err, auth.ErrUserNotFound, "%q", key)
		_, err = s.DeviceByCode(ctx, key, key)
		assert.ErrorIs(t, err, auth.ErrDeviceNotFound, "%q", key)
		_, err = s.ConfigByID(ctx, integrations.KindAnalytics, key, key)
		assert.ErrorIs(t, err, integrations.ErrConfigNotFound, "%q", key)
	}
}
