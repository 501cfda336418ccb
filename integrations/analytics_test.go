package integrations_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/integrations"
)

func TestAnalyticsValidation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		update bool // run as an update of an existing configuration
		mutate func(w *world, in *integrations.AnalyticsInput)
		want   map[string]string
	}{
		{"missing required fields", false, func(_ *world, in *integrations.AnalyticsInput) {
			*in = integrations.AnalyticsInput{}
		}, map[string]string{"appIntegrationId": "required", "trackingId": "required", "apiKey": "required"}},
		{"empty required fields", false, func(_ *world, in *integrations.AnalyticsInput) {
			in.AppIntegrationID, in.TrackingID, in.APIKey = ptr(""), ptr("  "), ptr("")
		}, map[string]string{"appIntegrationId": "too_short", "trackingId": "too_short", "apiKey": "too_short"}},
		{"apiKey sent empty on update", true, func(_ *world, in *integrations.AnalyticsInput) {
			in.APIKey = ptr("")
		}, map[string]string{"apiKey": "too_short"}},
		{"apiKey not sent on update", true, func(_ *world, in *integrations.AnalyticsInput) {
			in.APIKey = nil
		}, map[string]string{"apiKey": "required"}},
		{"bad status", false, func(_ *world, in *integrations.AnalyticsInput) {
			in.Status = ptr(integrations.Status("Paused"))
		}, map[string]string{"status": "invalid_enum"}},
		{"unknown app integration", false, func(_ *world, in *integrations.AnalyticsInput) {
			in.AppIntegrationID = ptr("no-such-id")
		}, map[string]string{"appIntegrationId": "unknown_reference"}},
		{"app integration of another brand", true, func(w *world, in *integrations.AnalyticsInput) {
			in.AppIntegrationID = &w.otherAnalyticsApp.ID
		}, map[string]string{"appIntegrationId": "unknown_reference"}},
		{"app integration of the other type", false, func(w *world, in *integrations.AnalyticsInput) {
			in.AppIntegrationID = &w.gatewayApp.ID
		}, map[string]string{"appIntegrationId": "type_mismatch"}},
		{"every bad field at once", false, func(w *world, in *integrations.AnalyticsInput) {
			in.AppIntegrationID, in.TrackingID, in.APIKey = &w.gatewayApp.ID, nil, ptr(" ")
			in.Status, in.Metadata = ptr(integrations.Status("nope")), ptr(strings.Repeat("m", 10001))
		}, map[string]string{"appIntegrationId": "type_mismatch", "trackingId": "required", "apiKey": "too_short",
			"status": "invalid_enum", "metadata": "too_long"}},
		{"control characters in trackingId", false, func(_ *world, in *integrations.AnalyticsInput) {
			in.TrackingID = ptr("G-1\x002")
		}, map[string]string{"trackingId": "invalid_format"}},
		{"free text that no store can hold", true, func(_ *world, in *integrations.AnalyticsInput) {
			in.Metadata, in.AccountConfigNotes = ptr("{\"k\":\"\x00\"}"), ptr("\xff")
		}, map[string]string{"metadata": "invalid_format", "accountConfigNotes": "invalid_format"}},
	}
	for name, newStore := range stores {
		for _, tt := range tests {
			t.Run(name+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				w := newWorld(t, newStore)
				ctx := t.Context()
				in := w.analyticsInput(w.analyticsApp.ID)
				tt.mutate(w, &in)
				var err error
				if tt.update {
					a := w.analytics(t)
					_, err = w.svc.UpdateAnalytics(ctx, w.admin, a.ID, in)
					got, gerr := w.svc.Analytics(ctx, w.brand, a.ID)
					require.NoError(t, gerr)
					assert.Equal(t, a, got, "a refused update changes nothing")
				} else {
					_, err = w.svc.CreateAnalytics(ctx, w.admin, in)
				}
				assert.Equal(t, tt.want, fieldCodes(t, err))
				list, lerr := w.svc.ListAnalytics(ctx, w.brand)
				require.NoError(t, lerr)
				if !tt.update {
					assert.Empty(t, list, "a refused create stores nothing")
				}
			})
		}
	}
}

