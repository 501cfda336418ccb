package refdata

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSameCitiesShareOneIndex: an index built from cities equal to the
// last one's (other slices, the same records in the same order) is that
// one, while a snapshot holds it; other cities, or another order, get an
// index of their own; the owners' patches of the shared index are theirs
// alone.
func TestSameCitiesShareOneIndex(t *testing.T) {
	t.Parallel()
	var cs []City
	for i := range 200 {
		cs = append(cs, City{CountryCode: []string{"DE", "FR", "US"}[i%3], Name: fmt.Sprintf("City %03d", i), Tags: "t"})
	}
	var b builtIndex
	a := b.frozen(slices.Clone(cs))
	require.Same(t, a, b.frozen(slices.Clone(cs)), "the same cities: the index held")

	renamed := slices.Clone(cs)
	renamed[150].Name = "Renamed"
	assert.NotSame(t, a, b.frozen(renamed), "another city")
	a = b.frozen(cs)
	reordered := slices.Clone(cs)
	reordered[0], reordered[1] = reordered[1], reordered[0]
	assert.NotSame(t, a, b.frozen(reordered), "another order")
	assert.NotSame(t, a, b.frozen(cs[:199]), "fewer cities")

	a = b.frozen(cs)
	shared := b.frozen(slices.Clone(cs))
	require.Same(t, a, shared)
	one, two := a.clone(), shared.clone()
	one.upsertAll([]City{{CountryCode: "DE", Name: "Only in one"}})
	one.freeze()
	two.upsertAll([]City{{CountryCode: "FR", Name: "Only in two"}})
	two.freeze()
	assert.Equal(t, cs, a.records(), "the shared index unchanged")
	assert.Equal(t, append(slices.Clone(cs), City{CountryCode: "DE", Name: "Only in one"}), one.records())
	assert.Equal(t, append(slices.Clone(cs), City{CountryCode: "FR", Name: "Only in two"}), two.records())
}
