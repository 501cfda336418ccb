package webhooks_test

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDeliveriesReuseConnections: bursts of concurrent deliveries to one
// host reuse the connections of the burst before (keep-alive, idle
// connections kept for as many deliveries as a dispatcher runs at once)
// rather than dialing anew each time: three bursts of 16 deliveries in
// flight together open at most 16 connections and a few.
func TestDeliveriesReuseConnections(t *testing.T) {
	t.Parallel()
	const burst, bursts = 16, 3
	var dialed atomic.Int64
	var mu sync.Mutex
	arrived, release := 0, make(chan struct{})
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		arrived++
		if arrived%burst == 0 {
			close(release) // every delivery of the burst is in flight: answer them all
			release = make(chan struct{})
		}
		wait := release
		if arrived%burst == 0 {
			wait = nil
		}
		mu.Unlock()
		if wait != nil {
			select {
			case <-wait:
			case <-time.After(10 * time.Second):
			}
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			dialed.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)

	f := newFixture(t)
	e := f.create(t, srv.URL)
	for round := range bursts {
		var wg sync.WaitGroup
		for i := range burst {
			wg.Go(func() {
				res := f.deliver(t, f.delivery(e.ID, fmt.Sprintf("evt_%d_%d", round, i), `{"type":"user.created"}`))
				assert.NoError(t, res.Err)
			})
		}
		wg.Wait()
	}
	require.Positive(t, dialed.Load())
	assert.LessOrEqual(t, dialed.Load(), int64(burst+4), "connections dialed for %d bursts of %d", bursts, burst)
}
