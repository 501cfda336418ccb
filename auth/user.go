package auth

import (
	"context"
	"net/mail"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
	"golang.org/x/text/cases"
	"golang.org/x/text/secure/precis"
	"golang.org/x/text/unicode/norm"

	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/outbox"
)

// User is a user of one brand, as the service shows it: never with its
// password hash.
type User struct {
	// ID is the user's identifier, assigned at creation.
	ID string `json:"id"`
	// BrandID is the brand the user belongs to; the user can log in there
	// only.
	BrandID string `json:"brandId"`
	// Username is unique in the brand, compared with [FoldKey]: no other
	// user's username or email address.
	Username string `json:"username"`
	// EmailAddress is empty or unique in the brand, compared with
	// [FoldKey]: no other user's email address or username.
	EmailAddress string `json:"emailAddress"`
	// PhoneNumber is free-form and optional.
	PhoneNumber string `json:"phoneNumber"`
	// FirstName, LastName and NickName are optional display names, at
	// most 100 characters each.
	FirstName string `json:"firstName"`
	LastName  string `json:"lastName"`
	NickName  string `json:"nickName"`
	// Permissions are sorted and distinct; nil when the user holds none.
	Permissions []Permission `json:"permissions"`
	// Status is Active or Inactive; an inactive user cannot log in and its
	// keys are refused.
	Status Status `json:"status"`
	// CreatedAt is when the user was created.
	CreatedAt time.Time `json:"createdAt"`
	// UpdatedAt is when the user was last changed.
	UpdatedAt time.Time `json:"updatedAt"`
}

// UserRecord is a user as stored: the user, its lookup keys and its password
// hash. Only stores and the service see it.
type UserRecord struct {
	User
	// UsernameKey is FoldKey(Username), unique per brand. A user stored
	// before FoldKey took the PRECIS profile keeps its earlier key when the
	// new one was another user's (see docs/authentication.md).
	UsernameKey string
	// EmailKey is FoldKey(EmailAddress): "" when there is no email address,
	// otherwise unique per brand. UsernameKey and EmailKey share one
	// namespace: a store refuses a user whose new key is another user's
	// UsernameKey or EmailKey.
	EmailKey string
	// PasswordHash is an argon2id PHC string, or a bcrypt hash of an
	// imported user (rehashed to argon2id on the next login).
	PasswordHash string
	// SessionEpoch counts the events that end every session of the user:
	// SetPassword and RevokeUserKeys increment it. A pair whose
	// KeyPair.SessionEpoch is below it is refused by Authenticate and
	// Refresh, revoked or not, so that the epoch alone ends every older
	// pair; a pair issued by a login that read an older value is refused
	// by the store ([ErrKeysRevoked]), so that no login that checked the
	// old password outlives the change. Deactivation does not change it
	// (reactivating makes the unexpired pairs work again): the store
	// refuses the pair of a user who is not active instead.
	SessionEpoch int64
}

// NewUser holds what [Service.CreateUser] needs.
type NewUser struct {
	// Username is required: 1 to 64 characters, no space or control
	// character, and one the PRECIS UsernameCaseMapped profile of RFC 8265
	// accepts (letters, digits and ASCII punctuation; no symbols or
	// compatibility forms such as ligatures: invalid_format otherwise).
	// One shaped like an email address (it holds an @) must be
	// EmailAddress (not_own_address otherwise). Surrounding space is
	// trimmed; it is compared with [FoldKey].
	Username string
	// EmailAddress is optional; when given, a plain address
	// (name@example.com) of at most 254 characters.
	EmailAddress string
	// PhoneNumber is optional: digits, spaces and + - ( ) ., at most 32.
	PhoneNumber string
	// FirstName, LastName and NickName are optional: at most 100
	// characters each. Surrounding space is trimmed.
	FirstName, LastName, NickName string
	// Password is required unless PasswordHash is given: at least
	// MinPasswordLen characters and at most MaxPasswordBytes bytes.
	Password string
	// PasswordHash imports an existing hash instead of Password: an argon2id
	// PHC string or a bcrypt hash ($2a$, $2b$, $2y$). A bcrypt hash is
	// replaced by an argon2id one on the user's first login. A hash asking
	// for more than 4 times the service's argon2id memory, passes or lanes,
	// or a bcrypt cost above 12, is refused (code too_costly).
	PasswordHash string
	// Permissions granted to the user; see [Service.Grant] for the rules.
	Permissions []Permission
	// Status defaults to Active.
	Status Status
}

// Password length limits. The upper bound keeps one hash computation's
// input bounded.
const (
	MinPasswordLen   = 8
	MaxPasswordBytes = 1024
)

