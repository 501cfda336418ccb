package webhooks

import (
	"context"
	"errors"
	"time"

	"github.com/brandbase/brandbase/events"
	"github.com/brandbase/brandbase/outbox"
)

// TopicWebhookDisabled is the type of the event the service emits when it
// disables an endpoint whose deliveries failed too long (the catalogue's
// events.WebhookDisabled).
const TopicWebhookDisabled = string(events.WebhookDisabled)

// errUnchanged ends an update that has nothing to write.
var errUnchanged = errors.New("webhooks: unchanged")

// succeeded clears r's failing time after a delivery succeeded, when set.
func (s *Service) succeeded(ctx context.Context, r Record) {
	if r.FailingSince.IsZero() {
		return
	}
	s.mark(ctx, r, func(r *Record) error {
		if r.FailingSince.IsZero() {
			return errUnchanged
		}
		r.FailingSince = time.Time{}
		return nil
	})
}

// failed records a failed delivery to r at at: the endpoint's first
// failure since its last success starts its failing time; a failure past
// the auto-disable bound from then disables it and enqueues a
// webhook.disabled event, in one transaction.
func (s *Service) failed(ctx context.Context, r Record, at time.Time) {
	if r.FailingSince.IsZero() {
		s.mark(ctx, r, func(r *Record) error {
			if !r.FailingSince.IsZero() {
				return errUnchanged
			}
			r.FailingSince = at.UTC()
			return nil
		})
		return
	}
	if at.Sub(r.FailingSince) < s.autoDisable {
		return
	}
	s.mark(ctx, r, func(r *Record) error {
		if !r.Enabled || r.FailingSince.IsZero() || at.Sub(r.FailingSince) < s.autoDisable {
			return errUnchanged
		}
		r.Enabled = false
		r.DisabledReason = disabledReason(r.FailingSince)
		r.UpdatedAt = at.UTC()
		return nil
	}, disabledEvent(r, at))
}

// mark updates r by fn, with out; a failure is logged, never a delivery's.
func (s *Service) mark(ctx context.Context, r Record, fn func(*Record) error, out ...outbox.Item) {
	_, err := s.store.UpdateWebhook(ctx, r.BrandID, r.ID, fn, out...)
	if err != nil && !errors.Is(err, errUnchanged) && !errors.Is(err, ErrEndpointNotFound) {
		s.log.WarnContext(ctx, "webhooks: an endpoint's failing state could not be written",
			"brandId", r.BrandID, "endpointId", r.ID, "error", err)
	}
}

// disabledReason says why an endpoint failing since since was disabled.
func disabledReason(since time.Time) string {
	return "Its deliveries failed without a success since " + since.UTC().Format(time.RFC3339) + "."
}

// disabledEvent returns the webhook.disabled event of r disabled at at, in
// the catalogue's shape (events.Webhook).
func disabledEvent(r Record, at time.Time) outbox.Item {
	return events.Must(events.WebhookDisabled, r.BrandID, r.ID, at,
		events.Webhook{WebhookID: r.ID, Reason: disabledReason(r.FailingSince)})
}
