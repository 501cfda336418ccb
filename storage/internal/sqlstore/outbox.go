package sqlstore

import (
	"context"

	"github.com/brandbase/brandbase/outbox"
)

// enqueue writes items to the outbox in tx, the transaction of the change
// that causes them: pending, due at their creation. outbox.ErrItemExists
// when one's reference is taken.
func (c *Core) enqueue(ctx context.Context, tx DB, items []outbox.Item) error {
	for _, it := range items {
		if _, err := c.exec(ctx, tx, outbox.ErrItemExists, nil, `INSERT INTO outbox
			(channel, target, id, brand_id, topic, subject_id, payload, created_at, next_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			string(it.Channel), it.Target, it.ID, it.BrandID, it.Topic, it.SubjectID, it.Payload,
			c.d.Time(it.CreatedAt), c.d.Time(it.CreatedAt)); err != nil {
			return err
		}
	}
	return nil
}
