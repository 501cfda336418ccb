package webhooks

import (
	"context"
	"errors"
	"strings"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/outbox"
)

// Delivery is one event's delivery to one endpoint, and where it stands.
type Delivery struct {
	// ID is the event's ID: the webhook-id header of every attempt.
	ID string `json:"id"`
	// EventType is the event's type.
	EventType string `json:"eventType"`
	// Status is pending (waiting for its next try, or in flight),
	// delivered or failed.
	Status outbox.Status `json:"status"`
	// Attempts counts the attempts made.
	Attempts int `json:"attempts"`
	// LastStatusCode is the last answer's HTTP status, 0 for none.
	LastStatusCode int `json:"lastStatusCode"`
	// LastError is why the last attempt failed (at most 1 KB of it, the
	// answer's body included), empty when it did not.
	LastError string `json:"lastError"`
	// NextAttempt is when a pending delivery is tried next; absent once
	// delivered or failed.
	NextAttempt string `json:"nextAttempt,omitempty"`
	// Sequence is the outbox's order of the delivery (for paging: before).
	Sequence int64 `json:"sequence"`
	// CreatedDate is when the event happened; DeliveredDate when a 2xx
	// answered (absent before). Dates as Endpoint's.
	CreatedDate   string `json:"createdDate"`
	DeliveredDate string `json:"deliveredDate,omitempty"`
}

// DeliveryQuery selects deliveries of one endpoint.
type DeliveryQuery struct {
	// Status, when set, keeps the deliveries of that status.
	Status outbox.Status
	// Before, when above 0, keeps the deliveries of a lower Sequence (the
	// next page after a page ending at Before).
	Before int64
	// Limit bounds the page: 100 when 0, at most 1000.
	Limit int
}

// Deliveries returns the deliveries to the endpoint id of the actor's
// brand, newest first. Needs webhooks.read; KindInvalid for a status other
// than pending, delivered or failed (any case: invalid_enum), a negative
// Before or a Limit outside 0..1000 (out_of_range); ErrEndpointNotFound;
// ErrNoQueue without an outbox store.
func (s *Service) Deliveries(ctx context.Context, actor auth.Principal, id string, q DeliveryQuery) ([]Delivery, error) {
	if err := can(actor, auth.PermWebhooksRead); err != nil {
		return nil, err
	}
	if err := q.check(); err != nil {
		return nil, err
	}
	if s.queue == nil {
		return nil, ErrNoQueue
	}
	if _, err := s.store.Webhook(ctx, actor.BrandID, id); err != nil {
		return nil, err
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 100
	}
	items, err := s.queue.Items(ctx, outbox.Filter{BrandID: actor.BrandID, Channel: outbox.ChannelWebhook, Target: id,
		Status: q.Status, BeforeSeq: q.Before, Limit: min(limit, 1000)})
	if err != nil {
		return nil, err
	}
	out := make([]Delivery, len(items))
	for i, it := range items {
		out[i] = delivery(it)
	}
	return out, nil
}

// check validates q and puts its status in its canonical case.
func (q *DeliveryQuery) check() error {
	var errs []envelope.ErrorItem
	if q.Status != "" {
		st := outbox.Status(strings.ToLower(strings.TrimSpace(string(q.Status))))
		switch st {
		case outbox.StatusPending, outbox.StatusDelivered, outbox.StatusFailed:
			q.Status = st
		default:
			errs = append(errs, envelope.Field("status", "invalid_enum", "status is pending, delivered or failed."))
		}
	}
	if q.Before < 0 {
		errs = append(errs, envelope.Field("before", "out_of_range", "before is 0 or more."))
	}
	if q.Limit < 0 || q.Limit > 1000 {
		errs = append(errs, envelope.Field("limit", "out_of_range", "limit is 1 to 1000."))
	}
	if len(errs) > 0 {
		return envelope.Invalid("The query is invalid.", errs...)
	}
	return nil
}

// delivery returns the delivery an outbox item records.
func delivery(it outbox.Item) Delivery {
	d := Delivery{ID: it.ID, EventType: it.Topic, Status: it.Status, Attempts: it.Attempts, LastStatusCode: it.LastCode,
		LastError: it.LastError, Sequence: it.Seq, CreatedDate: formatDate(it.CreatedAt), DeliveredDate: formatDate(it.DeliveredAt)}
	if it.Status == outbox.StatusPending {
		d.NextAttempt = formatDate(it.NextAt)
	}
	return d
}

// Replay makes the delivered or failed delivery deliveryID of the endpoint
// id due again now (its attempts kept): it is sent again with the same
// webhook-id. Needs webhooks.write; ErrEndpointNotFound;
// ErrDeliveryNotFound; ErrNoQueue without an outbox store.
func (s *Service) Replay(ctx context.Context, actor auth.Principal, id, deliveryID string) error {
	if err := can(actor, auth.PermWebhooksWrite); err != nil {
		return err
	}
	if s.queue == nil {
		return ErrNoQueue
	}
	if _, err := s.store.Webhook(ctx, actor.BrandID, id); err != nil {
		return err
	}
	err := s.queue.Replay(ctx, outbox.Ref{Channel: outbox.ChannelWebhook, Target: id, ID: deliveryID}, s.now().UTC())
	if errors.Is(err, outbox.ErrItemNotFound) {
		return ErrDeliveryNotFound
	}
	return err
}
