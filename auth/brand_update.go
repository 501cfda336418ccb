package auth

import (
	"context"
	"time"

	"github.com/brandbase/brandbase/events"
	"github.com/brandbase/brandbase/outbox"
)

// BrandUpdate names the fields of a brand to change; a nil field keeps
// the stored value.
type BrandUpdate struct {
	// URL is the brand's new domain, in any form NormalizeBrandURL
	// accepts.
	URL *string
	// Name is the new display name.
	Name *string
	// DefaultCurrency is the new three-letter currency code.
	DefaultCurrency *string
	// Status is Active or Inactive.
	Status *Status
}

// UpdateBrand changes the fields of the brand with that ID that up names,
// validated as CreateBrand validates them, and returns the brand as
// stored. The change is seen at once through this Service (its brand
// caches are dropped), by other instances as SetBrandStatus says. It fails
// with KindInvalid (field errors) for bad input, [ErrBrandNotFound] when
// the brand does not exist and [ErrBrandExists] when the new URL is
// another brand's.
func (s *Service) UpdateBrand(ctx context.Context, id string, up BrandUpdate) (Brand, error) {
	b, err := s.store.BrandByID(ctx, id)
	if err != nil {
		return Brand{}, err
	}
	nb := NewBrand{URL: b.URL, Name: b.Name, DefaultCurrency: b.DefaultCurrency, Status: b.Status}
	if up.URL != nil {
		nb.URL = *up.URL
	}
	if up.Name != nil {
		nb.Name = *up.Name
	}
	if up.DefaultCurrency != nil {
		nb.DefaultCurrency = *up.DefaultCurrency
	}
	if up.Status != nil {
		nb.Status = *up.Status
	}
	if err := nb.validate(); err != nil {
		return Brand{}, err
	}
	old := b
	b.URL, b.Name, b.DefaultCurrency, b.Status = nb.URL, nb.Name, nb.DefaultCurrency, nb.Status
	return s.storeBrand(ctx, old, b)
}

// storeBrand stores b, the brand old changed, with its brand.updated event
// in the same write, drops the brand caches, and calls the hooks once
// stored.
func (s *Service) storeBrand(ctx context.Context, old, b Brand) (Brand, error) {
	now := s.now().UTC().Truncate(time.Microsecond)
	changed := []string{}
	for _, f := range []struct {
		name   string
		differ bool
	}{{"defaultCurrency", old.DefaultCurrency != b.DefaultCurrency}, {"name", old.Name != b.Name},
		{"status", old.Status != b.Status}, {"url", old.URL != b.URL}} {
		if f.differ {
			changed = append(changed, f.name)
		}
	}
	err := s.store.UpdateBrand(ctx, b, brandEvent(b.ID, changed, now))
	s.brands.invalidate(nil)
	s.lastBrands.forgetID(b.ID)
	if err != nil {
		return Brand{}, err
	}
	s.emit(ctx, Event{Type: EventBrandUpdated, At: now, BrandID: b.ID, Changed: changed})
	return b, nil
}

// brandEvent returns the outbox item of a brand.updated event.
func brandEvent(brandID string, changed []string, at time.Time) outbox.Item {
	return event(EventBrandUpdated, brandID, brandID, at, events.Brand{BrandID: brandID, Changed: changed})
}
