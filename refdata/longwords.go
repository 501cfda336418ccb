package refdata

import (
	"cmp"
	"slices"
	"strings"
	"unsafe"
)

// longWords indexes the whole folded words longer than a prefix key
// (keyRunes runes), one entry per word of a city, sorted by word: the
// entries whose word starts with a Keywords term longer than a key are a
// range of it, so such a term is answered exactly, with no check of the
// cities that share its first keyRunes runes. About 12 bytes an entry plus
// the word's bytes.
type longWords struct {
	// text holds the words one after the other. It is only appended to
	// (a shared index's is clipped, so a clone's appends copy it): the
	// bytes of an entry never change, which makes word's view valid.
	text  []byte
	ents  []wordEntry // sorted by word, then city
	fresh []wordEntry // added since the last sortFresh, in no order
}

// wordEntry is one word of a city: text[at:end].
type wordEntry struct {
	at, end uint32
	city    int32
}

// word returns the word of e, a view of text.
func (x *longWords) word(e wordEntry) string {
	b := x.text[e.at:e.end]
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// add records that city i has the word w, longer than a key.
func (x *longWords) add(w string, i int32) {
	at := uint32(len(x.text))
	x.text = append(x.text, w...)
	x.fresh = append(x.fresh, wordEntry{at: at, end: uint32(len(x.text)), city: i})
}

func (x *longWords) compare(a, b wordEntry) int {
	return cmp.Or(strings.Compare(x.word(a), x.word(b)), cmp.Compare(a.city, b.city))
}

// sortFresh merges the entries added since the last call into ents, in a
// new slice (a shared index's ents are never written).
func (x *longWords) sortFresh() {
	if len(x.fresh) == 0 {
		return
	}
	slices.SortFunc(x.fresh, x.compare)
	merged := make([]wordEntry, 0, len(x.ents)+len(x.fresh))
	i, j := 0, 0
	for i < len(x.ents) && j < len(x.fresh) {
		if x.compare(x.ents[i], x.fresh[j]) <= 0 {
			merged = append(merged, x.ents[i])
			i++
		} else {
			merged = append(merged, x.fresh[j])
			j++
		}
	}
	x.ents, x.fresh = append(append(merged, x.ents[i:]...), x.fresh[j:]...), nil
}

// prefixed returns the entries whose word starts with term. Both ends are
// found by binary search: the words of a long range lie all over text.
func (x *longWords) prefixed(term string) []wordEntry {
	lo, _ := slices.BinarySearchFunc(x.ents, term, func(e wordEntry, t string) int { return strings.Compare(x.word(e), t) })
	n, _ := slices.BinarySearchFunc(x.ents[lo:], term, func(e wordEntry, t string) int {
		if strings.HasPrefix(x.word(e), t) {
			return -1 // in the range: before its end
		}
		return 1
	})
	return x.ents[lo : lo+n]
}

// clip clips every slice of x (see CityIndex.Freeze).
func (x *longWords) clip() {
	x.text, x.ents, x.fresh = slices.Clip(x.text), slices.Clip(x.ents), slices.Clip(x.fresh)
}
