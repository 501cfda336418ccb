package httpadapter_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/httpadapter"
)

// jfwState, jfwTimezone and jfwLanguage are what jfw-js reads of IState,
// ITimezone and ILanguage.
type jfwState struct {
	CountryCode            string   `json:"countryCode"`
	Code                   string   `json:"code"`
	Name                   string   `json:"name"`
	AdministrativeDivision *string  `json:"administrativeDivision"`
	Tags                   []string `json:"tags"`
}

type jfwTimezone struct {
	ID          string  `json:"id"`
	Code        string  `json:"code"`
	CountryCode *string `json:"countryCode"`
	Name        string  `json:"name"`
	Value       string  `json:"value"`
	DisplayName string  `json:"displayName"`
}

type jfwLanguage struct {
	ID          string  `json:"id"`
	Code        string  `json:"code"`
	Name        *string `json:"name"`
	NativeName  *string `json:"nativeName"`
	CountryCode *string `json:"countryCode"`
	DateFormat  *string `json:"dateFormat"`
}

// getList GETs path with Brand-URL, checks the strong ETag and its 304,
// and returns the envelope.
func getList(t *testing.T, f *fixture, path string) (env, string) {
	t.Helper()
	shop := map[string]string{"Brand-URL": "shop.example.com"}
	rec, e := f.do(t, "GET", path, shop, "")
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	etag := rec.Header().Get("ETag")
	require.Regexp(t, `^"[^"]+"$`, etag, "a strong ETag")
	again, _ := f.do(t, "GET", path, map[string]string{"Brand-URL": "shop.example.com", "If-None-Match": etag}, "")
	assert.Equal(t, http.StatusNotModified, again.Code)
	assert.Equal(t, etag, again.Header().Get("ETag"))
	return e, etag
}

// TestStatesCascadeOverHTTP walks the address form's cascade as jfw-js's
// getStates and the cities list do, on every store: a country's states,
// then one state's cities by the same code.
func TestStatesCascadeOverHTTP(t *testing.T) {
	t.Parallel()
	for name, newStore := range stores {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, newStore)
			e, allTag := getList(t, f, "/api/v1/states")
			all := decodeData[[]jfwState](t, e)
			assert.Greater(t, len(all), 5000, "every subdivision")
			e, usTag := getList(t, f, "/api/v1/states?CountryCode=us")
			us := decodeData[[]jfwState](t, e)
			assert.NotEqual(t, allTag, usTag)
			require.Len(t, us, 57)
			var ca jfwState
			for _, s := range us {
				assert.Equal(t, "US", s.CountryCode)
				assert.NotNil(t, s.Tags, "tags: an array")
				if s.Code == "CA" {
					ca = s
				}
			}
			assert.Equal(t, jfwState{CountryCode: "US", Code: "CA", Name: "California", Tags: []string{}}, ca)
			e, _ = getList(t, f, "/api/v1/cities?CountryCode=US&StateCode="+ca.Code)
			page := decodeData[struct {
				Items []struct {
					StateCode string `json:"stateCode"`
					Name      string `json:"name"`
				} `json:"items"`
			}](t, e)
			require.NotEmpty(t, page.Items, "the state's cities")
			for _, c := range page.Items {
				assert.Equal(t, "CA", c.StateCode, c.Name)
			}
			e, _ = getList(t, f, "/api/v1/states?countryCode=ZZ")
			assert.JSONEq(t, "[]", string(e.Data), "a code no country has: an empty array")

			rec, _ := f.do(t, "GET", "/api/v1/states", nil, "")
			assert.Equal(t, http.StatusBadRequest, rec.Code, "Brand-URL required, as on the other lists")
		})
	}
}

// TestTimezonesFollowTheClock checks that GET timezones answers each
// zone's offset at the adapter's clock, and that its ETag changes when an
// offset does (daylight saving time) and only then.
func TestTimezonesFollowTheClock(t *testing.T) {
	t.Parallel()
	clock := newClock() // 2026-03-04: New York on standard time
	f := newFixture(t, stores["memory"], httpadapter.WithClock(clock.Now))
	zones := func() (map[string]jfwTimezone, string) {
		e, etag := getList(t, f, "/api/v1/timezones")
		list := decodeData[[]jfwTimezone](t, e)
		m := map[string]jfwTimezone{}
		for _, z := range list {
			m[z.Code] = z
		}
		assert.Len(t, m, len(list))
		return m, etag
	}
	winter, winterTag := zones()
	assert.Len(t, winter, 419)
	hcm := winter["Asia/Ho_Chi_Minh"]
	assert.Equal(t, "(UTC+07:00) Asia/Ho_Chi_Minh", hcm.DisplayName)
	assert.Equal(t, "+07:00", hcm.Value)
	assert.Equal(t, "VN", *hcm.CountryCode)
	assert.Equal(t, "-05:00", winter["America/New_York"].Value)

	clock.Advance(time.Hour)
	_, sameTag := zones()
	assert.Equal(t, winterTag, sameTag, "no offset changed: the same ETag")

	clock.Advance(10 * 24 * time.Hour) // past 2026-03-08, when New York moves to daylight saving time
	summer, summerTag := zones()
	assert.Equal(t, "-04:00", summer["America/New_York"].Value)
	assert.Equal(t, "+07:00", summer["Asia/Ho_Chi_Minh"].Value)
	assert.NotEqual(t, winterTag, summerTag, "the ETag follows the offsets")
	again, _ := f.do(t, "GET", "/api/v1/timezones", map[string]string{"Brand-URL": "shop.example.com", "If-None-Match": winterTag}, "")
	assert.Equal(t, http.StatusOK, again.Code, "a winter ETag is stale in summer")
}

// TestLanguagesList calls GET languages as jfw-js's getLanguages does.
func TestLanguagesList(t *testing.T) {
	t.Parallel()
	f := newFixture(t, stores["memory"])
	e, _ := getList(t, f, "/api/v1/languages")
	list := decodeData[[]jfwLanguage](t, e)
	require.Len(t, list, 183)
	m := map[string]jfwLanguage{}
	for _, l := range list {
		m[l.Code] = l
		assert.Nil(t, l.DateFormat, "no source gives it: null")
	}
	vi := m["vi"]
	assert.Equal(t, "Vietnamese", *vi.Name)
	assert.Equal(t, "Tiếng Việt", *vi.NativeName)
	assert.Equal(t, "VN", *vi.CountryCode)
	assert.NotEmpty(t, vi.ID)
	assert.Nil(t, m["eo"].CountryCode)
}
