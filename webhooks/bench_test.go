package webhooks_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/internal/testkit/teststores"
	"github.com/brandbase/brandbase/outbox"
	"github.com/brandbase/brandbase/storage"
	"github.com/brandbase/brandbase/webhooks"
)

// benchDeliveries is the number of events BenchmarkWebhookDelivery drains
// in a round: 2,000, or BRANDBASE_BENCH_WEBHOOKS (100000 for the backlog
// figure of docs/performance.md).
func benchDeliveries() int {
	if n, err := strconv.Atoi(os.Getenv("BRANDBASE_BENCH_WEBHOOKS")); err == nil && n > 0 {
		return n
	}
	return 2000
}

// benchBrands is how many brands the events are spread over (one endpoint
// each): 16, two per default per-brand slot, so the dispatcher's 64 slots
// can all be busy.
const benchBrands = 16

// countingReceiver is a lean Standard Webhooks receiver for benchmarks:
// it verifies each signature with the endpoint's key (named by the URL's
// path), answers 204, and counts; it keeps no body, so the heap measured
// is the delivery path's.
type countingReceiver struct {
	srv     *httptest.Server
	mu      sync.RWMutex
	keys    map[string][]byte // by path
	ok, bad atomic.Int64
}

func newCountingReceiver(b *testing.B) *countingReceiver {
	r := &countingReceiver{keys: map[string][]byte{}}
	r.srv = httptest.NewServer(r)
	b.Cleanup(r.srv.Close)
	return r
}

func (r *countingReceiver) trust(path, secret string) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		panic(err)
	}
	r.mu.Lock()
	r.keys[path] = key
	r.mu.Unlock()
}

func (r *countingReceiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.RLock()
	key := r.keys[req.URL.Path]
	r.mu.RUnlock()
	h := hmac.New(sha256.New, key)
	h.Write([]byte(req.Header.Get("webhook-id") + "." + req.Header.Get("webhook-timestamp") + "."))
	h.Write(body)
	want := "v1," + base64.StdEncoding.EncodeToString(h.Sum(nil))
	for sig := range strings.FieldsSeq(req.Header.Get("webhook-signature")) {
		if hmac.Equal([]byte(sig), []byte(want)) {
			r.ok.Add(1)
			w.WriteHeader(http.StatusNoContent)
			return
		}
	}
	r.bad.Add(1)
	http.Error(w, "bad signature", http.StatusBadRequest)
}

// heapSampler records the largest heap (runtime/metrics: the bytes of heap
// objects, live or not yet swept) seen every 5 ms until stopped.
type heapSampler struct {
	max  atomic.Uint64
	stop chan struct{}
	done chan struct{}
}

func sampleHeap() *heapSampler {
	h := &heapSampler{stop: make(chan struct{}), done: make(chan struct{})}
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() {
		metrics.Read(sample)
		if v := sample[0].Value.Uint64(); v > h.max.Load() {
			h.max.Store(v)
		}
	}
	go func() {
		defer close(h.done)
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			read()
			select {
			case <-h.stop:
				read()
				return
			case <-t.C:
			}
		}
	}()
	return h
}

// Stop ends the sampling and returns the largest heap seen, in MiB.
func (h *heapSampler) Stop() float64 {
	close(h.stop)
	<-h.done
	return float64(h.max.Load()) / (1 << 20)
}

// BenchmarkWebhookDelivery measures the delivery rate of the real path:
// user.created events queued in the store (a backlog, spread over 16
// brands with one endpoint each), claimed by the real dispatcher (default
// options: 64 slots, 8 a brand), fanned out by the event handler,
// signed and POSTed by the delivery handler to a local receiver that
// verifies every signature, and settled. It reports webhooks/s (from the
// dispatcher's start to the last delivery settled) and the largest heap
// seen during the drain (max-heap-MiB, the whole process: the store's
// driver, the dispatcher and the receiver). SQLite on a file, and
// PostgreSQL when BRANDBASE_TEST_POSTGRES is set. 2,000 events a round;
// BRANDBASE_BENCH_WEBHOOKS=100000 for the backlog figure:
//
//	BRANDBASE_BENCH_WEBHOOKS=100000 go test -run '^$' -bench WebhookDelivery -benchtime 1x -timeout 30m ./webhooks
func BenchmarkWebhookDelivery(b *testing.B) {
	for _, name := range []string{"sqlite", "postgres"} {
		b.Run(name, func(b *testing.B) {
			s := teststores.All[name](b)
			b.Cleanup(func() { s.Close() })
			benchDelivery(b, s)
		})
	}
}

