package refdata

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestIntersect checks intersect, galloping and merging, against a plain
// membership test, on lists of like and of very different lengths.
func TestIntersect(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	list := func(n, max int) []int32 {
		seen := map[int32]bool{}
		for len(seen) < n {
			seen[int32(r.IntN(max))] = true
		}
		out := make([]int32, 0, n)
		for x := range seen {
			out = append(out, x)
		}
		slices.Sort(out)
		return out
	}
	for _, tc := range []struct{ a, b, max int }{
		{0, 10, 100}, {10, 0, 100}, {5, 5, 10}, {50, 60, 200}, {10, 5000, 20000}, {300, 2000, 5000}, {1, 1, 1},
	} {
		a, b := list(tc.a, tc.max), list(tc.b, tc.max)
		var want []int32
		for _, x := range a {
			if slices.Contains(b, x) {
				want = append(want, x)
			}
		}
		assert.Equal(t, want, intersect(nil, a, b), "%+v", tc)
		c := slices.Clone(a)
		assert.Equal(t, want, append([]int32(nil), intersect(c[:0], c, b)...), "%+v in place", tc)
	}
}
