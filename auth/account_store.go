package auth

import "context"

// AccountStore is the part of [Store] that the account routes need beyond
// brands, users and keys: each brand's [BrandSettings]. Its methods follow
// the contract of Store.
type AccountStore interface {
	// BrandSettings returns the settings of the brand with that ID: the
	// zero BrandSettings when none were stored. [ErrBrandNotFound] if the
	// brand does not exist.
	BrandSettings(ctx context.Context, brandID string) (BrandSettings, error)
	// SetBrandSettings stores bs as the settings of the brand with that
	// ID, replacing any stored before. [ErrBrandNotFound] if the brand
	// does not exist. A store shared by several processes tells them that
	// the brand changed.
	SetBrandSettings(ctx context.Context, brandID string, bs BrandSettings) error
}
