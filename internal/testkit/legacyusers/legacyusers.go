// Package legacyusers stores users as the versions before usernames and
// email addresses shared one namespace per brand let
// them be: look-alike usernames ("ａdmin" beside "admin"), a username that
// is another user's address, a username shaped like an address that is not
// the user's own, with the keys of the earlier folding. SeedSQLite and
// SeedPostgres make such a database under the schema before migration 0013;
// Check opens nothing: it runs the scenario on a store opened over it (so
// migrated). For tests only.
package legacyusers

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/bcrypt"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/storage"
	"github.com/brandbase/brandbase/storage/postgres"
	"github.com/brandbase/brandbase/storage/sqlite"
)

// BrandID and BrandURL name the brand the users belong to.
const (
	BrandID  = "legacy-brand"
	BrandURL = "legacy.example.com"
)

// User is a user as an older version stored it: its keys are the earlier
// folding's (NFC and case folding).
type User struct {
	ID, Username, UsernameKey, Email, EmailKey, Password string
}

// Users are the stored users, oldest first.
var Users = []User{
	{"u1", "admin", "admin", "admin@legacy.example.com", "admin@legacy.example.com", "admin password 1"},
	{"u2", "ａdmin", "ａdmin", "", "", "look-alike password 2"},
	{"u3", "ADMIN@legacy.example.com", "admin@legacy.example.com", "mallory@evil.example.com", "mallory@evil.example.com", "poser password 3"},
	{"u4", "ｂob", "ｂob", "", "", "bob password 4"},
	{"u5", "ceo@legacy.example.com", "ceo@legacy.example.com", "me@evil.example.com", "me@evil.example.com", "ceo password 5"},
	{"u6", "ｄave", "ｄave", "", "", "old dave password 6"},
	{"u7", "dave", "dave", "dave@legacy.example.com", "dave@legacy.example.com", "dave password 7"},
}

// WantCollisions are the (user ID, reason, key, other user ID) that
// auth.Service.IdentifierCollisions reports over Users once migrated.
var WantCollisions = [][4]string{
	{"u2", auth.CollisionUsernameTaken, "admin", "u1"},
	{"u3", auth.CollisionUsernameIsAddress, "admin@legacy.example.com", "u1"},
	{"u5", auth.CollisionNotOwnAddress, "ceo@legacy.example.com", ""},
	{"u6", auth.CollisionUsernameTaken, "dave", "u7"},
}

// t0 is when the first user was created; each next one a second later.
var t0 = time.Date(2025, 6, 7, 8, 9, 10, 0, time.UTC)

// undo0013 takes a fully migrated schema back to where 0012 left it.
var undo0013 = []string{`DROP TABLE user_identifiers`, `DELETE FROM schema_migrations WHERE version = 13`}

// hash returns a bcrypt hash of password at the cheapest cost, as an
// import stores it.
func hash(t testing.TB, password string) string {
	h, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.MinCost)
	require.NoError(t, err)
	return string(h)
}

// createBrand stores the brand through a current store.
func createBrand(t testing.TB, s storage.Storage) {
	require.NoError(t, s.CreateBrand(t.Context(), auth.Brand{ID: BrandID, URL: BrandURL, Name: "Legacy",
		Status: auth.StatusActive, DefaultCurrency: "USD", CreatedAt: t0}))
}

// SeedSQLite makes at path an SQLite database under the schema before
// migration 0013 holding the brand and Users.
func SeedSQLite(t testing.TB, path string) {
	ctx := t.Context()
	s, err := sqlite.Open(ctx, path)
	require.NoError(t, err)
	createBrand(t, s)
	require.NoError(t, s.Close())
	db, err := sql.Open("sqlite", path)
	require.NoError(t, err)
	defer db.Close()
	for _, q := range undo0013 {
		_, err := db.ExecContext(ctx, q)
		require.NoError(t, err, q)
	}
	for i, u := range Users {
		at := t0.Add(time.Duration(i) * time.Second).UnixMicro()
		_, err := db.ExecContext(ctx, `INSERT INTO users (id, brand_id, username, username_key, email_address, email_key,
			phone_number, password_hash, permissions, status, created_at, updated_at, seq)
			VALUES (?, ?, ?, ?, ?, ?, '', ?, '', 'Active', ?, ?, ?)`,
			u.ID, BrandID, u.Username, u.UsernameKey, u.Email, nullIfEmpty(u.EmailKey), hash(t, u.Password), at, at, i+1)
		require.NoError(t, err, u.ID)
	}
}

