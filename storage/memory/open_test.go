package memory_test

import (
	"testing"

	"github.com/brandbase/brandbase/storage/memory"
)

// BenchmarkNew times opening a new memory store holding the default
// dataset, and closing it.
func BenchmarkNew(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		s, err := memory.New(b.Context())
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}
