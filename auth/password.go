package auth

import (
	"context"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/crypto/argon2"
	"golang.org/x/crypto/bcrypt"

	"github.com/brandbase/brandbase/envelope"
)

// Argon2Params are the argon2id parameters new password hashes are made
// with. Hashes made with other parameters still verify (the parameters are
// in the PHC string) and are rehashed on the user's next login.
type Argon2Params struct {
	// Memory is the memory cost in KiB.
	Memory uint32
	// Iterations is the time cost (passes over the memory).
	Iterations uint32
	// Parallelism is the number of lanes.
	Parallelism uint8
	// SaltLen is the salt length in bytes.
	SaltLen uint32
	// KeyLen is the length of the derived key in bytes.
	KeyLen uint32
}

// DefaultArgon2Params are the parameters brandbase hashes passwords with:
// 19 MiB of memory, 3 passes, 1 lane, a 16-byte salt and a 32-byte key. This
// is OWASP's minimum configuration for argon2id (m=19456, t=2, p=1) with one
// more pass, so that one hash costs about 30 ms on a current server core
// (the README gives the measured figure). At most MaxConcurrentHashes run at
// once, so the memory they take is bounded by that many times 19 MiB.
var DefaultArgon2Params = Argon2Params{Memory: 19 * 1024, Iterations: 3, Parallelism: 1, SaltLen: 16, KeyLen: 32}

// validate reports whether p is usable.
func (p Argon2Params) validate() error {
	switch {
	case p.Iterations < 1, p.Parallelism < 1:
		return errors.New("auth: argon2 iterations and parallelism must be at least 1")
	case p.Memory < 8*uint32(p.Parallelism):
		return errors.New("auth: argon2 memory must be at least 8 KiB per lane")
	case p.SaltLen < 8, p.KeyLen < 16:
		return errors.New("auth: argon2 salt must be at least 8 bytes and the key at least 16")
	}
	return nil
}

// DefaultMaxConcurrentHashes returns the default bound on concurrent
// password hash computations: twice GOMAXPROCS.
func DefaultMaxConcurrentHashes() int { return 2 * runtime.GOMAXPROCS(0) }

// hasher makes and checks password hashes, never more than cap(sem) at once.
type hasher struct {
	params Argon2Params
	sem    chan struct{}
	rand   io.Reader
	// argon2 is argon2.IDKey; tests replace it to observe concurrency.
	argon2 func(password, salt []byte, time, memory uint32, threads uint8, keyLen uint32) []byte

	dummyMu sync.Mutex
	dummy   atomic.Pointer[string]
}

func newHasher(p Argon2Params, maxConcurrent int, rand io.Reader) *hasher {
	return &hasher{params: p, sem: make(chan struct{}, maxConcurrent), rand: rand, argon2: argon2.IDKey}
}

