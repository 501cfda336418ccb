package auth

import (
	"crypto/rand"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/envelope"
)

// A caller is refused at once, without waiting out the bound, when the
// callers already waiting would keep it waiting longer at the measured
// time a slot is held: here one slot, held, a bound of an hour and holds of
// two hours on average, so that waiting at all would hang the test.
func TestHashWaitRefusedAtOnceWhenTheQueueIsTooLong(t *testing.T) {
	t.Parallel()
	h := newHasher(testParams, 1, rand.Reader, slog.Default())
	h.maxWait = time.Hour
	require.NoError(t, h.acquire(t.Context()))
	defer h.release()
	h.meanHold.Store(int64(2 * time.Hour))
	done := make(chan error, 1)
	go func() {
		_, _, err := h.verify(t.Context(), "", "password")
		done <- err
	}()
	select {
	case err := <-done:
		require.True(t, envelope.IsUnavailable(err), "%v", err)
		assert.Equal(t, 3600, envelope.As(err).RetryAfter, "the bound, in seconds")
		assert.ErrorIs(t, err, errHashQueueFull)
	case <-time.After(10 * time.Second):
		t.Fatal("the caller waited instead of being refused at once")
	}
	assert.Zero(t, h.waiting.Load())
}

// done records how long slots are held: the first hold sets the average,
// later ones move it by an eighth of their difference.
func TestHashHoldAverage(t *testing.T) {
	t.Parallel()
	h := newHasher(testParams, 1, rand.Reader, slog.Default())
	require.NoError(t, h.acquire(t.Context()))
	h.done(time.Now().Add(-800 * time.Millisecond))
	first := time.Duration(h.meanHold.Load())
	assert.GreaterOrEqual(t, first, 800*time.Millisecond)
	require.NoError(t, h.acquire(t.Context()), "done released the slot")
	h.done(time.Now())
	assert.InDelta(t, float64(first-first/8), float64(h.meanHold.Load()), float64(50*time.Millisecond))
}

// The timed wait alone bounds a wait for a slot: with the only slot held
// and no hash measured yet (so the caller waits its turn), a check called
// with a context that has no deadline (any caller but a login, whose
// budget bounds it too) is refused once the bound runs out, with an
// assertion within seconds rather than a hang when the bound is gone.
func TestHashWaitIsTimed(t *testing.T) {
	t.Parallel()
	const bound = 30 * time.Millisecond
	h := newHasher(testParams, 1, rand.Reader, slog.Default())
	h.maxWait = bound
	require.NoError(t, h.acquire(t.Context()))
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		_, _, err := h.verify(t.Context(), "", "password")
		done <- err
	}()
	select {
	case err := <-done:
		assert.GreaterOrEqual(t, time.Since(start), bound, "it waited its turn first")
		require.True(t, envelope.IsUnavailable(err), "%v", err)
		assert.ErrorIs(t, err, errHashQueueFull)
	case <-time.After(5 * time.Second):
		h.release() // lets the waiting check end
		t.Fatal("the wait for a slot was not bounded")
	}
	h.release()
}
