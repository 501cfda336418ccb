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
	// text holds the words one after the other. It is only appended to,
	// past the length of every reader's view (see cow.go): the bytes of
	// an entry never change, which makes word's view valid.
	text []byte
	ents []wordEntry // sorted by word, then city
	// recent holds the entries added since ents was last merged, sorted
	// likewise: a patch copies recent, not ents, until recent passes
	// maxRecent (then the two are merged, which copies ents).
	recent []wordEntry
	fresh  []wordEntry // added since the last sortFresh, in no order
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

// maxRecent returns how many entries recent holds at most beside n in
// ents.
func maxRecent(n int) int { return max(1024, n/128) }

// sortFresh merges the entries added since the last call into recent, and
// recent into ents once it is long, each in a new slice (a snapshot's are
// never written).
func (x *longWords) sortFresh() {
	if len(x.fresh) == 0 {
		return
	}
	slices.SortFunc(x.fresh, x.compare)
	x.recent, x.fresh = x.merge(x.recent, x.fresh), nil
	if len(x.recent) > maxRecent(len(x.ents)) {
		x.ents, x.recent = x.merge(x.ents, x.recent), nil
	}
}

// merge returns the sorted a and b merged, in a new slice: the runs of a
// between b's entries are copied whole, found by binary search, so that a
// long a costs a copy, not a comparison an entry.
func (x *longWords) merge(a, b []wordEntry) []wordEntry {
	out := make([]wordEntry, 0, len(a)+len(b))
	for _, e := range b {
		i, _ := slices.BinarySearchFunc(a, e, x.compare)
		out = append(append(out, a[:i]...), e)
		a = a[i:]
	}
	return append(out, a...)
}

// prefixed returns the entries whose word starts with term, those of ents
// and those of recent.
func (x *longWords) prefixed(term string) (base, recent []wordEntry) {
	return x.prefixedIn(x.ents, term), x.prefixedIn(x.recent, term)
}

// prefixedIn returns the entries of ents whose word starts with term.
// Both ends are found by binary search: the words of a long range lie all
// over text.
func (x *longWords) prefixedIn(ents []wordEntry, term string) []wordEntry {
	lo, _ := slices.BinarySearchFunc(ents, term, func(e wordEntry, t string) int { return strings.Compare(x.word(e), t) })
	n, _ := slices.BinarySearchFunc(ents[lo:], term, func(e wordEntry, t string) int {
		if strings.HasPrefix(x.word(e), t) {
			return -1 // in the range: before its end
		}
		return 1
	})
	return ents[lo : lo+n]
}
