package memory

import (
	"context"
	"slices"

	"github.com/brandbase/brandbase/refdata"
)

// ListCurrencies implements refdata.Store.
func (s *Store) ListCurrencies(ctx context.Context, q refdata.CurrencyQuery) ([]refdata.Currency, int, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	total := len(s.currencyIDs)
	start := min(q.Page.Offset(), total)
	end := min(start+q.Page.Size, total)
	out := make([]refdata.Currency, 0, end-start)
	for _, id := range s.currencyIDs[start:end] {
		out = append(out, s.currencies[id])
	}
	return out, total, nil
}

// UpsertCurrencies implements refdata.Store.
func (s *Store) UpsertCurrencies(ctx context.Context, cs []refdata.Currency) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range cs {
		if _, ok := s.currencies[c.ID]; !ok {
			s.currencyIDs = append(s.currencyIDs, c.ID)
		}
		c.IsDefault = false
		s.currencies[c.ID] = c
	}
	slices.Sort(s.currencyIDs)
	return nil
}

// DatasetVersion implements refdata.Store.
func (s *Store) DatasetVersion(ctx context.Context) (string, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.dataset, ctx.Err()
}

// SetDatasetVersion implements refdata.Store.
func (s *Store) SetDatasetVersion(ctx context.Context, version string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dataset = version
	return ctx.Err()
}
