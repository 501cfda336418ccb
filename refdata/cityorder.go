package refdata

import (
	"cmp"
	"math/bits"
	"slices"
	"sort"
	"strings"

	"github.com/brandbase/brandbase/internal/textfold"
)

// sortSlots are the city fields with a lazily built order; id is insertion
// order and needs none.
var sortSlots = [...]field{fieldCountryCode, fieldStateCode, fieldName, fieldTags}

// cityOrder is the order of all cities by one field (ties by position): a
// base, sorted when the order was built or last consolidated, and the
// changes since (d), merged into every answer. A patch (finishBatch) adds
// its cities to the changes, which cost what it changes; once they pass
// maxOrderDelta, they are merged into a new base, in one pass (no sort).
//
// In the base, perm lists positions in order (ties by position), rank is
// its inverse, and byCountry lists each country's cities in that order
// (perm filtered), so that a page of a country's cities is read, not
// selected. An order by country code has no byCountry: a country's cities
// tie, in position order, which is CityIndex.byCountry's.
type cityOrder struct {
	perm, rank []int32
	byCountry  map[string][]int32
	d          *orderDelta // nil: the base is the whole order
}

// orderDelta is what changed in an order since its base: the cities added
// since (positions from len(perm) on) and the older ones whose key changed
// (retagged: only the order by tags has them). The latter are dead in the
// base (skipped where they stand) and added again where they now go.
type orderDelta struct {
	adds      []orderAdd       // by (key, position)
	dead      []int32          // base ranks of the dead, ascending
	deadPos   []int32          // their positions, ascending
	stale     map[int32]string // dead position -> its key in the base
	newAt     []int32          // the index in adds of position len(perm)+k
	addOf     map[int32]int32  // the index in adds of a dead position
	byCountry map[string]*countryDelta
}

// orderAdd is a city added to an order: ins is the number of base
// entries (dead included) before it, insC the same in its country's list.
type orderAdd struct{ pos, ins, insC int32 }

// countryDelta is the part of an orderDelta within one country: ins of
// each add, and dead, are ranks in the base's list of the country.
type countryDelta struct {
	adds []orderAdd
	dead []int32
}

// maxOrderDelta returns how many changes an order of n cities keeps
// beside its base before merging them into a new base (which costs about
// 12 bytes a city): a list merges the changes in as it reads, at a cost
// that grows with them.
func (t *cityIndex) maxOrderDelta(n int) int {
	if t.deltaMax > 0 {
		return t.deltaMax
	}
	return max(1024, n/256)
}

// sortKey returns the key of each city in the order by field, as
// citySortKey does. The tags keys are cached (tags are interned): the
// function is for one goroutine.
func (t *cityIndex) sortKeyFunc(by field) func(int32) string {
	switch by {
	case fieldName:
		return t.fold // = citySortKey(r, fieldName)
	case fieldCountryCode:
		return func(i int32) string { return t.rec(i).CountryCode }
	case fieldStateCode:
		return func(i int32) string { return t.rec(i).StateCode }
	}
	keys := map[string]string{}
	return func(i int32) string {
		tags := t.rec(i).Tags
		k, ok := keys[tags]
		if !ok {
			k = textfold.TagKey(tags)
			keys[tags] = k
		}
		return k
	}
}

// order returns the order of all cities by field, building it on first use.
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
	n := t.len()
	key := t.sortKeyFunc(by)
	keys := make([]string, n)
	for i := range keys {
		keys[i] = key(int32(i))
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
		o.byCountry = map[string][]int32{}
		t.byCountry.each(func(c string, l []int32) { o.byCountry[c] = make([]int32, 0, len(l)) })
		for _, i := range o.perm {
			c := t.rec(i).CountryCode
			o.byCountry[c] = append(o.byCountry[c], i)
		}
	}
	t.orders[slot].Store(o)
	return o
}

// patchOrder returns o, the order by field of the index at the last
// finishBatch, with the changes since: the cities added, and (by tags)
// those retagged.
func (t *cityIndex) patchOrder(by field, o *cityOrder) *cityOrder {
	baseN := int32(len(o.perm))
	old := o.d
	if old == nil {
		old = &orderDelta{}
	}
	op := &orderPatch{t: t, o: o, key: t.sortKeyFunc(by),
		d: &orderDelta{dead: old.dead, deadPos: old.deadPos, stale: old.stale}}
	fresh, moved, newDead := op.changed(by, old, baseN)
	if len(fresh) == 0 {
		return o // retagged cities, in an order not by tags
	}
	slices.SortFunc(fresh, op.before)
	entries := make([]orderAdd, len(fresh))
	for j, p := range fresh {
		entries[j] = orderAdd{pos: p, ins: op.insOf(o.perm, p)}
		if o.byCountry != nil {
			entries[j].insC = op.insOf(o.byCountry[t.rec(p).CountryCode], p)
		}
	}
	d := op.d
	d.adds = mergeAdds(make([]orderAdd, 0, len(old.adds)+len(entries)), old.adds, entries, moved, op.before)
	if len(newDead) > 0 {
		op.markDead(old, newDead)
	}
	if o.byCountry != nil {
		op.patchCountries(old, entries, moved, newDead)
	}
	if len(d.adds)+len(d.dead) > t.maxOrderDelta(t.len()) {
		return t.consolidate(o, d)
	}
	d.index(baseN, t.len())
	return &cityOrder{perm: o.perm, rank: o.rank, byCountry: o.byCountry, d: d}
}

