package auth_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
)

// TestServiceReturnsStoreSentinels checks that the failures a store
// reports reach the service's callers as the store contract's sentinel
// errors, which they match with errors.Is, on every store.
func TestServiceReturnsStoreSentinels(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		taken := "viewer"
		tests := []struct {
			name string
			want *envelope.Error
			call func(ctx context.Context) error
		}{
			{"Brand missing", auth.ErrBrandNotFound, func(ctx context.Context) error { _, err := e.svc.Brand(ctx, "missing"); return err }},
			{"SetBrandStatus missing", auth.ErrBrandNotFound, func(ctx context.Context) error {
				_, err := e.svc.SetBrandStatus(ctx, "missing", auth.StatusInactive)
				return err
			}},
			{"CreateBrand taken URL", auth.ErrBrandExists, func(ctx context.Context) error {
				_, err := e.svc.CreateBrand(ctx, auth.NewBrand{URL: e.brand.URL, Name: "Again"})
				return err
			}},
			{"CreateUser in a missing brand", auth.ErrBrandNotFound, func(ctx context.Context) error {
				_, err := e.svc.CreateUser(ctx, "missing", auth.NewUser{Username: "x", Password: "pass word one"})
				return err
			}},
			{"CreateUser taken username", auth.ErrUserExists, func(ctx context.Context) error {
				_, err := e.svc.CreateUser(ctx, e.brand.ID, auth.NewUser{Username: "Viewer", Password: "pass word one"})
				return err
			}},
			{"UpdateUser to a taken username", auth.ErrUserExists, func(ctx context.Context) error {
				_, err := e.svc.UpdateUser(ctx, e.admin.ID, auth.UserUpdate{Username: &taken})
				return err
			}},
			{"User missing", auth.ErrUserNotFound, func(ctx context.Context) error { _, err := e.svc.User(ctx, "missing"); return err }},
			{"SetPassword missing", auth.ErrUserNotFound, func(ctx context.Context) error {
				return e.svc.SetPassword(ctx, "missing", "pass word one")
			}},
			{"RevokeDevice missing", auth.ErrDeviceNotFound, func(ctx context.Context) error {
				_, err := e.svc.RevokeDevice(ctx, e.admin.ID, "missing")
				return err
			}},
		}
		for _, tt := range tests {
			err := tt.call(t.Context())
			assert.ErrorIs(t, err, tt.want, tt.name)
			assert.Equal(t, tt.want.Message, envelope.As(err).Message, tt.name)
		}
	})
}
