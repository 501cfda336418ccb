package storagetest

import (
	"context"
	"crypto/sha256"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/storage"
)

// runAccount runs the auth.AccountStore scenarios: brand settings and
// password-reset tokens.
func runAccount(t *testing.T, newStore NewStore) {
	runScenarios(t, newStore, []scenario{
		{"SettingsDefault", testSettingsDefault},
		{"SettingsSetAndReplace", testSettingsSetAndReplace},
		{"SettingsUnknownBrand", testSettingsUnknownBrand},
		{"ResetTokenWorksOnce", testResetTokenWorksOnce},
		{"ResetTokenReplacedAndExpires", testResetTokenReplacedAndExpires},
		{"ResetTokenRefusedKeepsIt", testResetTokenRefusedKeepsIt},
		{"ResetTokenErrors", testResetTokenErrors},
		{"ResetTokenEndedByUserChange", testResetTokenEndedByUserChange},
		{"ResetTokenStampRefused", testResetTokenStampRefused},
	})
}

// resetToken returns a reset token of u with a random hash, made at t0,
// expiring an hour later.
func resetToken(u auth.UserRecord) auth.ResetToken {
	h := sha256.Sum256([]byte(uuid.NewString()))
	return auth.ResetToken{UserID: u.ID, BrandID: u.BrandID, Hash: h[:], CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)}
}

// newPassword is a UseResetToken function that sets the hash to hash and
// moves the session epoch.
func newPassword(hash string) func(*auth.UserRecord) error {
	return func(r *auth.UserRecord) error {
		r.PasswordHash = hash
		r.SessionEpoch++
		return nil
	}
}

// testResetTokenWorksOnce checks that a token applies its function to its
// user once, atomically with its deletion.
func testResetTokenWorksOnce(t *testing.T, newStore NewStore) {
	s, _, u := openWithUser(t, newStore, "reset")
	ctx := t.Context()
	tok := resetToken(u)
	require.NoError(t, s.PutResetToken(ctx, tok))
	got, err := s.UseResetToken(ctx, tok.Hash, t0.Add(time.Minute), newPassword("new-hash"))
	require.NoError(t, err)
	assert.Equal(t, "new-hash", got.PasswordHash)
	assert.Equal(t, u.SessionEpoch+1, got.SessionEpoch)
	stored, err := s.UserByID(ctx, u.ID)
	require.NoError(t, err)
	assert.Equal(t, got, stored)
	_, err = s.UseResetToken(ctx, tok.Hash, t0.Add(time.Minute), newPassword("again"))
	assert.ErrorIs(t, err, auth.ErrResetTokenInvalid, "a token works once")
	stored, err = s.UserByID(ctx, u.ID)
	require.NoError(t, err)
	assert.Equal(t, "new-hash", stored.PasswordHash)
}

// testResetTokenReplacedAndExpires checks that a newer token replaces the
// older one of its user, and that a token is refused from its expiry on.
func testResetTokenReplacedAndExpires(t *testing.T, newStore NewStore) {
	s, _, u := openWithUser(t, newStore, "replace")
	ctx := t.Context()
	older, newer := resetToken(u), resetToken(u)
	require.NoError(t, s.PutResetToken(ctx, older))
	require.NoError(t, s.PutResetToken(ctx, newer))
	_, err := s.UseResetToken(ctx, older.Hash, t0, newPassword("x"))
	assert.ErrorIs(t, err, auth.ErrResetTokenInvalid, "replaced by the newer one")
	_, err = s.UseResetToken(ctx, newer.Hash, newer.ExpiresAt, newPassword("x"))
	assert.ErrorIs(t, err, auth.ErrResetTokenInvalid, "expired at its expiry")
	_, err = s.UseResetToken(ctx, newer.Hash, newer.ExpiresAt.Add(-time.Microsecond), newPassword("x"))
	assert.NoError(t, err, "works until then")
}

// testResetTokenRefusedKeepsIt checks that an error of the function aborts
// the whole: the user is unchanged and the token still works.
func testResetTokenRefusedKeepsIt(t *testing.T, newStore NewStore) {
	s, _, u := openWithUser(t, newStore, "keep")
	ctx := t.Context()
	tok := resetToken(u)
	require.NoError(t, s.PutResetToken(ctx, tok))
	refused := envelope.Invalid("no")
	_, err := s.UseResetToken(ctx, tok.Hash, t0, func(r *auth.UserRecord) error {
		r.PasswordHash = "half-written"
		return refused
	})
	assert.ErrorIs(t, err, refused)
	stored, err := s.UserByID(ctx, u.ID)
	require.NoError(t, err)
	assert.Equal(t, u, stored, "nothing written")
	_, err = s.UseResetToken(ctx, tok.Hash, t0, newPassword("after"))
	assert.NoError(t, err, "the token still works")
}