// orderPatch is the work of one patchOrder: the order o of the index t at
// the last finishBatch, key the sort key of its field, and d the delta
// being built over o's base.
type orderPatch struct {
	t   *cityIndex
	o   *cityOrder
	key func(int32) string
	d   *orderDelta
}

// changed returns what the patch adds to the order: fresh, the cities
// added since the last finishBatch and (by tags) those retagged; moved,
// the retagged ones that are adds already (added since the base, or
// retagged before); and newDead, the base entries retagged since the last
// finishBatch, whose base keys it records in op.d.stale.
func (op *orderPatch) changed(by field, old *orderDelta, baseN int32) (fresh []int32, moved map[int32]bool, newDead []int32) {
	t, d := op.t, op.d
	fresh = make([]int32, 0, t.len()-t.finished+len(t.retagged))
	for i := t.finished; i < t.len(); i++ {
		fresh = append(fresh, int32(i))
	}
	if by != fieldTags || len(t.retagged) == 0 {
		return fresh, nil, nil
	}
	moved = map[int32]bool{}
	d.stale = map[int32]string{}
	for p, k := range old.stale {
		d.stale[p] = k
	}
	for p, tags := range t.retagged {
		fresh = append(fresh, p)
		if _, isDead := d.stale[p]; p >= baseN || isDead {
			moved[p] = true
			continue
		}
		newDead = append(newDead, p)
		d.stale[p] = textfold.TagKey(tags)
	}
	return fresh, moved, newDead
}

// baseKey returns the key of position p in the base: its stale key if it
// is dead there, else its key.
func (op *orderPatch) baseKey(p int32) string {
	if k, ok := op.d.stale[p]; ok {
		return k
	}
	return op.key(p)
}

// before compares positions p and q by key, then position.
func (op *orderPatch) before(p, q int32) int {
	return cmp.Or(strings.Compare(op.key(p), op.key(q)), cmp.Compare(p, q))
}

// insOf returns the number of the base entries of list (in base order)
// before p.
func (op *orderPatch) insOf(list []int32, p int32) int32 {
	k := op.key(p)
	return int32(sort.Search(len(list), func(r int) bool {
		q := list[r]
		return cmp.Or(strings.Compare(op.baseKey(q), k), cmp.Compare(q, p)) > 0
	}))
}

// markDead records newDead, base entries retagged, as dead in op.d: their
// positions and their ranks in the base, each list merged into old's.
func (op *orderPatch) markDead(old *orderDelta, newDead []int32) {
	slices.Sort(newDead)
	op.d.deadPos = mergeSorted(old.deadPos, newDead)
	ranks := make([]int32, len(newDead))
	for j, p := range newDead {
		ranks[j] = op.o.rank[p]
	}
	slices.Sort(ranks)
	op.d.dead = mergeSorted(old.dead, ranks)
}

// patchCountries builds op.d.byCountry from old's: each country's adds
// (entries, whose insC is their place in the country's base list) and its
// dead (newDead, by their rank in that list).
func (op *orderPatch) patchCountries(old *orderDelta, entries []orderAdd, moved map[int32]bool, newDead []int32) {
	t, o, d := op.t, op.o, op.d
	d.byCountry = make(map[string]*countryDelta, len(old.byCountry)+1)
	for c, cd := range old.byCountry {
		d.byCountry[c] = cd
	}
	perCountry := map[string][]orderAdd{}
	for _, e := range entries {
		c := t.rec(e.pos).CountryCode
		perCountry[c] = append(perCountry[c], orderAdd{pos: e.pos, ins: e.insC})
	}
	deadIn := map[string][]int32{}
	for _, p := range newDead {
		c := t.rec(p).CountryCode
		list := o.byCountry[c]
		r, _ := slices.BinarySearchFunc(list, p, func(q, p int32) int {
			return cmp.Or(strings.Compare(op.baseKey(q), op.baseKey(p)), cmp.Compare(q, p))
		})
		deadIn[c] = append(deadIn[c], int32(r))
	}
	for c, es := range perCountry {
		cd := d.byCountry[c]
		if cd == nil {
			cd = &countryDelta{}
		}
		next := &countryDelta{adds: mergeAdds(make([]orderAdd, 0, len(cd.adds)+len(es)), cd.adds, es, moved, op.before), dead: cd.dead}
		if rs := deadIn[c]; len(rs) > 0 {
			slices.Sort(rs)
			next.dead = mergeSorted(cd.dead, rs)
		}
		d.byCountry[c] = next
	}
}

