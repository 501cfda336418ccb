package auth

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/brandbase/brandbase/envelope"
)

// BrandSettings are the settings of one brand that its account routes
// obey. The zero value is the default of a brand whose settings were
// never set: sign-up closed, no device cap, reset links only to the
// brand's own URL over https.
type BrandSettings struct {
	// RegistrationOpen lets visitors sign up (POST users/register); false
	// by default, when the route answers 403 registration_closed.
	RegistrationOpen bool `json:"registrationOpen"`
	// MaxDevicesPerUser caps the devices (sessions) a user of the brand
	// keeps: a login past the cap ends the device used longest ago. 0
	// means no cap; at most MaxDeviceCap.
	MaxDevicesPerUser int `json:"maxDevicesPerUser"`
	// ResetLinkOrigins are the origins (scheme://host[:port], http or
	// https, no path) that a password-reset link may point to besides
	// https:// and the brand's own URL, which is always allowed. Stored
	// lower-cased, without a trailing slash, distinct, in the order given;
	// at most MaxResetLinkOrigins.
	ResetLinkOrigins []string `json:"resetLinkOrigins"`
}

// Bounds of [BrandSettings].
const (
	// MaxDeviceCap is the largest MaxDevicesPerUser a brand may set.
	MaxDeviceCap = 1000
	// MaxResetLinkOrigins is how many ResetLinkOrigins a brand may list.
	MaxResetLinkOrigins = 20
	// maxOriginLen bounds one origin, in bytes.
	maxOriginLen = 255
)

// clone returns a copy of bs that shares no slice with it.
func (bs BrandSettings) clone() BrandSettings {
	bs.ResetLinkOrigins = slices.Clone(bs.ResetLinkOrigins)
	return bs
}

// validate checks bs and returns it normalised: the origins in their
// canonical form, distinct, never nil.
func (bs BrandSettings) validate() (BrandSettings, error) {
	var v envelope.Validation
	if bs.MaxDevicesPerUser < 0 || bs.MaxDevicesPerUser > MaxDeviceCap {
		v.Add("maxDevicesPerUser", "out_of_range", "The device cap must be 0 (no cap) to 1000.")
	}
	if len(bs.ResetLinkOrigins) > MaxResetLinkOrigins {
		v.Add("resetLinkOrigins", "too_many", "At most 20 reset link origins may be listed.")
	}
	origins := make([]string, 0, len(bs.ResetLinkOrigins))
	for _, raw := range bs.ResetLinkOrigins {
		o, ok := NormalizeOrigin(raw)
		if !ok {
			v.Add("resetLinkOrigins", "invalid_url",
				"Each reset link origin must be an absolute http or https origin (scheme://host[:port]) without a path.")
			break
		}
		if !slices.Contains(origins, o) {
			origins = append(origins, o)
		}
	}
	if err := v.Err(); err != nil {
		return BrandSettings{}, err
	}
	bs.ResetLinkOrigins = origins
	return bs, nil
}

// NormalizeOrigin returns the canonical form of an http or https origin,
// scheme://host[:port] with the scheme and host lower-cased and no
// trailing slash, and whether raw is one: an absolute URL whose scheme is
// http or https, with a host, and without user info, path (but "/"),
// query or fragment, of at most 255 bytes.
//
//	NormalizeOrigin("HTTPS://Shop.Example.com/") == "https://shop.example.com", true
func NormalizeOrigin(raw string) (string, bool) {
	if raw == "" || len(raw) > maxOriginLen || strings.TrimSpace(raw) != raw {
		return "", false
	}
	u, err := url.Parse(raw)
	if err != nil || u.Opaque != "" || u.User != nil || u.Host == "" || u.RawQuery != "" || u.ForceQuery ||
		u.Fragment != "" || (u.Path != "" && u.Path != "/") {
		return "", false
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return "", false
	}
	host, ok := NormalizeBrandURL(u.Host)
	if !ok || host != strings.ToLower(u.Host) {
		return "", false // a host NormalizeBrandURL changes (a trailing dot, an empty port) is not an origin
	}
	return scheme + "://" + host, true
}

// BrandSettings returns the settings of the brand with that ID: the
// defaults (the zero BrandSettings) when none were set. It fails with
// [ErrBrandNotFound] when the brand does not exist, and with the store's
// errors.
//
// Answers are cached like brands ([WithKeyCache]): a change made through
// this Service is seen at once, one made by another process sharing the
// store once [Service.Forget] hears of it (a ChangeBrand of the brand,
// which storage/postgres sends on every settings change), and otherwise
// within the cache TTL. The slice returned is the caller's own.
func (s *Service) BrandSettings(ctx context.Context, brandID string) (BrandSettings, error) {
	now := s.now()
	if bs, ok := s.settings.get(brandID, now); ok {
		return bs.clone(), nil
	}
	gen := s.settings.generation()
	bs, err := s.store.BrandSettings(ctx, brandID)
	if err != nil {
		return BrandSettings{}, err
	}
	if bs.ResetLinkOrigins == nil {
		bs.ResetLinkOrigins = []string{}
	}
	s.settings.put(brandID, bs.clone(), now, now.Add(s.cacheTTL), gen)
	return bs, nil
}

// SetBrandSettings replaces the settings of the brand with that ID with
// bs. MaxDevicesPerUser must be 0 (no cap) to MaxDeviceCap, and each of
// ResetLinkOrigins an absolute http or https origin without a path
// ([NormalizeOrigin]), at most MaxResetLinkOrigins of them; they are
// stored in canonical form, duplicates dropped. It fails with KindInvalid
// (field errors) for bad settings, [ErrBrandNotFound] when the brand does
// not exist, and with the store's errors. The next call of BrandSettings
// through this Service sees the change; other processes sharing the store
// see it within the cache TTL, or at once when the store reports its
// changes (storage/postgres: within a second).
func (s *Service) SetBrandSettings(ctx context.Context, brandID string, bs BrandSettings) error {
	bs, err := bs.validate()
	if err != nil {
		return err
	}
	now := s.now().UTC().Truncate(time.Microsecond)
	changed := []string{"settings"}
	err = s.store.SetBrandSettings(ctx, brandID, bs, brandEvent(brandID, changed, now))
	// Also on failure: the write may have happened before a late error.
	s.settings.invalidate(func(id string, _ BrandSettings) bool { return id == brandID })
	if err != nil {
		return err
	}
	s.emit(ctx, Event{Type: EventBrandUpdated, At: now, BrandID: brandID, Changed: changed})
	return nil
}