// testResetTokenEndedByUserChange checks the rule of auth.Store's
// UpdateUser: a change of the password hash, the status or the email
// address ends the user's reset token in the same write (a failed write
// ends nothing); a change of anything else (phone, names, permissions,
// username, the session epoch alone) keeps it; another user's change
// leaves it alone.
func testResetTokenEndedByUserChange(t *testing.T, newStore NewStore) {
	s, b, u := openWithUser(t, newStore, "ends")
	ctx := t.Context()
	other := testUser(b.ID, "neighbour", "neighbour@example.com")
	require.NoError(t, s.CreateUser(ctx, other))
	for _, tc := range []struct {
		name   string
		change func(*auth.UserRecord)
		ends   bool
	}{
		{"password", func(r *auth.UserRecord) { r.PasswordHash = "$argon2id$changed" }, true},
		{"password and epoch", func(r *auth.UserRecord) { r.PasswordHash = "$argon2id$again"; r.SessionEpoch++ }, true},
		{"deactivated", func(r *auth.UserRecord) { r.Status = auth.StatusInactive }, true},
		{"reactivated", func(r *auth.UserRecord) { r.Status = auth.StatusActive }, true},
		{"email address", func(r *auth.UserRecord) { r.EmailAddress, r.EmailKey = "moved@example.com", "moved@example.com" }, true},
		{"email address removed", func(r *auth.UserRecord) { r.EmailAddress, r.EmailKey = "", "" }, true},
		{"phone", func(r *auth.UserRecord) { r.PhoneNumber = "+1 555 0199" }, false},
		{"names", func(r *auth.UserRecord) { r.FirstName, r.NickName = "Ann", "annie" }, false},
		{"permissions", func(r *auth.UserRecord) { r.Permissions = []auth.Permission{auth.PermAll} }, false},
		{"username", func(r *auth.UserRecord) { r.Username, r.UsernameKey = "renamed", "renamed" }, false},
		{"session epoch alone", func(r *auth.UserRecord) { r.SessionEpoch++ }, false},
		{"nothing", func(*auth.UserRecord) {}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "reactivated" {
				_, err := s.UpdateUser(ctx, u.ID, func(r *auth.UserRecord) error { r.Status = auth.StatusInactive; return nil })
				require.NoError(t, err)
			}
			tok, theirs := resetToken(u), resetToken(other)
			require.NoError(t, s.PutResetToken(ctx, tok))
			require.NoError(t, s.PutResetToken(ctx, theirs))
			refused := envelope.Invalid("no")
			_, err := s.UpdateUser(ctx, u.ID, func(r *auth.UserRecord) error { tc.change(r); return refused })
			require.ErrorIs(t, err, refused)
			assert.True(t, tokenAlive(t, s, tok), "a write that failed ends nothing")
			_, err = s.UpdateUser(ctx, u.ID, func(r *auth.UserRecord) error { tc.change(r); return nil })
			require.NoError(t, err)
			if tc.ends {
				assert.False(t, tokenAlive(t, s, tok), "the change ended the token")
			} else {
				assert.True(t, tokenAlive(t, s, tok), "the token outlives a change of anything else")
			}
			assert.True(t, tokenAlive(t, s, theirs), "another user's token stays")
		})
	}
}

// testResetTokenStampRefused checks that PutResetToken stores a token
// whose UserStamp is its user's TokenStamp, and refuses one asked for
// before a change of the password, status or address (nothing stored, the
// user's earlier token kept), but not one asked for before another change.
func testResetTokenStampRefused(t *testing.T, newStore NewStore) {
	s, _, u := openWithUser(t, newStore, "stamp")
	ctx := t.Context()
	first := resetToken(u)
	first.UserStamp = u.TokenStamp()
	require.NoError(t, s.PutResetToken(ctx, first), "the stamp of the user as it is")
	assert.True(t, tokenAlive(t, s, first))

	stale := resetToken(u)
	stale.UserStamp = u.TokenStamp()
	u, err := s.UpdateUser(ctx, u.ID, func(r *auth.UserRecord) error { r.PhoneNumber = "+1 555 0199"; return nil })
	require.NoError(t, err)
	require.NoError(t, s.PutResetToken(ctx, stale), "a change of the phone leaves the stamp")
	assert.True(t, tokenAlive(t, s, stale))

	for _, change := range []func(*auth.UserRecord){
		func(r *auth.UserRecord) { r.PasswordHash = "$argon2id$stamped" },
		func(r *auth.UserRecord) { r.Status = auth.StatusInactive },
		func(r *auth.UserRecord) { r.Status = auth.StatusActive },
		func(r *auth.UserRecord) { r.EmailAddress, r.EmailKey = "new@example.com", "new@example.com" },
	} {
		kept := resetToken(u)
		require.NoError(t, s.PutResetToken(ctx, kept))
		stale := resetToken(u)
		stale.UserStamp = u.TokenStamp()
		u, err = s.UpdateUser(ctx, u.ID, func(r *auth.UserRecord) error { change(r); return nil })
		require.NoError(t, err)
		require.NoError(t, s.PutResetToken(ctx, kept), "a token without a stamp is not checked")
		assert.ErrorIs(t, s.PutResetToken(ctx, stale), auth.ErrResetTokenInvalid, "asked for before the change")
		assert.False(t, tokenAlive(t, s, stale), "nothing stored")
		assert.True(t, tokenAlive(t, s, kept), "the user's token stays")
	}
}

