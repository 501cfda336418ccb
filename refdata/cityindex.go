package refdata

import (
	"cmp"
	"hash/maphash"
	"math/bits"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
	"unsafe"

	"github.com/brandbase/brandbase/internal/refrows"
	"github.com/brandbase/brandbase/internal/textfold"
)

// cityIndex holds the cities in insertion order (a city's position is its
// place in that order) with the indexes that keep filtered queries from
// scanning: by natural key; by country, state and both; the runes, bigrams
// and trigrams of folded names (Name); the prefixes of the words of the
// search text (Keywords). Posting lists hold positions in ascending order,
// except word postings after tags were added to a stored city: its
// position is then appended to the lists of its new words (which the
// Keywords filter reads into a bitset, in any order).
//
// A published index (a snapshot) is never written: a patch writes a copy
// (clone) that shares what it does not change (see cow.go), so that a
// patch costs what it changes. Sort orders and countries' sets are kept
// across a patch, brought up to date by finishBatch.
type cityIndex struct {
	gen uint64 // this index's write generation (see cow.go)
	// claimed is set by the first clone, which appends beyond this
	// index's lengths in the slices they share.
	claimed atomic.Bool

	recs cowVec[City]
	// folds holds the folded names one after the other: city i's is
	// folds[foldAt[i]:foldAt[i+1]] (see fold). Kept apart from recs, a
	// name check reads memory in order and allocates nothing.
	folds     []byte
	foldAt    []uint32 // len(recs)+1 offsets
	seed      maphash.Seed
	byKey     cowMap[uint64, int32] // hash of the natural key -> position
	collided  cowMap[string, int32] // natural keys whose hash another key has
	byCountry cowMap[string, []int32]
	byState   cowMap[string, []int32] // state code alone
	byBoth    cowMap[string, []int32] // country "-" state
	grams     cowMap[uint64, []int32] // runes, bigrams and trigrams of folded names
	words     wordIndex
	interned  cowMap[string, string] // codes and tags, stored once

	// What changed since the last finishBatch, which brings the orders
	// and countrySets up to date: the cities from finished on are new;
	// retagged holds the tags, at the last finishBatch, of the older
	// cities whose tags changed since.
	finished int
	retagged map[int32]string
	deltaMax int // changes an order keeps beside its base; 0: maxOrderDelta's rule

	orderMu sync.Mutex // serialises building orders and countrySets
	orders  [len(sortSlots)]atomic.Pointer[cityOrder]
	// countrySets holds the cities of each country that has at least a
	// 64th of them as a bitset of positions (built with the first Name
	// query within a country): filtering a long name list by a country
	// reads one list, where intersecting reads two. A set takes at most
	// twice its country's list (a bit per city of the index, against 32
	// bits per city of the country), so all sets take at most 8 bytes a
	// city.
	countrySets atomic.Pointer[map[string]*bitset]
}

// newCityIndexSized returns an empty index with room for n cities.
func newCityIndexSized(n int) *cityIndex {
	gen := newGen()
	foldAt := make([]uint32, 1, n+1)
	return &cityIndex{
		gen: gen, recs: cowVec[City]{gen: gen}, folds: make([]byte, 0, 12*n), foldAt: foldAt, seed: maphash.MakeSeed(),
		byKey: newCowMap[uint64, int32](hashUint64, n, gen), collided: newCowMap[string, int32](hashString, 0, gen),
		byCountry: newCowMap[string, []int32](hashString, 0, gen), byState: newCowMap[string, []int32](hashString, 0, gen),
		byBoth: newCowMap[string, []int32](hashString, 0, gen), grams: newCowMap[uint64, []int32](hashUint64, n/4, gen),
		words:    wordIndex{ids: newCowMap[string, int32](hashString, n/8, gen), post: cowVec[[]int32]{gen: gen}},
		interned: newCowMap[string, string](hashString, 0, gen),
	}
}

