package storecalls

import (
	"context"

	"github.com/brandbase/brandbase/auth"
)

// auth.AccountStore

func (s *store) BrandSettings(ctx context.Context, brandID string) (auth.BrandSettings, error) {
	return call(ctx, s.rec, "BrandSettings", func(ctx context.Context) (auth.BrandSettings, error) {
		return s.b.BrandSettings(ctx, brandID)
	})
}

func (s *store) SetBrandSettings(ctx context.Context, brandID string, bs auth.BrandSettings) error {
	return call0(ctx, s.rec, "SetBrandSettings", func(ctx context.Context) error {
		return s.b.SetBrandSettings(ctx, brandID, bs)
	})
}
