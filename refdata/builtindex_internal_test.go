package refdata

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTemplateCitiesShareOneIndex: a template's cities equal to the last
// ones built (other slices, the same records in the same order) get that
// index, while a snapshot holds it; other cities, another order, or
// cities not marked as a template's get an index of their own; the
// owners' patches of a shared index are theirs alone.
func TestTemplateCitiesShareOneIndex(t *testing.T) {
	t.Parallel()
	var cs []City
	for i := range 200 {
		cs = append(cs, City{CountryCode: []string{"DE", "FR", "US"}[i%3], Name: fmt.Sprintf("City %03d", i), Tags: "t"})
	}
	assert.NotSame(t, frozenCityIndex(RefData{Cities: cs}), frozenCityIndex(RefData{Cities: cs}), "not a template's: built each time")

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
