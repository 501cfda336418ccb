package integrations

import (
	"strings"
	"unicode/utf8"

	"github.com/brandbase/brandbase/envelope"
)

// maskShown is how many trailing characters Mask leaves visible, and
// maskMinLen the shortest secret that shows any.
const (
	maskShown  = 4
	maskMinLen = 2 * maskShown
)

// Mask returns secret with every character but the last four replaced by
// '*'. A secret shorter than eight characters is masked whole, so that a
// mask never shows more than half of a secret.
//
//	Mask("sk_live_12345678") == "************5678"
//	Mask("abc123") == "******"
func Mask(secret string) string {
	n := utf8.RuneCountInString(secret)
	if n < maskMinLen {
		return strings.Repeat("*", n)
	}
	cut := len(secret)
	for range maskShown {
		_, size := utf8.DecodeLastRuneInString(secret[:cut])
		cut -= size
	}
	return strings.Repeat("*", n-maskShown) + secret[cut:]
}

// secretField names one secret of one record: the associated data its
// ciphertext is bound to.
type secretField struct {
	brandID, recordID string
	kind              RecordKind
	field             string
}

func (f secretField) aad() []byte {
	return []byte("brandbase/integrations\x00" + f.brandID + "\x00" + string(f.kind) + "\x00" + f.recordID + "\x00" + f.field)
}

// seal encrypts plain for f under the primary key.
func (s *Service) seal(f secretField, plain string) []byte {
	return s.keys.seal([]byte(plain), f.aad())
}

// open decrypts the ciphertext of f; nil for nil. A ciphertext that does
// not decrypt (a key not in the ring, or tampering) is ErrSecretUnreadable
// for f.
func (s *Service) open(f secretField, ct []byte) (*string, error) {
	if ct == nil {
		return nil, nil
	}
	plain, err := s.keys.open(ct, f.aad())
	if err != nil {
		return nil, secretUnreadable(f, err)
	}
	p := string(plain)
	return &p, nil
}

// openMasked decrypts the ciphertext of f and masks it; nil for nil.
func (s *Service) openMasked(f secretField, ct []byte) (*string, error) {
	p, err := s.open(f, ct)
	if p == nil || err != nil {
		return nil, err
	}
	m := Mask(*p)
	return &m, nil
}

// nextSecret returns the ciphertext to store for f, given the stored one
// (cur, nil for none) and the value sent (sent, nil when not sent): the
// stored ciphertext when the secret is not sent, sent back masked or sent
// unchanged; nil when sent empty; a new ciphertext otherwise. A stored
// secret that no longer decrypts (its key left the ring) is replaced by
// any new value, so a lost key never blocks setting a new secret; keeping
// it (not sent, or a mask sent back) fails with ErrSecretUnreadable, since
// the answer could not show it: the update changes nothing.
func (s *Service) nextSecret(f secretField, cur []byte, sent *string) ([]byte, error) {
	if sent != nil && *sent == "" {
		return nil, nil
	}
	if cur == nil {
		if sent == nil {
			return nil, nil
		}
		return s.seal(f, *sent), nil
	}
	plain, err := s.open(f, cur)
	keep := sent == nil || looksMasked(*sent)
	switch {
	case err != nil && keep:
		return nil, err
	case err != nil:
		return s.seal(f, *sent), nil
	case sent == nil || *sent == *plain || *sent == Mask(*plain):
		return cur, nil
	}
	return s.seal(f, *sent), nil
}

// looksMasked reports whether v has the form Mask gives: asterisks, then at
// most maskShown other characters.
func looksMasked(v string) bool {
	rest := strings.TrimLeft(v, "*")
	return len(rest) < len(v) && utf8.RuneCountInString(rest) <= maskShown
}

// reseal re-encrypts ct under the primary key when another key sealed it,
// reporting whether it did.
func (s *Service) reseal(f secretField, ct []byte) ([]byte, bool, error) {
	if ct == nil {
		return nil, false, nil
	}
	id, err := KeyIDOf(ct)
	if err != nil {
		return nil, false, envelope.Internal(err)
	}
	if id == s.keys.Primary() {
		return ct, false, nil
	}
	plain, err := s.open(f, ct)
	if err != nil {
		return nil, false, err
	}
	return s.seal(f, *plain), true, nil
}
