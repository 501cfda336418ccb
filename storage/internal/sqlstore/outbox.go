package sqlstore

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/outbox"
)

// The outbox (outbox.Store). A claim is two statements in one write
// transaction. The first picks candidates without locking: the brands
// with pending items, walked one index seek each (a skip scan of the
// partial index outbox_brand_due), and for each brand its first due,
// unclaimed items in (next_at, seq) order, at most PerBrand; of those the
// oldest are kept, twice the claim's Limit. Its cost grows with the
// brands that have pending items and with the claim's size, never with a
// brand's backlog, and a brand left out (SkipBrands) costs nothing. The
// second locks what is still claimable of them (SkipLocked: another
// claimer's rows are passed over), the oldest first up to Limit, and marks
// them claimed, returning them.

// OutboxColumns are the columns of an outbox item, in the order scanItem
// reads them.
const OutboxColumns = `seq, channel, target, id, brand_id, topic, subject_id, payload, created_at, status,
	attempts, next_at, last_code, last_error, delivered_at`

// maxErrorBytes bounds the last error an item keeps.
const maxErrorBytes = 1024

var (
	_ outbox.Store = (*Core)(nil)
)

// enqueue writes items to the outbox in tx, the transaction of the change
// that causes them: pending, due at their creation. outbox.ErrItemExists
// when one's reference is taken.
func (c *Core) enqueue(ctx context.Context, tx DB, items []outbox.Item) error {
	return c.insertItems(ctx, tx, items, "")
}

// insertItems inserts items in tx with the statement's suffix (an ON
// CONFLICT clause, or "").
func (c *Core) insertItems(ctx context.Context, tx DB, items []outbox.Item, suffix string) error {
	for _, it := range items {
		if _, err := c.exec(ctx, tx, outbox.ErrItemExists, nil, `INSERT INTO outbox
			(channel, target, id, brand_id, topic, subject_id, payload, created_at, next_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`+suffix,
			string(it.Channel), it.Target, it.ID, it.BrandID, it.Topic, it.SubjectID, it.Payload,
			c.d.Time(it.CreatedAt), c.d.Time(it.CreatedAt)); err != nil {
			return err
		}
	}
	return nil
}

// scanItem reads an item selected with OutboxColumns.
func (c *Core) scanItem(row Scanner) (outbox.Item, error) {
	var it outbox.Item
	var channel, status string
	if err := row.Scan(&it.Seq, &channel, &it.Target, &it.ID, &it.BrandID, &it.Topic, &it.SubjectID, &it.Payload,
		c.d.ScanTime(&it.CreatedAt), &status, &it.Attempts, c.d.ScanTime(&it.NextAt), &it.LastCode, &it.LastError,
		c.d.ScanTime(&it.DeliveredAt)); err != nil {
		return outbox.Item{}, err
	}
	it.Channel, it.Status = outbox.Channel(channel), outbox.Status(status)
	if len(it.Payload) == 0 {
		it.Payload = nil
	}
	return it, nil
}

// Enqueue implements outbox.Store: the items are written in one
// transaction; outbox.ErrItemExists (nothing written) if one's reference
// is taken.
func (c *Core) Enqueue(ctx context.Context, items ...outbox.Item) error {
	if len(items) == 0 {
		return nil
	}
	return c.write(ctx, func(tx DB) error { return c.enqueue(ctx, tx, items) })
}

// Claim implements outbox.Store (see the comment at the top of this file
// for how).
func (c *Core) Claim(ctx context.Context, cl outbox.Claim) ([]outbox.Item, error) {
	if cl.Limit <= 0 {
		return []outbox.Item{}, nil
	}
	if cl.PerBrand <= 0 {
		cl.PerBrand = cl.Limit
	}
	var out []outbox.Item
	err := c.write(ctx, func(tx DB) error {
		seqs, err := c.claimCandidates(ctx, tx, cl)
		if err != nil || len(seqs) == 0 {
			out = []outbox.Item{}
			return err
		}
		out, err = c.claimRows(ctx, tx, cl, seqs)
		return err
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b outbox.Item) int {
		return cmp.Or(a.NextAt.Compare(b.NextAt), cmp.Compare(a.Seq, b.Seq))
	})
	return out, nil
}

