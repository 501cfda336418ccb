package outbox

import (
	"context"
	"time"

	"github.com/brandbase/brandbase/envelope"
)

// Store keeps the outbox's rows. Every method is atomic and safe for
// concurrent use, by several processes sharing one database too. The
// domain stores write items in their own transactions (the trailing
// `out ...outbox.Item` of their write methods); Store is the queue's side.
type Store interface {
	// Enqueue writes items on their own (a replay's copy, a test message),
	// each with Status pending, NextAt its CreatedAt, Attempts 0.
	// [ErrItemExists] if an item of the same Channel, Target and ID is
	// stored (nothing written).
	Enqueue(ctx context.Context, items ...Item) error
	// Claim marks, for c.Owner until c.Until, at most c.Limit pending items
	// whose NextAt is at or before c.Now and whose claim is absent or
	// expired, and returns them. Fair: at most c.PerBrand items of one
	// brand, none of a brand in c.SkipBrands, and a brand's items in NextAt
	// order (then Seq). Two concurrent claims never return one item.
	Claim(ctx context.Context, c Claim) ([]Item, error)
	// Settle records the outcome of an attempt on an item claimed by
	// s.Owner and releases the claim. [ErrClaimLost] (nothing written) if
	// the item is no longer pending under s.Owner's claim.
	Settle(ctx context.Context, s Settlement) error
	// FanOut, in one transaction, settles the event ev (claimed by owner)
	// as delivered at at and enqueues deliveries. [ErrClaimLost] as Settle.
	FanOut(ctx context.Context, owner string, ev Item, at time.Time, deliveries []Item) error
	// Items lists items by f, newest first (Seq descending).
	Items(ctx context.Context, f Filter) ([]Item, error)
	// Replay makes the delivered or failed item (channel, target, id)
	// pending again, due at at, with its attempts kept. [ErrItemNotFound]
	// if absent.
	Replay(ctx context.Context, ref Ref, at time.Time) error
	// Depth counts the pending items and returns the creation time of the
	// oldest (zero when none).
	Depth(ctx context.Context) (Depth, error)
	// Prune deletes at most limit delivered or failed items created before
	// before, and returns how many it deleted.
	Prune(ctx context.Context, before time.Time, limit int) (int, error)
}

// Ref names one item.
type Ref struct {
	Channel Channel
	Target  string
	ID      string
}

// Ref returns the item's reference.
func (it Item) Ref() Ref { return Ref{Channel: it.Channel, Target: it.Target, ID: it.ID} }

// Claim is a request to [Store.Claim].
type Claim struct {
	// Owner names the claiming dispatcher (unique per process).
	Owner string
	// Now is the time due items are compared with; Until ends the claim.
	Now, Until time.Time
	// Limit bounds the items claimed; PerBrand the items of one brand.
	Limit, PerBrand int
	// SkipBrands are brands whose deliveries are all busy: none is claimed.
	SkipBrands []string
	// Held counts, by brand, the items the claimer already has in flight:
	// at most PerBrand minus Held[brand] items of a brand are claimed (a
	// brand at or over PerBrand is skipped as SkipBrands are).
	Held map[string]int
	// Channels, when not empty, are the only channels claimed: those the
	// claimer has a handler for.
	Channels []Channel
}

// Settlement is the outcome of one attempt, for [Store.Settle].
type Settlement struct {
	Ref
	// Owner must hold the item's claim.
	Owner string
	// Status is StatusDelivered, StatusFailed, or StatusPending (retry at
	// NextAt).
	Status Status
	// At is when the attempt ended; NextAt when a pending item is due.
	At, NextAt time.Time
	// Code and Error are the attempt's answer (Error at most 1 KB).
	Code  int
	Error string
}

// Filter selects items for [Store.Items].
type Filter struct {
	// BrandID is required.
	BrandID string
	// Channel and Target, when set, must match.
	Channel Channel
	Target  string
	// Status, when set, must match.
	Status Status
	// BeforeSeq, when above 0, keeps items with a lower Seq (paging).
	BeforeSeq int64
	// Limit bounds the result (at most 1000; 100 when 0).
	Limit int
}

// Depth is the size of the queue.
type Depth struct {
	// Pending counts pending items, by channel.
	Pending map[Channel]int
	// Oldest is the CreatedAt of the oldest pending item, by channel.
	Oldest map[Channel]time.Time
}

// The store's sentinel errors.
var (
	// ErrItemExists: an item with that reference is stored.
	ErrItemExists = envelope.New(envelope.KindConflict, "item_exists", "The outbox item exists.")
	// ErrItemNotFound: no item with that reference.
	ErrItemNotFound = envelope.NotFound("The outbox item does not exist.")
	// ErrClaimLost: the item is not pending under the owner's claim (it
	// expired and another dispatcher took it, or it was settled).
	ErrClaimLost = envelope.New(envelope.KindConflict, "claim_lost", "The outbox item is no longer claimed by this dispatcher.")
)
