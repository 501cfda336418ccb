package postgres_test

import (
	"testing"

	"github.com/brandbase/brandbase/internal/testkit/pgtest"
	"github.com/brandbase/brandbase/storage"
	"github.com/brandbase/brandbase/storage/postgres"
	"github.com/brandbase/brandbase/storage/storagetest"
)

// openBench opens a store on a schema of its own.
func openBench(b *testing.B) storage.Storage {
	s, err := postgres.Open(b.Context(), pgtest.Schema(b))
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
