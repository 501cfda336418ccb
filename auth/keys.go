package auth

import (
	"cmp"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/events"
	"github.com/brandbase/brandbase/internal/telemetry"
	"github.com/brandbase/brandbase/outbox"
)

// KeyPair is an issued authKey/refreshAuthKey pair as stored: the keys
// themselves are never stored, only their SHA-256.
type KeyPair struct {
	// ID identifies the pair (Principal.KeyID).
	ID string
	// FamilyID is shared by a login's pair and every pair that rotation
	// (or a reuse within the reuse interval) made from it; reusing a
	// rotated refresh key after the interval revokes the family.
	FamilyID string
	// BrandID is the brand the pair was issued in; it works nowhere else.
	BrandID string
	// UserID is the user the pair was issued to.
	UserID string
	// DeviceID is the device the login registered, or "".
	DeviceID string
	// AuthHash and RefreshHash are the SHA-256 of the keys (32 bytes).
	AuthHash    []byte
	RefreshHash []byte
	// CreatedAt is when the pair was issued.
	CreatedAt time.Time
	// AuthExpiresAt and RefreshExpiresAt are when the keys stop working.
	AuthExpiresAt    time.Time
	RefreshExpiresAt time.Time
	// RevokedAt is when the pair was revoked; zero while it is not. A
	// rotated pair's is when it was rotated (see [KeyPair.RotatedAt]).
	RevokedAt time.Time
	// ReplacedBy is the ID of the pair a refresh replaced this one with;
	// "" when the pair was not rotated.
	ReplacedBy string
	// SessionEpoch is the SessionEpoch of the user that the login issuing
	// the pair read (a refresh keeps the epoch of the pair it replaces);
	// the store refuses the pair ([ErrKeysRevoked]) when the user's has
	// changed since, and Authenticate and Refresh refuse a pair whose
	// epoch is below its user's.
	SessionEpoch int64
}

// RotatedAt returns when a refresh rotated k, or the zero time when none
// did: its RevokedAt, since a pair is rotated only while it is not
// revoked, and a later revocation keeps the first RevokedAt.
func (k KeyPair) RotatedAt() time.Time {
	if k.ReplacedBy == "" {
		return time.Time{}
	}
	return k.RevokedAt
}

// Session is what a login or a refresh returns: the user and a new key
// pair. The keys are shown once; only their hashes are kept.
type Session struct {
	// User is the authenticated user.
	User User
	// KeyID identifies the new pair.
	KeyID string
	// AuthKey authenticates later requests (the Auth-Key header).
	AuthKey string
	// RefreshAuthKey obtains a new pair once, before RefreshExpiresAt.
	RefreshAuthKey string
	// ExpiresAt is when AuthKey expires, in UTC (the spec's expiresIn).
	ExpiresAt time.Time
	// RefreshExpiresAt is when RefreshAuthKey expires, in UTC.
	RefreshExpiresAt time.Time
	// Device is the device the login registered (every login registers
	// one): a client sends its Code as X-Device-Code to log in from it
	// again. Zero after a refresh.
	Device Device
}

// Codes of authentication failures (docs/http-api.md gives their statuses).
const (
	CodeInvalidCredentials = "invalid_credentials"
	CodeUserInactive       = "user_inactive"
	CodeDeviceRevoked      = "device_revoked"
)

// maxIdentifierLen bounds the username and email address of a login, in
// bytes.
const maxIdentifierLen = 254

// maxKeyLen bounds an Auth-Key or refresh key worth hashing; issued keys are
// 43 characters.
const maxKeyLen = 256

func errUnauthenticated() error {
	return envelope.New(envelope.KindUnauthenticated, CodeUnauthenticated, "A valid Auth-Key header is required.")
}

func errRefreshRefused() error {
	return envelope.New(envelope.KindUnauthenticated, CodeUnauthenticated, "The refresh key is not valid.")
}

