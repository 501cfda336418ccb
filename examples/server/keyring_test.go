package main

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestKeyAndDemoFiles(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		db, keyring, key, demo string
	}{
		{"brandbase.db", "", "brandbase.key", "brandbase.demo.json"},
		{filepath.Join("data", "shop.db"), "", filepath.Join("data", "shop.key"), filepath.Join("data", "shop.demo.json")},
		{":memory:", "", "", ""},
		{"postgres://u@h/db", "", "brandbase.key", "brandbase.demo.json"},
		{"postgresql://u@h/db", "", "brandbase.key", "brandbase.demo.json"},
		{"postgres://u@h/db", filepath.Join("etc", "bb.keys"), filepath.Join("etc", "bb.keys"), filepath.Join("etc", "bb.demo.json")},
		{"brandbase.db", filepath.Join("etc", "k"), filepath.Join("etc", "k"), filepath.Join("etc", "k.demo.json")},
	} {
		key := keyFile(tc.db, tc.keyring)
		assert.Equal(t, tc.key, key, "%s %s", tc.db, tc.keyring)
		assert.Equal(t, tc.demo, demoFile(key), "%s %s", tc.db, tc.keyring)
	}
}

// TestKeyringFlagAndEnv: -keyring names the key ring file, and
// BRANDBASE_KEYRING does when the flag is not given.
func TestKeyringFlagAndEnv(t *testing.T) {
	t.Setenv(keyringEnv, "/env/ring.key")
	o, err := parseFlags(nil, &bytes.Buffer{})
	require.NoError(t, err)
	assert.Equal(t, "/env/ring.key", o.keyring)
	o, err = parseFlags([]string{"-keyring", "/flag/ring.key"}, &bytes.Buffer{})
	require.NoError(t, err)
	assert.Equal(t, "/flag/ring.key", o.keyring, "the flag wins")
}
