package auth

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/brandbase/brandbase/envelope"
)

// Registration is a sign-up ([Service.Register]).
type Registration struct {
	// Username is optional when EmailAddress is given: the address is the
	// username then. Rules of [NewUser].
	Username string
	// EmailAddress is optional when Username is given.
	EmailAddress string
	// PhoneNumber, FirstName, LastName and NickName are optional.
	PhoneNumber, FirstName, LastName, NickName string
	// Password is required, under the rules of [NewUser].
	Password string
}

// Register signs a visitor up in brand: a new active user without any
// permission. It fails with KindForbidden (code registration_closed)
// unless the brand's settings open sign-up ([BrandSettings]); KindInvalid
// for bad fields (a username or an email address is required; the
// username rules of [NewUser], a username shaped like an email address
// being the emailAddress sent; the password rules of [NewUser]);
// KindConflict (code user_exists) with a field error of code taken on
// username or emailAddress when it is taken in the brand, as another
// user's username or email address; and the store's errors.
func (s *Service) Register(ctx context.Context, brand Brand, r Registration) (User, error) {
	bs, err := s.BrandSettings(ctx, brand.ID)
	if err != nil {
		return User{}, err
	}
	if !bs.RegistrationOpen {
		return User{}, envelope.New(envelope.KindForbidden, CodeRegistrationClosed, "Sign-up is closed in this brand.")
	}
	username, email := strings.TrimSpace(r.Username), strings.TrimSpace(r.EmailAddress)
	if username == "" && email == "" {
		v := envelope.Validation{}
		v.Add("username", "required", "A username or an emailAddress is required.")
		validatePassword(&v, "password", r.Password)
		return User{}, v.Err()
	}
	if username == "" {
		username = email
	}
	u, err := s.CreateUser(ctx, brand.ID, NewUser{Username: username, EmailAddress: email, PhoneNumber: r.PhoneNumber,
		FirstName: r.FirstName, LastName: r.LastName, NickName: r.NickName, Password: r.Password})
	if errors.Is(err, ErrUserExists) {
		return User{}, s.whichTaken(ctx, brand.ID, username, email, err)
	}
	return u, err
}

// whichTaken returns ErrUserExists with a field error on the identifier
// that is taken in brandID, as another user's username or email address
// (username first, unless the username is the email address).
func (s *Service) whichTaken(ctx context.Context, brandID, username, email string, cause error) error {
	field := "username"
	if key := FoldKey(username); email != "" && (key == FoldKey(email) || !s.keyHeld(ctx, brandID, key)) {
		field = "emailAddress"
	}
	e := ErrUserExists.WithCause(cause)
	e.Fields = []envelope.ErrorItem{envelope.Field(field, CodeTaken, "This "+field+" is taken in the brand.")}
	return e
}

// keyHeld reports whether a user of brandID holds key (a [FoldKey]) as
// its username or its email address: true unless both lookups find none.
func (s *Service) keyHeld(ctx context.Context, brandID, key string) bool {
	if _, err := s.store.UserByUsername(ctx, brandID, key); !errors.Is(err, ErrUserNotFound) {
		return true
	}
	_, err := s.store.UserByEmail(ctx, brandID, key)
	return !errors.Is(err, ErrUserNotFound)
}

// AuthKeyAvailable reports whether authKey is a working Auth-Key in brand
// (what [Service.Authenticate] accepts): false, not an error, for a key
// that is unknown, expired, revoked or of another brand. It fails with
// KindInvalid (field authKey) for an empty key, and with the store's
// errors (KindUnavailable) when the answer cannot be known.
func (s *Service) AuthKeyAvailable(ctx context.Context, brand Brand, authKey string) (bool, error) {
	if authKey == "" {
		return false, envelope.Invalid("The authKey is required.", envelope.Field("authKey", "required", "The authKey is required."))
	}
	_, err := s.Authenticate(ctx, brand, authKey)
	switch {
	case err == nil:
		return true, nil
	case envelope.KindOf(err) == envelope.KindUnauthenticated:
		return false, nil
	}
	return false, err
}

// PasswordChange is a change of the caller's own password
// ([Service.ChangePassword]).
type PasswordChange struct {
	// OldPassword is the current password; required.
	OldPassword string
	// NewPassword is the new password, under the rules of [NewUser].
	NewPassword string
	// ConfirmPassword must equal NewPassword.
	ConfirmPassword string
}

