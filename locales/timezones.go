// Package locales holds the two lists a client's locale pickers offer: the
// IANA time zones ([Timezones], from the tz database's zone table, with
// each zone's UTC offset at a given instant) and the ISO 639-1 languages
// ([Languages], named from CLDR through golang.org/x/text). Both are
// compiled into the binary; nothing is read from the host (the zone rules
// come from time/tzdata when the host has no zoneinfo files) and nothing is
// stored. docs/data-sources.md names each source, its version and licence.
package locales

import (
	"bufio"
	"bytes"
	_ "embed"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
	_ "time/tzdata" // the zone rules, for a host without zoneinfo files

	"github.com/google/uuid"
)

// Namespace is the UUID namespace of the lists' IDs: a zone's ID is
// uuid.NewSHA1(Namespace, "timezone:Asia/Ho_Chi_Minh"), a language's
// uuid.NewSHA1(Namespace, "language:vi"), the same on every install.
var Namespace = uuid.MustParse("3b0c8f6e-2a51-5d0e-8f47-9c1e6d2b7a45")

// TZVersion is the release of the tz database the zone table was taken
// from (data/zone.tab).
const TZVersion = "2025b"

//go:embed data/zone.tab
var zoneTab []byte

// Timezone is one IANA time zone, as GET /api/v1/timezones answers it (the
// names of the spec's origin's client, jfw-js's ITimezone).
type Timezone struct {
	// ID is stable across installs (see [Namespace]).
	ID string `json:"id"`
	// Code is the zone's IANA name ("Asia/Ho_Chi_Minh").
	Code string `json:"code"`
	// CountryCode is the ISO 3166-1 alpha-2 code of the country the zone
	// table places it in; nil for UTC.
	CountryCode *string `json:"countryCode"`
	// Name is the zone's location, as its IANA name spells it with spaces
	// for underscores ("Ho Chi Minh"; "UTC").
	Name string `json:"name"`
	// Value is the zone's UTC offset at the instant asked for ("+07:00").
	Value string `json:"value"`
	// DisplayName is "(UTC+07:00) Asia/Ho_Chi_Minh".
	DisplayName string `json:"displayName"`
	// Description is the zone table's comment on the zone ("Most of US
	// (Pacific)"), or nil where it has none.
	Description *string `json:"description"`
}

// zone is one row of the zone table, with its rules loaded.
type zone struct {
	code, country, comment string
	loc                    *time.Location
}

// zones reads the zone table once, sorted by name, with UTC (which the
// table, listing places, leaves out) first.
var zones = sync.OnceValues(func() ([]zone, error) {
	out := []zone{{code: "UTC", loc: time.UTC}}
	sc := bufio.NewScanner(bytes.NewReader(zoneTab))
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) < 3 || len(f[0]) != 2 {
			return nil, fmt.Errorf("locales: data/zone.tab: malformed line %q", line)
		}
		loc, err := time.LoadLocation(f[2])
		if err != nil {
			return nil, fmt.Errorf("locales: data/zone.tab: %w", err)
		}
		z := zone{code: f[2], country: f[0], loc: loc}
		if len(f) > 3 {
			z.comment = f[3]
		}
		out = append(out, z)
	}
	slices.SortFunc(out[1:], func(a, b zone) int { return strings.Compare(a.code, b.code) })
	return out, sc.Err()
})

// Timezones returns every zone of the tz database's zone table (one per
// country and zone, as zone.tab lists them) and UTC, each with its UTC
// offset at now, ordered by that offset, then by name: the order a picker
// shows. The answer depends on now only through the offsets (daylight
// saving time). It fails only when the embedded table does not read, which
// the package's tests rule out.
func Timezones(now time.Time) ([]Timezone, error) {
	zs, err := zones()
	if err != nil {
		return nil, err
	}
	type entry struct {
		tz     Timezone
		offset int
	}
	entries := make([]entry, len(zs))
	for i, z := range zs {
		_, offset := now.In(z.loc).Zone()
		value := formatOffset(offset)
		tz := Timezone{
			ID:          uuid.NewSHA1(Namespace, []byte("timezone:"+z.code)).String(),
			Code:        z.code,
			Name:        strings.ReplaceAll(z.code[strings.LastIndexByte(z.code, '/')+1:], "_", " "),
			Value:       value,
			DisplayName: "(UTC" + value + ") " + z.code,
		}
		if z.country != "" {
			tz.CountryCode = &z.country
		}
		if z.comment != "" {
			tz.Description = &z.comment
		}
		entries[i] = entry{tz, offset}
	}
	slices.SortStableFunc(entries, func(a, b entry) int { return a.offset - b.offset })
	out := make([]Timezone, len(entries))
	for i, e := range entries {
		out[i] = e.tz
	}
	return out, nil
}

// formatOffset writes a UTC offset in seconds as ±hh:mm.
func formatOffset(seconds int) string {
	sign := byte('+')
	if seconds < 0 {
		sign, seconds = '-', -seconds
	}
	return fmt.Sprintf("%c%02d:%02d", sign, seconds/3600, seconds/60%60)
}