// freeze ends the writes of t, which may then be read concurrently by
// many owners and copied (clone) for a patch.
func (t *cityIndex) freeze() { t.finishBatch() }

// clone returns a copy of the frozen index t, ready for writes, which
// shares with t all that it does not write (see cow.go). The first clone
// of t appends in place beyond t's lengths; any later one is built afresh
// from t's cities (without t's sort orders), which costs a whole build.
func (t *cityIndex) clone() *cityIndex {
	if !t.claimed.CompareAndSwap(false, true) {
		c := buildCityIndex(t.records())
		c.finished = c.len()
		return c
	}
	c := &cityIndex{
		gen: newGen(), recs: t.recs, folds: t.folds, foldAt: t.foldAt, seed: t.seed, byKey: t.byKey, collided: t.collided,
		byCountry: t.byCountry, byState: t.byState, byBoth: t.byBoth, grams: t.grams, words: t.words, interned: t.interned,
		finished: t.len(), deltaMax: t.deltaMax,
	}
	for i := range t.orders {
		c.orders[i].Store(t.orders[i].Load())
	}
	c.countrySets.Store(t.countrySets.Load())
	return c
}

// records returns the cities of t in insertion order.
func (t *cityIndex) records() []City {
	out := make([]City, t.len())
	for i := range out {
		out[i] = *t.rec(int32(i))
	}
	return out
}

// rec returns city i, for reading.
func (t *cityIndex) rec(i int32) *City { return t.recs.at(i) }

