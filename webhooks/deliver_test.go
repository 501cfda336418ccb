package webhooks_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/internal/netguard"
	"github.com/brandbase/brandbase/webhooks"
)

// TestDeliveryIsSigned: a delivery reaches a receiver that checks it by
// the spec: its signature verifies with the secret the create showed, its
// timestamp is the service's clock, its id is the event's on every retry.
func TestDeliveryIsSigned(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	rcv := newReceiver(t, f.clock.Now, nil)
	e := f.create(t, rcv.srv.URL+"/hook")
	rcv.trust("secret", e.Secret)
	payload := `{"type":"user.created","data":{"id":"u1"}}`

	res := f.deliver(t, f.delivery(e.ID, "evt_1", payload))
	require.NoError(t, res.Err)
	assert.Equal(t, http.StatusNoContent, res.Code)
	f.clock.Add(time.Minute) // a retry, a minute later
	require.NoError(t, f.deliver(t, f.delivery(e.ID, "evt_1", payload)).Err)

	got := rcv.received()
	require.Len(t, got, 2)
	for i, g := range got {
		assert.Empty(t, g.refused)
		assert.Equal(t, []string{"secret"}, g.verifiedBy)
		assert.Equal(t, 1, g.signatures)
		assert.Equal(t, "evt_1", g.id, "the same webhook-id on every attempt")
		assert.Equal(t, "application/json", g.contentType)
		assert.Equal(t, payload, string(g.body))
		want := f.clock.Now().Add(time.Duration(i-1) * time.Minute).Unix()
		assert.Equal(t, strconv.FormatInt(want, 10), g.timestamp, "each attempt's own timestamp")
	}
}

// TestDeliveryRefusedAsStale: the receiver refuses a timestamp outside its
// tolerance, and the refusal is a failure to retry with its status.
func TestDeliveryRefusedAsStale(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	rcv := newReceiver(t, func() time.Time { return f.clock.Now().Add(10 * time.Minute) }, nil)
	e := f.create(t, rcv.srv.URL)
	rcv.trust("secret", e.Secret)
	res := f.deliver(t, f.delivery(e.ID, "evt_stale", `{}`))
	require.Error(t, res.Err)
	assert.False(t, res.Permanent)
	assert.Equal(t, http.StatusBadRequest, res.Code)
	assert.Contains(t, res.Err.Error(), "stale")
	require.Len(t, rcv.received(), 1)
	assert.Equal(t, "stale", rcv.received()[0].refused)
}

// TestRotationSignsWithBothDuringTheOverlap: after RotateSecret, both
// secrets sign (two signatures, each verifying alone) until the overlap
// ends; after it, only the new one.
func TestRotationSignsWithBothDuringTheOverlap(t *testing.T) {
	t.Parallel()
	f := newFixture(t, webhooks.WithSecretOverlap(24*time.Hour))
	rcv := newReceiver(t, f.clock.Now, nil)
	e := f.create(t, rcv.srv.URL)
	rot, err := f.svc.RotateSecret(t.Context(), f.system, e.ID)
	require.NoError(t, err)
	require.NotEqual(t, e.Secret, rot.Secret)
	rotatedAt := f.clock.Now()
	assert.Equal(t, rotatedAt.Add(24*time.Hour).Format(integrations.DateLayout), rot.SecretOverlapUntil)

	tests := []struct {
		name       string
		after      time.Duration
		trust      map[string]string
		signatures int
		verifiedBy []string // nil: refused
	}{
		{"old only, in the overlap", time.Hour, map[string]string{"old": e.Secret}, 2, []string{"old"}},
		{"new only, in the overlap", time.Hour, map[string]string{"new": rot.Secret}, 2, []string{"new"}},
		{"old only, after it", 25 * time.Hour, map[string]string{"old": e.Secret}, 1, nil},
		{"new only, after it", 25 * time.Hour, map[string]string{"new": rot.Secret}, 1, []string{"new"}},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f.clock.Add(tc.after - f.clock.Now().Sub(rotatedAt))
			for _, n := range []string{"old", "new"} {
				rcv.forget(n)
			}
			for n, s := range tc.trust {
				rcv.trust(n, s)
			}
			res := f.deliver(t, f.delivery(e.ID, fmt.Sprintf("evt_%d", i), `{"n":1}`))
			got := rcv.received()[len(rcv.received())-1]
			assert.Equal(t, tc.signatures, got.signatures)
			assert.Equal(t, tc.verifiedBy, got.verifiedBy)
			if tc.verifiedBy == nil {
				assert.Error(t, res.Err)
			} else {
				assert.NoError(t, res.Err)
			}
		})
	}
}

