package webhooks

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"time"
)

// SecretPrefix starts every signing secret, as Standard Webhooks writes
// them.
const SecretPrefix = "whsec_"

// secretSize is the size in bytes of a signing key (Svix's, within the
// spec's 24 to 64).
const secretSize = 24

// The request headers of a delivery (Standard Webhooks 1.0).
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
)

// newKey returns a new random signing key.
func newKey() []byte {
	b := make([]byte, secretSize)
	_, _ = rand.Read(b) // never fails
	return b
}

// FormatSecret returns the secret of key as it is shown: whsec_ and its
// standard base64.
func FormatSecret(key []byte) string {
	return SecretPrefix + base64.StdEncoding.EncodeToString(key)
}

// ParseSecret returns the key of a secret FormatSecret wrote.
func ParseSecret(secret string) ([]byte, error) {
	enc, ok := strings.CutPrefix(secret, SecretPrefix)
	if !ok {
		return nil, errors.New("webhooks: a secret starts with " + SecretPrefix)
	}
	return base64.StdEncoding.DecodeString(enc)
}

// Signature returns the signature of one delivery under key: v1, and the
// base64 of HMAC-SHA256(key, "{id}.{timestamp}.{body}"), timestamp in Unix
// seconds.
func Signature(key []byte, id string, at time.Time, body []byte) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id + "." + strconv.FormatInt(at.Unix(), 10) + "."))
	m.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// SignatureHeader returns the webhook-signature header of a delivery
// signed by every key of keys, space-separated (during a rotation, the new
// secret's and the old one's).
func SignatureHeader(keys [][]byte, id string, at time.Time, body []byte) string {
	sigs := make([]string, len(keys))
	for i, k := range keys {
		sigs[i] = Signature(k, id, at, body)
	}
	return strings.Join(sigs, " ")
}
