package httpadapter_test

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// deviceIDByCode returns the ID of userID's signed-in device with code.
func deviceIDByCode(t testing.TB, f *authFixture, userID, code string) string {
	t.Helper()
	devices, err := f.app.Auth.UserDevices(t.Context(), userID)
	require.NoError(t, err)
	for _, d := range devices {
		if d.Code == code {
			return d.ID
		}
	}
	require.Failf(t, "no such device", "user %s has no signed-in device with code %q", userID, code)
	return ""
}
