package postgres_test

import (
	"testing"

	"github.com/brandbase/brandbase/internal/pgtest"
	"github.com/brandbase/brandbase/storage"
	"github.com/brandbase/brandbase/storage/postgres"
	"github.com/brandbase/brandbase/storage/storagetest"
)

// BenchmarkRefData runs storagetest's reference-data benchmarks over the
// default dataset and 150,000 generated cities.
func BenchmarkRefData(b *testing.B) {
	storagetest.BenchRefData(b, func(b *testing.B) storage.Storage {
		s, err := postgres.Open(b.Context(), pgtest.Schema(b))
		if err != nil {
			b.Fatal(err)
		}
		return s
	})
}

// BenchmarkOpen times opening a store on a new schema: migrations and the
// default dataset.
func BenchmarkOpen(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		url := pgtest.Schema(b)
		b.StartTimer()
		s, err := postgres.Open(b.Context(), url)
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}