// FoldKey returns the lookup key of a username or email address, the one
// form in which both are compared (they share one namespace per brand):
// trimmed, then enforced by the PRECIS UsernameCaseMapped profile of RFC
// 8265 (fullwidth and halfwidth forms mapped to their plain forms,
// lower-cased, NFC) and case-folded, so that "Admin", "ADMIN", " admin "
// and fullwidth "ａｄｍｉｎ" are one key, and "Straße" and "STRASSE" too,
// as before the profile. A string the profile refuses (a space inside, a
// symbol, a ligature: no new username is one, see [NewUser]) gets the
// key of earlier versions, NFC then case folding, so that a user stored
// with one still logs in. The empty string's key is "".
func FoldKey(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	folded, err := precis.UsernameCaseMapped.String(s)
	if err != nil {
		return cases.Fold().String(norm.NFC.String(s))
	}
	return cases.Fold().String(folded)
}

// public returns the user without its hash and keys.
func (r UserRecord) public() User {
	u := r.User
	u.Permissions = slices.Clone(u.Permissions)
	return u
}

// validateUsername checks a trimmed username.
func validateUsername(v *envelope.Validation, field, s string) {
	switch {
	case s == "":
		v.Add(field, "required", "The username is required.")
	case utf8.RuneCountInString(s) > 64:
		v.Add(field, "too_long", "The username must be at most 64 characters.")
	case strings.IndexFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 || !utf8.ValidString(s):
		v.Add(field, "invalid_format", "The username must not contain spaces or control characters.")
	default:
		if _, err := precis.UsernameCaseMapped.String(s); err != nil {
			v.Add(field, "invalid_format", "The username may hold letters, digits and ASCII punctuation only "+
				"(RFC 8265 usernames): no symbols, ligatures or other compatibility forms, and no mix of "+
				"right-to-left and left-to-right letters.")
		}
	}
}

// CodeNotOwnAddress is the field error code of a username shaped like an
// email address (it holds an @) that is not the user's own address: it
// would pose as whoever holds that address.
const CodeNotOwnAddress = "not_own_address"

// validateAddressShape checks that a username shaped like an email
// address is the user's own address, email (compared with [FoldKey]).
func validateAddressShape(v *envelope.Validation, username, email string) {
	if strings.Contains(username, "@") && FoldKey(username) != FoldKey(email) {
		v.Add("username", CodeNotOwnAddress,
			"A username shaped like an email address must be the user's own emailAddress.")
	}
}

// validateEmail checks a trimmed, non-empty email address.
func validateEmail(v *envelope.Validation, field, s string) {
	if len(s) > 254 {
		v.Add(field, "too_long", "The email address must be at most 254 characters.")
		return
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Name != "" || a.Address != s {
		v.Add(field, "invalid_email", "The email address is not valid.")
		return
	}
	if domain := s[strings.LastIndexByte(s, '@')+1:]; !strings.Contains(domain, ".") && domain != "localhost" {
		v.Add(field, "invalid_email", "The email address needs a domain such as example.com.")
	}
}

// validateName checks an optional display name and returns it trimmed.
func validateName(v *envelope.Validation, field, s string) string {
	s = strings.TrimSpace(s)
	switch {
	case utf8.RuneCountInString(s) > maxNameLen:
		v.Add(field, "too_long", "A name must be at most 100 characters.")
	case s != "":
		v.Text(field, s)
	}
	return s
}

// maxNameLen bounds a display name, in characters.
const maxNameLen = 100

func validatePhone(v *envelope.Validation, field, s string) {
	if len(s) > 32 {
		v.Add(field, "too_long", "The phone number must be at most 32 characters.")
		return
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || strings.ContainsRune(" +-().", c)) {
			v.Add(field, "invalid_phone", "The phone number may hold only digits, spaces and + - ( ) .")
			return
		}
	}
}

// validatePassword checks a new password: at least MinPasswordLen
// characters, at most MaxPasswordBytes bytes, and not a common password.
func validatePassword(v *envelope.Validation, field, pw string) {
	switch {
	case pw == "":
		v.Add(field, "required", "The password is required.")
	case utf8.RuneCountInString(pw) < MinPasswordLen:
		v.Add(field, "too_short", "The password must be at least 8 characters.")
	case len(pw) > MaxPasswordBytes:
		v.Add(field, "too_long", "The password must be at most 1024 bytes.")
	case IsCommonPassword(pw):
		v.Add(field, CodeTooCommon, "The password is one of the 10,000 most common passwords; choose another.")
	}
}

