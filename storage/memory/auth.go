package memory

import (
	"bytes"
	"context"
	"slices"
	"time"

	"github.com/brandbase/brandbase/auth"
)

// authData holds users, key pairs and devices; Store.mu guards it.
type authData struct {
	users       map[string]userRecord // by ID
	userByName  map[[2]string]string  // (brand ID, username key) -> user ID
	userByEmail map[[2]string]string  // (brand ID, email key) -> user ID
	userSeq     int64

	keys         map[string]auth.KeyPair // by ID
	keyByAuth    map[[32]byte]string     // auth hash -> ID
	keyByRefresh map[[32]byte]string     // refresh hash -> ID

	devices      map[string]deviceRecord // by ID
	deviceByCode map[[2]string]string    // (user ID, code) -> device ID
	deviceSeq    int64
}

type userRecord struct {
	auth.UserRecord
	seq int64
}

type deviceRecord struct {
	auth.Device
	seq int64
}

func newAuthData() authData {
	return authData{
		users: map[string]userRecord{}, userByName: map[[2]string]string{}, userByEmail: map[[2]string]string{},
		keys: map[string]auth.KeyPair{}, keyByAuth: map[[32]byte]string{}, keyByRefresh: map[[32]byte]string{},
		devices: map[string]deviceRecord{}, deviceByCode: map[[2]string]string{},
	}
}

// cloneUser returns u with its own copy of the permissions.
func cloneUser(u auth.UserRecord) auth.UserRecord {
	u.Permissions = slices.Clone(u.Permissions)
	return u
}

// cloneKey returns k with its own copy of the hashes.
func cloneKey(k auth.KeyPair) auth.KeyPair {
	k.AuthHash, k.RefreshHash = bytes.Clone(k.AuthHash), bytes.Clone(k.RefreshHash)
	return k
}

// hashKey turns a stored hash into a map key; ok is false unless it is 32
// bytes long.
func hashKey(h []byte) (k [32]byte, ok bool) {
	if len(h) != len(k) {
		return k, false
	}
	copy(k[:], h)
	return k, true
}

// userTaken reports whether another user than id holds u's keys.
func (a *authData) userTaken(u auth.UserRecord) bool {
	if id, ok := a.userByName[[2]string{u.BrandID, u.UsernameKey}]; ok && id != u.ID {
		return true
	}
	if u.EmailKey != "" {
		if id, ok := a.userByEmail[[2]string{u.BrandID, u.EmailKey}]; ok && id != u.ID {
			return true
		}
	}
	return false
}

// indexUser adds (add=true) or removes u's lookup keys.
func (a *authData) indexUser(u auth.UserRecord, add bool) {
	name := [2]string{u.BrandID, u.UsernameKey}
	email := [2]string{u.BrandID, u.EmailKey}
	if add {
		a.userByName[name] = u.ID
		if u.EmailKey != "" {
			a.userByEmail[email] = u.ID
		}
		return
	}
	delete(a.userByName, name)
	if u.EmailKey != "" {
		delete(a.userByEmail, email)
	}
}

// CreateUser implements auth.Store.
func (s *Store) CreateUser(ctx context.Context, u auth.UserRecord) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	a := &s.auth
	if _, ok := s.brands[u.BrandID]; !ok {
		return auth.ErrBrandNotFound
	}
	if _, ok := a.users[u.ID]; ok {
		return auth.ErrUserExists
	}
	if a.userTaken(u) {
		return auth.ErrUserExists
	}
	a.userSeq++
	a.users[u.ID] = userRecord{UserRecord: cloneUser(u), seq: a.userSeq}
	a.indexUser(u, true)
	return nil
}

