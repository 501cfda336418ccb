package webhooks

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/brandbase/brandbase/outbox"
)

// TopicWebhookDisabled is the type of the event the service emits when it
// disables an endpoint whose deliveries failed too long.
const TopicWebhookDisabled = "webhook.disabled"

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
		r.DisabledReason = "Its deliveries failed without a success since " + r.FailingSince.Format(time.RFC3339) + "."
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

// disabledEvent returns the webhook.disabled event of r disabled at at.
func disabledEvent(r Record, at time.Time) outbox.Item {
	at = at.UTC()
	payload, _ := json.Marshal(map[string]any{
		"type": TopicWebhookDisabled, "version": 1, "timestamp": at.Format(time.RFC3339Nano),
		"brandId": r.BrandID, "subjectId": r.ID,
		"data": map[string]any{"endpointId": r.ID, "url": r.URL, "failingSince": r.FailingSince.UTC().Format(time.RFC3339)},
	})
	return outbox.Item{ID: "evt_" + strings.ToLower(rand.Text()), BrandID: r.BrandID, Channel: outbox.ChannelEvent,
		Topic: TopicWebhookDisabled, SubjectID: r.ID, Payload: payload, CreatedAt: at}
}
