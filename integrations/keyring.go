package integrations

import (
	"bufio"
	"bytes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"

	"golang.org/x/crypto/chacha20poly1305"

	"github.com/brandbase/brandbase/envelope"
)

// KeySize is the size in bytes of a secret-encryption key.
const KeySize = chacha20poly1305.KeySize

// sealedVersion is the first byte of every ciphertext a KeyRing writes.
const sealedVersion = 1

// KeyRing encrypts and decrypts integration secrets with
// XChaCha20-Poly1305. It holds named 32-byte keys, one of which (the
// primary) encrypts; every key decrypts what it encrypted, so an old key can
// stay in the ring after a rotation until [Service.RotateSecrets] has
// re-encrypted everything under the new primary.
//
// A ciphertext is: a version byte, the length of the key ID, the key ID, a
// random 24-byte nonce, and the sealed text with its tag. It is bound to
// associated data (the brand, record and field it belongs to), so that a
// ciphertext copied to another record or field does not decrypt. A KeyRing
// is immutable and safe for concurrent use.
type KeyRing struct {
	primary string
	aeads   map[string]cipher.AEAD
}

// NewKeyRing returns a key ring with keys (key ID → 32-byte key) whose
// primary, the key that encrypts, is keys[primary]. Key IDs are 1 to 64
// characters of A-Z a-z 0-9 . _ -. It fails with KindInvalid (code
// invalid_key_ring) when there is no key, the primary is not in keys, or an
// ID or key is malformed.
func NewKeyRing(primary string, keys map[string][]byte) (*KeyRing, error) {
	if len(keys) == 0 {
		return nil, keyRingError("a key ring needs at least one key")
	}
	if _, ok := keys[primary]; !ok {
		return nil, keyRingError(fmt.Sprintf("the primary key %q is not in the key ring", primary))
	}
	k := &KeyRing{primary: primary, aeads: make(map[string]cipher.AEAD, len(keys))}
	for id, key := range keys {
		if !validKeyID(id) {
			return nil, keyRingError(fmt.Sprintf("the key ID %q is not 1 to 64 characters of A-Z a-z 0-9 . _ -", id))
		}
		aead, err := chacha20poly1305.NewX(key)
		if err != nil {
			return nil, keyRingError(fmt.Sprintf("the key %q is not %d bytes", id, KeySize))
		}
		k.aeads[id] = aead
	}
	return k, nil
}

// GenerateKey returns a new random key of KeySize bytes.
func GenerateKey() []byte { return randomBytes(KeySize) }

// EphemeralKeyRing returns a key ring with one random key that exists only
// in this process: secrets it encrypts cannot be read after a restart. It is
// what a Service without a configured key ring uses; hosts with a
// persistent store must configure their own.
func EphemeralKeyRing() *KeyRing {
	id := "ephemeral-" + strings.ToLower(rand.Text()[:8])
	k, _ := NewKeyRing(id, map[string][]byte{id: GenerateKey()})
	return k
}

// ParseKeyRing reads a key ring from text with one key per line,
// "<key ID>:<key in standard base64>"; the first key is the primary. Blank
// lines and lines starting with # are ignored. It fails with KindInvalid
// (code invalid_key_ring) as NewKeyRing does, or when a line is malformed or
// an ID repeats.
func ParseKeyRing(text []byte) (*KeyRing, error) {
	var primary string
	keys := map[string][]byte{}
	sc := bufio.NewScanner(bytes.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		id, enc, ok := strings.Cut(line, ":")
		if !ok {
			return nil, keyRingError(fmt.Sprintf("line %d is not <key ID>:<base64 key>", n))
		}
		key, err := base64.StdEncoding.DecodeString(strings.TrimSpace(enc))
		if err != nil {
			return nil, keyRingError(fmt.Sprintf("line %d: the key is not base64", n))
		}
		id = strings.TrimSpace(id)
		if _, dup := keys[id]; dup {
			return nil, keyRingError(fmt.Sprintf("line %d: the key ID %q repeats", n, id))
		}
		if primary == "" {
			primary = id
		}
		keys[id] = key
	}
	if err := sc.Err(); err != nil {
		return nil, keyRingError(err.Error())
	}
	return NewKeyRing(primary, keys)
}

