// Package auth holds brands (the tenants), their users, passwords, auth key
// pairs, devices and permissions, and the [Service] that applies their rules.
//
// The package declares the [Store] it needs; storage/memory and
// storage/sqlite implement it. Every failure is an *envelope.Error.
//
// # Brands and users
//
// Brands, users, grants and revocations are made in-process:
// [Service.CreateBrand], [Service.CreateUser], [Service.SetPassword],
// [Service.Grant], [Service.Revoke], [Service.SetUserStatus]. A user belongs
// to one brand; its username and email address are unique in the brand,
// compared case-insensitively ([FoldKey]).
//
// # Passwords
//
// Passwords are hashed with argon2id into PHC strings
// ([DefaultArgon2Params]); bcrypt hashes of imported users are accepted and
// replaced by argon2id on the next login. At most
// [DefaultMaxConcurrentHashes] hashes are computed at once
// ([WithMaxConcurrentHashes]); a login waits for a slot at most
// [DefaultMaxHashWait] ([WithMaxHashWait]), and not at all when the logins
// already waiting would keep it waiting longer: it then fails at once with
// an envelope.Unavailable error (503 with Retry-After over HTTP), whoever
// the user is.
// A login for an unknown user verifies against a dummy hash, so it costs
// what a wrong password costs and gets the same answer.
//
// # Key pairs
//
// [Service.Login] issues an authKey and a refreshAuthKey: 256 random bits
// each, base64url, stored only as SHA-256, valid in the issuing brand only,
// for [DefaultAuthKeyTTL] and [DefaultRefreshKeyTTL]. [Service.Refresh]
// rotates a pair; using a refresh key again within
// [DefaultRefreshReuseInterval] of its rotation (a second tab, a retry)
// gets another working pair of the family, and after it revokes the whole
// family.
// [Service.Authenticate] turns an authKey into a [Principal]. Its answers are
// cached ([WithKeyCache]); every revocation, permission or status change made
// through the Service is seen by the next request. One made by another
// process sharing the store is seen once [Service.Forget] hears of it (a
// store that reports changes, such as storage/postgres, is wired to it by
// brandbase.New), and otherwise within the cache TTL.
//
// # Devices
//
// Every login registers a device: the one its [DeviceInfo] (the X-Device-*
// headers) names, or, without a code, one of its own named from its
// User-Agent. [Service.UserDevices] lists the devices a user is signed in
// on, [Service.EndDevice] ends one's sessions, a brand may cap them, and
// each device's last access is written at most once a minute.
// [Service.RevokeDevice] revokes a device for good with every key issued
// on it, and [Service.CheckDevice] refuses a request whose Device-Code
// names it.
//
// # Events
//
// [WithEventHook] subscribes a host to [EventUserAuthenticated] and
// [EventDeviceRegistered].
package auth

import (
	"context"
	"crypto/rand"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/internal/telemetry"
)

// Default lifetimes and cache settings of the service.
const (
	// DefaultAuthKeyTTL is how long an authKey is valid.
	DefaultAuthKeyTTL = 24 * time.Hour
	// DefaultRefreshKeyTTL is how long a refreshAuthKey is valid.
	DefaultRefreshKeyTTL = 30 * 24 * time.Hour
	// DefaultRefreshReuseInterval is how long after a refresh key's
	// rotation a second use of it is taken for a second tab or a retry
	// (answered with a working pair of the same family) rather than for
	// theft (which revokes the family).
	DefaultRefreshReuseInterval = 10 * time.Second
	// DefaultKeyCacheTTL is how long Authenticate trusts a key it has
	// checked without reading the store again. Revocations made through
	// the same Service are seen at once regardless; one made by another
	// process sharing the database is seen after at most this long.
	DefaultKeyCacheTTL = 30 * time.Second
	// DefaultKeyCacheSize bounds the number of cached keys (and, apart,
	// of cached device checks).
	DefaultKeyCacheSize = 10000
)