// TestRedirectIsNotFollowed: a 3xx is a failure, and its Location is never
// requested.
func TestRedirectIsNotFollowed(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var followed atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/elsewhere" {
			followed.Add(1)
			return
		}
		http.Redirect(w, r, "/elsewhere", http.StatusTemporaryRedirect)
	}))
	t.Cleanup(srv.Close)
	e := f.create(t, srv.URL+"/hook")
	res := f.deliver(t, f.delivery(e.ID, "evt_r", `{}`))
	require.Error(t, res.Err)
	assert.False(t, res.Permanent)
	assert.Equal(t, http.StatusTemporaryRedirect, res.Code)
	assert.Contains(t, res.Err.Error(), "redirect")
	assert.Zero(t, followed.Load())
}

// TestAnswerKeptUpTo1KB: a failure's error holds at most 1 KB of the
// answer's body, its start.
func TestAnswerKeptUpTo1KB(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	rcv := newReceiver(t, f.clock.Now, nil)
	e := f.create(t, rcv.srv.URL)
	rcv.trust("secret", e.Secret)
	rcv.set(http.StatusInternalServerError, "boom "+strings.Repeat("x", 64<<10))
	res := f.deliver(t, f.delivery(e.ID, "evt_big", `{}`))
	require.Error(t, res.Err)
	assert.Equal(t, http.StatusInternalServerError, res.Code)
	assert.LessOrEqual(t, len(res.Err.Error()), webhooks.MaxAnswerKept)
	assert.True(t, strings.HasPrefix(res.Err.Error(), "HTTP 500: boom xxx"), res.Err.Error()[:40])
}

// TestAddressRules: the URL rules at creation, and the connection's
// address checked when it is made.
func TestAddressRules(t *testing.T) {
	t.Parallel()
	strict := newFixture(t, webhooks.WithAddressPolicy(webhooks.AddressPolicy{}))
	private := newFixture(t, webhooks.WithAddressPolicy(webhooks.AddressPolicy{AllowPrivate: true}))
	tests := []struct {
		url            string
		strict, privOK string // the field error's code, "" when accepted
	}{
		{"https://hooks.example.com/in", "", ""},
		{"http://hooks.example.com/in", "https_required", "https_required"},
		{"https://10.1.2.3/in", "forbidden_address", ""},
		{"https://[fd00::1]:8443/in", "forbidden_address", ""},
		{"https://169.254.169.254/latest", "forbidden_address", ""},
		{"http://127.0.0.1:9/in", "forbidden_address", "forbidden_address"},
		{"http://localhost:9/in", "", ""}, // a name: checked on the connection
		{"https://0.0.0.0/in", "forbidden_address", "forbidden_address"},
		{"ftp://hooks.example.com/", "invalid_url", "invalid_url"},
		{"https://user:pw@hooks.example.com/", "invalid_url", "invalid_url"},
		{"/relative", "invalid_url", "invalid_url"},
		{"", "required", "required"},
	}
	for _, tc := range tests {
		for _, c := range []struct {
			f    *fixture
			want string
		}{{strict, tc.strict}, {private, tc.privOK}} {
			_, err := c.f.svc.Create(t.Context(), c.f.system, webhooks.Input{URL: tc.url, EventTypes: []string{"*"}})
			if c.want == "" {
				assert.NoError(t, err, tc.url)
				continue
			}
			e := envelope.As(err)
			require.NotNil(t, e, tc.url)
			require.Len(t, e.Fields, 1, tc.url)
			assert.Equal(t, "url", e.Fields[0].Field, tc.url)
			assert.Equal(t, c.want, e.Fields[0].Code, tc.url)
		}
	}
}

// TestLoopbackNameCaughtOnConnection: an endpoint named by a host name
// that resolves to loopback is accepted when made, and refused for good
// when a delivery connects, unless the host allows loopback; the receiver
// is never reached.
func TestLoopbackNameCaughtOnConnection(t *testing.T) {
	t.Parallel()
	f := newFixture(t, webhooks.WithAddressPolicy(webhooks.AddressPolicy{AllowPrivate: true}))
	rcv := newReceiver(t, f.clock.Now, nil)
	_, port, err := net.SplitHostPort(rcv.srv.Listener.Addr().String())
	require.NoError(t, err)
	e := f.create(t, "http://localhost:"+port+"/hook")
	res := f.deliver(t, f.delivery(e.ID, "evt_lo", `{}`))
	require.Error(t, res.Err)
	assert.True(t, res.Permanent)
	assert.ErrorIs(t, res.Err, netguard.ErrForbiddenAddress)
	assert.Empty(t, rcv.received())
}

