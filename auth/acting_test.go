package auth_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
)

// TestActingIdentity covers the acting identity in-process: the body's
// brandUrl and authKey, where present, replace the request's brand and
// principal.
func TestActingIdentity(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		header := e.login(t) // the admin of shop.example.com
		headerP, err := e.svc.Authenticate(ctx, e.brand, header.AuthKey)
		require.NoError(t, err)
		viewer, err := e.svc.Login(ctx, e.brand, auth.LoginRequest{Username: "viewer", Password: "viewer password"})
		require.NoError(t, err)
		stray, err := e.svc.Login(ctx, e.other, auth.LoginRequest{Username: "admin", Password: strayPassword})
		require.NoError(t, err)
		paused, err := e.svc.CreateBrand(ctx, auth.NewBrand{URL: "paused.example.com", Name: "Paused"})
		require.NoError(t, err)
		_, err = e.svc.SetBrandStatus(ctx, paused.ID, auth.StatusInactive)
		require.NoError(t, err)

		tests := []struct {
			name      string
			body      auth.ActingAs
			wantBrand string // brand ID
			wantUser  string // user ID
			wantKind  envelope.Kind
			wantCode  string
		}{
			{name: "no body identity: the request's", wantBrand: e.brand.ID, wantUser: e.admin.ID},
			{name: "blank brandUrl is absent", body: auth.ActingAs{BrandURL: "  "}, wantBrand: e.brand.ID, wantUser: e.admin.ID},
			{name: "body key of another user of the brand", body: auth.ActingAs{AuthKey: viewer.AuthKey},
				wantBrand: e.brand.ID, wantUser: e.viewer.ID},
			{name: "body brand alone: the header principal in that brand", body: auth.ActingAs{BrandURL: "https://Other.Example.com/"},
				wantBrand: e.other.ID, wantUser: e.admin.ID},
			{name: "body brand and its key", body: auth.ActingAs{BrandURL: "other.example.com", AuthKey: stray.AuthKey},
				wantBrand: e.other.ID, wantUser: e.stray.ID},
			{name: "body key of another brand", body: auth.ActingAs{AuthKey: stray.AuthKey},
				wantKind: envelope.KindForbidden, wantCode: auth.CodeAccessDenied},
			{name: "header key is no key of the body brand", body: auth.ActingAs{BrandURL: "other.example.com", AuthKey: header.AuthKey},
				wantKind: envelope.KindForbidden, wantCode: auth.CodeAccessDenied},
			{name: "body key not a key", body: auth.ActingAs{AuthKey: "not-a-key"},
				wantKind: envelope.KindForbidden, wantCode: auth.CodeAccessDenied},
			{name: "whitespace body key is present", body: auth.ActingAs{AuthKey: " "},
				wantKind: envelope.KindForbidden, wantCode: auth.CodeAccessDenied},
			{name: "unknown body brand", body: auth.ActingAs{BrandURL: "nowhere.example.com", AuthKey: stray.AuthKey},
				wantKind: envelope.KindNotFound, wantCode: auth.CodeBrandNotFound},
			{name: "inactive body brand", body: auth.ActingAs{BrandURL: "paused.example.com"},
				wantKind: envelope.KindForbidden, wantCode: auth.CodeBrandInactive},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				act, err := e.svc.ActingIdentity(ctx, e.brand, headerP, tc.body)
				if tc.wantCode != "" {
					require.Error(t, err)
					assert.Equal(t, tc.wantKind, envelope.KindOf(err))
					assert.Equal(t, tc.wantCode, envelope.CodeOf(err))
					assert.Zero(t, act)
					return
				}
				require.NoError(t, err)
				assert.Equal(t, tc.wantBrand, act.Brand.ID)
				assert.Equal(t, tc.wantUser, act.Principal.UserID)
			})
		}
	})
}

// The actor of an acting identity is its principal in its own brand, and in
// another brand a principal of that brand with no permission.
func TestActingActor(t *testing.T) {
	t.Parallel()
	admin := auth.Principal{BrandID: "a", UserID: "u", Permissions: []auth.Permission{auth.PermAll}}
	assert.Equal(t, admin, auth.Acting{Brand: auth.Brand{ID: "a"}, Principal: admin}.Actor())
	for _, p := range []auth.Principal{admin, auth.SystemPrincipal("a")} {
		got := auth.Acting{Brand: auth.Brand{ID: "b"}, Principal: p}.Actor()
		assert.Equal(t, "b", got.BrandID)
		assert.Empty(t, got.UserID)
		assert.False(t, got.System)
		assert.False(t, got.Can(auth.PermAnalyticsWrite))
	}
}
