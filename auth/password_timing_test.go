package auth

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/argon2"
	"golang.org/x/crypto/bcrypt"
)

// kdfLog records the KDF computations of a hasher and the work they do,
// counted independently of the hasher: argon2id blocks as argon2.IDKey
// processes them, bcrypt expansions as 2^cost.
type kdfLog struct {
	mu    sync.Mutex
	calls []string
	done  work
}

// observe makes h record its KDF computations in a new kdfLog.
func observe(t *testing.T, h *hasher) *kdfLog {
	l := &kdfLog{}
	h.argon2 = func(password, salt []byte, time, memory uint32, threads uint8, keyLen uint32) []byte {
		lanes := 4 * uint64(threads)
		blocks := max(uint64(memory)/lanes*lanes, 2*lanes)
		l.add(fmt.Sprintf("argon2id m=%d,t=%d,p=%d", memory, time, threads), work{argon2: blocks * uint64(time)})
		return argon2.IDKey(password, salt, time, memory, threads, keyLen)
	}
	h.bcrypt = func(hashed, password []byte) error {
		cost, err := bcrypt.Cost(hashed)
		assert.NoError(t, err, "only well-formed bcrypt hashes are computed")
		l.add(fmt.Sprintf("bcrypt %d", cost), work{bcrypt: 1 << cost})
		return bcrypt.CompareHashAndPassword(hashed, password)
	}
	return l
}

func (l *kdfLog) add(call string, w work) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls = append(l.calls, call)
	l.done.argon2 += w.argon2
	l.done.bcrypt += w.bcrypt
}

// take returns what was recorded since the last take and forgets it.
func (l *kdfLog) take() ([]string, work) {
	l.mu.Lock()
	defer l.mu.Unlock()
	calls, done := l.calls, l.done
	l.calls, l.done = nil, work{}
	return calls, done
}

// argon2idHash returns a PHC string of password made with p.
func argon2idHash(t *testing.T, p Argon2Params, password string) string {
	t.Helper()
	enc, err := newHasher(p, 1, rand.Reader, slog.Default()).hash(t.Context(), password)
	require.NoError(t, err)
	return enc
}

// withCost returns a bcrypt hash with its cost field replaced: checking it
// costs 2^cost expansions, and nobody's password matches it.
func withCost(cost int) string { return fmt.Sprintf("$2b$%02d$%s", cost, padBcryptSaltHash) }

