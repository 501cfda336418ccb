package refdata_test

import (
	"github.com/brandbase/brandbase/refdata"
	"runtime"
	"testing"

	"github.com/brandbase/brandbase/refdata/refdatatest"
)

// BenchmarkOf indexes refdatatest.Large (150,000 cities): the CPU part of
// building a snapshot, without reading the store.
func BenchmarkOf(b *testing.B) {
	cities := refdatatest.Large()
	for b.Loop() {
		runtime.KeepAlive(refdata.Of(cities))
	}
}
