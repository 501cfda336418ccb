package storecalls

import (
	"context"
	"time"

	"github.com/brandbase/brandbase/outbox"
)

// outbox.Store

func (s *store) Enqueue(ctx context.Context, items ...outbox.Item) error {
	return call0(ctx, s.rec, "Enqueue", func(ctx context.Context) error { return s.b.Enqueue(ctx, items...) })
}

func (s *store) Claim(ctx context.Context, c outbox.Claim) ([]outbox.Item, error) {
	return call(ctx, s.rec, "Claim", func(ctx context.Context) ([]outbox.Item, error) { return s.b.Claim(ctx, c) })
}

func (s *store) Settle(ctx context.Context, st outbox.Settlement) error {
	return call0(ctx, s.rec, "Settle", func(ctx context.Context) error { return s.b.Settle(ctx, st) })
}

func (s *store) FanOut(ctx context.Context, owner string, ev outbox.Item, at time.Time, deliveries []outbox.Item) error {
	return call0(ctx, s.rec, "FanOut", func(ctx context.Context) error { return s.b.FanOut(ctx, owner, ev, at, deliveries) })
}

func (s *store) Items(ctx context.Context, f outbox.Filter) ([]outbox.Item, error) {
	return call(ctx, s.rec, "Items", func(ctx context.Context) ([]outbox.Item, error) { return s.b.Items(ctx, f) })
}

func (s *store) Replay(ctx context.Context, ref outbox.Ref, at time.Time) error {
	return call0(ctx, s.rec, "Replay", func(ctx context.Context) error { return s.b.Replay(ctx, ref, at) })
}

func (s *store) Depth(ctx context.Context) (outbox.Depth, error) {
	return call(ctx, s.rec, "Depth", s.b.Depth)
}

func (s *store) Prune(ctx context.Context, before time.Time, limit int) (int, error) {
	return call(ctx, s.rec, "Prune", func(ctx context.Context) (int, error) { return s.b.Prune(ctx, before, limit) })
}
