package auth

import "context"

// Store is what the auth service needs from storage. Every method is atomic
// and safe for concurrent use. Failures are *envelope.Error values:
// KindNotFound when the record does not exist, KindConflict when a unique
// key is taken, KindInternal for anything else.
type Store interface {
	// CreateBrand stores a new brand. KindConflict if its ID or URL is taken.
	CreateBrand(ctx context.Context, b Brand) error
	// UpdateBrand replaces the brand with b.ID. KindNotFound if absent,
	// KindConflict if b.URL belongs to another brand.
	UpdateBrand(ctx context.Context, b Brand) error
	// BrandByID returns the brand with that ID, or KindNotFound.
	BrandByID(ctx context.Context, id string) (Brand, error)
	// BrandByURL returns the brand with that normalised URL, or KindNotFound.
	BrandByURL(ctx context.Context, url string) (Brand, error)
	// ListBrands returns every brand, ordered by creation time then ID.
	ListBrands(ctx context.Context) ([]Brand, error)
}
