package integrations

// Seal encrypts plaintext under the ring's primary key, bound to aad, as
// the service seals a secret: for the package's tests of the ring.
func (k *KeyRing) Seal(plaintext, aad []byte) []byte { return k.seal(plaintext, aad) }

// Open decrypts a ciphertext of Seal, checking aad: for the package's
// tests of the ring.
func (k *KeyRing) Open(ciphertext, aad []byte) ([]byte, error) { return k.open(ciphertext, aad) }

// SealSecret seals plain as the service seals the secret field of the
// configuration (kind, brandID, id), under its ring's primary key: for
// tests that seed many configurations in bulk.
func (s *Service) SealSecret(kind RecordKind, brandID, id, field, plain string) []byte {
	return s.seal(secretField{brandID: brandID, recordID: id, kind: kind, field: field}, plain)
}
