package refdata

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
)

// subdivisionKey is one ISO 3166-2 code: the country's alpha-2 code and
// the subdivision's code without the country prefix ("FR", "20R").
type subdivisionKey struct{ country, code string }

// subdivisionColumns is the header row of data/subdivisions.csv.
var subdivisionColumns = []string{"countryCode", "code", "name", "category", "parent", "note"}

// subdivisions is the set of codes listed in data/subdivisions.csv: every
// ISO 3166-2 code of every level, as Debian's iso-codes publishes them,
// plus the few codes the file's notes explain (see docs/reference-data.md,
// "Subdivision codes").
var subdivisions = sync.OnceValues(func() (map[subdivisionKey]bool, error) {
	f, err := data.Open("data/subdivisions.csv")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	set, err := readSubdivisions(f)
	if err != nil {
		return nil, fmt.Errorf("refdata: data/subdivisions.csv: %w", err)
	}
	return set, nil
})

// readSubdivisions reads the subdivision list: lines starting with "#"
// are comments, the first other line is the header row (subdivisionColumns),
// then one code per row.
func readSubdivisions(r io.Reader) (map[subdivisionKey]bool, error) {
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
	set := make(map[subdivisionKey]bool, 5200)
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return set, nil
		}
		if err != nil {
			return nil, err
		}
		set[subdivisionKey{rec[0], rec[1]}] = true
	}
}