// fold returns the folded name of city i. It is a view of folds, which is
// only ever appended to, beyond the length of every reader's view: the
// bytes of a name never change once written, which makes the view a
// valid string without copying.
func (t *cityIndex) fold(i int32) string {
	b := t.folds[t.foldAt[i]:t.foldAt[i+1]]
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// len returns the number of cities in t.
func (t *cityIndex) len() int { return t.recs.n }

// upsertAll upserts cs in order, then finishes the batch.
func (t *cityIndex) upsertAll(cs []City) {
	t.upsertPrepared(cs, prepareAll(cs))
}

// upsertPrepared upserts cs in order, ps[i] being prepare(&cs[i]), then
// finishes the batch.
func (t *cityIndex) upsertPrepared(cs []City, ps []prepared) {
	for i, c := range cs {
		t.upsert(c, ps[i])
	}
	t.finishBatch()
}

// prepared is what an upsert computes from the city alone: its folded
// name and the words of its search text. It is most of an upsert's work,
// and needs nothing of the index, so that a build prepares a page on one
// core while another indexes the last (prepareAll).
type prepared struct {
	fold  string
	words []string
}

// prepare returns what upserting c computes from c alone.
func prepare(c *City) prepared {
	return prepared{fold: textfold.Fold(c.Name), words: strings.Fields(c.searchText())}
}

// prepareAll returns prepare of each of cs.
func prepareAll(cs []City) []prepared {
	ps := make([]prepared, len(cs))
	for i := range cs {
		ps[i] = prepare(&cs[i])
	}
	return ps
}

func (t *cityIndex) intern(s string) string {
	if v, ok := t.interned.get(s); ok {
		return v
	}
	s = strings.Clone(s)
	t.interned.set(s, s, t.gen)
	return s
}

func (t *cityIndex) hash(c *City, fold string) uint64 {
	var h maphash.Hash
	h.SetSeed(t.seed)
	h.WriteString(c.CountryCode)
	h.WriteByte(0)
	h.WriteString(c.StateCode)
	h.WriteByte(0)
	h.WriteString(fold)
	return h.Sum64()
}

// find returns the position of the city with c's natural key.
func (t *cityIndex) find(h uint64, c *City, fold string) (int32, bool) {
	i, ok := t.byKey.get(h)
	if !ok {
		return 0, false
	}
	if r := t.rec(i); r.CountryCode == c.CountryCode && r.StateCode == c.StateCode && t.fold(i) == fold {
		return i, true
	}
	return t.collided.get(cityKey(*c))
}

// appendPosting appends city i to the posting list of k in m.
func (t *cityIndex) appendPosting(m *cowMap[string, []int32], k string, i int32) {
	p, _ := m.get(k)
	m.set(k, append(p, i), t.gen) // in place past every reader's length: see cow.go
}

// upsert is Upsert, p being prepare(&c).
func (t *cityIndex) upsert(c City, p prepared) bool {
	fold := p.fold
	h := t.hash(&c, fold)
	if i, ok := t.find(h, &c, fold); ok {
		r := t.rec(i)
		tags := refrows.MergeTags(r.Tags, c.Tags)
		if r.Tags == tags && r.Name == c.Name {
			return false
		}
		r = t.recs.mut(i, t.gen)
		if r.Tags != tags {
			// MergeTags only adds tags, after the stored ones: the
			// words of the added ones are indexed (all of them when the
			// stored tags were blank, and so not kept as the prefix).
			for _, w := range textfold.Words(strings.TrimPrefix(tags, r.Tags)) {
				t.words.add(w, i, t.gen)
			}
			if int(i) < t.finished {
				if _, seen := t.retagged[i]; !seen {
					if t.retagged == nil {
						t.retagged = map[int32]string{}
					}
					t.retagged[i] = r.Tags
				}
			}
			r.Tags = t.intern(tags)
		}
		if r.Name != c.Name { // the same folded name: no index changes
			r.Name = strings.Clone(c.Name)
		}
		return false
	}
	c.CountryCode, c.StateCode, c.Tags = t.intern(c.CountryCode), t.intern(c.StateCode), t.intern(c.Tags)
	c.Name = strings.Clone(c.Name)
	i := t.recs.push(c, t.gen)
	t.folds = append(t.folds, fold...)
	t.foldAt = append(t.foldAt, uint32(len(t.folds)))
	if _, taken := t.byKey.get(h); taken {
		t.collided.set(cityKey(c), i, t.gen)
	} else {
		t.byKey.set(h, i, t.gen)
	}
	t.appendPosting(&t.byCountry, c.CountryCode, i)
	t.appendPosting(&t.byState, c.StateCode, i)
	t.appendPosting(&t.byBoth, c.CountryCode+"-"+c.StateCode, i)
	forGrams(fold, func(g uint64) {
		if p, _ := t.grams.get(g); len(p) == 0 || p[len(p)-1] != i {
			t.grams.set(g, append(p, i), t.gen)
		}
	})
	for _, w := range p.words {
		t.words.add(w, i, t.gen)
	}
	return true
}

// finishBatch brings the word order, the sort orders built and the
// countries' sets up to date after a batch of upserts; call it before the
// next List.
func (t *cityIndex) finishBatch() {
	t.words.sortFresh()
	if t.finished == t.len() && len(t.retagged) == 0 {
		return
	}
	for slot, by := range sortSlots {
		if o := t.orders[slot].Load(); o != nil {
			t.orders[slot].Store(t.patchOrder(by, o))
		}
	}
	if m := t.countrySets.Load(); m != nil && t.len() > t.finished {
		sets := t.patchCountrySets(*m)
		t.countrySets.Store(&sets)
	}
	t.finished, t.retagged = t.len(), nil
}

// patchCountrySets returns sets, the countries' sets of the index at the
// last finishBatch, with the cities added since: a set that gains cities
// is copied, the others are lengthened in place (past their readers'
// lengths).
func (t *cityIndex) patchCountrySets(sets map[string]*bitset) map[string]*bitset {
	words := (t.len() + 63) / 64
	out := make(map[string]*bitset, len(sets))
	for c, set := range sets {
		w := set.w
		if l, _ := t.byCountry.get(c); len(l) > 0 && int(l[len(l)-1]) >= t.finished {
			w = make([]uint64, words)
			copy(w, set.w)
			for k := len(l) - 1; k >= 0 && int(l[k]) >= t.finished; k-- {
				w[l[k]>>6] |= 1 << (l[k] & 63)
			}
		} else if len(w) < words {
			w = append(w, make([]uint64, words-len(w))...)
		}
		out[c] = &bitset{w: w}
	}
	return out
}

// countrySet returns the set of country's cities, or nil when the
// country has too few for one; every set is built on first use.
func (t *cityIndex) countrySet(country string) *bitset {
	if m := t.countrySets.Load(); m != nil {
		return (*m)[country]
	}
	t.orderMu.Lock()
	defer t.orderMu.Unlock()
	if m := t.countrySets.Load(); m != nil {
		return (*m)[country]
	}
	m := map[string]*bitset{}
	t.byCountry.each(func(c string, l []int32) {
		if len(l)*64 < t.len() {
			return
		}
		set := &bitset{w: make([]uint64, (t.len()+63)/64)}
		for _, i := range l {
			set.set(i)
		}
		m[c] = set
	})
	t.countrySets.Store(&m)
	return m[country]
}

// The keys of grams: runes take 21 bits; a trigram's three fill bits 0
// to 62; a bigram has the top bit set and its two in bits 0 to 41; a rune
// alone has the top two bits set.
const (
	bigram  = 1 << 63
	unigram = bigram | 1<<62
)

func trigramKey(a, b, c rune) uint64 { return uint64(a)<<42 | uint64(b)<<21 | uint64(c) }
func bigramKey(a, b rune) uint64     { return bigram | uint64(a)<<21 | uint64(b) }
func unigramKey(a rune) uint64       { return unigram | uint64(a) }

// forGrams calls fn with every rune, bigram and trigram of s.
func forGrams(s string, fn func(uint64)) {
	var a, b rune
	n := 0
	for _, r := range s {
		fn(unigramKey(r))
		if n >= 1 {
			fn(bigramKey(b, r))
		}
		if n >= 2 {
			fn(trigramKey(a, b, r))
		}
		a, b = b, r
		n++
	}
}

// list answers a city query as selectCities does: the page f selects and
// the number of matches. It may run concurrently with other list calls,
// not with writes (upsertOne, finishBatch).
func (t *cityIndex) list(f cityFilter) ([]City, int) {
	if f.Nothing {
		return []City{}, 0
	}
	all := f.unfiltered()
	var matches []int32 // ascending positions, when !all
	total := t.len()
	if !all {
		matches = t.match(f)
		total = len(matches)
	}
	start, end := f.Page.bounds(total)
	if start == end {
		return []City{}, total
	}
	nth := func(j int) int { // the index of the j-th of total in f's direction
		if f.Desc {
			return total - 1 - j
		}
		return j
	}
	page := make([]int32, 0, end-start)
	switch {
	case f.Sort == fieldID && all:
		for j := start; j < end; j++ {
			page = append(page, int32(nth(j)))
		}
	case f.Sort == fieldID:
		for j := start; j < end; j++ {
			page = append(page, matches[nth(j)])
		}
	case all:
		page = t.order(f.Sort).allPage(page, start, end, total, f.Desc)
	case f.CountryCode != "" && f.StateCode == "" && f.Name == "" && len(f.Keywords) == 0:
		// matches are the country's cities: its list in f.Sort's order.
		if o := t.order(f.Sort); o.byCountry != nil {
			page = o.countryPage(page, f.CountryCode, start, end, total, f.Desc)
			break
		}
		for j := start; j < end; j++ {
			page = append(page, matches[nth(j)])
		}
	default:
		page = t.order(f.Sort).matchPage(page, matches, start, end, f.Desc)
	}
	out := make([]City, len(page))
	for j, i := range page {
		out[j] = *t.rec(i)
	}
	touchNames(out)
	return out, total
}

// touchSink keeps touchNames' reads from being optimised away.
var touchSink atomic.Uint32

// touchNames reads the first byte of every name of page in one tight loop,
// where the loads do not depend on each other, so the processor overlaps
// their cache misses (the names of a page lie anywhere in the heap); read
// one by one while the page is encoded, each would stall on its own.
func touchNames(page []City) {
	var x byte
	for j := range page {
		if n := page[j].Name; n != "" {
			x += n[0]
		}
	}
	touchSink.Store(uint32(x))
}

// match returns the ascending positions of the cities f selects, which the
// caller must not modify (it may be a posting list of the index). The
// smallest candidate set among the indexes that apply drives; each
// candidate is checked against the other filters.
func (t *cityIndex) match(f cityFilter) []int32 {
	const (
		scan = iota
		byCode
		byName
		byWords
	)
	driver, size := scan, t.len()
	codes, hasCode := t.codeCandidates(f)
	if hasCode {
		driver, size = byCode, len(codes)
	}
	var names []int32
	nameExact, namesCoded := false, false
	if f.Name != "" && size > few {
		if c, exact, ok := t.nameMatches(f, codes, hasCode); ok && (hasCode || len(c) < size) {
			names, nameExact, namesCoded, driver, size = c, exact, hasCode, byName, len(c)
		}
	}
	var words *bitset
	if len(f.Keywords) > 0 && size > few {
		var count int
		words, count = t.words.matchAll(f.Keywords, t.len())
		defer putBitset(words)
		if count < size {
			driver, size = byWords, count
		}
	}
	// The checks of the reference filter (matchFolded, in the tests), by the cheapest means.
	ck := cityChecks{t: t, f: &f, words: words,
		codes:   (f.CountryCode != "" || f.StateCode != "") && driver != byCode && !namesCoded,
		name:    f.Name != "" && !(driver == byName && nameExact),
		inWords: words != nil && driver != byWords,
		terms:   len(f.Keywords) > 0 && words == nil,
	}
	if !ck.codes && !ck.name && !ck.inWords && !ck.terms && (driver == byName || driver == byCode) {
		if driver == byName { // an index's list is the answer: shared, read only
			return names
		}
		return codes
	}
	out := make([]int32, 0, min(size, 4096))
	if driver == byName && ck.name && !ck.codes && !ck.inWords && !ck.terms {
		// A Name alone, of more than three runes: its candidates hold
		// two trigrams of it, and are checked for the whole.
		for _, i := range names {
			if strings.Contains(t.fold(i), f.Name) {
				out = append(out, i)
			}
		}
		return out
	}
	check := func(i int32) {
		if ck.pass(i) {
			out = append(out, i)
		}
	}
	switch driver {
	case byCode:
		for _, i := range codes {
			check(i)
		}
	case byName:
		for _, i := range names {
			check(i)
		}
	case byWords:
		words.each(check)
	default:
		for i := range int32(t.len()) {
			check(i)
		}
	}
	return out
}

// cityChecks are the checks of the reference filter (matchFolded) that the
// index driving a match leaves to make on each candidate.
type cityChecks struct {
	t       *cityIndex
	f       *cityFilter
	words   *bitset // the cities that hold the Keywords, when read
	codes   bool    // the country and state codes
	name    bool    // the folded name holds f.Name
	inWords bool    // a member of words
	terms   bool    // the Keywords, term by term
}

// pass reports whether city i passes c's checks.
func (c *cityChecks) pass(i int32) bool {
	r := c.t.rec(i)
	switch {
	case c.codes && ((c.f.CountryCode != "" && r.CountryCode != c.f.CountryCode) || (c.f.StateCode != "" && r.StateCode != c.f.StateCode)):
		return false
	case c.name && !strings.Contains(c.t.fold(i), c.f.Name):
		return false
	case c.inWords && !c.words.has(i):
		return false
	case c.terms && !textfold.MatchTerms(c.f.Keywords, c.t.fold(i), r.CountryCode, r.StateCode, r.Tags):
		return false
	}
	return true
}

// few is a number of candidates that checking costs less than reading
// another index.
const few = 256

// codeCandidates returns the ascending positions of the cities with f's
// country and state codes, and false when f has neither.
func (t *cityIndex) codeCandidates(f cityFilter) ([]int32, bool) {
	switch {
	case f.CountryCode != "" && f.StateCode != "":
		l, _ := t.byBoth.get(f.CountryCode + "-" + f.StateCode)
		return l, true
	case f.CountryCode != "":
		l, _ := t.byCountry.get(f.CountryCode)
		return l, true
	case f.StateCode != "":
		l, _ := t.byState.get(f.StateCode)
		return l, true
	}
	return nil, false
}

// nameMatches returns nameCandidates(f.Name), intersected with codes
// (f's code candidates) when hasCode: both lists are ascending, and
// reading them in step costs less than checking each candidate's codes.
// When codes are a country's cities and the name list is not much longer,
// the name list is filtered by the country's set instead, which reads one
// list, not two.
func (t *cityIndex) nameMatches(f cityFilter, codes []int32, hasCode bool) ([]int32, bool, bool) {
	c, exact, ok := t.nameCandidates(f.Name)
	if !ok || !hasCode {
		return c, exact, ok
	}
	if f.StateCode == "" && len(c) <= 8*len(codes) {
		if set := t.countrySet(f.CountryCode); set != nil {
			return set.filter(make([]int32, min(len(c), len(codes))+1), c), exact, ok
		}
	}
	short, long := c, codes
	if len(short) > len(long) {
		short, long = long, short
	}
	return intersect(make([]int32, 0, len(short)), short, long), exact, ok
}

// nameCandidates returns the ascending positions of the cities whose folded
// name holds needle's rune, its bigram, its trigram, or the two rarest of
// its trigrams, and whether that is exactly the cities whose name holds
// needle (needle is one rune, a bigram or a trigram). The list may be one
// of the index's own, which the caller must not modify. It returns false
// for a needle that is not valid UTF-8, which no index answers.
func (t *cityIndex) nameCandidates(needle string) ([]int32, bool, bool) {
	if !utf8.ValidString(needle) {
		return nil, false, false
	}
	runes := utf8.RuneCountInString(needle)
	if runes == 1 {
		a, _ := utf8.DecodeRuneInString(needle)
		l, _ := t.grams.get(unigramKey(a))
		return l, true, true
	}
	if runes == 2 {
		a, n := utf8.DecodeRuneInString(needle)
		b, _ := utf8.DecodeRuneInString(needle[n:])
		l, _ := t.grams.get(bigramKey(a, b))
		return l, true, true
	}
	var lists [][]int32
	forGrams(needle, func(g uint64) {
		if g&bigram == 0 { // a trigram
			l, _ := t.grams.get(g)
			lists = append(lists, l)
		}
	})
	if len(lists) == 1 { // three runes: the trigram's list is the answer
		return lists[0], true, true
	}
	slices.SortFunc(lists, func(a, b []int32) int { return cmp.Compare(len(a), len(b)) })
	// The two shortest lists are intersected; the candidates are then
	// checked for the whole needle anyway, which costs less than reading
	// the longer lists to drop the few that the check would.
	return intersect(make([]int32, 0, len(lists[0])), lists[0], lists[1]), false, true
}

// intersect appends to dst the positions of a that are also in b, both
// ascending, and returns it; dst may be a[:0]. It gallops through b, which
// should be the longer, or merges the two when b is not much longer.
func intersect(dst, a, b []int32) []int32 {
	if len(b) <= 8*len(a) {
		return merge(dst, a, b)
	}
	for _, x := range a {
		// Exponential then binary search for x in b.
		hi := 1
		for hi < len(b) && b[hi-1] < x {
			hi *= 2
		}
		j, found := slices.BinarySearch(b[:min(hi, len(b))], x)
		if found {
			dst = append(dst, x)
		}
		b = b[j:]
		if len(b) == 0 {
			break
		}
	}
	return dst
}

// merge appends to dst the positions in both a and b, both ascending, read
// in step, and returns it; dst may be a[:0].
func merge(dst, a, b []int32) []int32 {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		x, y := a[i], b[j]
		if x == y {
			dst = append(dst, x)
		}
		i += step(x, y)
		j += step(y, x)
	}
	return dst
}

