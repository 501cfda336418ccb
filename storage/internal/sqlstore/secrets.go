package sqlstore

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// EncodeSecrets returns the secrets column of a configuration record: nil
// (NULL) when m is empty, else a JSON object mapping each secret's name to
// its ciphertext in hex.
func EncodeSecrets(m map[string][]byte) ([]byte, error) {
	if len(m) == 0 {
		return nil, nil
	}
	enc := make(map[string]string, len(m))
	for name, ct := range m {
		enc[name] = hex.EncodeToString(ct)
	}
	return json.Marshal(enc)
}

// DecodeSecrets reads what EncodeSecrets wrote: nil for a NULL column (b
// nil) or an empty object.
func DecodeSecrets(b []byte) (map[string][]byte, error) {
	if b == nil {
		return nil, nil
	}
	var enc map[string]string
	if err := json.Unmarshal(b, &enc); err != nil {
		return nil, fmt.Errorf("the secrets column: %w", err)
	}
	if len(enc) == 0 {
		return nil, nil
	}
	m := make(map[string][]byte, len(enc))
	for name, h := range enc {
		ct, err := hex.DecodeString(h)
		if err != nil {
			return nil, fmt.Errorf("the secret %s: %w", name, err)
		}
		m[name] = ct
	}
	return m, nil
}
