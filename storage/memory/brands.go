package memory

import (
	"context"

	"github.com/brandbase/brandbase/auth"
)

type brandRecord struct {
	auth.Brand
	seq int64 // insertion order, to list stably
}

// CreateBrand implements auth.Store.
func (s *Store) CreateBrand(ctx context.Context, b auth.Brand) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.brands[b.ID]; ok {
		return auth.ErrBrandExists
	}
	if _, ok := s.brandByURL[b.URL]; ok {
		return auth.ErrBrandExists
	}
	s.brandSeq++
	s.brands[b.ID] = brandRecord{Brand: b, seq: s.brandSeq}
	s.brandByURL[b.URL] = b.ID
	return nil
}

// UpdateBrand implements auth.Store.
func (s *Store) UpdateBrand(ctx context.Context, b auth.Brand) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	old, ok := s.brands[b.ID]
	if !ok {
		return auth.ErrBrandNotFound
	}
	if id, ok := s.brandByURL[b.URL]; ok && id != b.ID {
		return auth.ErrBrandExists
	}
	delete(s.brandByURL, old.URL)
	s.brands[b.ID] = brandRecord{Brand: b, seq: old.seq}
	s.brandByURL[b.URL] = b.ID
	return nil
}

// BrandByID implements auth.Store.
func (s *Store) BrandByID(ctx context.Context, id string) (auth.Brand, error) {
	if err := ctx.Err(); err != nil {
		return auth.Brand{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	r, ok := s.brands[id]
	if !ok {
		return auth.Brand{}, auth.ErrBrandNotFound
	}
	return r.Brand, nil
}

// BrandByURL implements auth.Store.
func (s *Store) BrandByURL(ctx context.Context, url string) (auth.Brand, error) {
	if err := ctx.Err(); err != nil {
		return auth.Brand{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	id, ok := s.brandByURL[url]
	if !ok {
		return auth.Brand{}, auth.ErrBrandNotFound
	}
	return s.brands[id].Brand, nil
}

// ListBrands implements auth.Store.
func (s *Store) ListBrands(ctx context.Context) ([]auth.Brand, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	recs := make([]brandRecord, 0, len(s.brands))
	for _, r := range s.brands {
		recs = append(recs, r)
	}
	s.mu.RUnlock()
	return inCreationOrder(recs, func(r brandRecord) auth.Brand { return r.Brand }), nil
}
