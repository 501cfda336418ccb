package storecalls

import (
	"context"

	"github.com/brandbase/brandbase/outbox"
	"github.com/brandbase/brandbase/webhooks"
)

// webhooks.Store

func (s *store) CreateWebhook(ctx context.Context, r webhooks.Record) error {
	return call0(ctx, s.rec, "CreateWebhook", func(ctx context.Context) error { return s.b.CreateWebhook(ctx, r) })
}

func (s *store) Webhook(ctx context.Context, brandID, id string) (webhooks.Record, error) {
	return call(ctx, s.rec, "Webhook", func(ctx context.Context) (webhooks.Record, error) {
		return s.b.Webhook(ctx, brandID, id)
	})
}

func (s *store) Webhooks(ctx context.Context, brandID string) ([]webhooks.Record, error) {
	return call(ctx, s.rec, "Webhooks", func(ctx context.Context) ([]webhooks.Record, error) {
		return s.b.Webhooks(ctx, brandID)
	})
}

func (s *store) UpdateWebhook(ctx context.Context, brandID, id string, fn func(*webhooks.Record) error, out ...outbox.Item) (webhooks.Record, error) {
	return call(ctx, s.rec, "UpdateWebhook", func(ctx context.Context) (webhooks.Record, error) {
		return s.b.UpdateWebhook(ctx, brandID, id, fn, out...)
	})
}

func (s *store) DeleteWebhook(ctx context.Context, brandID, id string) error {
	return call0(ctx, s.rec, "DeleteWebhook", func(ctx context.Context) error { return s.b.DeleteWebhook(ctx, brandID, id) })
}

func (s *store) WebhooksAfter(ctx context.Context, after string, limit int) ([]webhooks.Record, error) {
	return call(ctx, s.rec, "WebhooksAfter", func(ctx context.Context) ([]webhooks.Record, error) {
		return s.b.WebhooksAfter(ctx, after, limit)
	})
}