// ChangePassword changes the password of the user p authenticates, after
// checking its old password, ends every session of the user (on every
// instance: the session epoch moves), and returns a new key pair for the
// caller, on the device of p's pair, so that the caller stays signed in.
//
// It fails with KindInvalid: field errors for a missing field, a new
// password the rules refuse, confirmPassword unlike newPassword (code
// mismatch), or a wrong oldPassword (code incorrect_password; its check
// costs what a login's does, and is refused like one while hashing is
// busy: KindUnavailable). KindUnauthenticated when the user is gone or its
// sessions ended meanwhile; the store's errors.
func (s *Service) ChangePassword(ctx context.Context, p Principal, req PasswordChange) (Session, error) {
	if p.UserID == "" {
		return Session{}, errUnauthenticated()
	}
	var v envelope.Validation
	if req.OldPassword == "" {
		v.Add("oldPassword", "required", "The oldPassword is required.")
	} else if len(req.OldPassword) > MaxPasswordBytes {
		v.Add("oldPassword", "too_long", "The oldPassword must be at most 1024 bytes.")
	}
	validatePassword(&v, "newPassword", req.NewPassword)
	if req.ConfirmPassword != req.NewPassword {
		v.Add("confirmPassword", CodeMismatch, "The confirmPassword must equal the newPassword.")
	}
	if err := v.Err(); err != nil {
		return Session{}, err
	}
	if err := s.hasher.admit(ctx); err != nil {
		return Session{}, err
	}
	user, err := s.store.UserByID(ctx, p.UserID)
	if errors.Is(err, ErrUserNotFound) {
		return Session{}, errUnauthenticated()
	}
	if err != nil {
		return Session{}, err
	}
	ok, _, err := s.hasher.verify(ctx, user.PasswordHash, req.OldPassword)
	if err != nil {
		return Session{}, err
	}
	if !ok {
		return Session{}, envelope.Invalid("The old password is incorrect.",
			envelope.Field("oldPassword", CodeIncorrectPassword, "The oldPassword is incorrect."))
	}
	hash, err := s.hasher.hash(ctx, req.NewPassword)
	if err != nil {
		return Session{}, err
	}
	now := s.now().UTC().Truncate(time.Microsecond)
	rec, err := s.store.UpdateUser(ctx, user.ID, func(r *UserRecord) error {
		if r.PasswordHash != user.PasswordHash {
			return errUnauthenticated() // changed meanwhile: the old password checked is no longer it
		}
		r.PasswordHash = hash
		r.SessionEpoch++
		r.UpdatedAt = now
		return nil
	}, userEvent(EventUserPasswordChanged, user, now, nil))
	s.invalidateUser(user.ID)
	if err != nil {
		return Session{}, err
	}
	s.emitUser(ctx, EventUserPasswordChanged, rec, now, nil)
	if _, err := s.revokeKeys(ctx, KeySelector{UserID: user.ID}); err != nil {
		return Session{}, err
	}
	pair, sess, err := s.issue(rec, "", p.DeviceID, rec.SessionEpoch, now)
	if err != nil {
		return Session{}, err
	}
	if err := s.store.CreateKeyPair(ctx, pair); err != nil {
		return Session{}, storeSessionError(err, errUnauthenticated)
	}
	return sess, nil
}

// SetUserPassword sets the password of the user userID of actor's brand,
// as an administrator does, and ends every session of that user
// ([Service.SetPassword]). confirm, when not empty, must equal password.
// actor may act on the user only under the rule of [CanActOn] (users.write
// and every permission the user holds), checked again in the write that
// sets the password; and never on itself: its own password is changed with
// [Service.ChangePassword] (PUT users/change-password), which checks the
// old password and is limited as a login is, so that a stolen key cannot
// set it.
//
// It fails with KindForbidden (code access_denied) when actor is the user,
// or may not act on it; KindNotFound when no such user is in actor's brand
// (for an actor holding users.write); KindInvalid for a password the rules
// refuse (field newPassword) or a confirmation unlike it (field
// confirmPassword, code mismatch); the store's errors.
func (s *Service) SetUserPassword(ctx context.Context, actor Principal, userID, password, confirm string) error {
	if actor.UserID != "" && actor.UserID == userID {
		return errAccessDenied("A user does not set its own password here: PUT users/change-password (ChangePassword) changes it, " +
			"checking the old password.")
	}
	if _, err := s.UserToActOn(ctx, actor, userID); err != nil {
		return err
	}
	var v envelope.Validation
	validatePassword(&v, "newPassword", password)
	if confirm != "" && confirm != password {
		v.Add("confirmPassword", CodeMismatch, "The confirmPassword must equal the newPassword.")
	}
	if err := v.Err(); err != nil {
		return err
	}
	return s.setPassword(ctx, userID, password, func(r *UserRecord) error { return CanActOn(actor, r.User) })
}
