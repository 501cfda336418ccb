package webhooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/brandbase/brandbase/internal/netguard"
	"github.com/brandbase/brandbase/outbox"
)

// EventHandler returns the handler of [outbox.ChannelEvent] items: it
// answers, in Result.FanOut, one [outbox.ChannelWebhook] item per enabled
// endpoint of the event's brand that takes its type (the event's ID, the
// endpoint's ID as Target, and the event's payload with "sequence", the
// event's Seq, added), which the dispatcher enqueues as it settles the
// event, in one transaction (outbox.Store.FanOut). An event no endpoint
// takes is settled with none.
func (s *Service) EventHandler() outbox.Handler {
	return outbox.HandlerFunc(func(ctx context.Context, ev outbox.Item) outbox.Result {
		deliveries, err := s.fanOut(ctx, ev)
		if err != nil {
			return outbox.Result{Err: err, Permanent: errors.Is(err, errNotObject)}
		}
		return outbox.Result{FanOut: deliveries}
	})
}

// fanOut returns the deliveries of ev: one per enabled endpoint of its
// brand that takes its type.
func (s *Service) fanOut(ctx context.Context, ev outbox.Item) ([]outbox.Item, error) {
	recs, err := s.store.Webhooks(ctx, ev.BrandID)
	if err != nil {
		return nil, err
	}
	var out []outbox.Item
	var payload []byte
	for _, r := range recs {
		if !r.Enabled || !Takes(r.EventTypes, ev.Topic) {
			continue
		}
		if payload == nil {
			if payload, err = WithSequence(ev.Payload, ev.Seq); err != nil {
				return nil, err
			}
		}
		out = append(out, outbox.Item{ID: ev.ID, BrandID: ev.BrandID, Channel: outbox.ChannelWebhook, Topic: ev.Topic,
			Target: r.ID, SubjectID: ev.SubjectID, Payload: payload, CreatedAt: ev.CreatedAt})
	}
	return out, nil
}

// errNotObject is the error of an event whose payload is not a JSON
// object: no retry mends it.
var errNotObject = errors.New("webhooks: an event's payload is not a JSON object")

// WithSequence returns the JSON object payload with "sequence": seq added
// (replacing one it holds). It fails when payload is not a JSON object.
func WithSequence(payload []byte, seq int64) ([]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(payload, &m); err != nil || m == nil {
		return nil, fmt.Errorf("%w: %v", errNotObject, err)
	}
	m["sequence"] = json.RawMessage(strconv.FormatInt(seq, 10))
	return json.Marshal(m)
}

// DeliveryHandler returns the handler of [outbox.ChannelWebhook] items:
// it POSTs the item's payload to its endpoint, signed (see the package
// documentation), and reports the answer: a 2xx is delivered; another
// status (a redirect too: none is followed), a connection error or no answer
// within [DeliveryTimeout] is a failure to retry, its error holding at most
// [MaxAnswerKept] bytes of the answer; an endpoint deleted or disabled, or
// an address the policy refuses, is a permanent failure.
func (s *Service) DeliveryHandler() outbox.Handler {
	return outbox.HandlerFunc(s.deliver)
}

// deliver is the delivery handler.
func (s *Service) deliver(ctx context.Context, it outbox.Item) outbox.Result {
	r, err := s.store.Webhook(ctx, it.BrandID, it.Target)
	switch {
	case errors.Is(err, ErrEndpointNotFound):
		return outbox.Result{Err: errors.New("the webhook endpoint was deleted"), Permanent: true}
	case err != nil:
		return outbox.Result{Err: err}
	case !r.Enabled:
		return outbox.Result{Err: errors.New("the webhook endpoint is disabled"), Permanent: true}
	}
	at := s.now()
	keys, err := s.signingKeys(r, at)
	if err != nil {
		return outbox.Result{Err: err}
	}
	res := s.post(ctx, r.URL, it, at, keys)
	switch {
	case res.Err == nil:
		s.succeeded(ctx, r)
	case !res.Permanent:
		s.failed(ctx, r, at)
	}
	return res
}

// signingKeys returns the keys that sign a delivery to r at at: its
// secret's, and its old secret's during the overlap.
func (s *Service) signingKeys(r Record, at time.Time) ([][]byte, error) {
	key, err := s.open(r, "secret", r.Secret)
	if err != nil {
		return nil, fmt.Errorf("webhooks: the secret of endpoint %s does not open: %w", r.ID, err)
	}
	keys := [][]byte{key}
	if len(r.OldSecret) > 0 && at.Before(r.OldSecretUntil) {
		old, err := s.open(r, "old", r.OldSecret)
		if err != nil {
			return nil, fmt.Errorf("webhooks: the old secret of endpoint %s does not open: %w", r.ID, err)
		}
		keys = append(keys, old)
	}
	return keys, nil
}

// post sends one attempt and reports its answer.
func (s *Service) post(ctx context.Context, url string, it outbox.Item, at time.Time, keys [][]byte) outbox.Result {
	ctx, cancel := context.WithTimeout(ctx, DeliveryTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(it.Payload))
	if err != nil {
		return outbox.Result{Err: fmt.Errorf("webhooks: the endpoint's url: %w", err), Permanent: true}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "brandbase-webhooks/1")
	req.Header.Set(HeaderID, it.ID)
	req.Header.Set(HeaderTimestamp, strconv.FormatInt(at.Unix(), 10))
	req.Header.Set(HeaderSignature, SignatureHeader(keys, it.ID, at, it.Payload))
	resp, err := s.client.Do(req)
	if err != nil {
		return outbox.Result{Err: err, Permanent: errors.Is(err, netguard.ErrForbiddenAddress)}
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, MaxAnswerKept))
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return outbox.Result{Code: resp.StatusCode}
	}
	msg := "HTTP " + strconv.Itoa(resp.StatusCode)
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		msg += " (a redirect, not followed)"
	}
	if b := strings.TrimSpace(string(body)); b != "" {
		msg += ": " + b
	}
	return outbox.Result{Code: resp.StatusCode, Err: errors.New(truncate(msg, MaxAnswerKept))}
}

// truncate cuts s to at most n bytes.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "")
}