// TestFailedChecksDoTheSameWork checks every kind of stored hash with a
// wrong password and counts the KDF work each check does: the same for
// all, one configured argon2id plus one bcrypt of the pad cost, except for
// hashes dearer than that, which are over by exactly their excess. Beyond
// the cost cap, the stored parameters are never computed.
func TestFailedChecksDoTheSameWork(t *testing.T) {
	t.Parallel()
	conf := Argon2Params{Memory: 64, Iterations: 2, Parallelism: 1, SaltLen: 16, KeyLen: 32}
	logs := &bytes.Buffer{}
	h := newHasher(conf, 1, rand.Reader, slog.New(slog.NewTextHandler(logs, nil)))
	h.padCost = 6 // room for bcrypt hashes cheaper and dearer than the pad
	kdf := observe(t, h)
	ref := work{argon2: 64 * 2, bcrypt: 1 << 6}
	require.Equal(t, ref, h.reference())

	const pw = "the password"
	dummy, err := h.dummyHash(t.Context())
	require.NoError(t, err)
	bc4, err := bcrypt.GenerateFromPassword([]byte(pw), 4)
	require.NoError(t, err)
	bc6, err := bcrypt.GenerateFromPassword([]byte(pw), 6)
	require.NoError(t, err)
	configured := argon2idHash(t, conf, pw)
	kdf.take()

	tests := []struct {
		name, encoded string
		// excess is the work beyond the reference: a dearer hash's.
		excess work
		// tolerance is the argon2id blocks the padding may miss (memory
		// rounded to 4 blocks per lane and pass).
		tolerance uint64
	}{
		{name: "unknown user", encoded: dummy},
		{name: "argon2id", encoded: configured},
		{name: "argon2id cheaper", encoded: argon2idHash(t, Argon2Params{Memory: 32, Iterations: 1, Parallelism: 1, SaltLen: 8, KeyLen: 16}, pw)},
		{name: "argon2id cheaper, rounded", encoded: argon2idHash(t, Argon2Params{Memory: 36, Iterations: 1, Parallelism: 1, SaltLen: 16, KeyLen: 32}, pw), tolerance: 2 * 4},
		{name: "argon2id other shape", encoded: argon2idHash(t, Argon2Params{Memory: 128, Iterations: 1, Parallelism: 1, SaltLen: 16, KeyLen: 32}, pw)},
		{name: "argon2id dearer", encoded: argon2idHash(t, Argon2Params{Memory: 128, Iterations: 2, Parallelism: 2, SaltLen: 16, KeyLen: 32}, pw), excess: work{argon2: 128}},
		{name: "bcrypt", encoded: string(bc6)},
		{name: "bcrypt cheaper", encoded: string(bc4)},
		{name: "bcrypt dearer", encoded: withCost(7), excess: work{bcrypt: 1 << 6}},
		{name: "unparsable", encoded: "$argon2id$v=19$m=64,t=2,p=1$!!$!!"},
		{name: "malformed bcrypt", encoded: "$2a$06$tooshort"},
		{name: "argon2id memory over the cap", encoded: strings.Replace(configured, "m=64,", "m=260,", 1)},
		{name: "argon2id passes over the cap", encoded: strings.Replace(configured, "t=2,", "t=9,", 1)},
		{name: "argon2id lanes over the cap", encoded: strings.Replace(configured, "p=1$", "p=5$", 1)},
		{name: "bcrypt over the cap", encoded: withCost(maxBcryptCost + 1)},
	}
	for _, tt := range tests {
		ok, _, err := h.verify(t.Context(), tt.encoded, "a wrong password")
		require.NoError(t, err, tt.name)
		assert.False(t, ok, tt.name)
		calls, done := kdf.take()
		want := work{argon2: ref.argon2 + tt.excess.argon2, bcrypt: ref.bcrypt + tt.excess.bcrypt}
		assert.Equal(t, want.bcrypt, done.bcrypt, "%s: bcrypt work of %v", tt.name, calls)
		assert.InDelta(t, want.argon2, done.argon2, float64(tt.tolerance), "%s: argon2id work of %v", tt.name, calls)
		for _, c := range calls {
			assert.NotContains(t, []string{"argon2id m=260,t=2,p=1", "argon2id m=64,t=9,p=1", "argon2id m=64,t=2,p=5", "bcrypt 13"},
				c, "%s: a hash over the cap is not computed", tt.name)
		}
	}
	assert.Equal(t, 4, strings.Count(logs.String(), "level=WARN"), "each check over the cap is logged:\n%s", logs)

	// A right password is not padded: whoever sent it knew it.
	for _, encoded := range []string{configured, string(bc6)} {
		ok, _, err := h.verify(t.Context(), encoded, pw)
		require.NoError(t, err)
		assert.True(t, ok)
		calls, _ := kdf.take()
		assert.Len(t, calls, 1, "only the check itself: %v", calls)
	}
}

func TestPadCostFollowsTheArgon2Work(t *testing.T) {
	t.Parallel()
	double := DefaultArgon2Params
	double.Iterations *= 2
	for _, tt := range []struct {
		name string
		p    Argon2Params
		want int
	}{
		{"default", DefaultArgon2Params, bcrypt.DefaultCost},
		{"twice the work", double, bcrypt.DefaultCost + 1},
		{"test parameters", testParams, bcrypt.MinCost},
		{"far beyond", Argon2Params{Memory: 1 << 21, Iterations: 64, Parallelism: 1}, maxBcryptCost},
	} {
		assert.Equal(t, tt.want, padCostFor(tt.p), tt.name)
	}
}

// BenchmarkFailedLogin measures a check of a wrong password with the
// default parameters against each kind of stored hash: an unknown user (the
// dummy hash), an argon2id user, an imported bcrypt user (bcrypt's default
// cost) and an argon2id user whose hash has other (older, cheaper)
// parameters. All four do the same work, so their ms/check should agree.
func BenchmarkFailedLogin(b *testing.B) {
	h := newHasher(DefaultArgon2Params, 1, rand.Reader, slog.Default())
	ctx := b.Context()
	dummy, err := h.dummyHash(ctx)
	require.NoError(b, err)
	user, err := h.hash(ctx, "the password")
	require.NoError(b, err)
	bc, err := bcrypt.GenerateFromPassword([]byte("the password"), bcrypt.DefaultCost)
	require.NoError(b, err)
	older := DefaultArgon2Params
	older.Memory, older.Iterations = 12*1024, 2
	other, err := newHasher(older, 1, rand.Reader, slog.Default()).hash(ctx, "the password")
	require.NoError(b, err)
	for _, bc := range []struct{ name, encoded string }{
		{"unknown", dummy}, {"argon2id", user}, {"bcrypt", string(bc)}, {"argon2-other", other},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if ok, _, err := h.verify(ctx, bc.encoded, "a wrong password"); ok || err != nil {
					b.Fatal(ok, err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/check")
		})
	}
}