func TestAnalyticsAnswer(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, w *world) {
		ctx := t.Context()
		a := w.analytics(t, func(in *integrations.AnalyticsInput) {
			in.Status, in.IsDefault, in.AccountConfigNotes = ptr(integrations.Status("active")), ptr(true), ptr("acct 7")
		})
		assert.Equal(t, "G-12345", a.TrackingID)
		assert.Equal(t, ptr("********************cdef"), a.APIKey, "apiKey masked but its last 4")
		assert.Equal(t, ptr("******************7654"), a.APISecret, "apiSecret masked too")
		assert.Equal(t, integrations.StatusActive, a.Status, "status canonical")
		assert.True(t, a.IsDefault)
		assert.Equal(t, w.analyticsApp, a.AppIntegration)
		assert.Equal(t, "2026-05-06T07:08:09+00:00", a.CreatedDate, "RFC 3339 with a numeric offset")
		assert.Equal(t, a.CreatedDate, a.UpdatedDate)
		assert.EqualValues(t, 1, a.Version)

		got, err := w.svc.Analytics(ctx, w.brand, a.ID)
		require.NoError(t, err)
		assert.Equal(t, a, got)
		assert.Equal(t, a.ETag(), got.ETag())

		sec, err := w.svc.AnalyticsSecrets(ctx, w.brand, a.ID)
		require.NoError(t, err)
		assert.Equal(t, integrations.AnalyticsSecrets{APIKey: ptr("ak_live_0123456789abcdef"), APISecret: ptr("as_secret_value_987654")}, sec)

		list, err := w.svc.ListAnalytics(ctx, w.brand)
		require.NoError(t, err)
		assert.Equal(t, []integrations.Analytics{a}, list)
	})
}

func TestAnalyticsSecretsOnUpdate(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, w *world) {
		ctx := t.Context()
		a := w.analytics(t)
		update := func(mutate func(in *integrations.AnalyticsInput)) integrations.Analytics {
			t.Helper()
			in := w.analyticsInput(w.analyticsApp.ID)
			mutate(&in)
			got, err := w.svc.UpdateAnalytics(ctx, w.admin, a.ID, in)
			require.NoError(t, err)
			return got
		}
		secrets := func() integrations.AnalyticsSecrets {
			t.Helper()
			s, err := w.svc.AnalyticsSecrets(ctx, w.brand, a.ID)
			require.NoError(t, err)
			return s
		}
		lastFields := func() []string {
			t.Helper()
			revs, err := w.svc.Revisions(ctx, w.brand, integrations.KindAnalytics, a.ID)
			require.NoError(t, err)
			require.NotEmpty(t, revs)
			return revs[len(revs)-1].Fields
		}
		orig := secrets()

		update(func(in *integrations.AnalyticsInput) { in.APIKey, in.APISecret = a.APIKey, a.APISecret })
		assert.Equal(t, orig, secrets(), "masked values sent back keep the stored secrets")
		assert.Empty(t, lastFields())

		update(func(in *integrations.AnalyticsInput) { in.APIKey, in.APISecret = a.APIKey, nil })
		assert.Equal(t, orig, secrets(), "the masked apiKey and an omitted apiSecret are kept")

		// apiKey is required on every update, not only on create.
		in := w.analyticsInput(w.analyticsApp.ID)
		in.APIKey = nil
		_, err := w.svc.UpdateAnalytics(ctx, w.admin, a.ID, in)
		assert.Equal(t, map[string]string{"apiKey": "required"}, fieldCodes(t, err))
		assert.Equal(t, orig, secrets(), "a refused update changes nothing")

		got := update(func(in *integrations.AnalyticsInput) { in.APIKey = ptr("ak_new_key_0000WXYZ") })
		assert.Equal(t, ptr("ak_new_key_0000WXYZ"), secrets().APIKey)
		assert.Equal(t, ptr("***************WXYZ"), got.APIKey)
		assert.Equal(t, []string{"apiKey"}, lastFields(), "the revision names the secret, never its value")

		masked := got.APIKey
		got = update(func(in *integrations.AnalyticsInput) { in.APIKey, in.APISecret = masked, ptr("") })
		assert.Nil(t, got.APISecret, "an empty apiSecret clears it")
		assert.Nil(t, secrets().APISecret)
		assert.Equal(t, []string{"apiSecret"}, lastFields())

		short := update(func(in *integrations.AnalyticsInput) { in.APIKey = ptr("abc12") })
		assert.Equal(t, ptr("*****"), short.APIKey, "a short secret is masked whole")
		update(func(in *integrations.AnalyticsInput) { in.APIKey = ptr("*****") })
		assert.Equal(t, ptr("abc12"), secrets().APIKey, "its mask sent back keeps it")
	})
}