// FormatKey returns the line of a key-ring file (see ParseKeyRing) holding
// key under id, with its newline.
func FormatKey(id string, key []byte) string {
	return id + ":" + base64.StdEncoding.EncodeToString(key) + "\n"
}

// Primary returns the ID of the key that encrypts.
func (k *KeyRing) Primary() string { return k.primary }

// KeyIDs returns the IDs of every key in the ring, sorted.
func (k *KeyRing) KeyIDs() []string {
	ids := make([]string, 0, len(k.aeads))
	for id := range k.aeads {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// Seal encrypts plaintext under the primary key, bound to aad (the
// associated data naming the record and field it belongs to: the same aad
// must be given to Open). It is for the secrets of other packages
// (webhooks' signing secrets); integration secrets are sealed by the
// [Service]. It never fails.
func (k *KeyRing) Seal(plaintext, aad []byte) []byte { return k.seal(plaintext, aad) }

// Open decrypts a ciphertext of [KeyRing.Seal] with the key it names,
// checking aad. It fails when the ciphertext is malformed, names a key the
// ring does not hold, or was altered or sealed with other associated data.
func (k *KeyRing) Open(ciphertext, aad []byte) ([]byte, error) { return k.open(ciphertext, aad) }

// seal encrypts plaintext under the primary key, bound to aad.
func (k *KeyRing) seal(plaintext, aad []byte) []byte {
	aead := k.aeads[k.primary]
	out := make([]byte, 0, 2+len(k.primary)+aead.NonceSize()+len(plaintext)+aead.Overhead())
	out = append(out, sealedVersion, byte(len(k.primary)))
	out = append(out, k.primary...)
	nonce := randomBytes(aead.NonceSize())
	out = append(out, nonce...)
	return aead.Seal(out, nonce, plaintext, aad)
}

// randomBytes returns n random bytes.
func randomBytes(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return b
}

// open decrypts a ciphertext of seal with the key it names, checking aad. It
// fails when the ciphertext is malformed, names a key the ring does not
// hold, or was altered or bound to other associated data.
func (k *KeyRing) open(ciphertext, aad []byte) ([]byte, error) {
	id, rest, err := splitSealed(ciphertext)
	if err != nil {
		return nil, err
	}
	aead, ok := k.aeads[id]
	if !ok {
		return nil, fmt.Errorf("integrations: the secret is sealed with key %q, which the key ring does not hold", id)
	}
	if len(rest) < aead.NonceSize()+aead.Overhead() {
		return nil, errors.New("integrations: the sealed secret is truncated")
	}
	plain, err := aead.Open(nil, rest[:aead.NonceSize()], rest[aead.NonceSize():], aad)
	if err != nil {
		return nil, fmt.Errorf("integrations: the secret sealed with key %q does not decrypt: %w", id, err)
	}
	return plain, nil
}

// KeyIDOf returns the ID of the key a sealed secret (a ciphertext the ring
// wrote, as stores keep it) names.
func KeyIDOf(ciphertext []byte) (string, error) {
	id, _, err := splitSealed(ciphertext)
	return id, err
}

// splitSealed splits a ciphertext into its key ID and nonce+sealed text.
func splitSealed(ct []byte) (id string, rest []byte, err error) {
	if len(ct) < 2 || ct[0] != sealedVersion || len(ct) < 2+int(ct[1]) {
		return "", nil, errors.New("integrations: the sealed secret is malformed")
	}
	n := int(ct[1])
	return string(ct[2 : 2+n]), ct[2+n:], nil
}

func validKeyID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, c := range []byte(id) {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
		if !ok {
			return false
		}
	}
	return true
}

func keyRingError(msg string) error {
	return envelope.New(envelope.KindInvalid, "invalid_key_ring", "The key ring is invalid: "+msg+".")
}