// acquire takes a hashing slot, waiting until one is free or ctx is done.
func (h *hasher) acquire(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	select {
	case h.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (h *hasher) release() { <-h.sem }

// hash returns the argon2id PHC string of password with a fresh salt.
func (h *hasher) hash(ctx context.Context, password string) (string, error) {
	salt := make([]byte, h.params.SaltLen)
	if _, err := io.ReadFull(h.rand, salt); err != nil {
		return "", envelope.Internal(fmt.Errorf("auth: read salt: %w", err))
	}
	if err := h.acquire(ctx); err != nil {
		return "", err
	}
	defer h.release()
	p := h.params
	key := h.argon2([]byte(password), salt, p.Iterations, p.Memory, p.Parallelism, p.KeyLen)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, p.Memory, p.Iterations, p.Parallelism,
		b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// b64 is the encoding of salts and keys in PHC strings.
var b64 = base64.RawStdEncoding

// verify reports whether password matches encoded (an argon2id PHC string or
// a bcrypt hash), and whether encoded should be replaced by a hash with the
// current parameters. An unparsable hash never matches. It fails only when
// ctx ends while waiting for a hashing slot.
func (h *hasher) verify(ctx context.Context, encoded, password string) (ok, rehash bool, err error) {
	if err := h.acquire(ctx); err != nil {
		return false, false, err
	}
	defer h.release()
	if isBcrypt(encoded) {
		return bcrypt.CompareHashAndPassword([]byte(encoded), []byte(password)) == nil, true, nil
	}
	p, salt, key, perr := parseArgon2id(encoded)
	if perr != nil {
		// Spend the time a real check would, so a broken record does not
		// stand out.
		h.argon2([]byte(password), make([]byte, h.params.SaltLen), h.params.Iterations, h.params.Memory, h.params.Parallelism, h.params.KeyLen)
		return false, false, nil
	}
	got := h.argon2([]byte(password), salt, p.Iterations, p.Memory, p.Parallelism, uint32(len(key)))
	ok = subtle.ConstantTimeCompare(got, key) == 1
	cur := h.params
	rehash = p.Memory != cur.Memory || p.Iterations != cur.Iterations || p.Parallelism != cur.Parallelism ||
		uint32(len(salt)) != cur.SaltLen || uint32(len(key)) != cur.KeyLen
	return ok, rehash, nil
}

// dummyHash returns a hash of a random password with the current
// parameters, made once (a failed attempt is retried by the next call):
// verifying against it costs what verifying a real user's password costs,
// which hides whether a user exists.
func (h *hasher) dummyHash(ctx context.Context) (string, error) {
	if d := h.dummy.Load(); d != nil {
		return *d, nil
	}
	h.dummyMu.Lock()
	defer h.dummyMu.Unlock()
	if d := h.dummy.Load(); d != nil {
		return *d, nil
	}
	pw := make([]byte, 32)
	if _, err := io.ReadFull(h.rand, pw); err != nil {
		return "", envelope.Internal(fmt.Errorf("auth: read dummy password: %w", err))
	}
	d, err := h.hash(ctx, b64.EncodeToString(pw))
	if err != nil {
		return "", err
	}
	h.dummy.Store(&d)
	return d, nil
}

func isBcrypt(encoded string) bool {
	return strings.HasPrefix(encoded, "$2a$") || strings.HasPrefix(encoded, "$2b$") || strings.HasPrefix(encoded, "$2y$")
}

// parseArgon2id parses "$argon2id$v=19$m=...,t=...,p=...$salt$key".
func parseArgon2id(encoded string) (p Argon2Params, salt, key []byte, err error) {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" || parts[2] != "v="+strconv.Itoa(argon2.Version) {
		return p, nil, nil, errors.New("not an argon2id v19 PHC string")
	}
	for kv := range strings.SplitSeq(parts[3], ",") {
		k, v, _ := strings.Cut(kv, "=")
		n, perr := strconv.ParseUint(v, 10, 32)
		if perr != nil {
			return p, nil, nil, perr
		}
		switch k {
		case "m":
			p.Memory = uint32(n)
		case "t":
			p.Iterations = uint32(n)
		case "p":
			if n > 255 {
				return p, nil, nil, errors.New("parallelism out of range")
			}
			p.Parallelism = uint8(n)
		default:
			return p, nil, nil, errors.New("unknown parameter " + k)
		}
	}
	if salt, err = b64.DecodeString(parts[4]); err != nil {
		return p, nil, nil, err
	}
	if key, err = b64.DecodeString(parts[5]); err != nil {
		return p, nil, nil, err
	}
	p.SaltLen, p.KeyLen = uint32(len(salt)), uint32(len(key))
	// Refuse parameters that would let a stored record cost unbounded
	// memory or time.
	if err := p.validate(); err != nil || p.Memory > 1<<21 || p.Iterations > 64 || p.KeyLen > 128 {
		return p, nil, nil, errors.New("argon2id parameters out of range")
	}
	return p, salt, key, nil
}
