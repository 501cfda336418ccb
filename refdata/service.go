package refdata

import (
	"context"
	"strings"

	"github.com/brandbase/brandbase/envelope"
)

// Service answers the reference-data list queries. It is safe for
// concurrent use.
type Service struct {
	store Store
}

// NewService returns a Service on store.
func NewService(store Store) *Service {
	return &Service{store: store}
}

// ListCurrencies returns the page of currencies that q selects. The currency
// whose code is defaultCurrency (the brand's) has IsDefault set. It fails with
// KindInvalid, one field error per bad parameter, when q is invalid.
func (s *Service) ListCurrencies(ctx context.Context, defaultCurrency string, q CurrencyQuery) (Page[Currency], error) {
	var v envelope.Validation
	q.Page = q.Page.normalize(&v)
	if err := v.Err(); err != nil {
		return Page[Currency]{}, err
	}
	items, total, err := s.store.ListCurrencies(ctx, q)
	if err != nil {
		return Page[Currency]{}, err
	}
	if items == nil {
		items = []Currency{}
	}
	for i := range items {
		items[i].IsDefault = strings.EqualFold(items[i].Code, defaultCurrency)
	}
	return Page[Currency]{Items: items, TotalItems: total, PageNumber: q.Page.Number, PageSize: q.Page.Size}, nil
}
