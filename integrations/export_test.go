package integrations

// Seal encrypts plaintext under the ring's primary key, bound to aad, as
// the service seals a secret: for the package's tests of the ring.
func (k *KeyRing) Seal(plaintext, aad []byte) []byte { return k.seal(plaintext, aad) }

// Open decrypts a ciphertext of Seal, checking aad: for the package's
// tests of the ring.
func (k *KeyRing) Open(ciphertext, aad []byte) ([]byte, error) { return k.open(ciphertext, aad) }
