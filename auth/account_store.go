package auth

import (
	"context"
	"crypto/sha256"
	"github.com/brandbase/brandbase/outbox"
	"time"
)

// AccountStore is the part of [Store] that the account routes need beyond
// brands, users and keys: each brand's [BrandSettings] and the users'
// password-reset tokens ([ResetToken]). Its methods follow the contract of
// Store.
type AccountStore interface {
	// BrandSettings returns the settings of the brand with that ID: the
	// zero BrandSettings when none were stored. [ErrBrandNotFound] if the
	// brand does not exist.
	BrandSettings(ctx context.Context, brandID string) (BrandSettings, error)
	// SetBrandSettings stores bs as the settings of the brand with that
	// ID, replacing any stored before. [ErrBrandNotFound] if the brand
	// does not exist. A store shared by several processes tells them that
	// the brand changed.
	SetBrandSettings(ctx context.Context, brandID string, bs BrandSettings, out ...outbox.Item) error

	// PutResetToken stores t as its user's reset token, replacing any
	// other of the user. [ErrUserNotFound] if t.UserID names no user;
	// [ErrKeyHashSize] if t.Hash is not 32 bytes; [ErrResetTokenInvalid]
	// (nothing stored) if t.UserStamp is set and is not the user's
	// [UserRecord.TokenStamp] as the transaction reads it: its password,
	// status or address changed since the token was asked for, which ends
	// the token before it is stored.
	PutResetToken(ctx context.Context, t ResetToken, out ...outbox.Item) error
	// UseResetToken, in one transaction, finds the token whose Hash is
	// hash and that has not expired at time at, applies fn to its user as
	// UpdateUser does (notifying the change of the user) and deletes the
	// token, so that it works once. [ErrResetTokenInvalid] (and nothing
	// written) when no such token exists or it has expired; an error from
	// fn aborts the whole and is returned as is: the token stays. Tokens
	// end with any change of their user's password, status or address
	// (see [Store] UpdateUser), which fn's new password is. The items out
	// are written in the same transaction, read after fn returns (fn may
	// fill them in).
	UseResetToken(ctx context.Context, hash []byte, at time.Time, fn func(*UserRecord) error, out ...outbox.Item) (UserRecord, error)
}

// ResetToken is a password-reset token as stored: only its SHA-256. A user
// has at most one; a newer one replaces it, and any change of the user's
// password, status or email address, or its deletion, ends it.
type ResetToken struct {
	// UserID is the user whose password the token resets.
	UserID string
	// BrandID is the user's brand.
	BrandID string
	// Hash is the SHA-256 of the token (32 bytes).
	Hash []byte
	// CreatedAt and ExpiresAt bound when the token works.
	CreatedAt time.Time
	ExpiresAt time.Time
	// UserStamp, when set, is the user's [UserRecord.TokenStamp] when the
	// token was asked for: the store refuses to store a token whose user
	// changed since (see PutResetToken).
	UserStamp []byte
}

// TokenStamp is a digest of what ends a user's single-use tokens when it
// changes: its password hash, status and email address. A token made
// from a read of the user is stored only while the stamp is unchanged, so
// that a change made between the read and the store write ends it too.
func (r UserRecord) TokenStamp() []byte {
	h := sha256.New()
	for _, f := range []string{r.PasswordHash, string(r.Status), r.EmailAddress, r.EmailKey} {
		h.Write([]byte(f))
		h.Write([]byte{0})
	}
	return h.Sum(nil)
}