// Service applies the rules of brands, users, passwords, key pairs and
// devices on top of a Store. It is safe for concurrent use.
type Service struct {
	store Store
	now   func() time.Time
	rand  io.Reader
	log   *slog.Logger
	hooks []func(context.Context, Event)
	// sender delivers password-reset links (WithMessageSender); mailOut
	// makes the outbox carry them instead (WithMailOutbox), notifyMail
	// wakes its dispatcher.
	sender     MessageSender
	mailOut    bool
	notifyMail func()

	argon2     Argon2Params
	maxHashes  int
	hashWait   time.Duration
	authTTL    time.Duration
	refreshTTL time.Duration
	reuseTTL   time.Duration // the refresh reuse interval; 0: none
	cacheTTL   time.Duration
	cacheSize  int
	hasher     *hasher
	keys       *cache[[32]byte, cachedKey]
	devices    *cache[deviceKey, bool]
	brands     *cache[string, Brand]         // by normalised URL
	settings   *cache[string, BrandSettings] // by brand ID
	// lastBrands keeps the last record read of each brand, by normalised
	// URL, through every cache invalidation but the brand's own change:
	// ResolveBrandOrLastKnown answers from it at once, while the brand is
	// read again in the background (rereading: the URLs being read).
	lastBrands *lastKnown
	rereading  sync.Map
	// access keeps the last use of each device and when it was written.
	access *accessTracker

	meters  metric.MeterProvider
	tracers trace.TracerProvider
	tel     *telemetry.Auth // nil: no metrics, no spans
}

// Option configures a Service. An option given a value out of range leaves
// the default in place.
type Option func(*Service)

// WithClock sets the clock the service reads the time from (time.Now by
// default); tests use it to move time without sleeping.
func WithClock(now func() time.Time) Option {
	return func(s *Service) {
		if now != nil {
			s.now = now
		}
	}
}

// withRandom sets the source of random bytes for keys, salts and the dummy
// password (crypto/rand by default). Only tests set it (export_test.go).
func withRandom(r io.Reader) Option {
	return func(s *Service) {
		if r != nil {
			s.rand = r
		}
	}
}

// WithLogger sets where the service logs what it cannot return: a failed
// rehash after a successful login, a panicking event hook. The default is
// slog.Default().
func WithLogger(l *slog.Logger) Option {
	return func(s *Service) {
		if l != nil {
			s.log = l
		}
	}
}

// WithArgon2Params sets the argon2id parameters of new password hashes
// (DefaultArgon2Params by default). Invalid parameters (fewer than 1
// iteration or lane, less than 8 KiB per lane, a salt under 8 bytes or a key
// under 16) are ignored.
func WithArgon2Params(p Argon2Params) Option {
	return func(s *Service) {
		if p.validate() == nil {
			s.argon2 = p
		}
	}
}

// WithMaxConcurrentHashes bounds how many password hashes are computed at
// once (DefaultMaxConcurrentHashes by default: half the cores); further logins wait for a
// slot, within the bound of WithMaxHashWait. Values below 1 are ignored.
func WithMaxConcurrentHashes(n int) Option {
	return func(s *Service) {
		if n >= 1 {
			s.maxHashes = n
		}
	}
}

// WithMaxHashWait bounds how long a password check or hash waits for a
// hashing slot (DefaultMaxHashWait by default). When the wait runs out, or
// when the callers already waiting would keep it waiting longer at the
// measured time one hash takes, it fails at once with an
// envelope.Unavailable error whose Retry-After is d rounded up to seconds,
// which Login returns. The bound covers a login's whole work but its hash:
// its store calls and its wait for a slot must end within d of its start,
// its store calls after the hash within d plus the hash's time, else it
// fails the same way; so a login takes at most d plus one hash. CreateUser
// and SetPassword are not bounded: they wait
// for a slot as long as their context allows. A d below 0 turns the bound
// off (a caller waits as long as its context allows); 0 keeps the default.
func WithMaxHashWait(d time.Duration) Option {
	return func(s *Service) {
		if d != 0 {
			s.hashWait = d
		}
	}
}

