package auth

import (
	"context"
	"github.com/brandbase/brandbase/outbox"
	"time"
)

// Store is what the auth service needs from storage. Every method is atomic
// and safe for concurrent use. Failures are the sentinel errors of
// errors.go, which each method's comment names (a store may return a copy
// carrying a cause; match them with errors.Is); for a collision or a
// missing record the method names no sentinel for, envelope.ErrStoreConflict
// or envelope.ErrStoreNotFound; and KindInternal *envelope.Error values for
// anything else. A store writes no client-facing text of its own. A
// cancelled context fails the
// call with the context's error and writes nothing.
type Store interface {
	// AccountStore holds brand settings and password-reset tokens.
	AccountStore
	// AdminStore lists, counts and deletes a brand's users.
	AdminStore

	// CreateBrand stores a new brand. [ErrBrandExists] if its ID or URL is
	// taken.
	CreateBrand(ctx context.Context, b Brand, out ...outbox.Item) error
	// UpdateBrand replaces the brand with b.ID. [ErrBrandNotFound] if
	// absent, [ErrBrandExists] if b.URL belongs to another brand.
	UpdateBrand(ctx context.Context, b Brand, out ...outbox.Item) error
	// BrandByID returns the brand with that ID, or [ErrBrandNotFound].
	BrandByID(ctx context.Context, id string) (Brand, error)
	// BrandByURL returns the brand with that normalised URL, or
	// [ErrBrandNotFound].
	BrandByURL(ctx context.Context, url string) (Brand, error)
	// ListBrands returns every brand, ordered by creation time then ID.
	ListBrands(ctx context.Context) ([]Brand, error)

	// CreateUser stores a new user. [ErrBrandNotFound] if u.BrandID names
	// no brand; [ErrUserExists] if u.ID is taken, or if another user of the
	// same brand holds u.UsernameKey or the non-empty u.EmailKey as its
	// UsernameKey or its EmailKey: usernames and email addresses share one
	// namespace per brand. The check and the write are one transaction
	// (two concurrent creates of one key: one succeeds).
	CreateUser(ctx context.Context, u UserRecord, out ...outbox.Item) error
	// UpdateUser applies fn to the stored user with that ID and stores the
	// result, atomically: no other write to the user happens between the
	// read and the write. fn may change every field but ID, BrandID and
	// CreatedAt (changes to those are ignored). An error from fn aborts the
	// update and is returned as is. [ErrUserNotFound] if the user does not
	// exist; [ErrUserExists] if a key fn changed (UsernameKey, EmailKey) is
	// held by another user of the brand, as CreateUser checks (a key left
	// as it was is not checked again). It returns the stored user. When fn
	// changes the PasswordHash, the Status, or the EmailAddress (or
	// EmailKey), every outstanding single-use token of the user
	// ([ResetToken] now, and every later kind) is ended in the same
	// transaction: whoever read a mailed token before the owner changed its
	// password, status or address cannot use it after. A deletion of a user
	// ends them too. The items out are written in the same transaction,
	// read after fn returns: fn may fill them in (the service builds the
	// change's event from the user as fn sees it).
	UpdateUser(ctx context.Context, id string, fn func(*UserRecord) error, out ...outbox.Item) (UserRecord, error)
	// UserByID returns the user with that ID, or [ErrUserNotFound].
	UserByID(ctx context.Context, id string) (UserRecord, error)
	// UserByUsername returns the user of brandID whose UsernameKey is key,
	// or [ErrUserNotFound].
	UserByUsername(ctx context.Context, brandID, key string) (UserRecord, error)
	// UserByEmail returns the user of brandID whose EmailKey is key (never
	// matching an empty key), or [ErrUserNotFound].
	UserByEmail(ctx context.Context, brandID, key string) (UserRecord, error)
	// ListUsers returns the users of brandID, ordered by creation time then
	// insertion order; empty (not an error) for an unknown brand.
	ListUsers(ctx context.Context, brandID string) ([]UserRecord, error)

	// CreateKeyPair stores a new key pair. [ErrKeyHashSize] if a hash is
	// not 32 bytes; [ErrUserNotFound] if its user does not exist;
	// [ErrKeysRevoked] if k.SessionEpoch is not its user's SessionEpoch,
	// or its user's Status is not StatusActive;
	// [ErrDeviceRevoked] if k.DeviceID names a revoked device (a DeviceID
	// that names no device is not checked); [ErrKeyPairExists] if its ID
	// or either hash is taken. The checks and the write are one
	// transaction, so that a pair is never stored after a revocation that
	// it should have been subject to.
	CreateKeyPair(ctx context.Context, k KeyPair, out ...outbox.Item) error
	// KeyPairByAuthHash returns the key pair whose AuthHash is hash, or
	// [ErrKeyPairNotFound].
	KeyPairByAuthHash(ctx context.Context, hash []byte) (KeyPair, error)
	// KeyPairByRefreshHash returns the key pair whose RefreshHash is hash,
	// or [ErrKeyPairNotFound].
	KeyPairByRefreshHash(ctx context.Context, hash []byte) (KeyPair, error)
	// RotateKeyPair, in one transaction, revokes the pair oldID at time at,
	// records next.ID as its ReplacedBy and stores next. [ErrKeyPairNotFound]
	// if oldID does not exist; [ErrKeyPairRevoked] (and nothing written) if
	// oldID is already revoked, so that of two concurrent rotations of one
	// pair exactly one succeeds; the errors of CreateKeyPair for next.
	RotateKeyPair(ctx context.Context, oldID string, at time.Time, next KeyPair) error
	// ReissueKeyPair, in one transaction, stores next (of oldID's family)
	// beside the pair that replaced oldID, leaving oldID as it is: the
	// answer to a reuse of oldID's refresh key within the reuse interval
	// (two tabs refreshing at once, a retry), whose decision it takes in
	// that transaction. [ErrKeyPairNotFound] if oldID does not exist;
	// [ErrKeyPairRevoked] (and nothing written) unless oldID was rotated
	// (its ReplacedBy set) after rotatedAfter and its family still holds
	// an unrevoked pair (a family, device or user revocation, or the
	// revocation of every pair rotation made from it, leaves none); the
	// errors of CreateKeyPair for next. A revocation of the family
	// concurrent with it revokes next too, or makes it fail.
	ReissueKeyPair(ctx context.Context, oldID string, rotatedAfter time.Time, next KeyPair) error
	// RevokeKeyPairs revokes, at time at, every unrevoked key pair that
	// matches all the non-empty fields of sel, and returns how many it
	// revoked. Revoked pairs keep their first RevokedAt. [ErrEmptySelector]
	// if sel has no non-empty field.
	RevokeKeyPairs(ctx context.Context, sel KeySelector, at time.Time) (int, error)
	// DeleteKeyPairs deletes every key pair whose refresh key expired at or
	// before before, and returns how many it deleted.
	DeleteKeyPairs(ctx context.Context, before time.Time) (int, error)

	// UpsertDevice registers d, keyed by (d.UserID, d.Code): a new device is
	// stored as d; a known device that is not revoked gets d's Token, Name,
	// AppVersion, OS and LastSeenAt (its ID, CreatedAt and RevokedAt stay);
	// a revoked device is left unchanged. It returns the stored device and
	// whether it was created. [ErrUserNotFound] if d.UserID names no user;
	// [ErrDeviceExists] if d is new and d.ID is taken.
	UpsertDevice(ctx context.Context, d Device, out ...outbox.Item) (stored Device, created bool, err error)
	// DeviceByCode returns the device of userID with that code, or
	// [ErrDeviceNotFound].
	DeviceByCode(ctx context.Context, userID, code string) (Device, error)
	// ListDevices returns the devices of userID, oldest first; empty for an
	// unknown user.
	ListDevices(ctx context.Context, userID string) ([]Device, error)
	// RevokeDevice, in one transaction, marks the device of userID with
	// that ID revoked at time at (keeping an earlier RevokedAt) and revokes
	// every key pair issued on it. [ErrDeviceNotFound] if the user has no
	// such device.
	RevokeDevice(ctx context.Context, userID, deviceID string, at time.Time, out ...outbox.Item) (Device, error)

	// DeviceStore lists and ends the devices a user is signed in on.
	DeviceStore
}

// KeySelector picks key pairs to revoke: a pair matches when it equals every
// non-empty field.
type KeySelector struct {
	// ID is a key pair's ID.
	ID string
	// FamilyID is the family of a login and its rotations.
	FamilyID string
	// UserID is the user the pairs were issued to.
	UserID string
	// DeviceID is the device the pairs were issued on.
	DeviceID string
}

// Empty reports whether sel selects nothing (every field empty).
func (sel KeySelector) Empty() bool {
	return sel == KeySelector{}
}

// Matches reports whether k matches every non-empty field of sel; an empty
// selector matches nothing. Stores that filter in Go use it.
func (sel KeySelector) Matches(k KeyPair) bool {
	return !sel.Empty() &&
		(sel.ID == "" || sel.ID == k.ID) &&
		(sel.FamilyID == "" || sel.FamilyID == k.FamilyID) &&
		(sel.UserID == "" || sel.UserID == k.UserID) &&
		(sel.DeviceID == "" || sel.DeviceID == k.DeviceID)
}
