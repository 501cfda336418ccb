package integrations

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// LoadOrCreateKeyRing returns the key ring kept in the file at path (the
// text [ParseKeyRing] reads: one "<key ID>:<base64 key>" line per key, the
// first the primary), creating the file, mode 0600, with one new random
// key when it does not exist. It is the simplest key ring for a store that
// outlives the process: keep the file as long as the database, out of the
// database's backups (a copy of both gives the secrets away), and never
// lose it, since the secrets it sealed cannot be read without it. It fails when the file cannot be read or created, or
// does not parse.
func LoadOrCreateKeyRing(path string) (*KeyRing, error) {
	b, err := os.ReadFile(path)
	switch {
	case err == nil:
		keys, err := ParseKeyRing(b)
		if err != nil {
			return nil, fmt.Errorf("key ring file %s: %w", path, err)
		}
		return keys, nil
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("key ring file: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return LoadOrCreateKeyRing(path) // created meanwhile by another process
	}
	if err != nil {
		return nil, fmt.Errorf("key ring file: %w", err)
	}
	const id = "k1"
	key := GenerateKey()
	_, err = f.WriteString("# brandbase secret-encryption keys: <id>:<base64 key>, the first one encrypts.\n" +
		"# To rotate: put a new key first, restart, call Integrations.RotateSecrets, check Integrations.SecretsByKey, then drop the old line.\n" +
		FormatKey(id, key))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("key ring file %s: %w", path, err)
	}
	return NewKeyRing(id, map[string][]byte{id: key})
}