// benchDelivery is BenchmarkWebhookDelivery on s.
func benchDelivery(b *testing.B, s storage.Storage) {
	ctx := b.Context()
	keys, err := integrations.NewKeyRing("k1", map[string][]byte{"k1": integrations.GenerateKey()})
	require.NoError(b, err)
	svc := webhooks.NewService(s, webhooks.WithQueue(s), webhooks.WithKeyRing(keys),
		webhooks.WithAddressPolicy(webhooks.AddressPolicy{AllowLoopback: true}))
	rcv := newCountingReceiver(b)
	brands := make([]string, benchBrands)
	for i := range brands {
		br, err := auth.NewService(s).CreateBrand(ctx, auth.NewBrand{URL: fmt.Sprintf("b%d.example.com", i), Name: "B"})
		require.NoError(b, err)
		brands[i] = br.ID
		path := "/" + br.ID
		e, err := svc.Create(ctx, auth.SystemPrincipal(br.ID), webhooks.Input{URL: rcv.srv.URL + path, EventTypes: []string{"*"}})
		require.NoError(b, err)
		rcv.trust(path, e.Secret)
	}
	n := benchDeliveries()
	var total int
	var took, cpu time.Duration
	var maxHeap float64
	for round := 0; b.Loop(); round++ {
		b.StopTimer()
		enqueueEvents(b, s, brands, round, n)
		before := rcv.ok.Load()
		d := outbox.NewDispatcher(s, outbox.WithRetention(-1))
		d.Handle(outbox.ChannelEvent, svc.EventHandler())
		d.Handle(outbox.ChannelWebhook, svc.DeliveryHandler())
		heap := sampleHeap()
		b.StartTimer()
		start, cpu0 := time.Now(), cpuTime()
		d.Start()
		waitDrained(b, s, rcv, before+int64(n))
		took += time.Since(start)
		cpu += cpuTime() - cpu0
		b.StopTimer()
		maxHeap = max(maxHeap, heap.Stop())
		require.NoError(b, d.Close())
		total += n
		b.StartTimer()
	}
	require.Zero(b, rcv.bad.Load(), "every signature verifies")
	b.ReportMetric(float64(total)/took.Seconds(), "webhooks/s")
	b.ReportMetric(float64(cpu.Microseconds())/float64(total), "cpu-µs/webhook")
	b.ReportMetric(maxHeap, "max-heap-MiB")
}

// enqueueEvents queues n user.created events over brands, 1,000 a
// transaction.
func enqueueEvents(b *testing.B, s storage.Storage, brands []string, round, n int) {
	at := time.Now().UTC()
	batch := make([]outbox.Item, 0, 1000)
	for i := range n {
		brand := brands[i%len(brands)]
		id := fmt.Sprintf("evt_%d_%d", round, i)
		batch = append(batch, outbox.Item{ID: id, BrandID: brand, Channel: outbox.ChannelEvent, Topic: "user.created",
			SubjectID: id, CreatedAt: at,
			Payload: fmt.Appendf(nil, `{"type":"user.created","version":1,"brandId":%q,"subjectId":%q,"data":{"userId":%q}}`,
				brand, id, id)})
		if len(batch) == cap(batch) || i == n-1 {
			require.NoError(b, s.Enqueue(b.Context(), batch...))
			batch = batch[:0]
		}
	}
}

// waitDrained returns once the receiver has verified want deliveries and
// the store holds no pending item (the last ones settled).
func waitDrained(b *testing.B, s storage.Storage, rcv *countingReceiver, want int64) {
	deadline := time.Now().Add(time.Duration(max(want, 1000)) * 20 * time.Millisecond)
	for {
		if rcv.ok.Load() >= want {
			d, err := s.Depth(b.Context())
			require.NoError(b, err)
			if d.Pending[outbox.ChannelEvent] == 0 && d.Pending[outbox.ChannelWebhook] == 0 {
				return
			}
		}
		if time.Now().After(deadline) {
			b.Fatalf("not drained: %d of %d delivered, %d refused", rcv.ok.Load(), want, rcv.bad.Load())
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// cpuTime returns the CPU time (user and system) the process has used: the
// drain's CPU cost, whatever else the machine runs (PostgreSQL's server
// is another process, not counted).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