// step returns 1 when x <= y, else 0, without a branch: merge's steps
// are as unpredictable as the lists.
func step(x, y int32) int {
	return int(uint64(int64(x)-int64(y)-1) >> 63)
}

// wordIndex is the index of the Keywords filter. It maps the prefix key of
// every folded word of the cities' search text (its first three runes, or
// the whole word when shorter) to the cities that have such a word, with
// the keys kept in sorted order for prefix lookups: that answers a term of
// up to three runes exactly. A longer term is answered by long, the table
// of the longer words themselves.
type wordIndex struct {
	ids    cowMap[string, int32] // key -> id
	keys   []string              // by id
	post   cowVec[[]int32]       // by id: positions of the cities with the key
	sorted []int32               // ids of keys[:fresh] in key order
	fresh  int                   // keys[fresh:] are not in sorted yet
	long   longWords
}

// keyRunes is the length of a prefix key, in runes.
const keyRunes = 3

// prefixKey returns the first keyRunes runes of w, and whether that is all
// of w.
func prefixKey(w string) (string, bool) {
	n := 0
	for i := range w {
		if n == keyRunes {
			return w[:i], false
		}
		n++
	}
	return w, true
}

// add records that city i has word w, written by generation gen.
func (x *wordIndex) add(w string, i int32, gen uint64) {
	k, whole := prefixKey(w)
	if !whole {
		x.long.add(w, i)
	}
	id, ok := x.ids.get(k)
	if !ok {
		k = strings.Clone(k)
		id = x.post.push(nil, gen)
		x.ids.set(k, id, gen)
		x.keys = append(x.keys, k)
	}
	if p := *x.post.at(id); len(p) == 0 || p[len(p)-1] != i {
		q := x.post.mut(id, gen)
		*q = append(p, i) // in place past every reader's length: see cow.go
	}
}