// tokenAlive reports whether tok would still work, without using it: its
// UseResetToken is aborted by its function, which runs only for a token
// that works.
func tokenAlive(t *testing.T, s storage.Storage, tok auth.ResetToken) bool {
	t.Helper()
	probe := envelope.Invalid("probe")
	_, err := s.UseResetToken(t.Context(), tok.Hash, t0, func(*auth.UserRecord) error { return probe })
	if errors.Is(err, probe) {
		return true
	}
	require.ErrorIs(t, err, auth.ErrResetTokenInvalid)
	return false
}

// testResetTokenErrors checks the errors of PutResetToken and
// UseResetToken.
func testResetTokenErrors(t *testing.T, newStore NewStore) {
	s, _, u := openWithUser(t, newStore, "errs")
	ctx := t.Context()
	ghost := resetToken(u)
	ghost.UserID = uuid.NewString()
	assert.ErrorIs(t, s.PutResetToken(ctx, ghost), auth.ErrUserNotFound)
	short := resetToken(u)
	short.Hash = short.Hash[:16]
	assert.ErrorIs(t, s.PutResetToken(ctx, short), auth.ErrKeyHashSize)
	_, err := s.UseResetToken(ctx, make([]byte, 32), t0, newPassword("x"))
	assert.ErrorIs(t, err, auth.ErrResetTokenInvalid)
	assert.Equal(t, envelope.KindInvalid, envelope.KindOf(err))
}

// accountCalls returns one call of every auth.AccountStore method, named,
// on the records of c (for the cancellation scenario).
func accountCalls(s storage.Storage, c cancelled) map[string]func(ctx context.Context) error {
	return map[string]func(ctx context.Context) error{
		"BrandSettings": func(ctx context.Context) error { _, err := s.BrandSettings(ctx, c.b.ID); return err },
		"SetBrandSettings": func(ctx context.Context) error {
			return s.SetBrandSettings(ctx, c.b.ID, auth.BrandSettings{RegistrationOpen: true})
		},
		"PutResetToken": func(ctx context.Context) error { return s.PutResetToken(ctx, resetToken(c.u)) },
		"UseResetToken": func(ctx context.Context) error {
			_, err := s.UseResetToken(ctx, make([]byte, 32), t0, newPassword("x"))
			return err
		},
	}
}

// testSettingsDefault checks that a brand whose settings were never set
// has the zero BrandSettings (sign-up closed, no cap, no origin).
func testSettingsDefault(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	b := seedBrand(t, s, "defaults.example.com")
	got, err := s.BrandSettings(t.Context(), b.ID)
	require.NoError(t, err)
	assert.Equal(t, auth.BrandSettings{}, got)
}

// testSettingsSetAndReplace checks that settings round-trip (every
// field, the origins in order), that a second write replaces the first
// whole, and that one brand's settings leave another's alone.
func testSettingsSetAndReplace(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	ctx := t.Context()
	b := seedBrand(t, s, "settings.example.com")
	other := seedBrand(t, s, "other.example.com")

	first := auth.BrandSettings{RegistrationOpen: true, MaxDevicesPerUser: 2,
		ResetLinkOrigins: []string{"http://localhost:5173", "https://app.example.com", "http://127.0.0.1:5173"}}
	require.NoError(t, s.SetBrandSettings(ctx, b.ID, first))
	got, err := s.BrandSettings(ctx, b.ID)
	require.NoError(t, err)
	assert.Equal(t, first, got)

	second := auth.BrandSettings{MaxDevicesPerUser: 7}
	require.NoError(t, s.SetBrandSettings(ctx, b.ID, second))
	got, err = s.BrandSettings(ctx, b.ID)
	require.NoError(t, err)
	assert.Equal(t, second, got, "a write replaces the settings whole; no origin reads back as nil")

	got, err = s.BrandSettings(ctx, other.ID)
	require.NoError(t, err)
	assert.Equal(t, auth.BrandSettings{}, got, "another brand keeps its defaults")
}

// testSettingsUnknownBrand checks that reading or writing the settings
// of a brand that does not exist is KindNotFound, and writes nothing.
func testSettingsUnknownBrand(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	ctx := t.Context()
	ghost := uuid.NewString()
	_, err := s.BrandSettings(ctx, ghost)
	assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err))
	assert.ErrorIs(t, err, auth.ErrBrandNotFound)
	err = s.SetBrandSettings(ctx, ghost, auth.BrandSettings{RegistrationOpen: true})
	assert.Equal(t, envelope.KindNotFound, envelope.KindOf(err))
	assert.ErrorIs(t, err, auth.ErrBrandNotFound)
}
