// Package auth holds brands (the tenants), their users, passwords, auth key
// pairs, devices and permissions, and the [Service] that applies their rules.
//
// The package declares the [Store] it needs; storage/memory and
// storage/sqlite implement it. Every failure is an *envelope.Error.
package auth

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/brandbase/brandbase/envelope"
)

// Service applies the rules of brands and authentication on top of a Store.
// It is safe for concurrent use.
type Service struct {
	store Store
	now   func() time.Time
}

// Option configures a Service.
type Option func(*Service)

// WithClock sets the clock the service reads the time from (time.Now by
// default); tests use it to move time without sleeping.
func WithClock(now func() time.Time) Option {
	return func(s *Service) { s.now = now }
}

// NewService returns a Service on store.
func NewService(store Store, opts ...Option) *Service {
	s := &Service{store: store, now: time.Now}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Error codes of brand resolution, as DESIGN.md section 3 fixes them.
const (
	CodeBrandURLRequired = "brand_url_required"
	CodeBrandNotFound    = "brand_not_found"
	CodeBrandInactive    = "brand_inactive"
)

// CreateBrand validates nb, normalises its URL and stores a new brand.
// It fails with KindInvalid (field errors) for bad input and KindConflict when
// a brand with the same URL exists.
func (s *Service) CreateBrand(ctx context.Context, nb NewBrand) (Brand, error) {
	if err := nb.validate(); err != nil {
		return Brand{}, err
	}
	b := Brand{
		ID:              uuid.Must(uuid.NewV7()).String(),
		URL:             nb.URL,
		Name:            nb.Name,
		Status:          nb.Status,
		DefaultCurrency: nb.DefaultCurrency,
		CreatedAt:       s.now().UTC().Truncate(time.Microsecond),
	}
	if err := s.store.CreateBrand(ctx, b); err != nil {
		return Brand{}, err
	}
	return b, nil
}

// Brand returns the brand with the given ID, or KindNotFound.
func (s *Service) Brand(ctx context.Context, id string) (Brand, error) {
	return s.store.BrandByID(ctx, id)
}

// Brands returns every brand, oldest first.
func (s *Service) Brands(ctx context.Context) ([]Brand, error) {
	return s.store.ListBrands(ctx)
}

// SetBrandStatus changes a brand's status. KindNotFound if the brand does not
// exist, KindInvalid for a status other than Active or Inactive.
func (s *Service) SetBrandStatus(ctx context.Context, id string, status Status) (Brand, error) {
	st, ok := ParseStatus(string(status))
	if !ok {
		return Brand{}, envelope.Invalid("The status is invalid.",
			envelope.Field("status", "invalid_enum", "The status must be Active or Inactive."))
	}
	b, err := s.store.BrandByID(ctx, id)
	if err != nil {
		return Brand{}, err
	}
	b.Status = st
	if err := s.store.UpdateBrand(ctx, b); err != nil {
		return Brand{}, err
	}
	return b, nil
}

// ResolveBrand finds the active brand a Brand-URL header value names.
// It fails with KindInvalid (code brand_url_required) when raw is empty,
// KindNotFound (brand_not_found) when no brand has that URL or raw is not a
// domain, and KindForbidden (brand_inactive) when the brand is inactive.
func (s *Service) ResolveBrand(ctx context.Context, raw string) (Brand, error) {
	if strings.TrimSpace(raw) == "" {
		return Brand{}, &envelope.Error{
			Kind: envelope.KindInvalid, Code: CodeBrandURLRequired,
			Message: "The Brand-URL header is required.",
			Fields:  []envelope.ErrorItem{envelope.Field("Brand-URL", CodeBrandURLRequired, "The Brand-URL header is required.")},
		}
	}
	notFound := envelope.New(envelope.KindNotFound, CodeBrandNotFound, "No brand has this Brand-URL.")
	url, ok := NormalizeBrandURL(raw)
	if !ok {
		return Brand{}, notFound
	}
	b, err := s.store.BrandByURL(ctx, url)
	if envelope.KindOf(err) == envelope.KindNotFound {
		return Brand{}, notFound
	}
	if err != nil {
		return Brand{}, err
	}
	if b.Status != StatusActive {
		return Brand{}, envelope.New(envelope.KindForbidden, CodeBrandInactive, "This brand is inactive.")
	}
	return b, nil
}