// index fills d.newAt and d.addOf, where each add of d stands in d.adds:
// by position for the cities past the base's baseN (of n), by map for the
// base entries dead and added again.
func (d *orderDelta) index(baseN int32, n int) {
	d.newAt = make([]int32, n-int(baseN))
	if len(d.deadPos) > 0 {
		d.addOf = make(map[int32]int32, len(d.deadPos))
	}
	for k, a := range d.adds {
		if a.pos >= baseN {
			d.newAt[a.pos-baseN] = int32(k)
		} else {
			d.addOf[a.pos] = int32(k)
		}
	}
}

// mergeAdds appends to dst the adds of a but those in drop, and those of
// b, in order by before of their positions; a and b are in that order.
func mergeAdds(dst, a, b []orderAdd, drop map[int32]bool, before func(p, q int32) int) []orderAdd {
	j := 0
	for _, e := range a {
		if drop[e.pos] {
			continue
		}
		for j < len(b) && before(b[j].pos, e.pos) < 0 {
			dst = append(dst, b[j])
			j++
		}
		dst = append(dst, e)
	}
	return append(dst, b[j:]...)
}

// mergeSorted returns the ascending a and b merged, in a new slice.
func mergeSorted(a, b []int32) []int32 {
	out := make([]int32, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if a[i] <= b[j] {
			out = append(out, a[i])
			i++
		} else {
			out = append(out, b[j])
			j++
		}
	}
	return append(append(out, a[i:]...), b[j:]...)
}

// consolidate returns the order that o with the changes d is, as a base:
// one pass over the order, the countries' lists that did not change
// shared with o.
func (t *cityIndex) consolidate(o *cityOrder, d *orderDelta) *cityOrder {
	n := t.len()
	perm := mergedRange(make([]int32, 0, n), o.perm, d.dead, d.adds, 0, n)
	rank := make([]int32, n)
	for r, p := range perm {
		rank[p] = int32(r)
	}
	out := &cityOrder{perm: perm, rank: rank}
	if o.byCountry != nil {
		out.byCountry = map[string][]int32{}
		t.byCountry.each(func(c string, l []int32) {
			cd := d.byCountry[c]
			if cd == nil {
				out.byCountry[c] = o.byCountry[c]
				return
			}
			out.byCountry[c] = mergedRange(make([]int32, 0, len(l)), o.byCountry[c], cd.dead, cd.adds, 0, len(l))
		})
	}
	return out
}

// mergedRange appends to dst the entries a to b-1 of the sequence that
// merges base, less its ranks in dead (ascending), with adds (by ins: an
// add goes before the base entry of rank ins), and returns it.
func mergedRange(dst, base, dead []int32, adds []orderAdd, a, b int) []int32 {
	pos, r, di, ai := 0, 0, 0, 0
	for pos < b {
		if ai < len(adds) && int(adds[ai].ins) <= r {
			if pos >= a {
				dst = append(dst, adds[ai].pos)
			}
			pos++
			ai++
			continue
		}
		if r >= len(base) {
			break
		}
		if di < len(dead) && int(dead[di]) == r {
			r++
			di++
			continue
		}
		hi := len(base) // base[r:hi] are alive, with no add among them
		if ai < len(adds) {
			hi = min(hi, int(adds[ai].ins))
		}
		if di < len(dead) {
			hi = min(hi, int(dead[di]))
		}
		if pos < a {
			s := min(a-pos, hi-r)
			pos += s
			r += s
			continue
		}
		take := min(hi-r, b-pos)
		dst = append(dst, base[r:r+take]...)
		pos += take
		r += take
	}
	return dst
}

// ascRange returns the entries of a page start..end-1 of total counted
// ascending, the page being in descending order when desc (the caller
// then reverses what it read).
func ascRange(start, end, total int, desc bool) (int, int) {
	if desc {
		return total - end, total - start
	}
	return start, end
}

