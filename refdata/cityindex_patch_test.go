package refdata_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/internal/textfold"
	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/refdata/refdatatest"
)

// TestPatchesAsReference applies random sequences of patches (clone,
// upserts, finish, freeze) to an index whose sort orders and countries'
// sets are built, and after each checks lists of every kind (filters,
// each sort both ways, pages anywhere) against the reference over the
// cities the store would hold: new cities (in new countries too), tags
// added (which move a city in the order by tags), names rewritten in
// another case, the same city twice in a batch. The orders keep few
// changes beside their base (SetDeltaMax), so that some patches merge them
// in and others merge them into the lists they answer. The snapshot
// patched keeps answering as before, read concurrently while the patch is
// written (run with -race).
func TestPatchesAsReference(t *testing.T) {
	t.Parallel()
	for _, seed := range []uint64{1, 2} {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			r := rand.New(rand.NewPCG(seed, 99))
			// Half the cities in one country, which holds more than a
			// few hundred: a Name within it is answered through its set.
			cities := refdata.DedupCities(inOneCountry(refdatatest.Cities(1_000, seed)))
			pool := inOneCountry(refdatatest.Cities(2_000, seed+100)[1_000:]) // candidates for new cities
			idx := refdata.Of(cities)
			idx.SetDeltaMax(int(30 + 40*seed))
			idx.Freeze()
			primeOrders(t, idx, cities)

			for step := range 25 {
				batch := randomBatch(r, cities, &pool)
				before := randomQueries(t, r, cities, 6)
				wantBefore := make([][]refdata.City, len(before))
				for k, f := range before {
					wantBefore[k], _ = refdata.SelectCities(cities, f)
				}
				var wg sync.WaitGroup
				wg.Go(func() { // the snapshot is read while its patch is written
					for k, f := range before {
						got, _ := idx.List(f)
						assert.Equal(t, wantBefore[k], got, "the snapshot patched, step %d: %+v", step, f)
					}
				})
				next := idx.Clone()
				for _, c := range batch {
					next.Upsert(c)
				}
				next.FinishBatch()
				next.Freeze()
				wg.Wait()
				cities = refdata.DedupCities(append(slices.Clone(cities), batch...))
				require.Equal(t, len(cities), next.Len())
				for _, f := range randomQueries(t, r, cities, 15) {
					assertPagesAsReference(t, r, next, cities, f, "step %d", step)
				}
				for k, f := range before { // the old snapshot, unchanged
					got, _ := idx.List(f)
					assert.Equal(t, wantBefore[k], got, "the snapshot patched, after, step %d: %+v", step, f)
				}
				idx = next
				if t.Failed() {
					return
				}
			}
			// Every sort, both ways, every page of 97, no filter and a country.
			for _, sort := range []refdata.Field{refdata.FieldID, refdata.FieldName, refdata.FieldTags, refdata.FieldCountryCode, refdata.FieldStateCode} {
				for _, desc := range []bool{false, true} {
					for _, country := range []string{"", cities[0].CountryCode} {
						f := refdata.CityFilter{CountryCode: country, Sort: sort, Desc: desc, Page: refdata.Paging{Size: len(cities)}}
						all, total := refdata.SelectCities(cities, f)
						for page := 0; page*97 < total; page++ {
							f.Page = refdata.Paging{Number: page, Size: 97}
							got, gotTotal := idx.List(f)
							assert.Equal(t, total, gotTotal, "%+v", f)
							assert.Equal(t, all[page*97:min(total, page*97+97)], got, "%+v", f)
						}
					}
				}
			}
		})
	}
}

// TestPatchTwoClonesOfOneSnapshot checks that a second clone of the same
// snapshot (whose first clone appends in place past the snapshot's
// lengths) is a copy of its own: both patches answer as the reference,
// and the snapshot as before.
func TestPatchTwoClonesOfOneSnapshot(t *testing.T) {
	t.Parallel()
	cities := refdatatest.Cities(1_500, 21)
	extra := refdatatest.Cities(1_900, 21)[1_500:]
	idx := refdata.Of(cities)
	idx.Freeze()
	primeOrders(t, idx, cities)
	a, b := idx.Clone(), idx.Clone()
	a.UpsertAll(extra[:200])
	b.UpsertAll(extra[200:])
	a.Freeze()
	b.Freeze()
	wantA := append(slices.Clone(cities), extra[:200]...)
	wantB := append(slices.Clone(cities), extra[200:]...)
	r := rand.New(rand.NewPCG(21, 1))
	for _, f := range randomQueries(t, r, wantA, 20) {
		assertPagesAsReference(t, r, a, wantA, f, "first clone")
		assertPagesAsReference(t, r, b, wantB, f, "second clone")
		assertPagesAsReference(t, r, idx, cities, f, "snapshot")
	}
}

// inOneCountry returns cs with every other city moved to DE.
func inOneCountry(cs []refdata.City) []refdata.City {
	for i := 0; i < len(cs); i += 2 {
		cs[i].CountryCode = "DE"
	}
	return cs
}

