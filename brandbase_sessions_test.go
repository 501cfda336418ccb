package brandbase_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/internal/testkit/teststores"
	"github.com/brandbase/brandbase/storage"
)

// failingRevocation is a real store whose RevokeKeyPairs runs with its
// context already cancelled: it fails as the second write of ending every
// session does when the request is cancelled between the two writes.
type failingRevocation struct{ storage.Storage }

func (s failingRevocation) RevokeKeyPairs(ctx context.Context, sel auth.KeySelector, at time.Time) (int, error) {
	ctx, cancel := context.WithCancel(ctx)
	cancel()
	return s.Storage.RevokeKeyPairs(ctx, sel, at)
}

// TestEndedSessionsOverHTTP: once a password change or RevokeUserKeys has
// written the user's new session epoch, the old authKey and
// refreshAuthKey are answered 401 over HTTP, though the revocation of
// their pair failed or was never written (docs/authentication.md).
func TestEndedSessionsOverHTTP(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		end  func(ctx context.Context, app *brandbase.App, userID string) error
	}{
		{"SetPassword", func(ctx context.Context, app *brandbase.App, userID string) error {
			return app.Auth.SetPassword(ctx, userID, "a brand new password")
		}},
		{"RevokeUserKeys", func(ctx context.Context, app *brandbase.App, userID string) error {
			_, err := app.Auth.RevokeUserKeys(ctx, userID)
			return err
		}},
		{"EpochBumpAlone", func(ctx context.Context, app *brandbase.App, userID string) error {
			// What either leaves when its second write fails, written by
			// another instance: this one's cache is off to see the store.
			_, err := app.Store.UpdateUser(ctx, userID, func(r *auth.UserRecord) error {
				r.SessionEpoch++
				return nil
			})
			return err
		}},
	} {
		for name, newStore := range teststores.All {
			t.Run(tc.name+"/"+name, func(t *testing.T) {
				t.Parallel()
				ctx := t.Context()
				store := newStore(t)
				t.Cleanup(func() { store.Close() })
				cfg := brandbase.Config{SecretKeys: integrations.EphemeralKeyRing(), AuthOptions: []auth.Option{auth.WithArgon2Params(fastArgon2)}}
				if tc.name == "EpochBumpAlone" {
					cfg.KeyCacheTTL = -1
				}
				app, err := brandbase.New(failingRevocation{store}, cfg)
				require.NoError(t, err)
				t.Cleanup(func() { app.Close() })
				h, err := app.Handler(quiet())
				require.NoError(t, err)
				srv := httptest.NewServer(h)
				t.Cleanup(srv.Close)
				const shop = "shop.example.com"
				brand, err := app.Auth.CreateBrand(ctx, auth.NewBrand{URL: shop, Name: "Shop"})
				require.NoError(t, err)
				user, err := app.Auth.CreateUser(ctx, brand.ID, auth.NewUser{Username: "admin", Password: "admin password",
					Permissions: []auth.Permission{auth.PermAll}})
				require.NoError(t, err)

				send := func(method, path, authKey, body string) (int, map[string]any) {
					req, err := http.NewRequestWithContext(ctx, method, srv.URL+path, strings.NewReader(body))
					require.NoError(t, err)
					req.Header.Set("Brand-URL", shop)
					if authKey != "" {
						req.Header.Set("Auth-Key", authKey)
					}
					if body != "" {
						req.Header.Set("Content-Type", "application/json")
					}
					resp, err := http.DefaultClient.Do(req)
					require.NoError(t, err)
					defer resp.Body.Close()
					var env struct {
						Data map[string]any `json:"data"`
					}
					require.NoError(t, json.NewDecoder(resp.Body).Decode(&env))
					return resp.StatusCode, env.Data
				}
				status, data := send(http.MethodPost, "/api/v1/users/auth", "", `{"username":"admin","password":"admin password"}`)
				require.Equal(t, http.StatusOK, status)
				authKey, _ := data["authKey"].(string)
				refreshKey, _ := data["refreshAuthKey"].(string)
				require.NotEmpty(t, authKey)
				require.NotEmpty(t, refreshKey)
				const route = "/api/v1/app-integrations/analytics/no-such-integration"
				status, _ = send(http.MethodGet, route, authKey, "")
				require.Equal(t, http.StatusNotFound, status, "authenticated (and cached when the cache is on)")

				if err := tc.end(ctx, app, user.ID); tc.name != "EpochBumpAlone" {
					require.ErrorIs(t, err, context.Canceled, "the revocation failed")
				} else {
					require.NoError(t, err)
				}
				status, _ = send(http.MethodGet, route, authKey, "")
				assert.Equal(t, http.StatusUnauthorized, status, "the old authKey")
				status, _ = send(http.MethodPost, "/api/v1/users/auth/refresh-auth-key", "", `{"refreshAuthKey":"`+refreshKey+`"}`)
				assert.Equal(t, http.StatusUnauthorized, status, "the old refreshAuthKey")
			})
		}
	}
}