// HashLoad is a snapshot of the password hashing slots ([Service.HashLoad]).
type HashLoad struct {
	// Slots is how many hashes may be computed at once.
	Slots int
	// InUse is how many are being computed.
	InUse int
	// Waiting is how many callers wait for a slot.
	Waiting int
}

// HashLoad reports how busy password hashing is, for a host's metrics: when
// InUse equals Slots, new logins wait (within WithMaxHashWait) or are
// refused.
func (s *Service) HashLoad() HashLoad {
	return HashLoad{Slots: cap(s.hasher.sem), InUse: len(s.hasher.sem), Waiting: int(s.hasher.waiting.Load())}
}

// WithKeyLifetimes sets how long new authKeys and refreshAuthKeys are valid
// (DefaultAuthKeyTTL and DefaultRefreshKeyTTL by default). A value of zero or
// less keeps the default.
func WithKeyLifetimes(authKey, refreshKey time.Duration) Option {
	return func(s *Service) {
		if authKey > 0 {
			s.authTTL = authKey
		}
		if refreshKey > 0 {
			s.refreshTTL = refreshKey
		}
	}
}

// WithRefreshReuseInterval sets how long after a refresh rotated a pair
// its refresh key may be used again ([DefaultRefreshReuseInterval] by
// default): two tabs of an app refreshing together, or a retry after an
// answer lost on the network, each get a working pair of the same family
// (the keys are stored only as hashes, so not the first refresh's pair,
// which keeps working too). A use of the key after the interval is taken
// for theft and revokes the family, the pairs made within the interval
// included. A revoked family, device or user, an ended session (a
// password change) and an expired refresh key are refused within the
// interval too. A d of zero turns the interval off (every reuse revokes
// the family); a negative d keeps the default.
func WithRefreshReuseInterval(d time.Duration) Option {
	return func(s *Service) {
		if d >= 0 {
			s.reuseTTL = d
		}
	}
}

// WithKeyCache sets how long Authenticate and CheckDevice trust an answer
// without reading the store (DefaultKeyCacheTTL), and how many answers they
// keep (DefaultKeyCacheSize). A ttl of zero turns the cache off; a negative
// ttl or a size below 1 keeps the default. Revocations, permission and
// status changes made through this Service are seen at once whatever the
// ttl; the ttl bounds how late a change made by another process sharing the
// store is seen.
func WithKeyCache(ttl time.Duration, size int) Option {
	return func(s *Service) {
		if ttl >= 0 {
			s.cacheTTL = ttl
		}
		if size >= 1 {
			s.cacheSize = size
		}
	}
}

// WithMeterProvider makes the service record its metrics with mp: logins
// by outcome, the wait for a password hashing slot, hits and misses of
// its key, device and brand caches, and the changes heard through
// [Service.Forget] (docs/observability.md lists them). Without it, or with
// nil, nothing is recorded; the global otel provider is never read.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(s *Service) { s.meters = mp }
}

// WithTracerProvider makes the service trace password hashing with tp: a
// span "auth.password_hash" per check or hash (its wait for a slot
// included), a child of the span in the caller's context. Without it, or
// with nil, no span is made.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(s *Service) { s.tracers = tp }
}