// sortFresh merges the keys added since the last call into sorted.
func (x *wordIndex) sortFresh() {
	x.long.sortFresh()
	if x.fresh == len(x.keys) {
		return
	}
	fresh := make([]int32, 0, len(x.keys)-x.fresh)
	for id := x.fresh; id < len(x.keys); id++ {
		fresh = append(fresh, int32(id))
	}
	byKey := func(a, b int32) int { return strings.Compare(x.keys[a], x.keys[b]) }
	slices.SortFunc(fresh, byKey)
	merged := make([]int32, 0, len(x.sorted)+len(fresh))
	i, j := 0, 0
	for i < len(x.sorted) && j < len(fresh) {
		if byKey(x.sorted[i], fresh[j]) <= 0 {
			merged = append(merged, x.sorted[i])
			i++
		} else {
			merged = append(merged, fresh[j])
			j++
		}
	}
	merged = append(append(merged, x.sorted[i:]...), fresh[j:]...)
	x.sorted, x.fresh = merged, len(x.keys)
}

// lookup returns the ids of the keys of the words that start with term,
// which is no longer than a key.
func (x *wordIndex) lookup(term string) []int32 {
	lo, _ := slices.BinarySearchFunc(x.sorted, term, func(id int32, p string) int { return strings.Compare(x.keys[id], p) })
	hi := lo
	for hi < len(x.sorted) && strings.HasPrefix(x.keys[x.sorted[hi]], term) {
		hi++
	}
	return x.sorted[lo:hi]
}

