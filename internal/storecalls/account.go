package storecalls

import (
	"context"
	"github.com/brandbase/brandbase/outbox"
	"time"

	"github.com/brandbase/brandbase/auth"
)

// auth.AccountStore

func (s *store) BrandSettings(ctx context.Context, brandID string) (auth.BrandSettings, error) {
	return call(ctx, s.rec, "BrandSettings", func(ctx context.Context) (auth.BrandSettings, error) {
		return s.b.BrandSettings(ctx, brandID)
	})
}

func (s *store) SetBrandSettings(ctx context.Context, brandID string, bs auth.BrandSettings, out ...outbox.Item) error {
	return call0(ctx, s.rec, "SetBrandSettings", func(ctx context.Context) error {
		return s.b.SetBrandSettings(ctx, brandID, bs, out...)
	})
}

func (s *store) PutResetToken(ctx context.Context, t auth.ResetToken, out ...outbox.Item) error {
	return call0(ctx, s.rec, "PutResetToken", func(ctx context.Context) error { return s.b.PutResetToken(ctx, t, out...) })
}

func (s *store) UseResetToken(ctx context.Context, hash []byte, at time.Time, fn func(*auth.UserRecord) error, out ...outbox.Item) (auth.UserRecord, error) {
	return call(ctx, s.rec, "UseResetToken", func(ctx context.Context) (auth.UserRecord, error) {
		return s.b.UseResetToken(ctx, hash, at, fn, out...)
	})
}