func TestMask(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"":                 "",
		"a":                "*",
		"abcdefg":          "*******",
		"abcdefgh":         "****efgh",
		"sk_live_12345678": "************5678",
		"ключ-секрет-ёжик": "************ёжик",
	}
	for in, want := range tests {
		got := integrations.Mask(in)
		assert.Equal(t, want, got, in)
		assert.LessOrEqual(t, len([]rune(got))-strings.Count(got, "*"), len([]rune(in))/2, "never more than half shows")
	}
}

func TestStatusRule(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, w *world) {
		ctx := t.Context()
		a := w.analytics(t, func(in *integrations.AnalyticsInput) { in.IsDefault = ptr(true) })
		p := w.gateway(t, func(in *integrations.PaymentGatewayInput) { in.IsDefault = ptr(true) })

		// An Inactive configuration is never the default.
		in := w.analyticsInput(w.analyticsApp.ID)
		in.Status, in.IsDefault = ptr(integrations.Status("INACTIVE")), ptr(true)
		got, err := w.svc.UpdateAnalytics(ctx, w.admin, a.ID, in)
		require.NoError(t, err)
		assert.Equal(t, integrations.StatusInactive, got.Status)
		assert.False(t, got.IsDefault)

		// Deactivating the app integration deactivates its configurations.
		in.Status = ptr(integrations.StatusActive)
		_, err = w.svc.UpdateAnalytics(ctx, w.admin, a.ID, in)
		require.NoError(t, err)
		_, err = w.svc.UpdateAppIntegration(ctx, w.admin, w.gatewayApp.ID, integrations.AppIntegrationInput{
			Name: "Gateway", Domain: "https://gw.example.com", Status: "inactive",
		})
		require.NoError(t, err)
		gotP, err := w.svc.PaymentGateway(ctx, w.brand, p.ID)
		require.NoError(t, err)
		assert.Equal(t, integrations.StatusInactive, gotP.Status)
		assert.Equal(t, integrations.StatusInactive, gotP.AppIntegration.Status)
		assert.False(t, gotP.IsDefault)
		revs, err := w.svc.Revisions(ctx, w.brand, integrations.KindPaymentGateway, p.ID)
		require.NoError(t, err)
		require.Len(t, revs, 1)
		assert.Equal(t, []string{"isDefault", "status"}, revs[0].Fields)
		assert.Equal(t, "admin", revs[0].ActorUserID)

		// While it is Inactive, an update sending Active stores Inactive.
		pin := w.gatewayInput(w.gatewayApp.ID)
		pin.Status, pin.IsDefault = ptr(integrations.StatusActive), ptr(true)
		gotP, err = w.svc.UpdatePaymentGateway(ctx, w.admin, p.ID, pin)
		require.NoError(t, err)
		assert.Equal(t, integrations.StatusInactive, gotP.Status)
		assert.False(t, gotP.IsDefault)

		// Once the app integration is Active again, the status sent is kept.
		_, err = w.svc.UpdateAppIntegration(ctx, w.admin, w.gatewayApp.ID, integrations.AppIntegrationInput{
			Name: "Gateway", Domain: "https://gw.example.com", Status: "Active",
		})
		require.NoError(t, err)
		gotP, err = w.svc.UpdatePaymentGateway(ctx, w.admin, p.ID, pin)
		require.NoError(t, err)
		assert.Equal(t, integrations.StatusActive, gotP.Status)
		assert.True(t, gotP.IsDefault)

		// A status not sent keeps the stored one.
		pin.Status = nil
		gotP, err = w.svc.UpdatePaymentGateway(ctx, w.admin, p.ID, pin)
		require.NoError(t, err)
		assert.Equal(t, integrations.StatusActive, gotP.Status)
	})
}

