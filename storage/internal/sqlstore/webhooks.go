package sqlstore

import (
	"context"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/outbox"
	"github.com/brandbase/brandbase/webhooks"
)

var _ webhooks.Store = (*Core)(nil)

// webhookColumns are the columns of the webhooks table, in scanWebhook's
// order.
const webhookColumns = `id, brand_id, url, event_types, enabled, description, disabled_reason, secret,
	old_secret, old_secret_until, failing_since, created_at, updated_at`

// scanWebhook reads a row of webhookColumns.
func (c *Core) scanWebhook(row Scanner) (webhooks.Record, error) {
	var r webhooks.Record
	err := row.Scan(&r.ID, &r.BrandID, &r.URL, c.d.ScanList(&r.EventTypes), &r.Enabled, &r.Description,
		&r.DisabledReason, &r.Secret, &r.OldSecret, c.d.ScanTime(&r.OldSecretUntil), c.d.ScanTime(&r.FailingSince),
		c.d.ScanTime(&r.CreatedAt), c.d.ScanTime(&r.UpdatedAt))
	if len(r.OldSecret) == 0 {
		r.OldSecret = nil
	}
	return r, err
}

// CreateWebhook implements webhooks.Store: webhooks.ErrEndpointExists if
// the ID is taken, auth.ErrBrandNotFound if the brand is not stored.
func (c *Core) CreateWebhook(ctx context.Context, r webhooks.Record) error {
	return c.write(ctx, func(tx DB) error {
		_, err := c.exec(ctx, tx, webhooks.ErrEndpointExists, auth.ErrBrandNotFound,
			`INSERT INTO webhooks (`+webhookColumns+`) VALUES (`+placeholders(13)+`)`, c.webhookArgs(r)...)
		return err
	})
}

// webhookArgs returns r's values in webhookColumns' order.
func (c *Core) webhookArgs(r webhooks.Record) []any {
	var old any
	if len(r.OldSecret) > 0 {
		old = r.OldSecret
	}
	types := r.EventTypes
	if types == nil {
		types = []string{}
	}
	return []any{r.ID, r.BrandID, r.URL, c.d.List(types), r.Enabled, r.Description, r.DisabledReason, r.Secret,
		old, c.nullTime(r.OldSecretUntil), c.nullTime(r.FailingSince), c.d.Time(r.CreatedAt), c.d.Time(r.UpdatedAt)}
}

// Webhook implements webhooks.Store: webhooks.ErrEndpointNotFound.
func (c *Core) Webhook(ctx context.Context, brandID, id string) (webhooks.Record, error) {
	return queryOne(ctx, c, c.r, c.scanWebhook, webhooks.ErrEndpointNotFound,
		`SELECT `+webhookColumns+` FROM webhooks WHERE brand_id = ? AND id = ?`, brandID, id)
}

// Webhooks implements webhooks.Store.
func (c *Core) Webhooks(ctx context.Context, brandID string) ([]webhooks.Record, error) {
	return QueryAll(ctx, c, c.r, c.scanWebhook,
		`SELECT `+webhookColumns+` FROM webhooks WHERE brand_id = ? ORDER BY created_at, id`, brandID)
}

// WebhooksAfter implements webhooks.Store.
func (c *Core) WebhooksAfter(ctx context.Context, after string, limit int) ([]webhooks.Record, error) {
	return QueryAll(ctx, c, c.r, c.scanWebhook,
		`SELECT `+webhookColumns+` FROM webhooks WHERE id > ? ORDER BY id LIMIT ?`, after, limit)
}

// UpdateWebhook implements webhooks.Store: webhooks.ErrEndpointNotFound,
// or fn's error as it is (nothing written).
func (c *Core) UpdateWebhook(ctx context.Context, brandID, id string, fn func(*webhooks.Record) error, out ...outbox.Item) (webhooks.Record, error) {
	var r webhooks.Record
	var fnErr error
	err := c.write(ctx, func(tx DB) error {
		old, err := queryOne(ctx, c, tx, c.scanWebhook, webhooks.ErrEndpointNotFound,
			`SELECT `+webhookColumns+` FROM webhooks WHERE brand_id = ? AND id = ?`+c.d.ForUpdate(), brandID, id)
		if err != nil {
			return err
		}
		r = old
		r.EventTypes = append([]string(nil), old.EventTypes...)
		if fnErr = fn(&r); fnErr != nil {
			return fnErr
		}
		r.ID, r.BrandID, r.CreatedAt = old.ID, old.BrandID, old.CreatedAt
		args := c.webhookArgs(r)
		if _, err := c.exec(ctx, tx, nil, nil, `UPDATE webhooks SET url = ?, event_types = ?, enabled = ?,
			description = ?, disabled_reason = ?, secret = ?, old_secret = ?, old_secret_until = ?, failing_since = ?,
			updated_at = ? WHERE id = ?`, append(args[2:11:11], args[12], r.ID)...); err != nil {
			return err
		}
		return c.enqueue(ctx, tx, out)
	})
	if fnErr != nil {
		return webhooks.Record{}, fnErr
	}
	if err != nil {
		return webhooks.Record{}, err
	}
	return r, nil
}

// DeleteWebhook implements webhooks.Store: webhooks.ErrEndpointNotFound.
func (c *Core) DeleteWebhook(ctx context.Context, brandID, id string) error {
	return c.write(ctx, func(tx DB) error {
		return c.execOne(ctx, tx, webhooks.ErrEndpointNotFound, nil,
			`DELETE FROM webhooks WHERE brand_id = ? AND id = ?`, brandID, id)
	})
}