// UpdateUser implements auth.Store.
func (s *Store) UpdateUser(ctx context.Context, id string, fn func(*auth.UserRecord) error) (auth.UserRecord, error) {
	if err := ctx.Err(); err != nil {
		return auth.UserRecord{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	a := &s.auth
	old, ok := a.users[id]
	if !ok {
		return auth.UserRecord{}, auth.ErrUserNotFound
	}
	u := cloneUser(old.UserRecord)
	if err := fn(&u); err != nil {
		return auth.UserRecord{}, err
	}
	u.ID, u.BrandID, u.CreatedAt = old.ID, old.BrandID, old.CreatedAt
	if a.userTaken(u) {
		return auth.UserRecord{}, auth.ErrUserExists
	}
	a.indexUser(old.UserRecord, false)
	a.indexUser(u, true)
	a.users[id] = userRecord{UserRecord: cloneUser(u), seq: old.seq}
	return u, nil
}

// UserByID implements auth.Store.
func (s *Store) UserByID(ctx context.Context, id string) (auth.UserRecord, error) {
	if err := ctx.Err(); err != nil {
		return auth.UserRecord{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	r, ok := s.auth.users[id]
	if !ok {
		return auth.UserRecord{}, auth.ErrUserNotFound
	}
	return cloneUser(r.UserRecord), nil
}

// userByIndex returns the user an index maps (brandID, key) to.
func (s *Store) userByIndex(ctx context.Context, index map[[2]string]string, brandID, key string) (auth.UserRecord, error) {
	if err := ctx.Err(); err != nil {
		return auth.UserRecord{}, err
	}
	if key == "" {
		return auth.UserRecord{}, auth.ErrUserNotFound
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	id, ok := index[[2]string{brandID, key}]
	if !ok {
		return auth.UserRecord{}, auth.ErrUserNotFound
	}
	return cloneUser(s.auth.users[id].UserRecord), nil
}

// UserByUsername implements auth.Store.
func (s *Store) UserByUsername(ctx context.Context, brandID, key string) (auth.UserRecord, error) {
	return s.userByIndex(ctx, s.auth.userByName, brandID, key)
}

// UserByEmail implements auth.Store.
func (s *Store) UserByEmail(ctx context.Context, brandID, key string) (auth.UserRecord, error) {
	return s.userByIndex(ctx, s.auth.userByEmail, brandID, key)
}

// ListUsers implements auth.Store.
func (s *Store) ListUsers(ctx context.Context, brandID string) ([]auth.UserRecord, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	var recs []userRecord
	for _, r := range s.auth.users {
		if r.BrandID == brandID {
			recs = append(recs, userRecord{UserRecord: cloneUser(r.UserRecord), seq: r.seq})
		}
	}
	s.mu.RUnlock()
	return inCreationOrder(recs, func(r userRecord) auth.UserRecord { return r.UserRecord }), nil
}

// insertKey stores k after checking its hashes, its user, its user's
// session epoch, its device and its unique keys; s.mu is held.
func (s *Store) insertKey(k auth.KeyPair) error {
	a := &s.auth
	ah, ok1 := hashKey(k.AuthHash)
	rh, ok2 := hashKey(k.RefreshHash)
	if !ok1 || !ok2 {
		return auth.ErrKeyHashSize
	}
	u, ok := a.users[k.UserID]
	if !ok {
		return auth.ErrUserNotFound
	}
	if k.SessionEpoch != u.SessionEpoch || u.Status != auth.StatusActive {
		return auth.ErrKeysRevoked
	}
	if d, ok := a.devices[k.DeviceID]; ok && d.Revoked() {
		return auth.ErrDeviceRevoked
	}
	if _, ok := a.keys[k.ID]; ok {
		return auth.ErrKeyPairExists
	}
	_, authTaken := a.keyByAuth[ah]
	_, refreshTaken := a.keyByRefresh[rh]
	if authTaken || refreshTaken {
		return auth.ErrKeyPairExists
	}
	a.keys[k.ID] = cloneKey(k)
	a.keyByAuth[ah] = k.ID
	a.keyByRefresh[rh] = k.ID
	return nil
}

// CreateKeyPair implements auth.Store.
func (s *Store) CreateKeyPair(ctx context.Context, k auth.KeyPair) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.insertKey(k)
}

// keyByHash returns the pair an index maps hash to.
func (s *Store) keyByHash(ctx context.Context, index map[[32]byte]string, hash []byte) (auth.KeyPair, error) {
	if err := ctx.Err(); err != nil {
		return auth.KeyPair{}, err
	}
	h, ok := hashKey(hash)
	if !ok {
		return auth.KeyPair{}, auth.ErrKeyPairNotFound
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	id, ok := index[h]
	if !ok {
		return auth.KeyPair{}, auth.ErrKeyPairNotFound
	}
	return cloneKey(s.auth.keys[id]), nil
}

// KeyPairByAuthHash implements auth.Store.
func (s *Store) KeyPairByAuthHash(ctx context.Context, hash []byte) (auth.KeyPair, error) {
	return s.keyByHash(ctx, s.auth.keyByAuth, hash)
}

// KeyPairByRefreshHash implements auth.Store.
func (s *Store) KeyPairByRefreshHash(ctx context.Context, hash []byte) (auth.KeyPair, error) {
	return s.keyByHash(ctx, s.auth.keyByRefresh, hash)
}

// RotateKeyPair implements auth.Store.
func (s *Store) RotateKeyPair(ctx context.Context, oldID string, at time.Time, next auth.KeyPair) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	old, ok := s.auth.keys[oldID]
	if !ok {
		return auth.ErrKeyPairNotFound
	}
	if !old.RevokedAt.IsZero() {
		return auth.ErrKeyPairRevoked
	}
	if err := s.insertKey(next); err != nil {
		return err
	}
	old.RevokedAt, old.ReplacedBy = at, next.ID
	s.auth.keys[oldID] = old
	return nil
}

// RevokeKeyPairs implements auth.Store.
func (s *Store) RevokeKeyPairs(ctx context.Context, sel auth.KeySelector, at time.Time) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if sel.Empty() {
		return 0, auth.ErrEmptySelector
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.revokeKeys(sel, at), nil
}

// revokeKeys revokes the unrevoked pairs sel matches; s.mu is held.
func (s *Store) revokeKeys(sel auth.KeySelector, at time.Time) int {
	n := 0
	for id, k := range s.auth.keys {
		if k.RevokedAt.IsZero() && sel.Matches(k) {
			k.RevokedAt = at
			s.auth.keys[id] = k
			n++
		}
	}
	return n
}

// DeleteKeyPairs implements auth.Store.
func (s *Store) DeleteKeyPairs(ctx context.Context, before time.Time) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	a := &s.auth
	n := 0
	for id, k := range a.keys {
		if !k.RefreshExpiresAt.After(before) {
			ah, _ := hashKey(k.AuthHash)
			rh, _ := hashKey(k.RefreshHash)
			delete(a.keyByAuth, ah)
			delete(a.keyByRefresh, rh)
			delete(a.keys, id)
			n++
		}
	}
	return n, nil
}

// UpsertDevice implements auth.Store.
func (s *Store) UpsertDevice(ctx context.Context, d auth.Device) (auth.Device, bool, error) {
	if err := ctx.Err(); err != nil {
		return auth.Device{}, false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	a := &s.auth
	if _, ok := a.users[d.UserID]; !ok {
		return auth.Device{}, false, auth.ErrUserNotFound
	}
	code := [2]string{d.UserID, d.Code}
	if id, ok := a.deviceByCode[code]; ok {
		r := a.devices[id]
		if !r.Revoked() {
			r.Token, r.Name, r.AppVersion, r.OS, r.LastSeenAt = d.Token, d.Name, d.AppVersion, d.OS, d.LastSeenAt
			a.devices[id] = r
		}
		return r.Device, false, nil
	}
	if _, ok := a.devices[d.ID]; ok {
		return auth.Device{}, false, auth.ErrDeviceExists
	}
	a.deviceSeq++
	a.devices[d.ID] = deviceRecord{Device: d, seq: a.deviceSeq}
	a.deviceByCode[code] = d.ID
	return d, true, nil
}

// DeviceByCode implements auth.Store.
func (s *Store) DeviceByCode(ctx context.Context, userID, code string) (auth.Device, error) {
	if err := ctx.Err(); err != nil {
		return auth.Device{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	id, ok := s.auth.deviceByCode[[2]string{userID, code}]
	if !ok {
		return auth.Device{}, auth.ErrDeviceNotFound
	}
	return s.auth.devices[id].Device, nil
}

// ListDevices implements auth.Store.
func (s *Store) ListDevices(ctx context.Context, userID string) ([]auth.Device, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	var recs []deviceRecord
	for _, r := range s.auth.devices {
		if r.UserID == userID {
			recs = append(recs, r)
		}
	}
	s.mu.RUnlock()
	return inCreationOrder(recs, func(r deviceRecord) auth.Device { return r.Device }), nil
}

// RevokeDevice implements auth.Store.
func (s *Store) RevokeDevice(ctx context.Context, userID, deviceID string, at time.Time) (auth.Device, error) {
	if err := ctx.Err(); err != nil {
		return auth.Device{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.auth.devices[deviceID]
	if !ok || r.UserID != userID {
		return auth.Device{}, auth.ErrDeviceNotFound
	}
	if !r.Revoked() {
		r.RevokedAt = at
		s.auth.devices[deviceID] = r
	}
	s.revokeKeys(auth.KeySelector{DeviceID: deviceID}, at)
	return r.Device, nil
}