// wordTerm is where the cities with a word that starts with a term are
// listed: the posting lists of ids (a term no longer than a key) or the
// entries of long (in its base and its recent entries).
type wordTerm struct {
	ids  []int32
	long [2][]wordEntry
	cost int
}

// term returns where the cities with a word starting with w are listed.
func (x *wordIndex) term(w string) wordTerm {
	if _, whole := prefixKey(w); !whole {
		base, recent := x.long.prefixed(w)
		return wordTerm{long: [2][]wordEntry{base, recent}, cost: len(base) + len(recent)}
	}
	tm := wordTerm{ids: x.lookup(w)}
	for _, id := range tm.ids {
		tm.cost += len(*x.post.at(id))
	}
	return tm
}

// fill adds to dst every city of tm that is in within, or every city of
// tm when within is nil.
func (x *wordIndex) fill(dst, within *bitset, tm wordTerm) {
	for _, id := range tm.ids {
		for _, i := range *x.post.at(id) {
			if within == nil || within.has(i) {
				dst.set(i)
			}
		}
	}
	for _, es := range tm.long {
		for _, e := range es {
			if within == nil || within.has(e.city) {
				dst.set(e.city)
			}
		}
	}
}

// matchAll returns the set of the n cities that have, for every term, a
// word that starts with it, and its size. The terms are taken from the
// cheapest (fewest postings) on, each narrowing the set of the previous.
// The caller returns the set with putBitset.
func (x *wordIndex) matchAll(terms []string, n int) (*bitset, int) {
	ts := make([]wordTerm, len(terms))
	for k, w := range terms {
		ts[k] = x.term(w)
	}
	slices.SortFunc(ts, func(a, b wordTerm) int { return cmp.Compare(a.cost, b.cost) })
	set := getBitset(n)
	x.fill(set, nil, ts[0])
	for _, tm := range ts[1:] {
		next := getBitset(n)
		x.fill(next, set, tm)
		putBitset(set)
		set = next
	}
	return set, set.count()
}

