package brandbase_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/internal/testkit/pgtest"
	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/storage/storeurl"
)

// sharedStorePaths returns, by name, a function that gives the path of a
// fresh database that several stores can open at once: a SQLite file, and
// a PostgreSQL schema (skipped without BRANDBASE_TEST_POSTGRES).
var sharedStorePaths = map[string]func(t *testing.T) string{
	"sqlite":   func(t *testing.T) string { return filepath.Join(t.TempDir(), "shared.db") },
	"postgres": func(t *testing.T) string { return pgtest.Schema(t) },
}

// twoApps opens two Apps, each on a store of its own opened on path (two
// instances sharing a database), the first served over real HTTP; it
// returns them and the first's server URL.
func twoApps(t *testing.T, path string) (a, b *brandbase.App, url string) {
	t.Helper()
	apps := make([]*brandbase.App, 2)
	keys := integrations.EphemeralKeyRing() // one key ring for both instances, as for any shared store
	for i := range apps {
		store, err := storeurl.Open(t.Context(), path, storeurl.Options{})
		require.NoError(t, err)
		t.Cleanup(func() { store.Close() })
		apps[i], err = brandbase.New(store, brandbase.Config{SecretKeys: keys, AuthOptions: []auth.Option{auth.WithArgon2Params(fastArgon2)}})
		require.NoError(t, err)
		t.Cleanup(func() { apps[i].Close() })
	}
	h, err := apps[0].Handler(quiet())
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return apps[0], apps[1], srv.URL
}

// TestNoOpWriteKeepsNoStaleList: instance A's index is at revision R and
// has been listed; instance B adds a city; A then imports cities that are
// all stored already (a write that changes nothing), in one batch or with
// B's write landing between two batches. A's list must show B's city, and
// the ETag A answered before must not match any more
// (docs/several-instances.md, How a snapshot adopts a revision).
//
// It holds the outcome, not the rule that once gave it: it passes whether
// or not a write that changes nothing moves the revision, since the list
// engine now rebuilds on any higher revision. That rule (every write
// moves the revision by one, a no-op too) is held by the store contract
// alone: storagetest's RevisionCountsWrites fails ("the same cities
// again: the revision advances by one") on every store when a no-op
// write skips the bump.
func TestNoOpWriteKeepsNoStaleList(t *testing.T) {
	t.Parallel()
	const known = "countryCode,stateCode,name\nUS,CA,Los Angeles\nUS,NY,New York\nDE,BE,Berlin\n"
	const elsewhere = "countryCode,stateCode,name\nUS,CA,Elsewhereville\n"
	for name, path := range sharedStorePaths {
		for _, between := range []bool{false, true} {
			t.Run(name+map[bool]string{false: "/after", true: "/between-batches"}[between], func(t *testing.T) {
				t.Parallel()
				a, b, url := twoApps(t, path(t))
				ctx := t.Context()
				_, err := a.Auth.CreateBrand(ctx, auth.NewBrand{URL: "shop.example.com", Name: "Shop"})
				require.NoError(t, err)
				_, err = a.RefData.ImportCities(ctx, strings.NewReader(known), refdata.ImportOptions{})
				require.NoError(t, err)
				require.NoError(t, a.WarmUp(ctx))

				get := func(etag string) (int, string, []any) {
					req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/api/v1/cities?name=elsewhereville", nil)
					require.NoError(t, err)
					req.Header.Set("Brand-URL", "shop.example.com")
					if etag != "" {
						req.Header.Set("If-None-Match", etag)
					}
					resp, err := http.DefaultClient.Do(req)
					require.NoError(t, err)
					defer resp.Body.Close()
					var env struct {
						Data struct {
							Items []any `json:"items"`
						} `json:"data"`
					}
					if resp.StatusCode == http.StatusOK {
						require.NoError(t, json.NewDecoder(resp.Body).Decode(&env))
					}
					return resp.StatusCode, resp.Header.Get("ETag"), env.Data.Items
				}
				status, before, items := get("") // A's index at R, listed
				require.Equal(t, http.StatusOK, status)
				require.Empty(t, items)
				require.NotEmpty(t, before)

				addElsewhere := func() {
					_, err := b.RefData.ImportCities(ctx, strings.NewReader(elsewhere), refdata.ImportOptions{})
					require.NoError(t, err)
				}
				opts := refdata.ImportOptions{}
				if between {
					opts.BatchSize = 1
					n := 0
					opts.Progress = func(refdata.ImportReport) {
						if n++; n == 1 {
							addElsewhere()
						}
					}
				} else {
					addElsewhere()
				}
				report, err := a.RefData.ImportCities(ctx, strings.NewReader(known), opts)
				require.NoError(t, err)
				require.Zero(t, report.Added, "A's import changes nothing")

				status, after, items := get(before)
				assert.Equal(t, http.StatusOK, status, "the ETag of the list before B's city no longer matches")
				assert.Len(t, items, 1, "A lists B's city")
				assert.NotEqual(t, before, after)
			})
		}
	}
}
