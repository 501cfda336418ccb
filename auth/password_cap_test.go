package auth_test

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
)

// TestImportRefusesCostlyHashes imports hashes at and beyond the cost cap:
// 4 times the service's argon2id memory, passes and lanes (fastArgon2 is
// m=64,t=1,p=1), bcrypt cost 12.
func TestImportRefusesCostlyHashes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, stores["memory"])
	const phc = "$argon2id$v=19$%s$c2FsdHNhbHRzYWx0c2FsdA$a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2U"
	const bcryptTail = "e6WSeCiQHj919vcHBrnj7u6l0STfEV0j/.HqWZ4Ap70WcInmfur2W"
	tests := []struct {
		name, hash string
		want       []string // field errors; nil when accepted
	}{
		{"argon2id at the cap", strings.Replace(phc, "%s", "m=256,t=4,p=4", 1), nil},
		{"argon2id memory over", strings.Replace(phc, "%s", "m=260,t=1,p=1", 1), []string{"passwordHash:too_costly"}},
		{"argon2id 2 GiB", strings.Replace(phc, "%s", "m=2097152,t=1,p=1", 1), []string{"passwordHash:too_costly"}},
		{"argon2id passes over", strings.Replace(phc, "%s", "m=64,t=5,p=1", 1), []string{"passwordHash:too_costly"}},
		{"argon2id lanes over", strings.Replace(phc, "%s", "m=64,t=1,p=5", 1), []string{"passwordHash:too_costly"}},
		{"bcrypt at the cap", "$2a$12$" + bcryptTail, nil},
		{"bcrypt over", "$2a$13$" + bcryptTail, []string{"passwordHash:too_costly"}},
		{"bcrypt malformed", "$2a$10$" + bcryptTail[:20], []string{"passwordHash:invalid_format"}},
		{"neither", "plain text", []string{"passwordHash:invalid_format"}},
	}
	for i, tt := range tests {
		_, err := e.svc.CreateUser(t.Context(), e.brand.ID, auth.NewUser{Username: "imported" + string(rune('a'+i)), PasswordHash: tt.hash})
		if tt.want == nil {
			assert.NoError(t, err, tt.name)
			continue
		}
		assert.Equal(t, tt.want, fieldsOf(t, err), tt.name)
	}
}

// TestStoredCostlyHashFailsTheLogin stores a hash made with 16 times the
// service's memory (by a service configured so) and logs in with its right
// password: the login fails as a wrong password would, and is logged.
func TestStoredCostlyHashFailsTheLogin(t *testing.T) {
	t.Parallel()
	logs := &bytes.Buffer{}
	e := newEnv(t, stores["memory"], auth.WithLogger(slog.New(slog.NewTextHandler(logs, nil))))
	costly := fastArgon2
	costly.Memory *= 16
	big := auth.NewService(e.store, auth.WithArgon2Params(costly))
	_, err := big.CreateUser(t.Context(), e.brand.ID, auth.NewUser{Username: "costly", Password: "the right password"})
	require.NoError(t, err)
	_, err = big.Login(t.Context(), e.brand, auth.LoginRequest{Username: "costly", Password: "the right password"})
	require.NoError(t, err, "its own service checks it")

	_, err = e.svc.Login(t.Context(), e.brand, auth.LoginRequest{Username: "costly", Password: "the right password"})
	assert.Equal(t, auth.CodeInvalidCredentials, envelope.CodeOf(err))
	assert.Contains(t, logs.String(), "beyond the cost cap")
	assert.Contains(t, logs.String(), "m=1024,t=1,p=1")
}