func TestOneDefaultPerBrandAndKind(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, w *world) {
		ctx := t.Context()
		rec := &recorder{}
		w.svc.OnIntegrationUpdated(rec.hook)
		first := w.analytics(t, func(in *integrations.AnalyticsInput) { in.IsDefault = ptr(true) })
		second := w.analytics(t)
		otherBrand, err := w.svc.CreateAnalytics(ctx, w.otherAdmin, w.analyticsInput(w.otherAnalyticsApp.ID))
		require.NoError(t, err)
		oin := w.analyticsInput(w.otherAnalyticsApp.ID)
		oin.IsDefault = ptr(true)
		otherBrand, err = w.svc.UpdateAnalytics(ctx, w.otherAdmin, otherBrand.ID, oin)
		require.NoError(t, err)
		gw := w.gateway(t, func(in *integrations.PaymentGatewayInput) { in.IsDefault = ptr(true) })

		in := w.analyticsInput(w.analyticsApp.ID)
		in.IsDefault = ptr(true)
		got, err := w.svc.UpdateAnalytics(ctx, w.admin, second.ID, in)
		require.NoError(t, err)
		assert.True(t, got.IsDefault)

		list, err := w.svc.ListAnalytics(ctx, w.brand)
		require.NoError(t, err)
		defaults := map[string]bool{}
		for _, a := range list {
			defaults[a.ID] = a.IsDefault
		}
		assert.Equal(t, map[string]bool{first.ID: false, second.ID: true}, defaults, "the default moved")
		firstNow, err := w.svc.Analytics(ctx, w.brand, first.ID)
		require.NoError(t, err)
		assert.NotEqual(t, first.ETag(), firstNow.ETag(), "the record that lost the default has a new version")

		o, err := w.svc.Analytics(ctx, w.other, otherBrand.ID)
		require.NoError(t, err)
		assert.True(t, o.IsDefault, "another brand's default stays")
		g, err := w.svc.PaymentGateway(ctx, w.brand, gw.ID)
		require.NoError(t, err)
		assert.True(t, g.IsDefault, "another kind's default stays")

		// Events: the other brand's update, the cleared default, the update.
		var got3 []string
		for _, ev := range rec.all() {
			got3 = append(got3, ev.Revision.RecordID+":"+strings.Join(ev.Revision.Fields, ","))
		}
		assert.Equal(t, []string{otherBrand.ID + ":isDefault", first.ID + ":isDefault", second.ID + ":isDefault"}, got3)
	})
}

