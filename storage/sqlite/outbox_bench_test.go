package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/brandbase/brandbase/storage"
	"github.com/brandbase/brandbase/storage/sqlite"
	"github.com/brandbase/brandbase/storage/storagetest"
)

// openBench opens a store on a file of the benchmark's temporary
// directory.
func openBench(b *testing.B) storage.Storage {
	s, err := sqlite.Open(b.Context(), filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkOutboxWrite: the cost an outbox item adds to the write that
// causes it (storagetest.BenchOutboxWrite).
func BenchmarkOutboxWrite(b *testing.B) { storagetest.BenchOutboxWrite(b, openBench) }

// BenchmarkOutboxClaim: a claim over a backlog (storagetest.BenchOutboxClaim;
// BRANDBASE_OUTBOX_BACKLOG=100000 for the documented figures).
func BenchmarkOutboxClaim(b *testing.B) { storagetest.BenchOutboxClaim(b, openBench) }
