package storecalls

import (
	"context"
	"time"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/outbox"
)

// auth.AdminStore

func (s *store) ListUserPage(ctx context.Context, brandID string, f auth.UserFilter) ([]auth.UserRecord, int, error) {
	ctx, c := s.rec.Start(ctx, "ListUserPage")
	recs, total, err := s.b.ListUserPage(ctx, brandID, f)
	c.End(ctx, err)
	return recs, total, err
}

func (s *store) DeleteUser(ctx context.Context, id string, check func(auth.UserRecord) error, out ...outbox.Item) (auth.UserRecord, error) {
	return call(ctx, s.rec, "DeleteUser", func(ctx context.Context) (auth.UserRecord, error) {
		return s.b.DeleteUser(ctx, id, check, out...)
	})
}

func (s *store) CountUsersByStatus(ctx context.Context, brandID string) (map[auth.Status]int, error) {
	return call(ctx, s.rec, "CountUsersByStatus", func(ctx context.Context) (map[auth.Status]int, error) {
		return s.b.CountUsersByStatus(ctx, brandID)
	})
}

func (s *store) CountUsersCreated(ctx context.Context, brandID string, bounds []time.Time) ([]int, error) {
	return call(ctx, s.rec, "CountUsersCreated", func(ctx context.Context) ([]int, error) {
		return s.b.CountUsersCreated(ctx, brandID, bounds)
	})
}