// CodeTooCommon is the field error code of a new password that is one of
// the most common ones ([IsCommonPassword]).
const CodeTooCommon = "too_common"

// normalizePermissions validates perms and returns them sorted and distinct
// (nil when empty). A permission is 1 to 100 characters without space,
// comma or control characters; names other than the constants of this
// package are allowed, for a host's own checks.
func normalizePermissions(v *envelope.Validation, field string, perms []Permission) []Permission {
	var out []Permission
	for _, p := range perms {
		s := string(p)
		if s == "" || len(s) > 100 || strings.IndexFunc(s, func(r rune) bool {
			return unicode.IsSpace(r) || unicode.IsControl(r) || r == ','
		}) >= 0 {
			v.Add(field, "invalid_permission", "A permission must be 1 to 100 characters without spaces or commas.")
			return nil
		}
		out = append(out, p)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// CreateUser validates nu, hashes its password and stores a new user of
// brandID. It fails with KindInvalid (one field error per bad field; a
// username shaped like an email address other than nu.EmailAddress is
// code not_own_address on username), ErrBrandNotFound when the brand does
// not exist, and ErrUserExists (KindConflict, code user_exists) when the
// username or email address is taken in the brand: usernames and email
// addresses share one namespace, compared with [FoldKey], so a username
// is never another user's address, nor the reverse.
// The password hash counts against the bound on concurrent hashes; a
// context that ends while waiting fails with the context's error.
func (s *Service) CreateUser(ctx context.Context, brandID string, nu NewUser) (User, error) {
	var v envelope.Validation
	nu.Username = strings.TrimSpace(nu.Username)
	nu.EmailAddress = strings.TrimSpace(nu.EmailAddress)
	nu.PhoneNumber = strings.TrimSpace(nu.PhoneNumber)
	validateUsername(&v, "username", nu.Username)
	if nu.EmailAddress != "" {
		validateEmail(&v, "emailAddress", nu.EmailAddress)
	}
	if !v.Has("username") {
		validateAddressShape(&v, nu.Username, nu.EmailAddress)
	}
	validatePhone(&v, "phoneNumber", nu.PhoneNumber)
	nu.FirstName = validateName(&v, "firstName", nu.FirstName)
	nu.LastName = validateName(&v, "lastName", nu.LastName)
	nu.NickName = validateName(&v, "nickName", nu.NickName)
	if nu.PasswordHash != "" {
		s.hasher.validateImport(&v, "passwordHash", nu.PasswordHash)
	} else {
		validatePassword(&v, "password", nu.Password)
	}
	perms := normalizePermissions(&v, "permissions", nu.Permissions)
	status := StatusActive
	if nu.Status != "" {
		st, ok := parseStatus(string(nu.Status))
		if !ok {
			v.Add("status", "invalid_enum", "The status must be Active or Inactive.")
		}
		status = st
	}
	if err := v.Err(); err != nil {
		return User{}, err
	}
	if _, err := s.store.BrandByID(ctx, brandID); err != nil {
		return User{}, err
	}
	hash := nu.PasswordHash
	if hash == "" {
		var err error
		if hash, err = s.hasher.hashWaiting(ctx, nu.Password); err != nil {
			return User{}, err
		}
	}
	now := s.now().UTC().Truncate(time.Microsecond)
	rec := UserRecord{
		User: User{
			ID: uuid.Must(uuid.NewV7()).String(), BrandID: brandID,
			Username: nu.Username, EmailAddress: nu.EmailAddress, PhoneNumber: nu.PhoneNumber,
			FirstName: nu.FirstName, LastName: nu.LastName, NickName: nu.NickName, Permissions: perms, Status: status, CreatedAt: now, UpdatedAt: now,
		},
		UsernameKey: FoldKey(nu.Username), EmailKey: FoldKey(nu.EmailAddress), PasswordHash: hash,
	}
	if err := s.store.CreateUser(ctx, rec, userEvent(EventUserCreated, rec, now, nil)); err != nil {
		return User{}, err // ErrUserExists reads as the API answers
	}
	s.emitUser(ctx, EventUserCreated, rec, now, nil)
	return rec.public(), nil
}

// User returns the user with that ID, or [ErrUserNotFound].
func (s *Service) User(ctx context.Context, id string) (User, error) {
	r, err := s.store.UserByID(ctx, id)
	if err != nil {
		return User{}, err
	}
	return r.public(), nil
}

// UserByUsername returns the user of brandID whose username matches
// username case-insensitively (see [FoldKey]), or [ErrUserNotFound].
func (s *Service) UserByUsername(ctx context.Context, brandID, username string) (User, error) {
	r, err := s.store.UserByUsername(ctx, brandID, FoldKey(username))
	if err != nil {
		return User{}, err
	}
	return r.public(), nil
}

// Users returns the users of brandID, oldest first.
func (s *Service) Users(ctx context.Context, brandID string) ([]User, error) {
	recs, err := s.store.ListUsers(ctx, brandID)
	if err != nil {
		return nil, err
	}
	out := make([]User, len(recs))
	for i, r := range recs {
		out[i] = r.public()
	}
	return out, nil
}

// UserUpdate holds the profile fields [Service.UpdateUser] changes; a nil
// field is left as it is. The rules are those of [NewUser]; an empty
// EmailAddress, PhoneNumber or name clears it.
type UserUpdate struct {
	Username     *string
	EmailAddress *string
	PhoneNumber  *string
	// FirstName, LastName and NickName: at most 100 characters each.
	FirstName, LastName, NickName *string
}

// UpdateUser changes a user's profile. It fails with KindInvalid for bad
// fields (code not_own_address on username when the change leaves a
// username shaped like an email address other than the user's own),
// ErrUserNotFound when the user does not exist, and ErrUserExists
// (KindConflict, code user_exists) when the new username or email address
// is taken in the brand, as either (see [Service.CreateUser]).
func (s *Service) UpdateUser(ctx context.Context, id string, up UserUpdate) (User, error) {
	return s.updateProfile(ctx, id, up, nil)
}

// updateProfile is UpdateUser; check, when not nil, runs on the user in
// the write, and its error aborts it.
func (s *Service) updateProfile(ctx context.Context, id string, up UserUpdate, check func(*UserRecord) error) (User, error) {
	var v envelope.Validation
	for _, p := range []*string{up.Username, up.EmailAddress, up.PhoneNumber} {
		if p != nil {
			*p = strings.TrimSpace(*p)
		}
	}
	if up.Username != nil {
		validateUsername(&v, "username", *up.Username)
	}
	if up.EmailAddress != nil && *up.EmailAddress != "" {
		validateEmail(&v, "emailAddress", *up.EmailAddress)
	}
	if up.PhoneNumber != nil {
		validatePhone(&v, "phoneNumber", *up.PhoneNumber)
	}
	for _, n := range []struct {
		field string
		p     *string
	}{{"firstName", up.FirstName}, {"lastName", up.LastName}, {"nickName", up.NickName}} {
		if n.p != nil {
			*n.p = validateName(&v, n.field, *n.p)
		}
	}
	if err := v.Err(); err != nil {
		return User{}, err
	}
	return s.updateUser(ctx, id, false, EventUserUpdated, func(r *UserRecord) error {
		if check != nil {
			if err := check(r); err != nil {
				return err
			}
		}
		up.apply(r)
		if up.Username != nil || up.EmailAddress != nil {
			var v envelope.Validation
			validateAddressShape(&v, r.Username, r.EmailAddress)
			return v.Err()
		}
		return nil
	})
}

// apply sets the fields of up that are not nil on r.
func (up UserUpdate) apply(r *UserRecord) {
	if up.Username != nil {
		r.Username, r.UsernameKey = *up.Username, FoldKey(*up.Username)
	}
	if up.EmailAddress != nil {
		r.EmailAddress, r.EmailKey = *up.EmailAddress, FoldKey(*up.EmailAddress)
	}
	for _, f := range []struct{ src, dst *string }{
		{up.PhoneNumber, &r.PhoneNumber}, {up.FirstName, &r.FirstName}, {up.LastName, &r.LastName}, {up.NickName, &r.NickName},
	} {
		if f.src != nil {
			*f.dst = *f.src
		}
	}
}

// updateUser applies fn to the user atomically, stamps UpdatedAt, writes
// the event typ of the change in the same transaction (user.updated names
// the fields fn changed) and calls the hooks with it once stored; when
// invalidate is set, it drops the cached principals so that the change is
// seen by the next request.
func (s *Service) updateUser(ctx context.Context, id string, invalidate bool, typ EventType, fn func(*UserRecord) error) (User, error) {
	now := s.now().UTC().Truncate(time.Microsecond)
	// The store writes out after fn returns (auth.Store's UpdateUser), so
	// fn fills in the event from the user as the transaction reads it.
	out := make([]outbox.Item, 1)
	var changed []string
	r, err := s.store.UpdateUser(ctx, id, func(r *UserRecord) error {
		old := *r
		old.Permissions = slices.Clone(r.Permissions)
		if err := fn(r); err != nil {
			return err
		}
		r.UpdatedAt = now
		if typ == EventUserUpdated {
			changed = userChanges(old, *r)
		}
		out[0] = userEvent(typ, *r, now, changed)
		return nil
	}, out...)
	if invalidate {
		// Also on failure: the write may have happened before a late
		// error, and a spurious invalidation costs only cache misses.
		s.invalidateUser(id)
	}
	if err != nil {
		return User{}, err // ErrUserExists reads as the API answers
	}
	s.emitUser(ctx, typ, r, now, changed)
	return r.public(), nil
}

// SetPassword replaces a user's password and revokes every key pair of the
// user, so that a password change ends every session. The password and
// the next session epoch are one write, which alone ends every older pair
// (see [UserRecord.SessionEpoch]); the revocation that follows only marks
// them, so if it fails (its error is returned) the old pairs are refused
// all the same. It fails with
// KindInvalid (field password) for a password that breaks the rules of
// [NewUser] and [ErrUserNotFound] when the user does not exist.
func (s *Service) SetPassword(ctx context.Context, userID, password string) error {
	var v envelope.Validation
	validatePassword(&v, "password", password)
	if err := v.Err(); err != nil {
		return err
	}
	return s.setPassword(ctx, userID, password, nil)
}

// setPassword is SetPassword of a valid password; check, when not nil,
// runs on the user in the write that sets it, and its error aborts it.
func (s *Service) setPassword(ctx context.Context, userID, password string, check func(*UserRecord) error) error {
	if _, err := s.store.UserByID(ctx, userID); err != nil {
		return err
	}
	hash, err := s.hasher.hashWaiting(ctx, password)
	if err != nil {
		return err
	}
	if _, err := s.updateUser(ctx, userID, true, EventUserPasswordChanged, func(r *UserRecord) error {
		if check != nil {
			if err := check(r); err != nil {
				return err
			}
		}
		r.PasswordHash = hash
		r.SessionEpoch++ // a login that checked the old password stores no pair
		return nil
	}); err != nil {
		return err
	}
	_, err = s.revokeKeys(ctx, KeySelector{UserID: userID})
	return err
}

// Grant adds perms to the user's permissions and returns the user; the
// next request with any of the user's keys sees them. Permission names are
// 1 to 100 characters without spaces or commas (KindInvalid otherwise);
// [ErrUserNotFound] when the user does not exist.
func (s *Service) Grant(ctx context.Context, userID string, perms ...Permission) (User, error) {
	return s.changePermissions(ctx, userID, perms, func(have, change []Permission) []Permission {
		return append(have, change...)
	})
}

// Revoke removes perms from the user's permissions and returns the user;
// the next request with any of the user's keys is refused what they
// allowed. Revoking PermAll removes only PermAll, not the permissions named
// one by one. Errors as for [Service.Grant].
func (s *Service) Revoke(ctx context.Context, userID string, perms ...Permission) (User, error) {
	return s.changePermissions(ctx, userID, perms, func(have, change []Permission) []Permission {
		return slices.DeleteFunc(have, func(p Permission) bool { return slices.Contains(change, p) })
	})
}

func (s *Service) changePermissions(ctx context.Context, userID string, perms []Permission, apply func(have, change []Permission) []Permission) (User, error) {
	var v envelope.Validation
	change := normalizePermissions(&v, "permissions", perms)
	if err := v.Err(); err != nil {
		return User{}, err
	}
	return s.updateUser(ctx, userID, true, EventUserUpdated, func(r *UserRecord) error {
		var ignore envelope.Validation
		r.Permissions = normalizePermissions(&ignore, "", apply(slices.Clone(r.Permissions), change))
		return nil
	})
}

// SetUserStatus sets a user's status, as the host does in-process (no
// actor: [Service.ChangeUserStatus] is an administrator's change, under
// its rules). Any status other than Active refuses the user's logins and
// its keys from the next request on. Inactive and Suspended keep the keys
// (not revoked: making the user Active again makes the unexpired ones
// work again); Locked ends every session of the user for good. KindInvalid
// for a status other than Active, Inactive, Locked or Suspended,
// [ErrUserNotFound] when the user does not exist.
func (s *Service) SetUserStatus(ctx context.Context, userID string, status Status) (User, error) {
	st, ok := parseUserStatus(string(status))
	if !ok {
		return User{}, envelope.Invalid("The status is invalid.",
			envelope.Field("status", "invalid_enum", "The status must be Active, Inactive, Locked or Suspended."))
	}
	// A login or refresh running now stores no pair: the store refuses
	// the pair of a user who is not active.
	return s.setUserStatus(ctx, userID, st, nil)
}
