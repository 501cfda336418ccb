package outbox_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/brandbase/brandbase/internal/testkit/teststores"
	"github.com/brandbase/brandbase/outbox"
	"github.com/brandbase/brandbase/storage"
	"github.com/brandbase/brandbase/storage/storagetest"
)

// drainBrands is how many brands a drained backlog is spread over.
const drainBrands = 10

// BenchmarkDrain measures the dispatcher's ceiling: a backlog of 2,000
// webhook items over ten brands drained by a dispatcher (64 slots, 8 a
// brand) whose handler does nothing, on SQLite (a file) and PostgreSQL.
// It reports items/s and the largest HeapInuse seen (max-heap-MB).
func BenchmarkDrain(b *testing.B) { benchDrain(b, 2_000) }

// BenchmarkDrainBacklog drains the backlog of BRANDBASE_OUTBOX_BACKLOG
// items as BenchmarkDrain does (100000 for the figures of
// docs/performance.md); it is skipped without it:
//
//	BRANDBASE_OUTBOX_BACKLOG=100000 go test -run '^$' -bench DrainBacklog -benchtime 1x ./outbox
func BenchmarkDrainBacklog(b *testing.B) {
	n, err := strconv.Atoi(os.Getenv("BRANDBASE_OUTBOX_BACKLOG"))
	if err != nil || n <= 0 {
		b.Skip("set BRANDBASE_OUTBOX_BACKLOG (100000) to drain a backlog")
	}
	benchDrain(b, n)
}

// benchDrain drains a backlog of n items on each store, b.N times.
func benchDrain(b *testing.B, n int) {
	for _, name := range []string{"sqlite", "postgres"} {
		b.Run(name, func(b *testing.B) {
			s := teststores.All[name](b)
			b.Cleanup(func() { s.Close() })
			var took time.Duration
			var heap uint64
			for range b.N {
				b.StopTimer()
				at := time.Now().UTC()
				for i := range drainBrands {
					storagetest.FillOutbox(b, s, fmt.Sprintf("brand-%d", i), at, n/drainBrands)
				}
				runtime.GC()
				b.StartTimer()
				d, h := drain(b, s, n/drainBrands*drainBrands)
				took += d
				heap = max(heap, h)
			}
			b.ReportMetric(float64(n/drainBrands*drainBrands*b.N)/took.Seconds(), "items/s")
			b.ReportMetric(float64(heap)/(1<<20), "max-heap-MB")
		})
	}
}

// drain runs a dispatcher with a handler that does nothing until the n
// items queued in s are delivered, and returns the time it took and the
// largest HeapInuse sampled meanwhile (every 10 ms).
func drain(b *testing.B, s storage.Storage, n int) (time.Duration, uint64) {
	var delivered atomic.Int64
	all := make(chan struct{})
	d := newDispatcher(s, outbox.WithPollInterval(10*time.Millisecond))
	d.Handle(outbox.ChannelWebhook, outbox.HandlerFunc(func(context.Context, outbox.Item) outbox.Result {
		if delivered.Add(1) == int64(n) {
			close(all)
		}
		return outbox.Result{Code: 200}
	}))
	var heap atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			heap.Store(max(heap.Load(), ms.HeapInuse))
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	start := time.Now()
	d.Start()
	<-all
	for {
		depth, err := s.Depth(b.Context())
		if err != nil {
			b.Fatal(err)
		}
		if depth.Pending[outbox.ChannelWebhook] == 0 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	took := time.Since(start)
	d.Close()
	close(stop)
	<-sampled
	return took, heap.Load()
}
