package auth

import (
	"context"
	"crypto/rand"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/argon2"
	"golang.org/x/crypto/bcrypt"
)

var testParams = Argon2Params{Memory: 64, Iterations: 1, Parallelism: 1, SaltLen: 16, KeyLen: 32}

func TestHashAndVerify(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	h := newHasher(testParams, 2, rand.Reader, slog.Default())
	enc, err := h.hash(ctx, "pässword")
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(enc, "$argon2id$v=19$m=64,t=1,p=1$"), enc)
	other, err := h.hash(ctx, "pässword")
	require.NoError(t, err)
	assert.NotEqual(t, enc, other, "a fresh salt each time")

	tests := []struct {
		name             string
		encoded, pw      string
		wantOK, wantNews bool
	}{
		{"right", enc, "pässword", true, false},
		{"wrong", enc, "password", false, false},
		{"garbage hash", "$argon2id$v=19$m=64,t=1,p=1$!!$!!", "pässword", false, false},
		{"wrong version", strings.Replace(enc, "v=19", "v=16", 1), "pässword", false, false},
		{"absurd memory", strings.Replace(enc, "m=64", "m=4000000000", 1), "pässword", false, false},
		{"empty", "", "pässword", false, false},
	}
	for _, tt := range tests {
		ok, rehash, err := h.verify(ctx, tt.encoded, tt.pw)
		require.NoError(t, err)
		assert.Equal(t, tt.wantOK, ok, tt.name)
		assert.Equal(t, tt.wantNews, rehash, tt.name)
	}

	stronger := newHasher(Argon2Params{Memory: 128, Iterations: 1, Parallelism: 1, SaltLen: 16, KeyLen: 32}, 1, rand.Reader, slog.Default())
	ok, rehash, err := stronger.verify(ctx, enc, "pässword")
	require.NoError(t, err)
	assert.True(t, ok, "old parameters still verify")
	assert.True(t, rehash, "and ask for a rehash")

	bc, err := bcrypt.GenerateFromPassword([]byte("legacy"), bcrypt.MinCost)
	require.NoError(t, err)
	ok, rehash, err = h.verify(ctx, string(bc), "legacy")
	require.NoError(t, err)
	assert.True(t, ok)
	assert.True(t, rehash, "bcrypt is always rehashed")
}

// TestHashConcurrencyIsBounded runs many hashes at once and checks that no
// more than the bound ever compute together.
func TestHashConcurrencyIsBounded(t *testing.T) {
	t.Parallel()
	const bound = 3
	h := newHasher(testParams, bound, rand.Reader, slog.Default())
	h.maxWait = -1 // about the slots, not the wait bound: no caller is shed on a slow machine
	var cur, peak atomic.Int32
	h.argon2 = func(password, salt []byte, time, memory uint32, threads uint8, keyLen uint32) []byte {
		n := cur.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		defer cur.Add(-1)
		return argon2.IDKey(password, salt, time, memory, threads, keyLen)
	}
	var wg sync.WaitGroup
	for range 40 {
		wg.Go(func() {
			enc, err := h.hash(t.Context(), "password")
			assert.NoError(t, err)
			_, _, err = h.verify(t.Context(), enc, "password")
			assert.NoError(t, err)
		})
	}
	wg.Wait()
	assert.LessOrEqual(t, peak.Load(), int32(bound))
	assert.Positive(t, peak.Load())
}

func TestHashWaitHonoursContext(t *testing.T) {
	t.Parallel()
	h := newHasher(testParams, 1, rand.Reader, slog.Default())
	require.NoError(t, h.acquire(t.Context())) // the only slot is taken
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	_, _, err := h.verify(ctx, "", "password")
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	_, err = h.hash(ctx, "password")
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	h.release()
	_, err = h.hash(t.Context(), "password")
	assert.NoError(t, err, "a released slot is usable again")
}

func TestDummyHashHasCurrentParameters(t *testing.T) {
	t.Parallel()
	h := newHasher(testParams, 1, rand.Reader, slog.Default())
	d, err := h.dummyHash(t.Context())
	require.NoError(t, err)
	p, _, _, err := parseArgon2id(d)
	require.NoError(t, err)
	assert.Equal(t, testParams, p)
	again, err := h.dummyHash(t.Context())
	require.NoError(t, err)
	assert.Equal(t, d, again, "made once")
}
