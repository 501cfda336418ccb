package refdata

import (
	"cmp"
	"hash/maphash"
	"maps"
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

// sortSlots are the city fields with a lazily built order; id is insertion
// order and needs none.
var sortSlots = [...]field{fieldCountryCode, fieldStateCode, fieldName, fieldTags}

// cityOrder is the order of all cities by one field: perm lists positions
// in that order (ties by position), rank is its inverse, and byCountry
// lists each country's cities in that order (perm filtered), so that a
// page of a country's cities is read, not selected. An order by country
// code has no byCountry: a country's cities tie, in position order, which
// is CityIndex.byCountry's.
type cityOrder struct {
	perm, rank []int32
	byCountry  map[string][]int32
}

// cityIndex holds the cities in insertion order (a city's position is its
// place in that order) with the indexes that keep filtered queries from
// scanning: by natural key; by country, state and both; the runes, bigrams
// and trigrams of folded names (Name); the prefixes of the words of the
// search text (Keywords). Posting lists hold positions in ascending order,
// except word postings after tags were added to a stored city: its
// position is then appended to the lists of its new words (which the
// Keywords filter reads into a bitset, in any order).
type cityIndex struct {
	// shared is set by Freeze (on the default index that memory Stores
	// share); its owner clones it before the first write. Every slice of a shared index is
	// clipped (len == cap), so a clone's appends never reach it.
	shared bool

	recs []City
	// folds holds the folded names one after the other: city i's is
	// folds[foldAt[i]:foldAt[i+1]] (see fold). Kept apart from recs, a
	// name check reads memory in order and allocates nothing.
	folds     []byte
	foldAt    []uint32 // len(recs)+1 offsets
	seed      maphash.Seed
	byKey     map[uint64]int32 // hash of the natural key -> position
	collided  map[string]int32 // natural keys whose hash another key has
	byCountry map[string][]int32
	byState   map[string][]int32 // state code alone
	byBoth    map[string][]int32 // country "-" state
	grams     map[uint64][]int32 // runes, bigrams and trigrams of folded names
	words     wordIndex
	interned  map[string]string // codes and tags, stored once

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
	foldAt := make([]uint32, 1, n+1)
	return &cityIndex{
		recs: make([]City, 0, n), folds: make([]byte, 0, 12*n), foldAt: foldAt,
		seed: maphash.MakeSeed(), byKey: make(map[uint64]int32, n), collided: map[string]int32{},
		byCountry: map[string][]int32{}, byState: map[string][]int32{}, byBoth: map[string][]int32{},
		grams: make(map[uint64][]int32, n/4), words: wordIndex{ids: make(map[string]int32, n/8)}, interned: map[string]string{},
	}
}

// freeze clips every slice of t and marks it shared: t may then be read
// concurrently by many owners, and must be copied (Clone) before a write.
func (t *cityIndex) freeze() {
	t.recs = slices.Clip(t.recs)
	t.folds, t.foldAt = slices.Clip(t.folds), slices.Clip(t.foldAt)
	for _, m := range []map[string][]int32{t.byCountry, t.byState, t.byBoth} {
		for k, v := range m {
			m[k] = slices.Clip(v)
		}
	}
	for k, v := range t.grams {
		t.grams[k] = slices.Clip(v)
	}
	for i, p := range t.words.post {
		t.words.post[i] = slices.Clip(p)
	}
	t.words.post = slices.Clip(t.words.post)
	t.words.keys = slices.Clip(t.words.keys)
	t.words.long.clip()
	t.shared = true
}

// clone returns a private copy of the shared index t, ready for writes.
// Maps and the slices written in place are copied; posting lists are
// shared until appended to.
func (t *cityIndex) clone() *cityIndex {
	return &cityIndex{
		recs: slices.Clone(t.recs), folds: t.folds, foldAt: t.foldAt, seed: t.seed, byKey: maps.Clone(t.byKey), collided: maps.Clone(t.collided),
		byCountry: maps.Clone(t.byCountry), byState: maps.Clone(t.byState), byBoth: maps.Clone(t.byBoth),
		grams: maps.Clone(t.grams), interned: maps.Clone(t.interned),
		words: wordIndex{
			ids: maps.Clone(t.words.ids), keys: t.words.keys, post: slices.Clone(t.words.post),
			sorted: t.words.sorted, fresh: t.words.fresh, long: t.words.long,
		},
	}
}

// fold returns the folded name of city i. It is a view of folds, which is
// only ever appended to (a shared index's is clipped, so a clone's appends
// copy it): the bytes of a name never change once written, which makes the
// view a valid string without copying.
func (t *cityIndex) fold(i int32) string {
	b := t.folds[t.foldAt[i]:t.foldAt[i+1]]
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// len returns the number of cities in t.
func (t *cityIndex) len() int { return len(t.recs) }

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
	if v, ok := t.interned[s]; ok {
		return v
	}
	s = strings.Clone(s)
	t.interned[s] = s
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
	i, ok := t.byKey[h]
	if !ok {
		return 0, false
	}
	if r := &t.recs[i]; r.CountryCode == c.CountryCode && r.StateCode == c.StateCode && t.fold(i) == fold {
		return i, true
	}
	i, ok = t.collided[cityKey(*c)]
	return i, ok
}

// upsert is Upsert, p being prepare(&c).
func (t *cityIndex) upsert(c City, p prepared) bool {
	fold := p.fold
	h := t.hash(&c, fold)
	if i, ok := t.find(h, &c, fold); ok {
		r := &t.recs[i]
		if c.Tags = refrows.MergeTags(r.Tags, c.Tags); r.Tags != c.Tags {
			// MergeTags only adds tags, after the stored ones: the
			// words of the added ones are indexed (all of them when the
			// stored tags were blank, and so not kept as the prefix).
			for _, w := range textfold.Words(strings.TrimPrefix(c.Tags, r.Tags)) {
				t.words.add(w, i)
			}
			r.Tags = t.intern(c.Tags)
			t.invalidateOrders()
		}
		if r.Name != c.Name { // the same folded name: no index changes
			r.Name = strings.Clone(c.Name)
		}
		return false
	}
	i := int32(len(t.recs))
	c.CountryCode, c.StateCode, c.Tags = t.intern(c.CountryCode), t.intern(c.StateCode), t.intern(c.Tags)
	c.Name = strings.Clone(c.Name)
	t.recs = append(t.recs, c)
	t.folds = append(t.folds, fold...)
	t.foldAt = append(t.foldAt, uint32(len(t.folds)))
	if _, taken := t.byKey[h]; taken {
		t.collided[cityKey(c)] = i
	} else {
		t.byKey[h] = i
	}
	t.byCountry[c.CountryCode] = append(t.byCountry[c.CountryCode], i)
	t.byState[c.StateCode] = append(t.byState[c.StateCode], i)
	both := c.CountryCode + "-" + c.StateCode
	t.byBoth[both] = append(t.byBoth[both], i)
	forGrams(fold, func(g uint64) {
		if p := t.grams[g]; len(p) == 0 || p[len(p)-1] != i {
			t.grams[g] = append(p, i)
		}
	})
	for _, w := range p.words {
		t.words.add(w, i)
	}
	t.invalidateOrders()
	return true
}

// finishBatch brings the word order up to date after a batch of upserts;
// call it before the next List.
func (t *cityIndex) finishBatch() { t.words.sortFresh() }

func (t *cityIndex) invalidateOrders() {
	for i := range t.orders {
		t.orders[i].Store(nil)
	}
	t.countrySets.Store(nil)
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
	m := make(map[string]*bitset, len(t.byCountry))
	for c, l := range t.byCountry {
		if len(l)*64 < len(t.recs) {
			continue
		}
		set := &bitset{w: make([]uint64, (len(t.recs)+63)/64)}
		for _, i := range l {
			set.set(i)
		}
		m[c] = set
	}
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

// order returns the order of all cities by field, building it on first use
// after a write.
func (t *cityIndex) order(by field) *cityOrder {
	slot := slices.Index(sortSlots[:], by)
	if o := t.orders[slot].Load(); o != nil {
		return o
	}
	t.orderMu.Lock()
	defer t.orderMu.Unlock()
	if o := t.orders[slot].Load(); o != nil {
		return o
	}
	n := len(t.recs)
	keys := make([]string, n)
	tagKeys := map[string]string{}
	for i := range t.recs {
		r := &t.recs[i]
		switch by {
		case fieldName:
			keys[i] = t.fold(int32(i)) // = citySortKey(r, fieldName)
		case fieldTags:
			k, ok := tagKeys[r.Tags]
			if !ok {
				k = citySortKey(r, by)
				tagKeys[r.Tags] = k
			}
			keys[i] = k
		default:
			keys[i] = citySortKey(r, by)
		}
	}
	o := &cityOrder{perm: make([]int32, n), rank: make([]int32, n)}
	for i := range o.perm {
		o.perm[i] = int32(i)
	}
	slices.SortFunc(o.perm, func(a, b int32) int { return cmp.Or(strings.Compare(keys[a], keys[b]), cmp.Compare(a, b)) })
	for j, i := range o.perm {
		o.rank[i] = int32(j)
	}
	if by != fieldCountryCode {
		o.byCountry = make(map[string][]int32, len(t.byCountry))
		for _, i := range o.perm {
			c := t.recs[i].CountryCode
			l, ok := o.byCountry[c]
			if !ok {
				l = make([]int32, 0, len(t.byCountry[c]))
			}
			o.byCountry[c] = append(l, i)
		}
	}
	t.orders[slot].Store(o)
	return o
}

// list answers a city query as selectCities does: the page f selects and
// the number of matches. It may run concurrently with other list calls,
// not with writes (upsertOne, finishBatch).
func (t *cityIndex) list(f cityFilter) ([]City, int) {
	if f.Nothing {
		return []City{}, 0
	}
	n := len(t.recs)
	all := f.unfiltered()
	var matches []int32 // ascending positions, when !all
	total := n
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
		o := t.order(f.Sort)
		for j := start; j < end; j++ {
			page = append(page, o.perm[nth(j)])
		}
	case f.CountryCode != "" && f.StateCode == "" && f.Name == "" && len(f.Keywords) == 0:
		// matches are the country's cities: its list in f.Sort's order.
		sorted := matches
		if o := t.order(f.Sort); o.byCountry != nil {
			sorted = o.byCountry[f.CountryCode]
		}
		for j := start; j < end; j++ {
			page = append(page, sorted[nth(j)])
		}
	default:
		o := t.order(f.Sort)
		ranks := getBitset(n)
		for _, i := range matches {
			ranks.set(o.rank[i])
		}
		for _, r := range ranks.slice(start, end, f.Desc) {
			page = append(page, o.perm[r])
		}
		putBitset(ranks)
	}
	out := make([]City, len(page))
	for j, i := range page {
		out[j] = t.recs[i]
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
	driver, size := scan, len(t.recs)
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
		words, count = t.words.matchAll(f.Keywords, len(t.recs))
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
		for i := range t.recs {
			check(int32(i))
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
	r := &c.t.recs[i]
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
		return t.byBoth[f.CountryCode+"-"+f.StateCode], true
	case f.CountryCode != "":
		return t.byCountry[f.CountryCode], true
	case f.StateCode != "":
		return t.byState[f.StateCode], true
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
		return t.grams[unigramKey(a)], true, true
	}
	if runes == 2 {
		a, n := utf8.DecodeRuneInString(needle)
		b, _ := utf8.DecodeRuneInString(needle[n:])
		return t.grams[bigramKey(a, b)], true, true
	}
	var lists [][]int32
	forGrams(needle, func(g uint64) {
		if g&bigram == 0 { // a trigram
			lists = append(lists, t.grams[g])
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
	ids    map[string]int32 // key -> id
	keys   []string         // by id
	post   [][]int32        // by id: positions of the cities with the key
	sorted []int32          // ids of keys[:fresh] in key order
	fresh  int              // keys[fresh:] are not in sorted yet
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

// add records that city i has word w.
func (x *wordIndex) add(w string, i int32) {
	k, whole := prefixKey(w)
	if !whole {
		x.long.add(w, i)
	}
	id, ok := x.ids[k]
	if !ok {
		id = int32(len(x.keys))
		k = strings.Clone(k)
		x.ids[k] = id
		x.keys = append(x.keys, k)
		x.post = append(x.post, nil)
	}
	if p := x.post[id]; len(p) == 0 || p[len(p)-1] != i {
		x.post[id] = append(p, i)
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
// entries of long.
type wordTerm struct {
	ids  []int32
	long []wordEntry
	cost int
}

// term returns where the cities with a word starting with w are listed.
func (x *wordIndex) term(w string) wordTerm {
	if _, whole := prefixKey(w); !whole {
		long := x.long.prefixed(w)
		return wordTerm{long: long, cost: len(long)}
	}
	tm := wordTerm{ids: x.lookup(w)}
	for _, id := range tm.ids {
		tm.cost += len(x.post[id])
	}
	return tm
}

// fill adds to dst every city of tm that is in within, or every city of
// tm when within is nil.
func (x *wordIndex) fill(dst, within *bitset, tm wordTerm) {
	for _, id := range tm.ids {
		for _, i := range x.post[id] {
			if within == nil || within.has(i) {
				dst.set(i)
			}
		}
	}
	for _, e := range tm.long {
		if within == nil || within.has(e.city) {
			dst.set(e.city)
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
