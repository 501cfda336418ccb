package integrations

import (
	"cmp"
	"context"
	"strings"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
)

// analyticsFields is an AnalyticsInput after validation.
type analyticsFields struct {
	common     commonInput
	trackingID string
	apiKey     *string
	apiSecret  *string
	metadata   *string
	notes      *string
}

// validate checks in, with a field error for every bad field. apiKey is
// required on create and on every update; on update, the masked
// value a GET answered keeps the stored one.
func (in AnalyticsInput) validate(v *envelope.Validation) analyticsFields {
	var f analyticsFields
	f.common = validateCommon(v, in.AppIntegrationID, in.IsDefault)
	f.trackingID = requiredText(v, "trackingId", in.TrackingID, maxNameLen)
	switch {
	case in.APIKey == nil:
		v.Add("apiKey", "required", "The field apiKey is required.")
	case strings.TrimSpace(*in.APIKey) == "":
		v.Add("apiKey", "too_short", "The field apiKey must have at least 1 character.")
	}
	f.apiKey = optionalSecret(v, "apiKey", in.APIKey)
	f.apiSecret = optionalSecret(v, "apiSecret", in.APISecret)
	f.metadata = optionalText(v, "metadata", in.Metadata, maxMetaLen)
	f.notes = optionalText(v, "accountConfigNotes", in.AccountConfigNotes, maxTextLen)
	f.common.status = parseStatus(v, "status", in.Status)
	return f
}

// saveAnalytics creates (id "") or updates an analytics configuration.
func (s *Service) saveAnalytics(ctx context.Context, actor auth.Principal, brandID, id string, in AnalyticsInput, pre []Precondition) (Analytics, error) {
	sv := &save[AnalyticsRecord]{k: &analyticsKind, actor: actor, brandID: brandID, id: id, pre: pre}
	f := in.validate(&sv.v)
	sv.common = f.common
	sv.apply = func(next, cur *AnalyticsRecord) error {
		next.TrackingID, next.Metadata, next.AccountConfigNotes = f.trackingID, f.metadata, f.notes
		var curKey, curSecret []byte
		if cur != nil {
			curKey, curSecret = cur.APIKey, cur.APISecret
		}
		var err error
		if next.APIKey, err = s.nextSecret(secretOf(KindAnalytics, &next.ConfigHeader, "apiKey"), curKey, f.apiKey); err != nil {
			return err
		}
		next.APISecret, err = s.nextSecret(secretOf(KindAnalytics, &next.ConfigHeader, "apiSecret"), curSecret, f.apiSecret)
		return err
	}
	r, p, err := sv.run(ctx, s)
	if err != nil {
		return Analytics{}, err
	}
	return s.analyticsView(r, p)
}

// CreateAnalytics validates in and stores a new analytics configuration in
// the actor's brand (actor.BrandID) on behalf of actor (who needs
// auth.PermAnalyticsWrite there), applying the status and default rules. It fails with KindForbidden
// (access_denied) or KindInvalid (a field error per bad field: apiKey,
// trackingId and appIntegrationId are required, and appIntegrationId must
// name an Analytics app integration of the brand).
func (s *Service) CreateAnalytics(ctx context.Context, actor auth.Principal, in AnalyticsInput) (Analytics, error) {
	return s.saveAnalytics(ctx, actor, actor.BrandID, "", in, nil)
}

// UpdateAnalytics replaces the analytics configuration with that ID in the
// actor's brand (actor.BrandID) on behalf of actor (who needs
// auth.PermAnalyticsWrite there), as [AnalyticsInput] describes,
// atomically: it checks every precondition given (a nil one is ignored;
// [IfMatch] makes one) against the current ETag, applies the status rule (Inactive while the app
// integration is; an Inactive configuration is not the default), clears the
// default of the brand's other analytics configurations when this one
// becomes the default, and writes a revision. It fails with KindForbidden
// (access_denied), KindNotFound (no such configuration in the brand),
// KindPreconditionFailed, or KindInvalid (a field error per bad field:
// appIntegrationId, trackingId and apiKey are required, as on create).
func (s *Service) UpdateAnalytics(ctx context.Context, actor auth.Principal, id string, in AnalyticsInput, pre ...Precondition) (Analytics, error) {
	if id == "" {
		return Analytics{}, ErrConfigNotFound
	}
	return s.saveAnalytics(ctx, actor, actor.BrandID, id, in, pre)
}

// Analytics returns the analytics configuration of brandID with that ID,
// secrets masked, or KindNotFound. It fails with ErrSecretUnreadable when
// a secret does not decrypt with the key ring.
func (s *Service) Analytics(ctx context.Context, brandID, id string) (Analytics, error) {
	r, p, err := readConfig(ctx, s, &analyticsKind, brandID, id)
	if err != nil {
		return Analytics{}, err
	}
	a, err := s.analyticsView(r, p)
	if err != nil {
		return Analytics{}, err
	}
	return a, nil
}

// ListAnalytics returns the analytics configurations of brandID, secrets
// masked, oldest first. A configuration whose secrets do not decrypt with
// the key ring is listed with SecretsUnreadable set (the unreadable secret
// nil), not as a failure of the list.
func (s *Service) ListAnalytics(ctx context.Context, brandID string) ([]Analytics, error) {
	return listConfigs(ctx, s, &analyticsKind, brandID, s.analyticsView)
}

// AnalyticsSecrets returns the plaintext secrets of the analytics
// configuration of brandID with that ID, for the host's own use (never to
// be sent to clients). It fails with KindNotFound, or ErrSecretUnreadable
// when a secret does not decrypt with the key ring.
func (s *Service) AnalyticsSecrets(ctx context.Context, brandID, id string) (AnalyticsSecrets, error) {
	r, _, err := readConfig(ctx, s, &analyticsKind, brandID, id)
	if err != nil {
		return AnalyticsSecrets{}, err
	}
	key, err := s.open(secretOf(KindAnalytics, &r.ConfigHeader, "apiKey"), r.APIKey)
	if err != nil {
		return AnalyticsSecrets{}, err
	}
	secret, err := s.open(secretOf(KindAnalytics, &r.ConfigHeader, "apiSecret"), r.APISecret)
	if err != nil {
		return AnalyticsSecrets{}, err
	}
	return AnalyticsSecrets{APIKey: key, APISecret: secret}, nil
}

// analyticsView returns the answer for r under app integration p. When a
// secret does not decrypt it returns the answer with that secret empty and
// SecretsUnreadable set, and ErrSecretUnreadable.
func (s *Service) analyticsView(r AnalyticsRecord, p AppIntegration) (Analytics, error) {
	key, keyErr := s.openMasked(secretOf(KindAnalytics, &r.ConfigHeader, "apiKey"), r.APIKey)
	secret, secretErr := s.openMasked(secretOf(KindAnalytics, &r.ConfigHeader, "apiSecret"), r.APISecret)
	err := cmp.Or(keyErr, secretErr)
	return Analytics{
		AppIntegration: p, TrackingID: r.TrackingID, APIKey: key, APISecret: secret,
		Metadata: r.Metadata, AccountConfigNotes: r.AccountConfigNotes, IsDefault: r.IsDefault,
		Status: r.Status, ID: r.ID, CreatedDate: formatDate(r.CreatedAt), UpdatedDate: formatDate(r.UpdatedAt),
		BrandID: r.BrandID, Version: r.Version, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
		SecretsUnreadable: err != nil,
	}, err
}
