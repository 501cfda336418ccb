package webhooks_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/internal/testkit/teststores"
	"github.com/brandbase/brandbase/webhooks"
)

// TestPermissions: reads need webhooks.read (or write, or *), changes
// webhooks.write; a principal of another brand holds nothing here.
func TestPermissions(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	e := f.create(t, "https://hooks.example.com/in")
	user := func(perms ...auth.Permission) auth.Principal {
		return auth.Principal{UserID: "u", BrandID: f.brand.ID, Permissions: perms}
	}
	tests := []struct {
		name        string
		p           auth.Principal
		read, write bool
	}{
		{"none", user(), false, false},
		{"read", user(auth.PermWebhooksRead), true, false},
		{"write", user(auth.PermWebhooksWrite), true, true},
		{"all", user(auth.PermAll), true, true},
		{"other grants", user(auth.PermUsersWrite, auth.PermAnalyticsWrite), false, false},
	}
	ctx := t.Context()
	in := webhooks.Input{URL: "https://hooks.example.com/in", EventTypes: []string{"user.created"}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			check := func(allowed bool, err error) {
				if allowed {
					assert.NoError(t, err)
				} else {
					assert.ErrorIs(t, err, webhooks.ErrAccessDenied)
					assert.Equal(t, envelope.KindForbidden, envelope.KindOf(err))
				}
			}
			_, err := f.svc.List(ctx, tc.p)
			check(tc.read, err)
			_, err = f.svc.Get(ctx, tc.p, e.ID)
			check(tc.read, err)
			_, err = f.svc.Create(ctx, tc.p, in)
			check(tc.write, err)
			_, err = f.svc.Update(ctx, tc.p, e.ID, in)
			check(tc.write, err)
			_, err = f.svc.RotateSecret(ctx, tc.p, e.ID)
			check(tc.write, err)
		})
	}
	other, err := auth.NewService(f.store).CreateBrand(ctx, auth.NewBrand{URL: "other.example.com", Name: "Other"})
	require.NoError(t, err)
	_, err = f.svc.Get(ctx, auth.SystemPrincipal(other.ID), e.ID)
	assert.ErrorIs(t, err, webhooks.ErrEndpointNotFound, "another brand's endpoint")
	assert.ErrorIs(t, f.svc.Delete(ctx, auth.SystemPrincipal(other.ID), e.ID), webhooks.ErrEndpointNotFound)
}

// TestSecretShownOnceAndSealed: the create answers the secret; no read
// does; the store holds it sealed, opened only by the key ring.
func TestSecretShownOnceAndSealed(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	e := f.create(t, "https://hooks.example.com/in")
	require.True(t, strings.HasPrefix(e.Secret, "whsec_"))
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(e.Secret, "whsec_"))
	require.NoError(t, err)
	assert.Len(t, key, 24)

	got, err := f.svc.Get(ctx, f.system, e.ID)
	require.NoError(t, err)
	list, err := f.svc.List(ctx, f.system)
	require.NoError(t, err)
	for _, v := range []any{got, list} {
		b, err := json.Marshal(v)
		require.NoError(t, err)
		assert.NotContains(t, string(b), "whsec_")
		assert.NotContains(t, string(b), "secret\"")
	}
	rec, err := f.store.Webhook(ctx, f.brand.ID, e.ID)
	require.NoError(t, err)
	assert.False(t, bytes.Contains(rec.Secret, key), "sealed, not plaintext")
	id, err := integrations.KeyIDOf(rec.Secret)
	require.NoError(t, err)
	assert.Equal(t, f.keys.Primary(), id)
}

// TestInputRules: field errors for a bad body, and event types kept
// sorted without repeats.
func TestInputRules(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	_, err := f.svc.Create(ctx, f.system, webhooks.Input{URL: "ftp://x", EventTypes: []string{"User Created"},
		Description: strings.Repeat("d", 501)})
	e := envelope.As(err)
	require.NotNil(t, e)
	codes := map[string]string{}
	for _, it := range e.Fields {
		codes[it.Field] = it.Code
	}
	assert.Equal(t, map[string]string{"url": "invalid_url", "eventTypes": "invalid_format", "description": "too_long"}, codes)
	_, err = f.svc.Create(ctx, f.system, webhooks.Input{URL: "https://a.example.com"})
	require.Error(t, err)
	assert.Equal(t, "required", envelope.As(err).Fields[0].Code)

	made, err := f.svc.Create(ctx, f.system, webhooks.Input{URL: "https://a.example.com/h",
		EventTypes: []string{"user.updated", "user.created", "user.updated"}})
	require.NoError(t, err)
	assert.Equal(t, []string{"user.created", "user.updated"}, made.EventTypes)
	assert.True(t, made.Enabled, "enabled when not sent")
}

// TestRotateKeysReseals: after the key ring gains a new primary,
// RotateKeys re-seals every signing secret (the old secret of a rotation
// too) under it, and deliveries still sign with the same secrets, on every
// store.
func TestRotateKeysReseals(t *testing.T) {
	t.Parallel()
	for name, open := range teststores.All {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := open(t)
			t.Cleanup(func() { s.Close() })
			f := newFixtureOn(t, s)
			ctx := t.Context()
			rcv := newReceiver(t, f.clock.Now, nil)
			a := f.create(t, rcv.srv.URL+"/a")
			b := f.create(t, rcv.srv.URL+"/b")
			rb, err := f.svc.RotateSecret(ctx, f.system, b.ID)
			require.NoError(t, err)

			ring := newRing(t, f)
			next := webhooks.NewService(s, webhooks.WithKeyRing(ring), webhooks.WithClock(f.clock.Now),
				webhooks.WithAddressPolicy(webhooks.AddressPolicy{AllowLoopback: true}))
			rep, err := next.RotateKeys(ctx)
			require.NoError(t, err)
			assert.Equal(t, webhooks.KeysReport{Endpoints: 2, Resealed: 3}, rep)
			byKey, err := next.SecretsByKey(ctx)
			require.NoError(t, err)
			assert.Equal(t, map[string]int{ring.Primary(): 3}, byKey)
			again, err := next.RotateKeys(ctx)
			require.NoError(t, err)
			assert.Zero(t, again.Resealed, "resumable: nothing left to do")

			rcv.trust("a", a.Secret)
			rcv.trust("b-old", b.Secret)
			rcv.trust("b-new", rb.Secret)
			require.NoError(t, next.DeliveryHandler().Deliver(ctx, f.delivery(a.ID, "evt_a", `{}`)).Err)
			require.NoError(t, next.DeliveryHandler().Deliver(ctx, f.delivery(b.ID, "evt_b", `{}`)).Err)
			got := rcv.received()
			require.Len(t, got, 2)
			assert.Equal(t, []string{"a"}, got[0].verifiedBy)
			assert.ElementsMatch(t, []string{"b-old", "b-new"}, got[1].verifiedBy)
		})
	}
}

// newRing returns the fixture's ring with a new primary, k2, first.
func newRing(t *testing.T, f *fixture) *integrations.KeyRing {
	t.Helper()
	ring, err := integrations.NewKeyRing("k2", map[string][]byte{"k1": f.key1, "k2": integrations.GenerateKey()})
	require.NoError(t, err)
	return ring
}
