package webhooks

import (
	"context"
	"fmt"
	"time"

	"github.com/brandbase/brandbase/auth"
)

// List returns the endpoints of the actor's brand, oldest first. Needs
// webhooks.read; the store's errors.
func (s *Service) List(ctx context.Context, actor auth.Principal) ([]Endpoint, error) {
	if err := can(actor, auth.PermWebhooksRead); err != nil {
		return nil, err
	}
	recs, err := s.store.Webhooks(ctx, actor.BrandID)
	if err != nil {
		return nil, err
	}
	now := s.now()
	out := make([]Endpoint, len(recs))
	for i, r := range recs {
		out[i] = public(r, now)
	}
	return out, nil
}

// Get returns the endpoint id of the actor's brand. Needs webhooks.read;
// ErrEndpointNotFound.
func (s *Service) Get(ctx context.Context, actor auth.Principal, id string) (Endpoint, error) {
	if err := can(actor, auth.PermWebhooksRead); err != nil {
		return Endpoint{}, err
	}
	r, err := s.store.Webhook(ctx, actor.BrandID, id)
	if err != nil {
		return Endpoint{}, err
	}
	return public(r, s.now()), nil
}

// Create makes an endpoint in the actor's brand with a new signing secret,
// and answers it with the secret: the one time it is shown. Needs
// webhooks.write; KindInvalid with a field error per bad field (url:
// required, invalid_url, https_required, forbidden_address; eventTypes:
// required, invalid_format); the store's errors.
func (s *Service) Create(ctx context.Context, actor auth.Principal, in Input) (EndpointWithSecret, error) {
	if err := can(actor, auth.PermWebhooksWrite); err != nil {
		return EndpointWithSecret{}, err
	}
	v, err := s.check(in)
	if err != nil {
		return EndpointWithSecret{}, err
	}
	now := s.now().UTC()
	key := newKey()
	r := Record{ID: newID(), BrandID: actor.BrandID, URL: v.url, EventTypes: v.eventTypes, Enabled: v.enabled,
		Description: v.description, CreatedAt: now, UpdatedAt: now}
	r.Secret = s.seal(r.BrandID, r.ID, "secret", key)
	if err := s.store.CreateWebhook(ctx, r); err != nil {
		return EndpointWithSecret{}, err
	}
	return EndpointWithSecret{Endpoint: public(r, now), Secret: FormatSecret(key)}, nil
}

// Update replaces the endpoint id's URL, event types, enabled flag and
// description (the secret stays). Enabling it clears its DisabledReason
// and its failing time. Needs webhooks.write; ErrEndpointNotFound (before
// the body is checked), then the errors of Create.
func (s *Service) Update(ctx context.Context, actor auth.Principal, id string, in Input) (Endpoint, error) {
	if err := can(actor, auth.PermWebhooksWrite); err != nil {
		return Endpoint{}, err
	}
	if _, err := s.store.Webhook(ctx, actor.BrandID, id); err != nil {
		return Endpoint{}, err // an unknown endpoint before a bad body
	}
	v, err := s.check(in)
	if err != nil {
		return Endpoint{}, err
	}
	now := s.now().UTC()
	r, err := s.store.UpdateWebhook(ctx, actor.BrandID, id, func(r *Record) error {
		r.URL, r.EventTypes, r.Description, r.UpdatedAt = v.url, v.eventTypes, v.description, now
		if v.enabled && !r.Enabled {
			r.DisabledReason, r.FailingSince = "", time.Time{}
		}
		r.Enabled = v.enabled
		return nil
	})
	if err != nil {
		return Endpoint{}, err
	}
	return public(r, now), nil
}

// Delete removes the endpoint id; its pending deliveries then fail for
// good. Needs webhooks.write; ErrEndpointNotFound.
func (s *Service) Delete(ctx context.Context, actor auth.Principal, id string) error {
	if err := can(actor, auth.PermWebhooksWrite); err != nil {
		return err
	}
	return s.store.DeleteWebhook(ctx, actor.BrandID, id)
}

// RotateSecret gives the endpoint id a new signing secret and answers it:
// the one time it is shown. The old secret keeps signing beside the new one
// (two signatures in webhook-signature) for the overlap
// ([DefaultSecretOverlap]); a secret older than that is dropped. Needs
// webhooks.write; ErrEndpointNotFound; an error wrapping the key ring's when
// the stored secret cannot be opened.
func (s *Service) RotateSecret(ctx context.Context, actor auth.Principal, id string) (EndpointWithSecret, error) {
	if err := can(actor, auth.PermWebhooksWrite); err != nil {
		return EndpointWithSecret{}, err
	}
	now := s.now().UTC()
	key := newKey()
	r, err := s.store.UpdateWebhook(ctx, actor.BrandID, id, func(r *Record) error {
		cur, err := s.open(*r, "secret", r.Secret)
		if err != nil {
			return fmt.Errorf("webhooks: open the secret of endpoint %s: %w", r.ID, err)
		}
		r.OldSecret = s.seal(r.BrandID, r.ID, "old", cur)
		r.OldSecretUntil = now.Add(s.overlap)
		r.Secret = s.seal(r.BrandID, r.ID, "secret", key)
		r.UpdatedAt = now
		return nil
	})
	if err != nil {
		return EndpointWithSecret{}, err
	}
	return EndpointWithSecret{Endpoint: public(r, now), Secret: FormatSecret(key)}, nil
}