// candidate is an item a claim may take: its seq and brand.
type candidate struct {
	seq   int64
	brand string
}

// claimCandidates returns the seqs of the items cl may take, oldest due
// first: at most PerBrand less Held of each brand, none of SkipBrands, at
// most twice cl.Limit (so that a claimer that loses some to a concurrent
// one still finds others).
func (c *Core) claimCandidates(ctx context.Context, tx DB, cl outbox.Claim) ([]int64, error) {
	skip := slices.Clone(cl.SkipBrands)
	extra := 0
	for b, h := range cl.Held {
		switch {
		case h >= cl.PerBrand:
			skip = append(skip, b)
		case h > 0:
			extra += h
		}
	}
	want := 2 * cl.Limit
	query, args := c.candidateQuery(cl, skip, want+extra)
	cands, err := QueryAll(ctx, c, tx, func(row Scanner) (candidate, error) {
		var k candidate
		err := row.Scan(&k.seq, &k.brand)
		return k, err
	}, query, args...)
	if err != nil {
		return nil, err
	}
	taken := map[string]int{}
	seqs := make([]int64, 0, min(len(cands), want))
	for _, k := range cands {
		if taken[k.brand]+cl.Held[k.brand] >= cl.PerBrand {
			continue
		}
		taken[k.brand]++
		if seqs = append(seqs, k.seq); len(seqs) == want {
			break
		}
	}
	return seqs, nil
}

// candidateQuery returns the statement of claimCandidates and its
// arguments: the brands with pending items (a skip scan), less skip, each
// joined with its first claimable items, the oldest limit of them.
func (c *Core) candidateQuery(cl outbox.Claim, skip []string, limit int) (string, []any) {
	now := c.d.Time(cl.Now)
	var q strings.Builder
	q.WriteString(`WITH RECURSIVE brands(brand_id) AS (
		SELECT min(brand_id) FROM outbox WHERE status = 'pending'
		UNION ALL
		SELECT (SELECT min(o.brand_id) FROM outbox o WHERE o.status = 'pending' AND o.brand_id > brands.brand_id)
		FROM brands WHERE brands.brand_id IS NOT NULL)
	`)
	due := `SELECT d.seq, d.brand_id, d.next_at FROM outbox d
		WHERE d.status = 'pending' AND d.brand_id = brands.brand_id AND d.next_at <= ?
		AND (d.claimed_until IS NULL OR d.claimed_until <= ?)`
	args := []any{now, now}
	if len(cl.Channels) > 0 {
		due += ` AND d.channel IN (` + placeholders(len(cl.Channels)) + `)`
		for _, ch := range cl.Channels {
			args = append(args, string(ch))
		}
	}
	due += ` ORDER BY d.next_at, d.seq LIMIT ?`
	args = append(args, cl.PerBrand)
	if c.d.Lateral() {
		q.WriteString(`SELECT c.seq, c.brand_id FROM brands CROSS JOIN LATERAL (` + due + `) c`)
	} else {
		q.WriteString(`SELECT c.seq, c.brand_id FROM brands JOIN outbox c ON c.seq IN (` +
			strings.Replace(due, "d.seq, d.brand_id, d.next_at", "d.seq", 1) + `)`)
	}
	q.WriteString(` WHERE brands.brand_id IS NOT NULL`)
	if len(skip) > 0 {
		q.WriteString(` AND brands.brand_id NOT IN (` + placeholders(len(skip)) + `)`)
		for _, b := range skip {
			args = append(args, b)
		}
	}
	q.WriteString(` ORDER BY c.next_at, c.seq LIMIT ?`)
	return q.String(), append(args, limit)
}