// primeOrders builds idx's sort orders and countries' sets (the first list
// sorted by each field, the first Name within a country), as lists do.
func primeOrders(t *testing.T, idx *refdata.CityIndex, cities []refdata.City) {
	t.Helper()
	for _, sort := range []refdata.Field{refdata.FieldName, refdata.FieldTags, refdata.FieldCountryCode, refdata.FieldStateCode} {
		assertFilterAsReference(t, idx, cities, refdata.CityFilter{Sort: sort, Page: refdata.Paging{Size: 10}}, "prime")
	}
	assertFilterAsReference(t, idx, cities, refdata.CityFilter{CountryCode: "DE", Name: "a", Sort: refdata.FieldName, Page: refdata.Paging{Size: 10}}, "prime")
}

// randomBatch returns 1 to 25 cities to upsert: new ones (from pool, or in
// a country new to the index), the tags of stored ones added to (which may
// change their order by tags), stored names in upper case, and repeats.
func randomBatch(r *rand.Rand, cities []refdata.City, pool *[]refdata.City) []refdata.City {
	tags := []string{"port", "coastal", "capital", "historic", "unesco", "zoo", "aaa", "Capital"}
	n := 1 + r.IntN(25)
	batch := make([]refdata.City, 0, n)
	for range n {
		var c refdata.City
		switch k := r.IntN(10); {
		case k < 4 && len(*pool) > 0:
			c, *pool = (*pool)[0], (*pool)[1:]
		case k == 4:
			c = refdata.City{CountryCode: "Z" + string(rune('A'+r.IntN(3))), StateCode: "AA", Name: fmt.Sprintf("Nova %d", r.IntN(1000))}
		case k < 8:
			c = cities[r.IntN(len(cities))]
			c.Tags = tags[r.IntN(len(tags))]
			if r.IntN(2) == 0 {
				c.Tags += "," + tags[r.IntN(len(tags))]
			}
		case k == 8:
			c = cities[r.IntN(len(cities))]
			c.Name, c.Tags = strings.ToUpper(c.Name), ""
		default:
			if len(batch) == 0 {
				continue
			}
			c = batch[r.IntN(len(batch))]
			c.Tags = tags[r.IntN(len(tags))]
		}
		batch = append(batch, c)
	}
	return batch
}

// randomQueries returns n city filters of every kind, over what cities
// hold, each with a random sort and direction, and a random page (deep
// ones included) where cities answer it whole.
func randomQueries(t *testing.T, r *rand.Rand, cities []refdata.City, n int) []refdata.CityFilter {
	// (the page is chosen by assertPagesAsReference)
	t.Helper()
	sorts := []string{"id", "name", "countryCode", "stateCode", "tags", "createdDate"}
	out := make([]refdata.CityFilter, 0, n)
	for range n {
		c := cities[r.IntN(len(cities))]
		fold := []rune(textfold.Fold(c.Name))
		sub := func(k int) string {
			k = min(k, len(fold))
			at := r.IntN(len(fold) - k + 1)
			return string(fold[at : at+k])
		}
		var q refdata.CityQuery
		switch r.IntN(9) {
		case 1:
			q.CountryCode = ptr(c.CountryCode)
		case 2:
			q.CountryCode, q.StateCode = ptr(c.CountryCode), ptr(c.StateCode)
		case 3:
			q.StateCode = ptr(c.StateCode)
		case 4:
			q.Name = ptr(sub(1 + r.IntN(5)))
		case 5:
			q.Name, q.CountryCode = ptr(sub(1+r.IntN(4))), ptr(c.CountryCode)
		case 6:
			q.Keywords = ptr(sub(2 + r.IntN(5)))
		case 7:
			q.Keywords = ptr([]string{"port", "capital", "coastal unesco", "zoo", "histor"}[r.IntN(5)])
		case 8:
			q.Keywords, q.CountryCode = ptr(sub(3)), ptr(c.CountryCode)
		}
		q.SortDataField = ptr(sorts[r.IntN(len(sorts))])
		q.SortOrder = ptr([]string{"asc", "desc"}[r.IntN(2)])
		f := cityFilter(t, q)
		out = append(out, f)
	}
	return out
}

// assertPagesAsReference checks that idx answers f as the reference over
// cities does, on four random pages (of 1, 7 or 50; some past the end),
// the reference read once.
func assertPagesAsReference(t *testing.T, r *rand.Rand, idx *refdata.CityIndex, cities []refdata.City, f refdata.CityFilter, msg string, args ...any) {
	t.Helper()
	f.Page = refdata.Paging{Size: len(cities) + 1}
	all, total := refdata.SelectCities(cities, f)
	for range 4 {
		size := []int{1, 7, 50}[r.IntN(3)]
		f.Page = refdata.Paging{Number: r.IntN(total/size + 2), Size: size}
		start, end := f.Page.Bounds(total)
		got, gotTotal := idx.List(f)
		what := fmt.Sprintf(msg, args...)
		assert.Equal(t, total, gotTotal, "%s: %+v", what, f)
		assert.Equal(t, all[start:end], got, "%s: %+v", what, f)
	}
}

// assertFilterAsReference checks that idx answers f as the reference over
// cities does.
func assertFilterAsReference(t *testing.T, idx *refdata.CityIndex, cities []refdata.City, f refdata.CityFilter, msg string, args ...any) {
	t.Helper()
	want, wantTotal := refdata.SelectCities(cities, f)
	got, total := idx.List(f)
	what := fmt.Sprintf(msg, args...)
	assert.Equal(t, wantTotal, total, "%s: %+v", what, f)
	assert.Equal(t, want, got, "%s: %+v", what, f)
}
