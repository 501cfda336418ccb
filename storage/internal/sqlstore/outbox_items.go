package sqlstore

// PROVISIONAL (branch h-events): the events' tests read the outbox back
// through outbox.Store's Items before the queue's branch (h-outbox) lands.
// At the merge, h-outbox's Items replaces this file: delete it.

import (
	"context"

	"github.com/brandbase/brandbase/outbox"
)

// Items lists the items of f.BrandID (and f.Channel when set), newest
// first.
func (c *Core) Items(ctx context.Context, f outbox.Filter) ([]outbox.Item, error) {
	limit := f.Limit
	if limit <= 0 || limit > 1000 {
		limit = 100
	}
	return QueryAll(ctx, c, c.r, func(row Scanner) (outbox.Item, error) {
		var it outbox.Item
		var ch, st string
		err := row.Scan(&it.Seq, &ch, &it.Target, &it.ID, &it.BrandID, &it.Topic, &it.SubjectID, &it.Payload,
			c.d.ScanTime(&it.CreatedAt), &st)
		it.Channel, it.Status = outbox.Channel(ch), outbox.Status(st)
		return it, err
	}, `SELECT seq, channel, target, id, brand_id, topic, subject_id, payload, created_at, status FROM outbox
		WHERE brand_id = ? AND (CAST(? AS TEXT) = '' OR channel = ?) ORDER BY seq DESC LIMIT ?`,
		f.BrandID, string(f.Channel), string(f.Channel), limit)
}