// claimRows locks those of seqs that are still claimable (passing over
// rows another claimer holds), the oldest first up to cl.Limit, marks them
// claimed by cl.Owner until cl.Until and returns them.
func (c *Core) claimRows(ctx context.Context, tx DB, cl outbox.Claim, seqs []int64) ([]outbox.Item, error) {
	now := c.d.Time(cl.Now)
	args := []any{cl.Owner, c.d.Time(cl.Until)}
	for _, s := range seqs {
		args = append(args, s)
	}
	args = append(args, now, now, cl.Limit)
	// "status NOT IN" rather than "status = 'pending'": the rows are found
	// by their seq, never through the partial index of pending items,
	// whatever a planner short of statistics (a fresh backlog) thinks.
	return QueryAll(ctx, c, tx, c.scanItem, `UPDATE outbox SET claimed_by = ?, claimed_until = ? WHERE seq IN (
		SELECT seq FROM outbox WHERE seq IN (`+placeholders(len(seqs))+`) AND status NOT IN ('delivered', 'failed') AND next_at <= ?
		AND (claimed_until IS NULL OR claimed_until <= ?) ORDER BY next_at, seq LIMIT ?`+c.d.SkipLocked()+`)
		RETURNING `+OutboxColumns, args...)
}

// Settle implements outbox.Store: outbox.ErrClaimLost (nothing written)
// unless the item is pending and claimed by s.Owner; an invalid error for
// a status that is not one of the three.
func (c *Core) Settle(ctx context.Context, s outbox.Settlement) error {
	if err := validSettlement(s); err != nil {
		return err
	}
	return c.write(ctx, func(tx DB) error { return c.settle(ctx, tx, s) })
}

// validSettlement checks s's status.
func validSettlement(s outbox.Settlement) error {
	switch s.Status {
	case outbox.StatusPending, outbox.StatusDelivered, outbox.StatusFailed:
		return nil
	}
	return envelope.Invalid("The settlement's status is not pending, delivered or failed.",
		envelope.Field("status", "invalid", "pending, delivered or failed"))
}

// settle writes s in tx: attempts grow by one, the claim is released, and
// a delivered or failed mail item's payload is cleared (a mail payload may
// hold a single-use link or code; an event's or a webhook delivery's never
// holds a secret, and is kept so that a replay can send it again).
func (c *Core) settle(ctx context.Context, tx DB, s outbox.Settlement) error {
	next, delivered := s.NextAt, time.Time{}
	switch s.Status {
	case outbox.StatusPending:
		if next.IsZero() {
			next = s.At
		}
	case outbox.StatusDelivered:
		delivered = s.At
	}
	clear := s.Status != outbox.StatusPending && s.Channel == outbox.ChannelMail
	return c.execOne(ctx, tx, outbox.ErrClaimLost, nil, `UPDATE outbox SET status = ?, attempts = attempts + 1,
		next_at = coalesce(?, next_at), last_code = ?, last_error = ?, delivered_at = ?, claimed_by = NULL,
		claimed_until = NULL, payload = CASE WHEN ? THEN NULL ELSE payload END
		WHERE channel = ? AND target = ? AND id = ? AND status = 'pending' AND claimed_by = ?`,
		string(s.Status), c.nullTime(next), s.Code, truncateUTF8(s.Error, maxErrorBytes), c.nullTime(delivered),
		clear, string(s.Channel), s.Target, s.ID, s.Owner)
}

// truncateUTF8 returns s cut to at most n bytes, on a rune boundary.
func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// FanOut implements outbox.Store: the event is settled as delivered and
// the deliveries written in one transaction (a delivery whose reference is
// stored is left as it is: a replayed event fans out again without
// conflict); outbox.ErrClaimLost (nothing written) as Settle.
func (c *Core) FanOut(ctx context.Context, owner string, ev outbox.Item, at time.Time, deliveries []outbox.Item) error {
	s := outbox.Settlement{Ref: ev.Ref(), Owner: owner, Status: outbox.StatusDelivered, At: at}
	return c.write(ctx, func(tx DB) error {
		if err := c.settle(ctx, tx, s); err != nil {
			return err
		}
		return c.insertItems(ctx, tx, deliveries, ` ON CONFLICT (channel, target, id) DO NOTHING`)
	})
}

