package auth

import (
	"context"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/crypto/argon2"
	"golang.org/x/crypto/bcrypt"

	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/internal/telemetry"
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
// (docs/performance.md gives the measured figure). At most MaxConcurrentHashes run at
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
// password hash computations: half of GOMAXPROCS, at least one. A hash
// keeps a core busy for its whole time, so that a login flood takes at most
// half of the cores and the other requests keep the rest (measured in
// docs/performance.md, Login flood).
func DefaultMaxConcurrentHashes() int { return max(1, runtime.GOMAXPROCS(0)/2) }

// DefaultMaxHashWait is how long a login waits at most for a hashing slot
// before it is refused as unavailable (1 s). One hash costs
// about 30 ms with the default parameters, so a wait of a second means the
// hashing is oversubscribed some thirty times over: a client is better
// served by a quick 503 with Retry-After than by a login that takes
// seconds, and the wait stays far below usual client and server timeouts.
const DefaultMaxHashWait = time.Second

// hashShedRetryAfter is the Retry-After, in seconds, of a refused hash
// wait: the hashing queue drains within about the wait bound.
func hashShedRetryAfter(wait time.Duration) int {
	return max(1, int(math.Ceil(wait.Seconds())))
}

// A failed password check costs the same KDF work whatever the stored hash
// is, so that its time tells nothing about the user: an unknown user (the
// dummy hash), an argon2id hash with the configured parameters or with
// cheaper ones, a bcrypt hash of the pad cost or less, an unparsable hash
// or one beyond the cost cap. That work, the reference, is one argon2id
// with the configured parameters plus one bcrypt of the pad cost (see
// padCostFor): after a failed check, pad computes what the check itself did
// not (an argon2id check is followed by a bcrypt of a dummy hash, a bcrypt
// check by an argon2id, a cheaper argon2id by the missing passes). Only a
// hash dearer than the reference (argon2id with more memory × passes than
// configured, bcrypt above the pad cost) still stands out, by its excess;
// the cost cap bounds that excess, and the user's next login replaces the
// hash. A successful check is not padded: its caller knew the password.
const (
	// costCap bounds what a stored or imported argon2id hash may ask for:
	// at most costCap times the configured memory, passes and lanes. A
	// stored hash beyond it fails its check without being computed; an
	// import of one is refused.
	costCap = 4
	// maxBcryptCost is the same cap for bcrypt: costCap times the work of
	// bcrypt's default cost.
	maxBcryptCost = bcrypt.DefaultCost + 2
)

// padCostFor returns the bcrypt cost of the reference work with argon2id
// parameters p: bcrypt's default cost (10, what imported hashes usually
// have) with the default parameters, one step more or less for each
// doubling or halving of p's work, within [bcrypt.MinCost, maxBcryptCost].
// So the reference keeps the defaults' balance between the two KDFs, and
// cheap test parameters get a cheap pad.
func padCostFor(p Argon2Params) int {
	steps := math.Round(math.Log2(float64(argon2Work(p)) / float64(argon2Work(DefaultArgon2Params))))
	return min(max(bcrypt.DefaultCost+int(steps), bcrypt.MinCost), maxBcryptCost)
}

// padBcryptSaltHash is the salt and hash part of the dummy bcrypt hash that
// pads failed checks: the hash of a random password nobody kept.
const padBcryptSaltHash = "e6WSeCiQHj919vcHBrnj7u6l0STfEV0j/.HqWZ4Ap70WcInmfur2W"

// hasher makes and checks password hashes, never more than cap(sem) at once.
// A caller waits at most maxWait for a slot (not at all when that wait
// would clearly exceed it: see acquire); maxWait below 0 waits as long as
// the caller's context allows.
type hasher struct {
	params  Argon2Params
	sem     chan struct{}
	maxWait time.Duration
	// waiting counts the callers waiting for a slot; meanHold is the
	// moving average of how long a slot is held, in nanoseconds (0 before
	// the first hash).
	waiting  atomic.Int64
	meanHold atomic.Int64
	rand     io.Reader
	log      *slog.Logger
	// padCost is the bcrypt cost of the reference work (padCostFor).
	padCost int
	// tel records slot waits and hashing spans; nil without telemetry.
	tel *telemetry.Auth
	// argon2 is argon2.IDKey and bcrypt is bcrypt.CompareHashAndPassword;
	// tests replace them to observe the work done.
	argon2 func(password, salt []byte, time, memory uint32, threads uint8, keyLen uint32) []byte
	bcrypt func(hashedPassword, password []byte) error

	dummyMu sync.Mutex
	dummy   atomic.Pointer[string]
}

func newHasher(p Argon2Params, maxConcurrent int, rand io.Reader, log *slog.Logger) *hasher {
	return &hasher{
		params: p, sem: make(chan struct{}, maxConcurrent), maxWait: DefaultMaxHashWait,
		rand: rand, log: log, padCost: padCostFor(p),
		argon2: argon2.IDKey, bcrypt: bcrypt.CompareHashAndPassword,
	}
}

// errHashQueueFull is the cause of a refused wait for a hashing slot.
var errHashQueueFull = errors.New("auth: every password hashing slot is busy past the wait bound")

// errLoginBound is the cause of a login refused because its work around
// the hash (store calls, the wait for a slot) ran past its bound.
var errLoginBound = errors.New("auth: the login ran past its bound")

// acquire takes a hashing slot, waiting until one is free, ctx is done or
// maxWait has run out. It does not wait at all when the callers already
// waiting, at the measured time a slot is held, would keep it waiting past
// maxWait. A wait refused either way is an envelope.Unavailable error
// whose Retry-After is maxWait rounded up to seconds. Whether a wait is
// refused depends only on the load, never on whose password it is.
func (h *hasher) acquire(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	select {
	case h.sem <- struct{}{}:
		h.tel.HashWaited(ctx, time.Now(), telemetry.HashAcquired)
		return nil
	default:
	}
	start := time.Now()
	err := h.wait(ctx)
	h.tel.HashWaited(ctx, start, waitOutcome(err))
	return err
}

// wait is acquire once no slot was free at once.
func (h *hasher) wait(ctx context.Context) error {
	n := h.waiting.Add(1) // this caller included
	defer h.waiting.Add(-1)
	if h.maxWait < 0 {
		select {
		case h.sem <- struct{}{}:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if err := h.queueTooLong(n); err != nil {
		return err
	}
	timer := time.NewTimer(h.maxWait)
	defer timer.Stop()
	select {
	case h.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return h.shed(fmt.Errorf("%w: no slot within %v", errHashQueueFull, h.maxWait))
	}
}

// waitOutcome names the outcome of a wait for a slot that returned err.
func waitOutcome(err error) string {
	switch {
	case err == nil:
		return telemetry.HashAcquired
	case errors.Is(err, errHashQueueFull):
		return telemetry.HashShed
	}
	return telemetry.HashCancelled
}

// queueTooLong returns the error of a refused wait when the n-th caller
// waiting for a slot would, at the measured mean hold, wait past maxWait;
// nil otherwise. The slots free up at about slots per mean hold, so the
// n-th waiter gets one after about n/slots holds.
func (h *hasher) queueTooLong(n int64) error {
	slots, hold := int64(cap(h.sem)), h.meanHold.Load()
	if h.maxWait < 0 || time.Duration(n*hold/slots) <= h.maxWait {
		return nil
	}
	return h.shed(fmt.Errorf("%w: %d waiting for %d slots held about %v each", errHashQueueFull, n,
		slots, time.Duration(hold).Round(time.Millisecond)))
}

// admit fails, as acquire would at once, when no slot is free and one more
// caller waiting would be refused; it takes nothing. A login calls it
// before it reads the store, so that a login refused under load costs no
// store read either.
func (h *hasher) admit(ctx context.Context) error {
	if len(h.sem) < cap(h.sem) {
		return nil
	}
	err := h.queueTooLong(h.waiting.Load() + 1)
	if err != nil {
		h.tel.HashWaited(ctx, time.Now(), telemetry.HashShed)
	}
	return err
}

// acquireWaiting takes a hashing slot, waiting until one is free or ctx is
// done, whatever maxWait says.
func (h *hasher) acquireWaiting(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	start := time.Now()
	h.waiting.Add(1)
	defer h.waiting.Add(-1)
	select {
	case h.sem <- struct{}{}:
		h.tel.HashWaited(ctx, start, telemetry.HashAcquired)
		return nil
	case <-ctx.Done():
		h.tel.HashWaited(ctx, start, telemetry.HashCancelled)
		return ctx.Err()
	}
}

// shed returns the error of a refused wait for a slot.
func (h *hasher) shed(cause error) error {
	return envelope.Unavailable(cause, hashShedRetryAfter(h.maxWait))
}

func (h *hasher) release() { <-h.sem }

// done releases a slot taken at start and records how long it was held.
func (h *hasher) done(start time.Time) {
	held := int64(time.Since(start))
	for { // moving average with weight 1/8 for the newest hold
		old := h.meanHold.Load()
		next := held
		if old > 0 {
			next = old + (held-old)/8
		}
		if h.meanHold.CompareAndSwap(old, next) {
			break
		}
	}
	h.release()
}

// hash returns the argon2id PHC string of password with a fresh salt. Its
// wait for a slot is bounded as a login's is (acquire): logins hash too
// (the dummy hash, a rehash).
func (h *hasher) hash(ctx context.Context, password string) (string, error) {
	return h.hashAfter(ctx, password, h.acquire)
}

// hashWaiting is hash waiting for a slot as long as ctx allows, whatever
// the wait bound: for user management in-process (a new user, a new
// password), whose callers are not the login flood the bound sheds.
func (h *hasher) hashWaiting(ctx context.Context, password string) (string, error) {
	return h.hashAfter(ctx, password, h.acquireWaiting)
}

// hashAfter is hash taking its slot with acquire.
func (h *hasher) hashAfter(ctx context.Context, password string, acquire func(context.Context) error) (_ string, err error) {
	ctx, span := h.tel.StartHash(ctx, telemetry.HashNew)
	defer func() { telemetry.EndSpan(span, err) }()
	salt := make([]byte, h.params.SaltLen)
	if _, err := io.ReadFull(h.rand, salt); err != nil {
		return "", envelope.Internal(fmt.Errorf("auth: read salt: %w", err))
	}
	if err := acquire(ctx); err != nil {
		return "", err
	}
	defer h.done(time.Now())
	p := h.params
	key := h.argon2([]byte(password), salt, p.Iterations, p.Memory, p.Parallelism, p.KeyLen)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, p.Memory, p.Iterations, p.Parallelism,
		b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// b64 is the encoding of salts and keys in PHC strings.
var b64 = base64.RawStdEncoding

// tryAcquire takes a hashing slot if one is free at once.
func (h *hasher) tryAcquire() bool {
	select {
	case h.sem <- struct{}{}:
		return true
	default:
		return false
	}
}

// hashIfFree is hash when a slot is free at once; ok is false, and nothing
// is done, when none is.
func (h *hasher) hashIfFree(ctx context.Context, password string) (_ string, ok bool, err error) {
	hash, err := h.hashAfter(ctx, password, func(context.Context) error {
		if !h.tryAcquire() {
			return errHashQueueFull
		}
		return nil
	})
	if errors.Is(err, errHashQueueFull) {
		return "", false, nil
	}
	return hash, err == nil, err
}

// verify reports whether password matches encoded (an argon2id PHC string or
// a bcrypt hash), and whether encoded should be replaced by a hash with the
// current parameters. An unparsable hash never matches; nor does one beyond
// the cost cap, which is logged and not computed. A failed check costs the
// reference work whatever encoded is (see costCap). It fails only
// when ctx ends while waiting for a hashing slot, or when the wait is
// refused (see acquire).
func (h *hasher) verify(ctx context.Context, encoded, password string) (ok, rehash bool, err error) {
	ok, rehash, _, err = h.verifyHeld(ctx, encoded, password)
	return ok, rehash, err
}

// verifyHeld is verify, also returning how long it held its slot (the
// hash's own time, without the wait).
func (h *hasher) verifyHeld(ctx context.Context, encoded, password string) (ok, rehash bool, held time.Duration, err error) {
	ctx, span := h.tel.StartHash(ctx, telemetry.HashVerify)
	defer func() { telemetry.EndSpan(span, err) }()
	if err := h.acquire(ctx); err != nil {
		return false, false, 0, err
	}
	start := time.Now()
	defer h.done(start)
	ok, rehash, done := h.check(ctx, encoded, password)
	if !ok {
		h.pad(password, done)
	}
	return ok, rehash, time.Since(start), nil
}

// loginBudget bounds the whole time of one login: its work before the
// hash (the store calls, making the dummy hash, the wait for a slot) must
// end within the wait bound of its start, and its work after the hash
// (the device, the new key pair) within the wait bound plus the time the
// hash took. So a login takes at most the wait bound plus one hash,
// whatever it waits on: the slots, the CPU, the store's connections. A
// bound below 0 (no wait bound) bounds nothing.
type loginBudget struct {
	h      *hasher
	parent context.Context
	start  time.Time
}

// until returns the parent context bounded by the wait bound plus extra
// from the login's start.
func (b loginBudget) until(extra time.Duration) (context.Context, context.CancelFunc) {
	if b.h.maxWait < 0 {
		return b.parent, func() {}
	}
	return context.WithDeadline(b.parent, b.start.Add(b.h.maxWait+extra))
}

// err maps err, returned by work done under ctx (from until): when ctx
// ran out and the parent did not, the login ran past its bound, and it is
// refused as a refused wait for a slot is (envelope.Unavailable with the
// same Retry-After). Other errors are returned as they are.
func (b loginBudget) err(ctx context.Context, err error) error {
	if err == nil || ctx.Err() == nil || b.parent.Err() != nil || envelope.IsUnavailable(err) && errors.Is(err, errHashQueueFull) {
		return err
	}
	return b.h.shed(fmt.Errorf("%w (%v after its start, the wait bound is %v): %w", errLoginBound,
		time.Since(b.start).Round(time.Millisecond), b.h.maxWait, err))
}

// check is verify without the padding: it also returns the work it did.
func (h *hasher) check(ctx context.Context, encoded, password string) (ok, rehash bool, done work) {
	s, err := h.parse(encoded)
	switch {
	case errors.Is(err, errTooCostly):
		h.log.WarnContext(ctx, "auth: a stored password hash is beyond the cost cap; the check fails without computing it",
			"error", err)
		return false, false, work{}
	case err != nil:
		return false, false, work{}
	case s.bcryptCost > 0:
		ok = h.bcrypt([]byte(encoded), []byte(password)) == nil
		return ok, true, work{bcrypt: 1 << s.bcryptCost}
	}
	p := s.argon2
	got := h.argon2([]byte(password), s.salt, p.Iterations, p.Memory, p.Parallelism, p.KeyLen)
	ok = subtle.ConstantTimeCompare(got, s.key) == 1
	return ok, p != h.params, work{argon2: argon2Work(p)}
}

// work is the KDF work of password checks in units whose cost does not
// depend on the parameters: argon2id blocks processed (1 KiB each, memory
// times passes) and bcrypt key expansions (2^cost).
type work struct{ argon2, bcrypt uint64 }

// argon2Work returns the blocks argon2.IDKey processes with p: it rounds
// the memory down to a multiple of 4 blocks per lane, and up to 8 per lane.
func argon2Work(p Argon2Params) uint64 {
	q := 4 * uint64(p.Parallelism)
	return max(uint64(p.Memory)/q*q, 2*q) * uint64(p.Iterations)
}

// reference returns the work of every failed check.
func (h *hasher) reference() work {
	return work{argon2: argon2Work(h.params), bcrypt: 1 << h.padCost}
}

// pad does the work a failed check that did done lacks to reach the
// reference: argon2id passes over at most the configured memory, to within
// 4 blocks per lane and pass, and bcrypt checks of a dummy hash whose
// costs add up to the missing expansions exactly (done.bcrypt is a power of
// two no larger than the reference's, so the difference is a sum of
// distinct powers of two, each at least 2^MinCost).
func (h *hasher) pad(password string, done work) {
	ref, pw := h.reference(), []byte(password)
	if done.argon2 < ref.argon2 {
		p := h.params
		missing, q := ref.argon2-done.argon2, 4*uint64(p.Parallelism)
		passes := (missing + uint64(p.Memory) - 1) / uint64(p.Memory)
		if mem := missing / passes / q * q; mem >= 2*q {
			h.argon2(pw, make([]byte, p.SaltLen), uint32(passes), uint32(mem), p.Parallelism, p.KeyLen)
		}
	}
	if done.bcrypt < ref.bcrypt {
		missing := ref.bcrypt - done.bcrypt
		for c := bcrypt.MinCost; c <= h.padCost; c++ {
			if missing&(1<<c) != 0 {
				_ = h.bcrypt(fmt.Appendf(nil, "$2a$%02d$%s", c, padBcryptSaltHash), pw)
			}
		}
	}
}

// errTooCostly marks a hash whose parameters are beyond the cost cap.
var errTooCostly = errors.New("password hash parameters beyond the cost cap")

// storedHash is a parsed password hash: bcrypt when bcryptCost is set,
// argon2id otherwise.
type storedHash struct {
	bcryptCost int
	argon2     Argon2Params
	salt, key  []byte
}

// parse parses a stored or imported hash and checks it against the cost
// cap (errTooCostly).
func (h *hasher) parse(encoded string) (storedHash, error) {
	if isBcrypt(encoded) {
		cost, err := bcryptCost(encoded)
		if err != nil {
			return storedHash{}, err
		}
		if cost > maxBcryptCost {
			return storedHash{}, fmt.Errorf("%w: bcrypt cost %d, at most %d", errTooCostly, cost, maxBcryptCost)
		}
		return storedHash{bcryptCost: cost}, nil
	}
	p, salt, key, err := parseArgon2id(encoded)
	if err != nil {
		return storedHash{}, err
	}
	c := h.params
	if uint64(p.Memory) > costCap*uint64(c.Memory) || uint64(p.Iterations) > costCap*uint64(c.Iterations) ||
		int(p.Parallelism) > costCap*int(c.Parallelism) {
		return storedHash{}, fmt.Errorf("%w: argon2id m=%d,t=%d,p=%d, at most %d times m=%d,t=%d,p=%d",
			errTooCostly, p.Memory, p.Iterations, p.Parallelism, costCap, c.Memory, c.Iterations, c.Parallelism)
	}
	return storedHash{argon2: p, salt: salt, key: key}, nil
}

// validateImport adds a field error to v when encoded cannot be imported as
// a password hash: code invalid_format when it is neither an argon2id PHC
// string nor a well-formed bcrypt hash, code too_costly when its parameters
// are beyond the cost cap.
func (h *hasher) validateImport(v *envelope.Validation, field, encoded string) {
	_, err := h.parse(encoded)
	switch {
	case errors.Is(err, errTooCostly):
		v.Add(field, "too_costly", "The password hash asks for more than 4 times this service's hashing cost.")
	case err != nil:
		v.Add(field, "invalid_format", "The password hash must be an argon2id PHC string or a bcrypt hash.")
	}
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

// isBcrypt reports whether encoded claims to be a bcrypt hash.
func isBcrypt(encoded string) bool {
	return strings.HasPrefix(encoded, "$2a$") || strings.HasPrefix(encoded, "$2b$") || strings.HasPrefix(encoded, "$2y$")
}

// bcryptCost returns the cost of a well-formed bcrypt hash: 60 characters,
// version, cost, and 53 characters of bcrypt's base64 alphabet (salt and
// hash), so that checking it does the work its cost says.
func bcryptCost(encoded string) (int, error) {
	const alphabet = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	if len(encoded) != 60 || encoded[6] != '$' || strings.Trim(encoded[7:], alphabet) != "" {
		return 0, errors.New("not a well-formed bcrypt hash")
	}
	return bcrypt.Cost([]byte(encoded))
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
	if err := p.validate(); err != nil || p.Memory > 1<<21 || p.Iterations > 64 || p.SaltLen > 64 || p.KeyLen > 128 {
		return p, nil, nil, errors.New("argon2id parameters out of range")
	}
	return p, salt, key, nil
}