// NewService returns a Service on store.
func NewService(store Store, opts ...Option) *Service {
	s := &Service{
		store: store, now: time.Now, rand: rand.Reader, log: slog.Default(),
		argon2: DefaultArgon2Params, maxHashes: DefaultMaxConcurrentHashes(), hashWait: DefaultMaxHashWait,
		authTTL: DefaultAuthKeyTTL, refreshTTL: DefaultRefreshKeyTTL, reuseTTL: DefaultRefreshReuseInterval,
		cacheTTL: DefaultKeyCacheTTL, cacheSize: DefaultKeyCacheSize,
	}
	for _, o := range opts {
		o(s)
	}
	s.tel = telemetry.NewAuth(s.meters, s.tracers)
	s.hasher = newHasher(s.argon2, s.maxHashes, s.rand, s.log)
	s.hasher.maxWait = s.hashWait
	s.hasher.tel = s.tel
	s.keys = newCache[[32]byte, cachedKey](s.cacheTTL, s.cacheSize)
	s.keys.lookups = s.tel.CacheLookups(telemetry.CacheKey)
	s.devices = newCache[deviceKey, bool](s.cacheTTL, s.cacheSize)
	s.devices.lookups = s.tel.CacheLookups(telemetry.CacheDevice)
	s.brands = newCache[string, Brand](s.cacheTTL, s.cacheSize)
	s.brands.lookups = s.tel.CacheLookups(telemetry.CacheBrand)
	s.lastBrands = newLastKnown(s.cacheSize)
	s.access = newAccessTracker(s.cacheSize)
	s.settings = newCache[string, BrandSettings](s.cacheTTL, s.cacheSize)
	return s
}

// Error codes of brand resolution (docs/http-api.md gives their statuses).
const (
	CodeBrandURLRequired = "brand_url_required"
	CodeBrandNotFound    = "brand_not_found"
	CodeBrandInactive    = "brand_inactive"
)

// CreateBrand validates nb, normalises its URL and stores a new brand.
// It fails with KindInvalid (field errors) for bad input and
// [ErrBrandExists] when a brand with the same URL exists.
func (s *Service) CreateBrand(ctx context.Context, nb NewBrand) (Brand, error) {
	if err := nb.validate(); err != nil {
		return Brand{}, err
	}
	b := Brand{
		ID:              uuid.Must(uuid.NewV7()).String(),
		URL:             nb.URL,
		Name:            nb.Name,
		Status:          nb.Status,
		DefaultCurrency: nb.DefaultCurrency,
		CreatedAt:       s.now().UTC().Truncate(time.Microsecond),
	}
	if err := s.store.CreateBrand(ctx, b); err != nil {
		return Brand{}, err
	}
	return b, nil
}

// Brand returns the brand with the given ID, or [ErrBrandNotFound].
func (s *Service) Brand(ctx context.Context, id string) (Brand, error) {
	return s.store.BrandByID(ctx, id)
}

// Brands returns every brand, oldest first.
func (s *Service) Brands(ctx context.Context) ([]Brand, error) {
	return s.store.ListBrands(ctx)
}

// SetBrandStatus changes a brand's status. [ErrBrandNotFound] if the brand
// does not exist, KindInvalid for a status other than Active or Inactive.
func (s *Service) SetBrandStatus(ctx context.Context, id string, status Status) (Brand, error) {
	st, ok := parseStatus(string(status))
	if !ok {
		return Brand{}, envelope.Invalid("The status is invalid.",
			envelope.Field("status", "invalid_enum", "The status must be Active or Inactive."))
	}
	b, err := s.store.BrandByID(ctx, id)
	if err != nil {
		return Brand{}, err
	}
	old := b
	b.Status = st
	return s.storeBrand(ctx, old, b)
}

// ResolveBrand finds the active brand a Brand-URL header value names.
// Brands it found are cached like keys (WithKeyCache): a status change made
// through this Service is seen at once, one made by another process within
// the cache TTL. It fails with KindInvalid (code brand_url_required) when raw is empty,
// KindNotFound (brand_not_found) when no brand has that URL or raw is not a
// domain, and KindForbidden (brand_inactive) when the brand is inactive.
// When the brand is not cached and the store cannot be reached, it fails
// with the store's error (KindUnavailable), never brand_not_found.
func (s *Service) ResolveBrand(ctx context.Context, raw string) (Brand, error) {
	return s.resolveBrand(ctx, raw, false)
}