// TestGoneOrDisabledEndpointIsPermanent: a delivery to a deleted or
// disabled endpoint fails for good, without a request.
func TestGoneOrDisabledEndpointIsPermanent(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	rcv := newReceiver(t, f.clock.Now, nil)
	gone := f.create(t, rcv.srv.URL)
	off := f.create(t, rcv.srv.URL)
	require.NoError(t, f.svc.Delete(t.Context(), f.system, gone.ID))
	_, err := f.svc.Update(t.Context(), f.system, off.ID, webhooks.Input{URL: rcv.srv.URL, EventTypes: []string{"*"}, Enabled: new(false)})
	require.NoError(t, err)
	for _, id := range []string{gone.ID, off.ID} {
		res := f.deliver(t, f.delivery(id, "evt_x", `{}`))
		require.Error(t, res.Err)
		assert.True(t, res.Permanent)
	}
	assert.Empty(t, rcv.received())
}

// TestAutoDisable: an endpoint failing without a success for the bound is
// disabled, with a webhook.disabled event written in the same change; a
// success in between starts the count again.
func TestAutoDisable(t *testing.T) {
	t.Parallel()
	bound := 5 * 24 * time.Hour
	f := newFixture(t, webhooks.WithAutoDisable(bound))
	rcv := newReceiver(t, f.clock.Now, nil)
	e := f.create(t, rcv.srv.URL)
	rcv.trust("secret", e.Secret)
	ctx := t.Context()
	fail := func() {
		rcv.set(http.StatusServiceUnavailable, "down")
		require.Error(t, f.deliver(t, f.delivery(e.ID, "evt_f", `{}`)).Err)
	}
	enabled := func() bool {
		got, err := f.svc.Get(ctx, f.system, e.ID)
		require.NoError(t, err)
		return got.Enabled
	}
	fail()
	f.clock.Add(bound - time.Second)
	rcv.set(http.StatusOK, "")
	require.NoError(t, f.deliver(t, f.delivery(e.ID, "evt_ok", `{}`)).Err) // a success: the count starts again
	f.clock.Add(time.Hour)
	fail()
	f.clock.Add(bound - time.Second)
	fail()
	assert.True(t, enabled(), "failing for less than the bound since the last success")
	assert.Empty(t, f.written.all())
	f.clock.Add(time.Second)
	fail()
	assert.False(t, enabled())
	got, err := f.svc.Get(ctx, f.system, e.ID)
	require.NoError(t, err)
	assert.Contains(t, got.DisabledReason, "failed without a success since")

	items := f.written.all()
	require.Len(t, items, 1)
	ev := items[0]
	assert.Equal(t, webhooks.TopicWebhookDisabled, ev.Topic)
	assert.Equal(t, e.ID, ev.SubjectID)
	var p struct {
		Type    string         `json:"type"`
		BrandID string         `json:"brandId"`
		Data    map[string]any `json:"data"`
	}
	require.NoError(t, json.Unmarshal(ev.Payload, &p))
	assert.Equal(t, "webhook.disabled", p.Type)
	assert.Equal(t, f.brand.ID, p.BrandID)
	assert.Equal(t, e.ID, p.Data["webhookId"], "the catalogue's field (docs/webhooks.md, events.Webhook)")
	assert.Contains(t, p.Data["reason"], "failed without a success since")

	res := f.deliver(t, f.delivery(e.ID, "evt_after", `{}`))
	assert.True(t, res.Permanent, "a disabled endpoint gets nothing more")
	_, err = f.svc.Update(ctx, f.system, e.ID, webhooks.Input{URL: got.URL, EventTypes: got.EventTypes, Enabled: new(true)})
	require.NoError(t, err)
	got, err = f.svc.Get(ctx, f.system, e.ID)
	require.NoError(t, err)
	assert.True(t, got.Enabled)
	assert.Empty(t, got.DisabledReason)
}

// TestDeliveryUnreadableSecretRetries: a secret no key of the ring opens
// is a failure to retry (the key ring may be mended), never a send.
func TestDeliveryUnreadableSecretRetries(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	rcv := newReceiver(t, f.clock.Now, nil)
	e := f.create(t, rcv.srv.URL)
	other := webhooks.NewService(f.store, webhooks.WithAddressPolicy(webhooks.AddressPolicy{AllowLoopback: true}))
	res := other.DeliveryHandler().Deliver(t.Context(), f.delivery(e.ID, "evt_k", `{}`))
	require.Error(t, res.Err)
	assert.False(t, res.Permanent)
	assert.False(t, errors.Is(res.Err, netguard.ErrForbiddenAddress))
	assert.Empty(t, rcv.received())
}
