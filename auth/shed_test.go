package auth_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/internal/testkit/teststores"
)

// With every hashing slot busy (and hashes measured to take far less than
// the bound, so that each login waits its turn), a login waits at most the
// hash wait bound and then fails with an Unavailable error (Retry-After: the bound rounded
// up to seconds), the same for a known user with a wrong or right password
// and for an unknown one: shedding tells no user apart. SetPassword is not
// shed but waits; once a slot is free, it and logins go through.
func TestLoginShedsWhenHashingIsBusy(t *testing.T) {
	t.Parallel()
	const bound = 30 * time.Millisecond
	e := newEnv(t, stores["memory"], auth.WithMaxConcurrentHashes(1), auth.WithMaxHashWait(bound))
	// Makes the dummy hash; on a machine loaded enough its store call can
	// pass the 30 ms bound (a 503), retried as a client would.
	require.Eventually(t, func() bool {
		_, err := e.svc.Login(t.Context(), e.brand, auth.LoginRequest{Username: "admin", Password: "wrong"})
		return envelope.CodeOf(err) == auth.CodeInvalidCredentials
	}, 30*time.Second, time.Millisecond, "makes the dummy hash")
	release := auth.HoldHashSlots(e.svc)
	assert.Equal(t, auth.HashLoad{Slots: 1, InUse: 1}, e.svc.HashLoad())
	// Hashes measured as quick (however long the dummy took on a loaded
	// machine), so that each login waits its turn rather than being
	// refused up front.
	auth.SetMeanHashHold(e.svc, time.Microsecond)

	var answers []*envelope.Error
	for _, req := range []auth.LoginRequest{
		{Username: "admin", Password: adminPassword},
		{Username: "admin", Password: "wrong password"},
		{Username: "nobody", Password: "wrong password"},
		{EmailAddress: "nobody@shop.example.com", Password: adminPassword},
	} {
		// The slot is never freed: without a bound (the timed wait,
		// TestHashWaitIsTimed; the login's budget,
		// TestLoginIsBoundedWhole) the login would wait for its context,
		// which ends here after 5 s (not at the test binary's timeout),
		// and fail this assertion.
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		start := time.Now()
		_, err := e.svc.Login(ctx, e.brand, req)
		took := time.Since(start)
		cancel()
		require.True(t, envelope.IsUnavailable(err), "%+v: %v", req, err)
		assert.GreaterOrEqual(t, took, bound, "refused by the timed wait, once the bound ran out")
		assert.Less(t, took, bound+time.Second, "refused once the bound ran out, not after the slot came free")
		got := envelope.As(err)
		assert.Equal(t, 1, got.RetryAfter)
		answers = append(answers, got)
	}
	for _, a := range answers[1:] {
		assert.Equal(t, answers[0].Code, a.Code)
		assert.Equal(t, answers[0].Message, a.Message)
		assert.Equal(t, answers[0].RetryAfter, a.RetryAfter)
		assert.Equal(t, answers[0].Items(), a.Items())
	}
	assert.Equal(t, 0, e.svc.HashLoad().Waiting)

	// A new password (user management, not a login) is not shed: it waits
	// for a slot as long as its context allows.
	set := make(chan error, 1)
	go func() { set <- e.svc.SetPassword(t.Context(), e.admin.ID, "a new password 123") }()
	require.Eventually(t, func() bool { return e.svc.HashLoad().Waiting == 1 }, 10*time.Second, time.Millisecond)
	release()
	select {
	case err := <-set:
		require.NoError(t, err, "SetPassword got the freed slot")
	case <-time.After(10 * time.Second):
		t.Fatal("SetPassword did not get the freed slot")
	}
	// As a client would, again after a 503 with Retry-After: the login's
	// whole budget here is the test's 30 ms bound, which the race detector
	// on a loaded machine may pass before the hash; a slot still held would
	// refuse every try.
	_, err := teststores.RetryUnavailable(func() error {
		_, err := e.svc.Login(t.Context(), e.brand, auth.LoginRequest{Username: "admin", Password: "a new password 123"})
		return err
	})
	assert.NoError(t, err, "a free slot serves logins again")
}

// A bound below 0 turns shedding off: a login waits for a slot as long as
// its context allows, and gets it once one is free.
func TestNoHashWaitBound(t *testing.T) {
	t.Parallel()
	e := newEnv(t, stores["memory"], auth.WithMaxConcurrentHashes(1), auth.WithMaxHashWait(-1))
	release := auth.HoldHashSlots(e.svc)
	done := make(chan error, 1)
	go func() {
		_, err := e.svc.Login(t.Context(), e.brand, auth.LoginRequest{Username: "admin", Password: adminPassword})
		done <- err
	}()
	require.Eventually(t, func() bool { return e.svc.HashLoad().Waiting == 1 }, 10*time.Second, time.Millisecond)
	release()
	select {
	case err := <-done:
		assert.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("the login did not get the freed slot")
	}
}

// A login that would be refused anyway (every slot busy, and hashes
// measured to take longer than the wait bound) is refused before it reads
// the store: here the store is closed, and the answer is still the 503,
// not the store's error.
func TestRefusedLoginReadsNoStore(t *testing.T) {
	t.Parallel()
	e := newEnv(t, stores["sqlite"], auth.WithMaxConcurrentHashes(1), auth.WithMaxHashWait(time.Minute))
	_, err := e.svc.Login(t.Context(), e.brand, auth.LoginRequest{Username: "admin", Password: "wrong"})
	require.Equal(t, auth.CodeInvalidCredentials, envelope.CodeOf(err), "makes the dummy hash")
	release := auth.HoldHashSlots(e.svc)
	defer release()
	auth.SetMeanHashHold(e.svc, 2*time.Minute)
	require.NoError(t, e.store.Close())
	start := time.Now()
	_, err = e.svc.Login(t.Context(), e.brand, auth.LoginRequest{Username: "admin", Password: adminPassword})
	require.True(t, envelope.IsUnavailable(err), "%v", err)
	assert.Equal(t, 60, envelope.As(err).RetryAfter)
	assert.Less(t, time.Since(start), 30*time.Second, "refused at once, not after the minute's bound")
}
