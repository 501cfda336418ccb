package serve_test

import (
	"bytes"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/internal/serve"
	"github.com/brandbase/brandbase/storage/memory"
)

func TestPurgeOnceDeletesExpiredKeys(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	store, err := memory.New(ctx)
	require.NoError(t, err)
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	svc := auth.NewService(store, auth.WithClock(func() time.Time { return now }),
		auth.WithArgon2Params(auth.Argon2Params{Memory: 64, Iterations: 1, Parallelism: 1, SaltLen: 16, KeyLen: 32}))
	brand, err := svc.CreateBrand(ctx, auth.NewBrand{URL: "purge.example.com", Name: "Purge"})
	require.NoError(t, err)
	_, err = svc.CreateUser(ctx, brand.ID, auth.NewUser{Username: "u", Password: "a long enough password"})
	require.NoError(t, err)
	_, err = svc.Login(ctx, brand, auth.LoginRequest{Username: "u", Password: "a long enough password"})
	require.NoError(t, err)

	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	serve.PurgeOnce(ctx, svc, logger)
	assert.NotContains(t, logs.String(), "expired keys deleted", "a live pair stays")

	now = now.Add(auth.DefaultRefreshKeyTTL + time.Hour)
	serve.PurgeOnce(ctx, svc, logger)
	assert.Contains(t, logs.String(), `msg="expired keys deleted" count=1`)
}