// bitset is a set of positions.
type bitset struct{ w []uint64 }

var bitsets sync.Pool

// getBitset returns an empty set for positions below n.
func getBitset(n int) *bitset {
	words := (n + 63) / 64
	b, _ := bitsets.Get().(*bitset)
	if b == nil || cap(b.w) < words {
		return &bitset{w: make([]uint64, words)}
	}
	b.w = b.w[:words]
	clear(b.w)
	return b
}

func putBitset(b *bitset) {
	if b != nil {
		bitsets.Put(b)
	}
}

func (b *bitset) set(i int32)      { b.w[i>>6] |= 1 << (i & 63) }
func (b *bitset) has(i int32) bool { return b.w[i>>6]&(1<<(i&63)) != 0 }

// filter returns the members of list, in its order, written to dst, which
// must be longer than the number of members (the writes are branch-free:
// each position is written, and kept when a member).
func (b *bitset) filter(dst, list []int32) []int32 {
	n := 0
	for _, i := range list {
		dst[n] = i
		n += int(b.w[i>>6] >> (i & 63) & 1)
	}
	return dst[:n]
}

func (b *bitset) count() int {
	n := 0
	for _, w := range b.w {
		n += bits.OnesCount64(w)
	}
	return n
}

// each calls fn with every member, ascending.
func (b *bitset) each(fn func(int32)) {
	for k, w := range b.w {
		for w != 0 {
			fn(int32(k<<6 + bits.TrailingZeros64(w)))
			w &= w - 1
		}
	}
}

// slice returns the members start..end-1 in ascending order, or in
// descending order when desc.
func (b *bitset) slice(start, end int, desc bool) []int32 {
	out := make([]int32, 0, end-start)
	skip := start
	for k := range b.w {
		if desc {
			k = len(b.w) - 1 - k
		}
		w := b.w[k]
		if c := bits.OnesCount64(w); skip >= c {
			skip -= c
			continue
		}
		for w != 0 && len(out) < end-start {
			var bit int
			if desc {
				bit = 63 - bits.LeadingZeros64(w)
			} else {
				bit = bits.TrailingZeros64(w)
			}
			w &^= 1 << bit
			if skip > 0 {
				skip--
				continue
			}
			out = append(out, int32(k<<6+bit))
		}
		if len(out) == end-start {
			break
		}
	}
	return out
}
