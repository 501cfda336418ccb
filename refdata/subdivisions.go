package refdata

//go:generate go run ./internal/gensubdivisions -out data/subdivisions.csv

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
)

// subdivisionKey is one ISO 3166-2 code: the country's alpha-2 code and
// the subdivision's code without the country prefix ("FR", "20R").
type subdivisionKey struct{ country, code string }

// subdivisionColumns is the header row of data/subdivisions.csv.
var subdivisionColumns = []string{"countryCode", "code", "name", "parent", "note"}

// State is one ISO 3166-2 subdivision, as GET /api/v1/states answers it
// (the names of the spec's origin's client, jfw-js's IState).
type State struct {
	// CountryCode is the ISO 3166-1 alpha-2 code of its country.
	CountryCode string `json:"countryCode"`
	// Code is the ISO 3166-2 code without the country prefix ("CA" for
	// US-CA), as a city's stateCode is.
	Code string `json:"code"`
	// Name is the English name (CLDR's).
	Name string `json:"name"`
	// ParentCode is the code (without prefix) of the subdivision that
	// contains it, or nil for a first-level subdivision, the level cities'
	// state codes use.
	ParentCode *string `json:"parentCode"`
	// AdministrativeDivision is the category of the subdivision ("State",
	// "Province"): nil, since the source (CLDR) does not give it.
	AdministrativeDivision *string `json:"administrativeDivision"`
	// Tags are empty: no source tags subdivisions.
	Tags []string `json:"tags"`
}

// subdivisionList is data/subdivisions.csv read once: its rows in the
// file's order (by country, then code) and the set of its codes.
type subdivisionList struct {
	states []State
	set    map[subdivisionKey]bool
}

// readSubdivisionList reads data/subdivisions.csv once.
var readSubdivisionList = sync.OnceValues(func() (*subdivisionList, error) {
	f, err := data.Open("data/subdivisions.csv")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	l, err := readSubdivisions(f)
	if err != nil {
		return nil, fmt.Errorf("refdata: data/subdivisions.csv: %w", err)
	}
	return l, nil
})

// subdivisions is the set of codes listed in data/subdivisions.csv: every
// ISO 3166-2 code of every level, as CLDR publishes them, plus the few
// codes the file's notes explain (see docs/reference-data.md, "Subdivision
// codes").
func subdivisions() (map[subdivisionKey]bool, error) {
	l, err := readSubdivisionList()
	if err != nil {
		return nil, err
	}
	return l.set, nil
}

// readSubdivisions reads the subdivision list: lines starting with "#"
// are comments, the first other line is the header row (subdivisionColumns),
// then one subdivision per row.
func readSubdivisions(r io.Reader) (*subdivisionList, error) {
	cr := csv.NewReader(r)
	cr.Comment = '#'
	cr.FieldsPerRecord = len(subdivisionColumns)
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	if !slices.Equal(header, subdivisionColumns) {
		return nil, fmt.Errorf("header: %q, want %q", header, subdivisionColumns)
	}
	l := &subdivisionList{set: make(map[subdivisionKey]bool, 5200), states: make([]State, 0, 5200)}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return l, nil
		}
		if err != nil {
			return nil, err
		}
		l.set[subdivisionKey{rec[0], rec[1]}] = true
		s := State{CountryCode: rec[0], Code: rec[1], Name: rec[2], Tags: []string{}}
		if rec[3] != "" {
			s.ParentCode = &rec[3]
		}
		l.states = append(l.states, s)
	}
}

// States returns the ISO 3166-2 subdivisions of every level, by country
// and code, of the country with that alpha-2 code (any case; every
// country's when countryCode is empty), as the embedded list holds them
// (data/subdivisions.csv; docs/data-sources.md). A code no country has
// selects none: the answer is empty, never nil. The caller must not modify
// the records. It fails only when the embedded list does not read, which
// the package's tests rule out.
func States(countryCode string) ([]State, error) {
	l, err := readSubdivisionList()
	if err != nil {
		return nil, err
	}
	cc := strings.ToUpper(strings.TrimSpace(countryCode))
	if cc == "" {
		return l.states, nil
	}
	i, _ := slices.BinarySearchFunc(l.states, cc, func(s State, cc string) int { return strings.Compare(s.CountryCode, cc) })
	j := i
	for j < len(l.states) && l.states[j].CountryCode == cc {
		j++
	}
	return l.states[i:j:j], nil
}
