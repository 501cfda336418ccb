package auth

import "github.com/brandbase/brandbase/envelope"

// The errors of the [Store] contract. A store returns these (possibly as a
// copy carrying a cause, see [envelope.Error.WithCause]) and writes no
// client-facing text of its own, so that one failure reads the same on
// every store; callers match them with errors.Is.
var (
	// ErrBrandNotFound: no brand has that ID or URL.
	ErrBrandNotFound = envelope.NotFound("The brand does not exist.")
	// ErrBrandExists: a brand with that ID or URL is stored.
	ErrBrandExists = envelope.Conflict("A brand with this ID or URL exists.")
	// ErrUserNotFound: no user has that ID (or key in the brand).
	ErrUserNotFound = envelope.NotFound("The user does not exist.")
	// ErrUserExists: the user's ID, or its username or email address in its
	// brand, is taken. Its code, user_exists, is the one the API answers
	// with.
	ErrUserExists = envelope.New(envelope.KindConflict, "user_exists",
		"A user with this username or email address exists in the brand.")
	// ErrKeyPairNotFound: no key pair has that ID or hash.
	ErrKeyPairNotFound = envelope.NotFound("The key pair does not exist.")
	// ErrKeyPairExists: a key pair with that ID or either hash is stored.
	ErrKeyPairExists = envelope.Conflict("A key pair with this ID or hash exists.")
	// ErrKeyPairRevoked: the key pair to rotate is already revoked (the
	// loser of two concurrent rotations gets it), or the rotated pair to
	// reissue from may not be reused (see Store.ReissueKeyPair).
	ErrKeyPairRevoked = envelope.Conflict("The key pair is already revoked.")
	// ErrKeyHashSize: a key hash is not 32 bytes long.
	ErrKeyHashSize = envelope.Invalid("A key hash must be 32 bytes.")
	// ErrEmptySelector: a KeySelector with no field selects nothing.
	ErrEmptySelector = envelope.Invalid("A key selector needs at least one field.")
	// ErrDeviceNotFound: the user has no device with that ID or code.
	ErrDeviceNotFound = envelope.NotFound("The device does not exist.")
	// ErrDeviceExists: a device with that ID is stored.
	ErrDeviceExists = envelope.Conflict("A device with this ID exists.")
	// ErrDeviceRevoked: a key pair to store names a revoked device (the
	// device was revoked while the login or refresh ran).
	ErrDeviceRevoked = envelope.Conflict("The key pair's device is revoked.")
	// ErrKeysRevoked: a key pair to store carries a SessionEpoch other than
	// its user's (the user's password changed or its keys were revoked
	// while the login or refresh ran), or its user is not active (it was
	// deactivated meanwhile).
	ErrKeysRevoked = envelope.Conflict("The user's keys were revoked meanwhile.")
	// ErrResetTokenInvalid: no password-reset token has that hash, or it
	// has expired. Its code, invalid_token, is the one the API answers
	// with.
	ErrResetTokenInvalid = &envelope.Error{Kind: envelope.KindInvalid, Code: CodeInvalidToken,
		Message: "The reset token is not valid: it is unknown, used or expired.",
		Fields:  []envelope.ErrorItem{envelope.Field("token", CodeInvalidToken, "The token is unknown, used or expired.")}}
)