func errInvalidCredentials() error {
	return envelope.New(envelope.KindUnauthenticated, CodeInvalidCredentials, "The username or password is incorrect.")
}

// hashKey returns the SHA-256 of a key, the form keys are stored and cached
// in.
func hashKey(key string) [32]byte { return sha256.Sum256([]byte(key)) }

// newKey returns 256 random bits, base64url-encoded without padding.
func (s *Service) newKey() (string, error) {
	var b [32]byte
	if _, err := io.ReadFull(s.rand, b[:]); err != nil {
		return "", envelope.Internal(fmt.Errorf("auth: read random key: %w", err))
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// issue makes a new key pair of user in family (a new family when empty)
// and session epoch epoch, and returns it with its keys; it does not store
// it.
func (s *Service) issue(user UserRecord, familyID, deviceID string, epoch int64, now time.Time) (KeyPair, Session, error) {
	authKey, err := s.newKey()
	if err != nil {
		return KeyPair{}, Session{}, err
	}
	refreshKey, err := s.newKey()
	if err != nil {
		return KeyPair{}, Session{}, err
	}
	id := uuid.Must(uuid.NewV7()).String()
	if familyID == "" {
		familyID = id
	}
	ah, rh := hashKey(authKey), hashKey(refreshKey)
	k := KeyPair{
		ID: id, FamilyID: familyID, BrandID: user.BrandID, UserID: user.ID, DeviceID: deviceID,
		AuthHash: ah[:], RefreshHash: rh[:], CreatedAt: now,
		AuthExpiresAt: now.Add(s.authTTL), RefreshExpiresAt: now.Add(s.refreshTTL),
		SessionEpoch: epoch,
	}
	return k, Session{
		User: user.public(), KeyID: id, AuthKey: authKey, RefreshAuthKey: refreshKey,
		ExpiresAt: k.AuthExpiresAt, RefreshExpiresAt: k.RefreshExpiresAt,
	}, nil
}

// LoginRequest is a login: an identifier, a password and, optionally, the
// device it comes from.
type LoginRequest struct {
	// Username and EmailAddress identify the user, compared with
	// [FoldKey] (surrounding space ignored); at least one is required.
	// When both are given, both must belong to the same user. A Username
	// holding an @ that is no user's username names the user of that
	// email address ("username or email" sent as username).
	Username     string
	EmailAddress string
	// Password is required.
	Password string
	// Device registers or updates the device the login comes from (the
	// X-Device-* headers); without a Code the login is a device of its
	// own, named from Device.UserAgent.
	Device DeviceInfo
}

// Login checks a user's password in brand and issues a new key pair.
//
// The user is looked up by Username or EmailAddress in brand only: a user
// of another brand cannot log in. Whether the user is unknown or the
// password wrong, Login fails alike, with KindUnauthenticated (code
// invalid_credentials) after one password check of the same cost (an
// unknown user is checked against a dummy hash). A bcrypt hash, or an
// argon2id hash with other parameters, is replaced by one with the current
// parameters. After the password is verified, Login fails with
// KindForbidden: code user_inactive for an inactive user, code
// device_revoked when the request's device was revoked (before or during
// the login). A login during which the user's password changed, its keys
// were revoked or it was deactivated fails like a wrong password: the
// store refuses its pair (see [UserRecord.SessionEpoch]), so that no
// session outlives the change.
//
// Other failures: KindInvalid (field errors) for a request without password
// or without identifier, or with fields too long; the context's error when
// it ends while waiting for a hashing slot.
//
// With a meter provider ([WithMeterProvider]) every call counts as one
// login of its outcome (see docs/observability.md).
func (s *Service) Login(ctx context.Context, brand Brand, req LoginRequest) (Session, error) {
	sess, err := s.login(ctx, brand, req)
	s.tel.Login(ctx, loginOutcome(err))
	return sess, err
}

// loginOutcome names the outcome of a login that returned err, as the
// login counter records it.
func loginOutcome(err error) string {
	e := envelope.As(err)
	switch {
	case err == nil:
		return telemetry.LoginSuccess
	case errors.Is(err, errHashQueueFull), errors.Is(err, errLoginBound):
		return telemetry.LoginShed
	case e.Code == CodeInvalidCredentials:
		return telemetry.LoginInvalidCredentials
	case e.Kind == envelope.KindInvalid:
		return telemetry.LoginInvalid
	case e.Kind == envelope.KindForbidden:
		return telemetry.LoginRefused
	}
	return telemetry.LoginError
}

// login is Login, uncounted.
func (s *Service) login(ctx context.Context, brand Brand, req LoginRequest) (Session, error) {
	username, email, err := req.validate()
	if err != nil {
		return Session{}, err
	}

	// Refused at once, before any store read, when hashing is too busy
	// for this login to wait its turn; whoever the user is.
	if err := s.hasher.admit(ctx); err != nil {
		return Session{}, err
	}
	// The dummy hash is made by the first login, whoever it is for, so
	// that making it does not single out the first unknown user. Its wait
	// for a slot is bounded as any; its hash is outside the login's budget
	// (once a process, the first login hashes twice).
	dummy, err := s.hasher.dummyHash(ctx)
	if err != nil {
		return Session{}, err
	}
	// The whole login takes at most the wait bound plus its hash: its work
	// before the hash runs under pre, its work after under post.
	b := loginBudget{h: s.hasher, parent: ctx, start: time.Now()}
	pre, cancelPre := b.until(0)
	defer cancelPre()
	var found bool
	user, err := s.loginUser(pre, brand.ID, username, email)
	switch {
	case err == nil:
		found = user.BrandID == brand.ID && (username == "" || email == "" || user.EmailKey == FoldKey(email))
	case errors.Is(err, ErrUserNotFound):
		user.PasswordHash = dummy
	default:
		return Session{}, b.err(pre, err)
	}
	ok, rehash, held, err := s.hasher.verifyHeld(pre, user.PasswordHash, req.Password)
	if err != nil {
		return Session{}, b.err(pre, err)
	}
	if !ok || !found {
		return Session{}, errInvalidCredentials()
	}
	if user.Status != StatusActive {
		return Session{}, statusRefusal(user.Status)
	}
	if rehash {
		held += s.rehash(b, held, user, req.Password)
	}
	post, cancelPost := b.until(held)
	defer cancelPost()
	return s.startSession(ctx, post, b, brand, user, req.Device)
}

// validate checks a login request, normalises its device fields in place,
// and returns its username and email address, trimmed: KindInvalid (field
// errors) without an identifier or a password, or with a field too long or
// a device field invalid.
func (req *LoginRequest) validate() (username, email string, err error) {
	username, email = strings.TrimSpace(req.Username), strings.TrimSpace(req.EmailAddress)
	var v envelope.Validation
	if username == "" && email == "" {
		v.Add("username", "required", "A username or an emailAddress is required.")
	}
	if len(username) > maxIdentifierLen {
		v.Add("username", "too_long", "The username must be at most 254 characters.")
	}
	if len(email) > maxIdentifierLen {
		v.Add("emailAddress", "too_long", "The emailAddress must be at most 254 characters.")
	}
	switch {
	case req.Password == "":
		v.Add("password", "required", "The password is required.")
	case len(req.Password) > MaxPasswordBytes:
		v.Add("password", "too_long", "The password must be at most 1024 bytes.")
	}
	req.Device.validate(&v)
	return username, email, v.Err()
}

// startSession ends a login whose password was verified: it registers the
// device the login comes from (every login is a device: the one its
// X-Device-Code names, or one of its own named from its User-Agent),
// stores a new key pair of a new family on it, and emits the login's
// events. Its store calls run under post, the login's budget b after the
// hash; ctx is the login's own context.
func (s *Service) startSession(ctx, post context.Context, b loginBudget, brand Brand, user UserRecord, info DeviceInfo) (Session, error) {
	now := s.now().UTC().Truncate(time.Microsecond)
	device, newDevice, err := s.registerDevice(post, user, info, now)
	if err != nil {
		return Session{}, b.err(post, err)
	}
	pair, sess, err := s.issue(user, "", device.ID, user.SessionEpoch, now)
	if err != nil {
		return Session{}, err
	}
	if err := s.store.CreateKeyPair(post, pair, loginEvents(user, device, newDevice, pair.ID, now)...); err != nil {
		return Session{}, storeSessionError(b.err(post, err), errInvalidCredentials)
	}
	s.access.written(device.ID, now)
	s.capDevices(ctx, brand, user.ID, device.ID, now)
	sess.Device = device
	s.emit(ctx, Event{Type: EventDeviceRegistered, At: now, BrandID: brand.ID, UserID: user.ID,
		Username: user.Username, Device: device, NewDevice: newDevice})
	s.emit(ctx, Event{Type: EventUserAuthenticated, At: now, BrandID: brand.ID, UserID: user.ID,
		Username: user.Username, KeyID: pair.ID, Device: device, NewDevice: newDevice})
	return sess, nil
}

// loginUser looks up the user a login names in brandID: by username, or
// by email address when there is no username (both trimmed). A username
// shaped like an email address (it holds an @) that is no user's username
// names the user of that email address, for the clients that send "username
// or email" as username; a username and another user's address never
// share a key (see [Service.CreateUser]), so the identifier names one
// user. Such a username costs both lookups whichever finds the user, so
// that the time does not tell a username from an address.
func (s *Service) loginUser(ctx context.Context, brandID, username, email string) (UserRecord, error) {
	if username == "" {
		return s.store.UserByEmail(ctx, brandID, FoldKey(email))
	}
	key := FoldKey(username)
	user, err := s.store.UserByUsername(ctx, brandID, key)
	if !strings.Contains(username, "@") {
		return user, err
	}
	byEmail, emailErr := s.store.UserByEmail(ctx, brandID, key)
	if errors.Is(err, ErrUserNotFound) {
		return byEmail, emailErr
	}
	return user, err
}

// LoginUserID returns the ID of the user of brand whose password
// [Service.Login] would check for req, or "" when req's identifier names no
// user (or is one Login refuses as too long). It checks no password and
// costs one store lookup, so that a caller can charge a per-user budget
// before the costly check, whichever identifier the login spells the user
// by. It returns the store's errors but [ErrUserNotFound].
func (s *Service) LoginUserID(ctx context.Context, brand Brand, req LoginRequest) (string, error) {
	username, email := strings.TrimSpace(req.Username), strings.TrimSpace(req.EmailAddress)
	if username == "" && email == "" || len(username) > maxIdentifierLen || len(email) > maxIdentifierLen {
		return "", nil
	}
	user, err := s.loginUser(ctx, brand.ID, username, email)
	if errors.Is(err, ErrUserNotFound) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return user.ID, nil
}

// storeSessionError maps the store's refusal of a new pair whose device or
// user's keys were revoked while the login or refresh ran: device_revoked
// for the device, refused() for the keys (the password checked, or the
// session refreshed, is no longer valid). Other errors are returned as is.
func storeSessionError(err error, refused func() error) error {
	switch {
	case errors.Is(err, ErrDeviceRevoked):
		return errDeviceRevoked()
	case errors.Is(err, ErrKeysRevoked):
		return refused()
	}
	return err
}

// rehash replaces user's hash with one of the current parameters, unless the
// password changed meanwhile, and returns how long its hash took, which
// the login's budget b (whose work so far took held besides the wait bound)
// grants it: a login that rehashes takes two hashes, once per user after
// a change of parameters. It is skipped when no hashing slot is free at
// once (the second hash makes no login wait: the user's next login tries
// again). A failure is logged, not returned: the login it follows has
// succeeded.
func (s *Service) rehash(b loginBudget, held time.Duration, user UserRecord, password string) time.Duration {
	start := time.Now()
	hash, ok, err := s.hasher.hashIfFree(b.parent, password)
	if err == nil && !ok {
		return 0
	}
	took := time.Since(start)
	ctx, cancel := b.until(held + took)
	defer cancel()
	if err == nil {
		_, err = s.store.UpdateUser(ctx, user.ID, func(r *UserRecord) error {
			if r.PasswordHash == user.PasswordHash {
				r.PasswordHash = hash
			}
			return nil
		})
	}
	if err != nil {
		s.log.WarnContext(ctx, "auth: rehash password", "user", user.ID, "error", err)
	}
	return took
}

// RefreshRequest is a refresh: the refresh key of the pair to rotate and,
// optionally, the Device-Code of the calling device.
type RefreshRequest struct {
	// RefreshAuthKey is required.
	RefreshAuthKey string
	// DeviceCode, when not empty, must not name a revoked device of the
	// key's user.
	DeviceCode string
}

// Refresh rotates a key pair: it revokes the pair whose refresh key is
// given (its authKey too) and issues a new pair in the same family, with
// fresh lifetimes. A refresh key works once, but for the reuse interval
// ([WithRefreshReuseInterval], [DefaultRefreshReuseInterval]): used again
// within it of its rotation (two tabs refreshing together, a retry after
// an answer lost on the network, or several at once), it gets another
// new pair of the family, and the pairs issued before keep working; used
// again after it, it revokes every pair of its family, those issued from
// it included, as the sign of a stolen key.
//
// The new pair keeps the session epoch of the pair it replaces (see
// [UserRecord.SessionEpoch]).
//
// It fails with KindInvalid (field refreshAuthKey) when the key is empty,
// KindUnauthenticated (code unauthenticated) when it is unknown, expired,
// revoked, reused (after the interval, or within it once its family was
// revoked), of another brand, issued before its user's sessions
// were ended (a password change, RevokeUserKeys), or its user is
// inactive, gone or deactivated during the refresh, and KindForbidden (code device_revoked)
// when DeviceCode names a revoked device of the user or the pair was issued
// on a device now revoked.
func (s *Service) Refresh(ctx context.Context, brand Brand, req RefreshRequest) (Session, error) {
	if req.RefreshAuthKey == "" {
		return Session{}, envelope.Invalid("The refresh key is required.",
			envelope.Field("refreshAuthKey", "required", "The refreshAuthKey is required."))
	}
	if len(req.RefreshAuthKey) > maxKeyLen {
		return Session{}, errRefreshRefused()
	}
	h := hashKey(req.RefreshAuthKey)
	old, err := s.store.KeyPairByRefreshHash(ctx, h[:])
	if errors.Is(err, ErrKeyPairNotFound) {
		return Session{}, errRefreshRefused()
	}
	if err != nil {
		return Session{}, err
	}
	now := s.now().UTC().Truncate(time.Microsecond)
	if subtle.ConstantTimeCompare(old.RefreshHash, h[:]) != 1 || old.BrandID != brand.ID {
		return Session{}, errRefreshRefused()
	}
	if !old.RevokedAt.IsZero() && !s.reusable(old, now) {
		return Session{}, s.refreshRefused(ctx, old)
	}
	if !now.Before(old.RefreshExpiresAt) {
		return Session{}, errRefreshRefused()
	}
	user, err := s.refreshUser(ctx, old, req.DeviceCode)
	if err != nil {
		return Session{}, err
	}
	// The new pair keeps the old one's epoch: a refresh never lifts a pair
	// to a later epoch (and the store refuses it if the user's moved on).
	next, sess, err := s.issue(user, old.FamilyID, old.DeviceID, old.SessionEpoch, now)
	if err != nil {
		return Session{}, err
	}
	if err := s.replace(ctx, old, h, next, now); err != nil {
		return Session{}, err
	}
	s.accessed(ctx, old.DeviceID, now)
	return sess, nil
}

// reusable reports whether k's refresh key, used at now, is within the
// reuse interval of k's rotation: k was rotated less than the interval
// before now. The store decides again when it stores the new pair.
func (s *Service) reusable(k KeyPair, now time.Time) bool {
	rotated := k.RotatedAt()
	return s.reuseTTL > 0 && !rotated.IsZero() && now.Before(rotated.Add(s.reuseTTL))
}

// refreshUser returns the user of the pair k that a refresh from the
// device deviceCode names (may be "") rotates, or why the refresh is
// refused: the user is gone, inactive or its sessions ended since k was
// issued (unauthenticated), or the device or k's device is revoked
// (device_revoked).
func (s *Service) refreshUser(ctx context.Context, k KeyPair, deviceCode string) (UserRecord, error) {
	user, err := s.store.UserByID(ctx, k.UserID)
	if errors.Is(err, ErrUserNotFound) || err == nil && (user.Status != StatusActive || sessionEnded(k, user)) {
		return UserRecord{}, errRefreshRefused()
	}
	if err != nil {
		return UserRecord{}, err
	}
	if err := s.checkDevice(ctx, user.ID, deviceCode); err != nil {
		return UserRecord{}, err
	}
	if revoked, err := s.keyDeviceRevoked(ctx, k); err != nil || revoked {
		return UserRecord{}, cmp.Or(err, errDeviceRevoked())
	}
	return user, nil
}

// replace stores next, issued at now for the refresh of old (whose
// refresh key hashes to h): as old's rotation while old is not revoked;
// else, or when another refresh of the same key rotated it first, as a
// reissue within the reuse interval, which the store decides. A key the
// store will not take is refused as refreshRefused says (a reuse after
// the interval revokes the family).
func (s *Service) replace(ctx context.Context, old KeyPair, h [32]byte, next KeyPair, now time.Time) error {
	var err error = ErrKeyPairRevoked
	if old.RevokedAt.IsZero() {
		err = s.store.RotateKeyPair(ctx, old.ID, now, next)
		s.keys.invalidate(func(_ [32]byte, c cachedKey) bool { return c.Principal.KeyID == old.ID })
	}
	if errors.Is(err, ErrKeyPairRevoked) && s.reuseTTL > 0 {
		// Rotated already: by another refresh of the key (a second tab,
		// a retry), which won the race for it or came first.
		err = s.store.ReissueKeyPair(ctx, old.ID, now.Add(-s.reuseTTL), next)
	}
	if errors.Is(err, ErrKeyPairRevoked) {
		// Rotated past the interval, its family revoked, or old revoked
		// meanwhile.
		if cur, rerr := s.store.KeyPairByRefreshHash(ctx, h[:]); rerr == nil {
			return s.refreshRefused(ctx, cur)
		}
		return errRefreshRefused()
	}
	if err != nil {
		return storeSessionError(err, errRefreshRefused)
	}
	return nil
}

// sessionEnded reports whether k was issued before an event that ended
// every session of its user (a password change, RevokeUserKeys): its
// epoch is below the user's. Such a pair is refused whether or not its
// revocation was written, so that ending every session does not depend on
// the second of the two writes that do it.
func sessionEnded(k KeyPair, user UserRecord) bool {
	return k.SessionEpoch < user.SessionEpoch
}

// refreshRefused answers the use of a revoked pair's refresh key that
// gets no new pair: when the pair was rotated, the key is being reused
// (after the reuse interval, or within it once its family was revoked),
// and the whole family is revoked.
func (s *Service) refreshRefused(ctx context.Context, k KeyPair) error {
	if k.ReplacedBy == "" {
		return errRefreshRefused()
	}
	if _, err := s.revokeKeys(ctx, KeySelector{FamilyID: k.FamilyID}); err != nil {
		return err
	}
	return envelope.New(envelope.KindUnauthenticated, CodeUnauthenticated,
		"The refresh key was already used; every key of this login is revoked.")
}

// cachedKey is what the key cache remembers of a checked authKey.
type cachedKey struct {
	Principal
	FamilyID string
}

// Authenticate returns the principal that authKey proves in brand: the
// key's user, brand and permissions.
//
// It fails with KindUnauthenticated (code unauthenticated) when the key is
// empty, unknown, expired, revoked, of another brand, issued on a device
// now revoked, issued before its user's sessions were ended (its session
// epoch is below the user's: a password change, RevokeUserKeys), or its
// user is inactive or gone; the answer does not tell these apart. The key is looked
// up by its SHA-256, and the stored hash compared in constant time.
//
// A checked key is cached (see [WithKeyCache]) until the earlier of its
// expiry and the cache TTL, so that a warm check costs microseconds and no
// store access. Every revocation, permission or status change made through
// this Service drops the cached answers it concerns before it returns (a
// password change or RevokeUserKeys as soon as the user's epoch is
// written, even when the revocation that follows fails), so it is seen by
// the next request; one made by another process sharing the store is seen
// once the cached answer expires, or at once when the store reports its
// changes ([Service.Forget]).
func (s *Service) Authenticate(ctx context.Context, brand Brand, authKey string) (Principal, error) {
	if authKey == "" || len(authKey) > maxKeyLen {
		return Principal{}, errUnauthenticated()
	}
	h := hashKey(authKey)
	now := s.now()
	if c, ok := s.keys.get(h, now); ok {
		if c.BrandID != brand.ID {
			return Principal{}, errUnauthenticated()
		}
		p := c.Principal
		p.Permissions = slices.Clone(p.Permissions)
		s.accessed(ctx, p.DeviceID, now)
		return p, nil
	}
	gen := s.keys.generation()
	k, err := s.store.KeyPairByAuthHash(ctx, h[:])
	if errors.Is(err, ErrKeyPairNotFound) {
		return Principal{}, errUnauthenticated()
	}
	if err != nil {
		return Principal{}, err
	}
	if subtle.ConstantTimeCompare(k.AuthHash, h[:]) != 1 || !k.RevokedAt.IsZero() || !now.Before(k.AuthExpiresAt) {
		return Principal{}, errUnauthenticated()
	}
	user, err := s.store.UserByID(ctx, k.UserID)
	if errors.Is(err, ErrUserNotFound) {
		return Principal{}, errUnauthenticated()
	}
	if err != nil {
		return Principal{}, err
	}
	if user.Status != StatusActive || sessionEnded(k, user) {
		return Principal{}, errUnauthenticated()
	}
	if revoked, err := s.keyDeviceRevoked(ctx, k); err != nil || revoked {
		return Principal{}, cmp.Or(err, errUnauthenticated())
	}
	p := Principal{
		UserID: user.ID, BrandID: k.BrandID, Username: user.Username, Permissions: user.Permissions,
		KeyID: k.ID, DeviceID: k.DeviceID, ExpiresAt: k.AuthExpiresAt,
	}
	s.keys.put(h, cachedKey{Principal: p, FamilyID: k.FamilyID}, now, k.AuthExpiresAt, gen)
	if k.BrandID != brand.ID {
		return Principal{}, errUnauthenticated()
	}
	p.Permissions = slices.Clone(p.Permissions)
	s.accessed(ctx, p.DeviceID, now)
	return p, nil
}

// Logout revokes the key pair that authenticated p (both its keys). It
// fails with KindUnauthenticated when p carries no key ID; revoking an
// already revoked pair succeeds.
func (s *Service) Logout(ctx context.Context, p Principal) error {
	if p.KeyID == "" {
		return errUnauthenticated()
	}
	_, err := s.revokeKeys(ctx, KeySelector{ID: p.KeyID})
	return err
}

// RevokeKeyPair revokes one key pair by its ID (Principal.KeyID). It
// succeeds when the pair is unknown or already revoked.
func (s *Service) RevokeKeyPair(ctx context.Context, keyID string) error {
	if keyID == "" {
		return envelope.Invalid("The key ID is required.", envelope.Field("keyId", "required", "The key ID is required."))
	}
	_, err := s.revokeKeys(ctx, KeySelector{ID: keyID})
	return err
}

// RevokeUserKeys revokes every key pair of a user and returns how many
// were still valid. The user's next request with any of them is refused,
// and so is the pair of a login or refresh that was running (its store
// write fails). It first advances the user's session epoch, which alone
// ends every older pair (Authenticate and Refresh refuse a pair whose
// epoch is below the user's), then revokes the pairs: if that second
// write fails, the error is returned but the old pairs are refused
// already. Errors of the store but [ErrUserNotFound] (an unknown user has
// no keys) are returned.
func (s *Service) RevokeUserKeys(ctx context.Context, userID string) (int, error) {
	if userID == "" {
		return 0, envelope.Invalid("The user ID is required.", envelope.Field("userId", "required", "The user ID is required."))
	}
	// The epoch first: a pair stored before it is revoked below, one
	// stored after it is refused by the store.
	_, err := s.store.UpdateUser(ctx, userID, func(r *UserRecord) error {
		r.SessionEpoch++
		return nil
	})
	s.invalidateUser(userID) // the new epoch is seen by the next request, whatever follows
	if err != nil && !errors.Is(err, ErrUserNotFound) {
		return 0, err
	}
	return s.revokeKeys(ctx, KeySelector{UserID: userID})
}

// revokeKeys revokes the pairs sel picks and drops their cached principals.
func (s *Service) revokeKeys(ctx context.Context, sel KeySelector) (int, error) {
	n, err := s.store.RevokeKeyPairs(ctx, sel, s.now().UTC().Truncate(time.Microsecond))
	s.keys.invalidate(func(_ [32]byte, c cachedKey) bool {
		return sel.Matches(KeyPair{ID: c.KeyID, FamilyID: c.FamilyID, UserID: c.UserID, DeviceID: c.DeviceID})
	})
	return n, err
}

// invalidateUser drops the cached key and device answers of a user, so
// that a change to the user is seen by the next request.
func (s *Service) invalidateUser(userID string) {
	s.keys.invalidate(func(_ [32]byte, c cachedKey) bool { return c.UserID == userID })
	s.devices.invalidate(func(k deviceKey, _ bool) bool { return k.userID == userID })
}

// DeleteExpiredKeys deletes the key pairs whose refresh key has expired and
// returns how many. A host calls it now and then (say daily) to keep the
// store small; expired pairs are refused whether deleted or not.
func (s *Service) DeleteExpiredKeys(ctx context.Context) (int, error) {
	return s.store.DeleteKeyPairs(ctx, s.now().UTC())
}

// trimHeader returns a header value trimmed of space, and whether it is
// valid UTF-8 of at most max bytes.
func trimHeader(s string, max int) (string, bool) {
	s = strings.TrimSpace(s)
	return s, len(s) <= max && utf8.ValidString(s)
}

// loginEvents returns the outbox items of a login's events, written with
// its key pair: device.registered, then user.authenticated.
func loginEvents(user UserRecord, d Device, newDevice bool, keyID string, at time.Time) []outbox.Item {
	return []outbox.Item{
		event(EventDeviceRegistered, user.BrandID, user.ID, at, events.Device{UserID: user.ID, DeviceID: d.ID,
			Name: d.Name, OS: d.OS, New: newDevice}),
		event(EventUserAuthenticated, user.BrandID, user.ID, at, events.Authenticated{UserID: user.ID,
			Username: user.Username, KeyID: keyID, DeviceID: d.ID}),
	}
}