func TestPermissionsAndBrands(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, w *world) {
		ctx := t.Context()
		a := w.analytics(t)
		p := w.gateway(t)
		in := w.analyticsInput(w.analyticsApp.ID)
		pin := w.gatewayInput(w.gatewayApp.ID)

		_, err := w.svc.UpdateAnalytics(ctx, w.viewer, a.ID, in)
		assertKind(t, envelope.KindForbidden, err, "a user without the permission")
		assert.Equal(t, integrations.CodeAccessDenied, envelope.CodeOf(err))
		_, err = w.svc.UpdatePaymentGateway(ctx, w.analyst, p.ID, pin)
		assertKind(t, envelope.KindForbidden, err, "the analytics permission does not cover payment gateways")
		_, err = w.svc.UpdateAnalytics(ctx, w.analyst, a.ID, in)
		assert.NoError(t, err, "it covers analytics")
		// An update works in its actor's brand: another brand's admin acting
		// in this brand (as a body brandUrl without an authKey of this brand
		// makes it) is an actor of this brand without any permission.
		_, err = w.svc.UpdateAnalytics(ctx, auth.Acting{Brand: auth.Brand{ID: w.brand}, Principal: w.otherAdmin}.Actor(), a.ID, in)
		assertKind(t, envelope.KindForbidden, err, "an admin of another brand")
		_, err = w.svc.UpdateAnalytics(ctx, auth.Principal{BrandID: w.brand, Permissions: []auth.Permission{auth.PermAll}}, a.ID, in)
		assertKind(t, envelope.KindForbidden, err, "no user")
		_, err = w.svc.CreateAnalytics(ctx, w.viewer, in)
		assertKind(t, envelope.KindForbidden, err, "create needs the permission too")
		_, err = w.svc.CreateAppIntegration(ctx, w.analyst, integrations.AppIntegrationInput{
			Type: integrations.TypePaymentGateway, Name: "x", Domain: "https://x.example.com"})
		assertKind(t, envelope.KindForbidden, err, "app integrations of a type need its permission")
		_, err = w.svc.UpdateAppIntegration(ctx, auth.Acting{Brand: auth.Brand{ID: w.brand}, Principal: w.otherAdmin}.Actor(), w.analyticsApp.ID, integrations.AppIntegrationInput{
			Name: "x", Domain: "https://x.example.com"})
		assertKind(t, envelope.KindForbidden, err, "another brand's admin cannot change an app integration")
		// Creates work in the actor's brand too: another brand's admin acting
		// in this brand creates nothing in either, and is refused before any
		// lookup (an unknown ID is no different).
		stranger := auth.Acting{Brand: auth.Brand{ID: w.brand}, Principal: w.otherAdmin}.Actor()
		_, err = w.svc.CreateAnalytics(ctx, stranger, in)
		assertKind(t, envelope.KindForbidden, err, "another brand's admin cannot create an analytics configuration")
		_, err = w.svc.CreatePaymentGateway(ctx, stranger, pin)
		assertKind(t, envelope.KindForbidden, err, "another brand's admin cannot create a payment gateway")
		_, err = w.svc.CreateAppIntegration(ctx, stranger, integrations.AppIntegrationInput{
			Type: integrations.TypeAnalytics, Name: "x", Domain: "https://x.example.com"})
		assertKind(t, envelope.KindForbidden, err, "another brand's admin cannot create an app integration")
		_, err = w.svc.UpdateAppIntegration(ctx, stranger, "no-such-id", integrations.AppIntegrationInput{
			Name: "x", Domain: "https://x.example.com"})
		assertKind(t, envelope.KindForbidden, err, "refused before the lookup")
		_, err = w.svc.CreateAnalytics(ctx, auth.Principal{Permissions: []auth.Permission{auth.PermAll}}, in)
		assertKind(t, envelope.KindInvalid, err, "an actor of no brand")

		// The other brand's admin acting in its own brand finds nothing of
		// this brand.
		oin := w.analyticsInput(w.otherAnalyticsApp.ID)
		_, err = w.svc.UpdateAnalytics(ctx, w.otherAdmin, a.ID, oin)
		assertKind(t, envelope.KindNotFound, err, "an ID of another brand")
		_, err = w.svc.UpdatePaymentGateway(ctx, w.otherAdmin, p.ID, w.gatewayInput(w.otherGatewayApp.ID))
		assertKind(t, envelope.KindNotFound, err, "an ID of another brand")
		_, err = w.svc.UpdateAppIntegration(ctx, w.otherAdmin, w.analyticsApp.ID, integrations.AppIntegrationInput{
			Name: "x", Domain: "https://x.example.com"})
		assertKind(t, envelope.KindNotFound, err, "an app integration of another brand")
		_, err = w.svc.Analytics(ctx, w.other, a.ID)
		assertKind(t, envelope.KindNotFound, err, "read")
		_, err = w.svc.PaymentGateway(ctx, w.other, p.ID)
		assertKind(t, envelope.KindNotFound, err, "read")
		_, err = w.svc.AnalyticsSecrets(ctx, w.other, a.ID)
		assertKind(t, envelope.KindNotFound, err, "secrets")
		_, err = w.svc.PaymentGatewaySecrets(ctx, w.other, p.ID)
		assertKind(t, envelope.KindNotFound, err, "secrets")
		_, err = w.svc.AppIntegration(ctx, w.other, w.analyticsApp.ID)
		assertKind(t, envelope.KindNotFound, err, "app integration")
		revs, err := w.svc.Revisions(ctx, w.other, integrations.KindAnalytics, a.ID)
		require.NoError(t, err)
		assert.Empty(t, revs, "revisions")
		list, err := w.svc.ListAnalytics(ctx, w.other)
		require.NoError(t, err)
		assert.Empty(t, list)
		apps, err := w.svc.AppIntegrations(ctx, w.other, nil)
		require.NoError(t, err)
		assert.Len(t, apps, 2)

		_, err = w.svc.ListAnalytics(ctx, "")
		assertKind(t, envelope.KindInvalid, err, "an empty brand is refused, never read as every brand")
		_, err = w.svc.Analytics(ctx, "", a.ID)
		assertKind(t, envelope.KindInvalid, err, "an empty brand")

		got, err := w.svc.Analytics(ctx, w.brand, a.ID)
		require.NoError(t, err)
		assert.Equal(t, "analyst", mustLastRevision(t, w, a.ID).ActorUserID, "only the analyst's update went through")
		assert.EqualValues(t, 2, got.Version)
	})
}