// allPage appends to dst the page start..end-1 of all cities in o's order
// (reversed when desc).
func (o *cityOrder) allPage(dst []int32, start, end, total int, desc bool) []int32 {
	if o.d == nil {
		for j := start; j < end; j++ {
			if desc {
				dst = append(dst, o.perm[total-1-j])
			} else {
				dst = append(dst, o.perm[j])
			}
		}
		return dst
	}
	a, b := ascRange(start, end, total, desc)
	n := len(dst)
	dst = mergedRange(dst, o.perm, o.d.dead, o.d.adds, a, b)
	if desc {
		slices.Reverse(dst[n:])
	}
	return dst
}

// countryPage appends to dst the page start..end-1 of the total cities of
// country in o's order (reversed when desc); o has byCountry.
func (o *cityOrder) countryPage(dst []int32, country string, start, end, total int, desc bool) []int32 {
	base := o.byCountry[country]
	var cd *countryDelta
	if o.d != nil {
		cd = o.d.byCountry[country]
	}
	if cd == nil {
		for j := start; j < end; j++ {
			if desc {
				dst = append(dst, base[total-1-j])
			} else {
				dst = append(dst, base[j])
			}
		}
		return dst
	}
	a, b := ascRange(start, end, total, desc)
	n := len(dst)
	dst = mergedRange(dst, base, cd.dead, cd.adds, a, b)
	if desc {
		slices.Reverse(dst[n:])
	}
	return dst
}

// matchPage appends to dst the page start..end-1 of matches (positions,
// ascending) in o's order (reversed when desc): the matches of the base
// are marked by rank in a bitset, which is read in order, the others
// (changed since the base) merged in where they go.
func (o *cityOrder) matchPage(dst, matches []int32, start, end int, desc bool) []int32 {
	baseN := int32(len(o.perm))
	ranks := getBitset(len(o.perm))
	defer putBitset(ranks)
	if o.d == nil {
		for _, i := range matches {
			ranks.set(o.rank[i])
		}
		for _, r := range ranks.slice(start, end, desc) {
			dst = append(dst, o.perm[r])
		}
		return dst
	}
	d := o.d
	var extra []int32 // indexes in d.adds
	for _, i := range matches {
		if i >= baseN {
			extra = append(extra, d.newAt[i-baseN])
			continue
		}
		if len(d.deadPos) > 0 {
			if _, isDead := slices.BinarySearch(d.deadPos, i); isDead {
				extra = append(extra, d.addOf[i])
				continue
			}
		}
		ranks.set(o.rank[i])
	}
	slices.Sort(extra)
	a, b := ascRange(start, end, len(matches), desc)
	n := len(dst)
	pos, lo := 0, int32(0)
	for k := 0; k <= len(extra) && pos < b; k++ {
		hi := baseN
		if k < len(extra) {
			hi = d.adds[extra[k]].ins
		}
		c := ranks.countRange(lo, hi)
		if pos+c > a {
			skip := max(0, a-pos)
			dst = ranks.appendRange(dst, o.perm, lo, hi, skip, min(c-skip, b-pos-skip))
		}
		pos += c
		lo = hi
		if k < len(extra) {
			if pos >= a && pos < b {
				dst = append(dst, d.adds[extra[k]].pos)
			}
			pos++
		}
	}
	if desc {
		slices.Reverse(dst[n:])
	}
	return dst
}

// countRange returns the number of members in lo..hi-1.
func (b *bitset) countRange(lo, hi int32) int {
	if lo >= hi {
		return 0
	}
	n := 0
	for k := lo >> 6; k <= (hi-1)>>6; k++ {
		w := b.w[k]
		if k == lo>>6 {
			w &= ^uint64(0) << (lo & 63)
		}
		if k == (hi-1)>>6 {
			w &= ^uint64(0) >> (63 - (hi-1)&63)
		}
		n += bits.OnesCount64(w)
	}
	return n
}

// appendRange appends to dst perm[r] for the members r of lo..hi-1,
// ascending, but the first skip, at most max of them, and returns it.
func (b *bitset) appendRange(dst, perm []int32, lo, hi int32, skip, max int) []int32 {
	for k := lo >> 6; k <= (hi-1)>>6 && max > 0 && lo < hi; k++ {
		w := b.w[k]
		if k == lo>>6 {
			w &= ^uint64(0) << (lo & 63)
		}
		if k == (hi-1)>>6 {
			w &= ^uint64(0) >> (63 - (hi-1)&63)
		}
		if c := bits.OnesCount64(w); skip >= c {
			skip -= c
			continue
		}
		for w != 0 && max > 0 {
			bit := bits.TrailingZeros64(w)
			w &= w - 1
			if skip > 0 {
				skip--
				continue
			}
			dst = append(dst, perm[k<<6+int32(bit)])
			max--
		}
	}
	return dst
}