// SeedPostgres makes in the schema url names (a fresh one) the schema
// before migration 0013 holding the brand and Users.
func SeedPostgres(t testing.TB, url string) {
	ctx := t.Context()
	s, err := postgres.Open(ctx, url)
	require.NoError(t, err)
	createBrand(t, s)
	require.NoError(t, s.Close())
	conn, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	defer conn.Close(context.WithoutCancel(ctx))
	for _, q := range undo0013 {
		_, err := conn.Exec(ctx, q)
		require.NoError(t, err, q)
	}
	for i, u := range Users {
		at := t0.Add(time.Duration(i) * time.Second)
		_, err := conn.Exec(ctx, `INSERT INTO users (id, brand_id, username, username_key, email_address, email_key,
			phone_number, password_hash, permissions, status, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, '', $7, '{}', 'Active', $8, $8)`,
			u.ID, BrandID, u.Username, u.UsernameKey, u.Email, nullIfEmpty(u.EmailKey), hash(t, u.Password), at)
		require.NoError(t, err, u.ID)
	}
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// Check runs the scenario on s, a store opened over a seeded database:
// the collisions are reported, every user stored before still logs in as
// its stored keys say (a username rekeyed under the new folding by either
// spelling), and no new write takes a key another user holds, as username
// or as address.
func Check(t *testing.T, s storage.Storage) {
	ctx := t.Context()
	svc := auth.NewService(s, auth.WithArgon2Params(auth.Argon2Params{Memory: 64, Iterations: 1, Parallelism: 1, SaltLen: 16, KeyLen: 32}))
	brand, err := s.BrandByID(ctx, BrandID)
	require.NoError(t, err)

	report, err := svc.IdentifierCollisions(ctx, BrandID)
	require.NoError(t, err)
	var got [][4]string
	for _, c := range report {
		got = append(got, [4]string{c.User.ID, c.Reason, c.Key, c.Other.ID})
	}
	assert.Equal(t, WantCollisions, got)

	pw := map[string]string{}
	for _, u := range Users {
		pw[u.ID] = u.Password
	}
	for _, tt := range []struct {
		req  auth.LoginRequest
		want string // the user signed in; "" refused
	}{
		{auth.LoginRequest{Username: "admin", Password: pw["u1"]}, "u1"},
		{auth.LoginRequest{EmailAddress: "Admin@legacy.example.com", Password: pw["u1"]}, "u1"},
		{auth.LoginRequest{Username: "ADMIN@legacy.example.com", Password: pw["u3"]}, "u3"},
		{auth.LoginRequest{Username: "admin@legacy.example.com", Password: pw["u1"]}, ""},
		{auth.LoginRequest{Username: "ａdmin", Password: pw["u2"]}, ""},
		{auth.LoginRequest{Username: "ｂob", Password: pw["u4"]}, "u4"},
		{auth.LoginRequest{Username: "BOB", Password: pw["u4"]}, "u4"},
		{auth.LoginRequest{Username: "ceo@legacy.example.com", Password: pw["u5"]}, "u5"},
		{auth.LoginRequest{Username: "dave", Password: pw["u7"]}, "u7"},
		{auth.LoginRequest{Username: "ｄave", Password: pw["u6"]}, ""},
	} {
		sess, err := svc.Login(ctx, brand, tt.req)
		if tt.want == "" {
			assert.Equal(t, auth.CodeInvalidCredentials, envelope.CodeOf(err), "%+v", tt.req)
			continue
		}
		if assert.NoError(t, err, "%+v", tt.req) {
			assert.Equal(t, tt.want, sess.User.ID, "%+v", tt.req)
		}
	}

	for _, nu := range []auth.NewUser{
		{Username: "ａdmin", Password: "a new password"},
		{Username: "Dave", Password: "a new password"},
		{Username: "newbie", EmailAddress: "CEO@legacy.example.com", Password: "a new password"},
		{Username: "newbie", EmailAddress: "Mallory@evil.example.com", Password: "a new password"},
	} {
		_, err := svc.CreateUser(ctx, BrandID, nu)
		assert.Equal(t, "user_exists", envelope.CodeOf(err), "%+v", nu)
	}
	phone := "+1 555 0199"
	for _, id := range []string{"u2", "u3", "u5", "u6"} {
		_, err := svc.UpdateUser(ctx, id, auth.UserUpdate{PhoneNumber: &phone})
		assert.NoError(t, err, "a colliding user stored before still changes, %s", id)
	}
}