// Items implements outbox.Store: an invalid error without f.BrandID or
// with a Limit over 1000.
func (c *Core) Items(ctx context.Context, f outbox.Filter) ([]outbox.Item, error) {
	if f.BrandID == "" {
		return nil, envelope.Invalid("The brand is required.", envelope.Field("brandId", "required", "the brand of the items"))
	}
	if f.Limit < 0 || f.Limit > 1000 {
		return nil, envelope.Invalid("The limit is from 1 to 1000.", envelope.Field("limit", "out_of_range", "1 to 1000"))
	}
	q := `SELECT ` + OutboxColumns + ` FROM outbox WHERE brand_id = ?`
	args := []any{f.BrandID}
	if f.Channel != "" {
		q += ` AND channel = ?`
		args = append(args, string(f.Channel))
	}
	if f.Target != "" {
		q += ` AND target = ?`
		args = append(args, f.Target)
	}
	if f.Status != "" {
		q += ` AND status = ?`
		args = append(args, string(f.Status))
	}
	if f.BeforeSeq > 0 {
		q += ` AND seq < ?`
		args = append(args, f.BeforeSeq)
	}
	q += ` ORDER BY seq DESC LIMIT ?`
	return QueryAll(ctx, c, c.r, c.scanItem, q, append(args, cmp.Or(f.Limit, 100))...)
}

// Replay implements outbox.Store: a delivered or failed item becomes
// pending, due at at, unclaimed, its attempts and last answer kept; a
// pending item is left as it is; outbox.ErrItemNotFound if none has ref.
func (c *Core) Replay(ctx context.Context, ref outbox.Ref, at time.Time) error {
	return c.write(ctx, func(tx DB) error {
		n, err := c.exec(ctx, tx, nil, nil, `UPDATE outbox SET status = 'pending', next_at = ?, claimed_by = NULL,
			claimed_until = NULL, delivered_at = NULL WHERE channel = ? AND target = ? AND id = ? AND status <> 'pending'`,
			c.d.Time(at), string(ref.Channel), ref.Target, ref.ID)
		if err != nil || n > 0 {
			return err
		}
		ok, err := c.found(ctx, tx, `SELECT 1 FROM outbox WHERE channel = ? AND target = ? AND id = ?`,
			string(ref.Channel), ref.Target, ref.ID)
		if err == nil && !ok {
			return outbox.ErrItemNotFound
		}
		return err
	})
}

// Depth implements outbox.Store.
func (c *Core) Depth(ctx context.Context) (outbox.Depth, error) {
	type row struct {
		channel string
		n       int
		oldest  time.Time
	}
	rows, err := QueryAll(ctx, c, c.r, func(s Scanner) (row, error) {
		var r row
		err := s.Scan(&r.channel, &r.n, c.d.ScanTime(&r.oldest))
		return r, err
	}, `SELECT channel, count(*), min(created_at) FROM outbox WHERE status = 'pending' GROUP BY channel`)
	if err != nil {
		return outbox.Depth{}, err
	}
	d := outbox.Depth{Pending: map[outbox.Channel]int{}, Oldest: map[outbox.Channel]time.Time{}}
	for _, r := range rows {
		d.Pending[outbox.Channel(r.channel)] = r.n
		d.Oldest[outbox.Channel(r.channel)] = r.oldest
	}
	return d, nil
}

// Prune implements outbox.Store: the oldest (by seq) delivered or failed
// items created before before, at most limit of them, in one transaction.
func (c *Core) Prune(ctx context.Context, before time.Time, limit int) (int, error) {
	if limit <= 0 {
		return 0, nil
	}
	var n int
	err := c.write(ctx, func(tx DB) error {
		var err error
		n, err = c.exec(ctx, tx, nil, nil, `DELETE FROM outbox WHERE seq IN (SELECT seq FROM outbox
			WHERE status IN ('delivered', 'failed') AND created_at < ? ORDER BY seq LIMIT ?)`, c.d.Time(before), limit)
		return err
	})
	return n, err
}
