package locales_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/text/language"

	"github.com/brandbase/brandbase/locales"
)

func byCode[T any](list []T, code func(T) string) map[string]T {
	m := make(map[string]T, len(list))
	for _, x := range list {
		m[code(x)] = x
	}
	return m
}

func TestTimezones(t *testing.T) {
	t.Parallel()
	winter := time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)
	summer := time.Date(2026, 7, 15, 12, 0, 0, 0, time.UTC)
	jan, err := locales.Timezones(winter)
	require.NoError(t, err)
	jul, err := locales.Timezones(summer)
	require.NoError(t, err)
	require.Len(t, jan, 419, "the 418 zones of zone.tab and UTC")
	tzCode := func(z locales.Timezone) string { return z.Code }
	j, s := byCode(jan, tzCode), byCode(jul, tzCode)
	assert.Len(t, j, len(jan), "one entry per zone")

	hcm := j["Asia/Ho_Chi_Minh"]
	assert.Equal(t, "+07:00", hcm.Value)
	assert.Equal(t, "(UTC+07:00) Asia/Ho_Chi_Minh", hcm.DisplayName)
	assert.Equal(t, "Ho Chi Minh", hcm.Name)
	if assert.NotNil(t, hcm.CountryCode) {
		assert.Equal(t, "VN", *hcm.CountryCode)
	}
	assert.Nil(t, hcm.Description, "zone.tab has no comment on it")
	assert.Equal(t, "UTC", j["UTC"].Name)
	assert.Nil(t, j["UTC"].CountryCode)
	assert.Equal(t, "+00:00", j["UTC"].Value)

	for code, want := range map[string][2]string{
		"America/New_York":   {"-05:00", "-04:00"},
		"Europe/Berlin":      {"+01:00", "+02:00"},
		"Australia/Sydney":   {"+11:00", "+10:00"},
		"America/St_Johns":   {"-03:30", "-02:30"},
		"Asia/Kolkata":       {"+05:30", "+05:30"},
		"Asia/Kathmandu":     {"+05:45", "+05:45"},
		"Pacific/Kiritimati": {"+14:00", "+14:00"},
	} {
		assert.Equalf(t, want[0], j[code].Value, "%s in January", code)
		assert.Equalf(t, want[1], s[code].Value, "%s in July", code)
	}
	ny := j["America/New_York"]
	if assert.NotNil(t, ny.Description) {
		assert.Equal(t, "Eastern (most areas)", *ny.Description)
	}
	assert.Equal(t, ny.ID, s["America/New_York"].ID, "IDs do not depend on the time")
	assert.NotEqual(t, ny.ID, hcm.ID)

	for _, list := range [][]locales.Timezone{jan, jul} {
		assert.True(t, slices.IsSortedFunc(list, func(a, b locales.Timezone) int {
			return compareOffsets(a.Value, b.Value)
		}), "ordered by offset")
		for _, z := range list {
			assert.Truef(t, strings.HasPrefix(z.DisplayName, "(UTC"+z.Value+") "), "%s: %s", z.Code, z.DisplayName)
			if z.CountryCode != nil {
				_, err := language.ParseRegion(*z.CountryCode)
				assert.NoErrorf(t, err, "%s: country %s", z.Code, *z.CountryCode)
			}
		}
	}
}

// compareOffsets compares two ±hh:mm offsets.
func compareOffsets(a, b string) int {
	val := func(s string) int {
		h, m := int(s[1]-'0')*10+int(s[2]-'0'), int(s[4]-'0')*10+int(s[5]-'0')
		if s[0] == '-' {
			return -(h*60 + m)
		}
		return h*60 + m
	}
	return val(a) - val(b)
}

func TestLanguages(t *testing.T) {
	t.Parallel()
	list := locales.Languages()
	require.Len(t, list, 183, "every ISO 639-1 code in force")
	assert.True(t, slices.IsSortedFunc(list, func(a, b locales.Language) int { return strings.Compare(a.Code, b.Code) }))
	m := byCode(list, func(l locales.Language) string { return l.Code })
	assert.Len(t, m, len(list), "codes are unique")
	for _, l := range list {
		b, err := language.ParseBase(l.Code)
		if assert.NoErrorf(t, err, "%s is an ISO 639 code", l.Code) {
			assert.Equalf(t, l.Code, b.String(), "%s is its own canonical code", l.Code)
		}
		assert.Nilf(t, l.DateFormat, "%s: no source gives a date format", l.Code)
		for _, p := range []*string{l.Name, l.NativeName, l.CountryCode} {
			if p != nil {
				assert.NotEmptyf(t, *p, "%s: a field is null or has a value, never empty", l.Code)
			}
		}
		assert.NotNilf(t, l.Name, "%s: CLDR names every ISO 639-1 language in English", l.Code)
	}
	vi := m["vi"]
	assert.Equal(t, "Vietnamese", *vi.Name)
	assert.Equal(t, "Tiếng Việt", *vi.NativeName)
	assert.Equal(t, "VN", *vi.CountryCode)
	assert.Equal(t, "Deutsch", *m["de"].NativeName)
	assert.Equal(t, "US", *m["en"].CountryCode)
	assert.Nil(t, m["eo"].CountryCode, "Esperanto's likely region is the world, not a country")
	assert.Nil(t, m["ab"].NativeName, "CLDR has no Abkhazian name for Abkhazian")
	assert.NotContains(t, m, "sh", "withdrawn")
}
