// Package refrows holds what a store needs to persist reference data as
// the reference-data service expects it: the natural key of a city and
// the merge of a stored city's tags with an upsert's. The service, its
// in-process index and every store use these, so that an upsert ends in
// the same row everywhere. It is internal: a store outside this module
// reaches the same behaviour through the conformance suite
// (storage/storagetest), which checks every rule stated here.
package refrows

import (
	"strings"

	"github.com/brandbase/brandbase/internal/textfold"
)

// MaxCityTags is the most bytes a city's tags may take.
const MaxCityTags = 200

// CityKey returns the natural key of a normalised city (codes upper-case,
// name trimmed): its country code, state code and folded name. Two cities
// with the same key are the same city; an upsert replaces the stored
// one's name and adds its tags to the stored ones (MergeTags).
func CityKey(countryCode, stateCode, name string) string {
	return countryCode + "\x00" + stateCode + "\x00" + textfold.Fold(name)
}

// MergeTags returns the tags of a stored city after an upsert of the same
// city with tags added: added as it is when stored has no tag; else stored
// as it is, then each tag of added (trimmed) that stored does not hold
// (compared folded, as the Tags filter does), comma-separated, as long as
// the list stays within MaxCityTags bytes (a tag that would not fit is
// dropped). Stored tags are never removed, so an import never degrades the
// stored data: a city imported without tags keeps its own.
func MergeTags(stored, added string) string {
	if strings.TrimSpace(added) == "" {
		return stored
	}
	have := textfold.TagKey(stored) // ",a,b,"
	if have == "" {
		return added
	}
	out := stored
	for t := range strings.SplitSeq(added, ",") {
		t = strings.TrimSpace(t)
		k := textfold.Fold(t)
		if k == "" || strings.Contains(have, ","+k+",") {
			continue
		}
		if next := out + "," + t; len(next) <= MaxCityTags {
			out, have = next, have+k+","
		}
	}
	return out
}