func mustLastRevision(t *testing.T, w *world, id string) integrations.Revision {
	t.Helper()
	revs, err := w.svc.Revisions(t.Context(), w.brand, integrations.KindAnalytics, id)
	require.NoError(t, err)
	require.NotEmpty(t, revs)
	return revs[len(revs)-1]
}

func TestPrecondition(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, w *world) {
		ctx := t.Context()
		a := w.analytics(t)
		in := w.analyticsInput(w.analyticsApp.ID)
		in.TrackingID = ptr("G-2")
		b, err := w.svc.UpdateAnalytics(ctx, w.admin, a.ID, in, integrations.IfMatch(a.ETag()))
		require.NoError(t, err)
		assert.NotEqual(t, a.ETag(), b.ETag())

		in.TrackingID = ptr("G-3")
		_, err = w.svc.UpdateAnalytics(ctx, w.admin, a.ID, in, integrations.IfMatch(a.ETag()))
		assertKind(t, envelope.KindPreconditionFailed, err, "a stale ETag")
		assert.Equal(t, integrations.CodePreconditionFailed, envelope.CodeOf(err))
		got, err := w.svc.Analytics(ctx, w.brand, a.ID)
		require.NoError(t, err)
		assert.Equal(t, "G-2", got.TrackingID, "a failed precondition changes nothing")

		// A change of the app integration changes the answer, hence the ETag.
		_, err = w.svc.UpdateAppIntegration(ctx, w.admin, w.analyticsApp.ID, integrations.AppIntegrationInput{
			Name: "Renamed", Domain: "https://a.example.com"})
		require.NoError(t, err)
		_, err = w.svc.UpdateAnalytics(ctx, w.admin, a.ID, in, integrations.IfMatch(b.ETag()))
		assertKind(t, envelope.KindPreconditionFailed, err, "the app integration changed")

		// The precondition is checked after the record is found.
		_, err = w.svc.UpdateAnalytics(ctx, w.admin, "missing", in, integrations.IfMatch(b.ETag()))
		assertKind(t, envelope.KindNotFound, err, "missing record")
	})
}

func TestRevisionsAndHooks(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, w *world) {
		ctx := t.Context()
		rec := &recorder{}
		unsubscribe := w.svc.OnIntegrationUpdated(rec.hook)
		w.svc.OnIntegrationUpdated(func(context.Context, integrations.IntegrationUpdated) { panic("a broken hook") })
		a := w.analytics(t)
		assert.Empty(t, rec.all(), "a create is not an update")

		w.clock.Add(time.Minute)
		in := w.analyticsInput(w.analyticsApp.ID)
		in.TrackingID, in.APISecret, in.Metadata, in.Status = ptr("G-9"), ptr("new secret value"), nil, ptr(integrations.StatusInactive)
		got, err := w.svc.UpdateAnalytics(ctx, w.analyst, a.ID, in)
		require.NoError(t, err, "a panicking hook does not fail the update")
		assert.Equal(t, "2026-05-06T07:09:09+00:00", got.UpdatedDate)
		assert.Equal(t, a.CreatedDate, got.CreatedDate)

		revs, err := w.svc.Revisions(ctx, w.brand, integrations.KindAnalytics, a.ID)
		require.NoError(t, err)
		require.Len(t, revs, 1)
		r := revs[0]
		assert.Equal(t, "analyst", r.ActorUserID)
		assert.Equal(t, w.brand, r.BrandID)
		assert.EqualValues(t, 2, r.Version)
		assert.True(t, r.At.Equal(w.clock.Now()))
		assert.Equal(t, []string{"apiSecret", "metadata", "status", "trackingId"}, r.Fields)
		assert.NotContains(t, strings.Join(r.Fields, " "), "new secret value")

		evs := rec.all()
		require.Len(t, evs, 1)
		assert.Equal(t, r, evs[0].Revision)

		unsubscribe()
		_, err = w.svc.UpdateAnalytics(ctx, w.admin, a.ID, in)
		require.NoError(t, err)
		assert.Len(t, rec.all(), 1, "an unsubscribed hook is not called")
		revs, err = w.svc.Revisions(ctx, w.brand, integrations.KindAnalytics, a.ID)
		require.NoError(t, err)
		assert.Len(t, revs, 2, "an update that changes nothing is recorded too")
		assert.Empty(t, revs[1].Fields)
	})
}