// ResolveBrandOrLastKnown is ResolveBrand for answers that hold nothing a
// revocation protects (the reference-data lists), which never wait on the
// store for a brand this Service has read: when the brand is not cached,
// it answers from the last record of the brand this Service read, however
// long ago, and reads the brand again in the background (one read of a
// brand at a time), so that a store that does not answer (a frozen
// database) holds no such answer. That record is kept when the caches are
// dropped because changes may have been missed (a Change of kind
// ChangeAll, which a shared store sends while its listener is down), and
// forgotten when a change of that brand is heard (ChangeBrand, or
// SetBrandStatus through this Service) or the store says the brand is
// gone; at most as many brands are kept as keys are cached
// (WithKeyCache). A brand never read, or forgotten, is looked up as
// ResolveBrand does: it fails with the store's error when the store
// cannot be reached.
func (s *Service) ResolveBrandOrLastKnown(ctx context.Context, raw string) (Brand, error) {
	return s.resolveBrand(ctx, raw, true)
}

// reread reads the brand of url again in the background unless a read of
// it runs: it keeps what it finds as resolveBrand does, forgets the brand
// the store says is gone, and keeps the last record on any failure.
func (s *Service) reread(ctx context.Context, url string) {
	if _, busy := s.rereading.LoadOrStore(url, true); busy {
		return
	}
	gen, lastGen := s.brands.generation(), s.lastBrands.generation()
	go func() {
		defer s.rereading.Delete(url)
		b, err := s.store.BrandByURL(context.WithoutCancel(ctx), url) // the store bounds its calls
		switch {
		case errors.Is(err, ErrBrandNotFound):
			s.lastBrands.forgetURL(url)
		case err == nil:
			s.keepBrand(url, b, s.now(), gen, lastGen)
		}
	}()
}

// keepBrand caches b, read for url, from now, unless the caches changed
// since their generations gen and lastGen were taken, before the read.
func (s *Service) keepBrand(url string, b Brand, now time.Time, gen, lastGen uint64) {
	s.brands.put(url, b, now, now.Add(s.cacheTTL), gen)
	s.lastBrands.put(url, b, lastGen)
}

// resolveBrand is ResolveBrand, answering from the last known record when
// lastKnown is set (ResolveBrandOrLastKnown).
func (s *Service) resolveBrand(ctx context.Context, raw string, lastKnown bool) (Brand, error) {
	if strings.TrimSpace(raw) == "" {
		return Brand{}, &envelope.Error{
			Kind: envelope.KindInvalid, Code: CodeBrandURLRequired,
			Message: "The Brand-URL header is required.",
			Fields:  []envelope.ErrorItem{envelope.Field("Brand-URL", CodeBrandURLRequired, "The Brand-URL header is required.")},
		}
	}
	notFound := envelope.New(envelope.KindNotFound, CodeBrandNotFound, "No brand has this Brand-URL.")
	url, ok := NormalizeBrandURL(raw)
	if !ok {
		return Brand{}, notFound
	}
	now := s.now()
	b, cached := s.brands.get(url, now)
	if !cached && lastKnown {
		if b, cached = s.lastBrands.get(url); cached {
			s.reread(ctx, url)
		}
	}
	if !cached {
		gen := s.brands.generation()
		lastGen := s.lastBrands.generation()
		var err error
		b, err = s.store.BrandByURL(ctx, url)
		switch {
		case errors.Is(err, ErrBrandNotFound):
			s.lastBrands.forgetURL(url)
			return Brand{}, notFound
		case err != nil && lastKnown && envelope.IsUnavailable(err) && ctx.Err() == nil:
			held, ok := s.lastBrands.get(url)
			if !ok {
				return Brand{}, err
			}
			b = held
		case err != nil:
			return Brand{}, err
		default:
			s.keepBrand(url, b, now, gen, lastGen)
		}
	}
	if b.Status != StatusActive {
		return Brand{}, envelope.New(envelope.KindForbidden, CodeBrandInactive, "This brand is inactive.")
	}
	return b, nil
}
