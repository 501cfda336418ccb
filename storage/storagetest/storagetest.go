// Package storagetest is the conformance suite every storage.Storage
// implementation runs. A backend's test is one function:
//
//	func TestConformance(t *testing.T) {
//		storagetest.Run(t, func(t *testing.T) storage.Storage {
//			s, err := mystore.Open(t.Context(), ...)
//			require.NoError(t, err)
//			return s
//		})
//	}
//
// Each subtest gets a fresh store from newStore and closes it when done.
// Assertions are on error kinds (envelope.KindOf), never on driver text.
//
// Each scenario is a named function of the file of its concern
// (testUserConflicts in auth_users.go, testCityShortNames in
// refdata_scripts.go, ...), listed in suite.go under the subtest name it
// runs as; one runs alone with, for example,
// go test -run 'TestConformance/Auth/Users/Conflicts'.
package storagetest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/storage"
)

// NewStore returns a fresh, empty store (with the default dataset loaded).
type NewStore func(t *testing.T) storage.Storage

// Run runs the whole conformance suite against the stores newStore makes.
func Run(t *testing.T, newStore NewStore) {
	t.Run("Brands", func(t *testing.T) { runBrands(t, newStore) })
	t.Run("RefData", func(t *testing.T) { runRefData(t, newStore) })
	t.Run("Auth", func(t *testing.T) { runAuth(t, newStore) })
	t.Run("Integrations", func(t *testing.T) { runIntegrations(t, newStore) })
	t.Run("Webhooks", func(t *testing.T) { runWebhooks(t, newStore) })
	t.Run("Messages", func(t *testing.T) { runMessages(t, newStore) })
	t.Run("Outbox", func(t *testing.T) { runOutbox(t, newStore) })
	t.Run("Cancellation", func(t *testing.T) { runCancellation(t, newStore) })
	t.Run("ErrorsReadTheSame", func(t *testing.T) { testErrorsReadTheSame(t, newStore) })
	t.Run("Migrations", func(t *testing.T) { runMigrations(t, newStore) })
	t.Run("Ping", func(t *testing.T) { t.Parallel(); testPing(t, newStore) })
}

// open returns a fresh store that is closed when t ends.
func open(t *testing.T, newStore NewStore) storage.Storage {
	t.Helper()
	s := newStore(t)
	require.NotNil(t, s)
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	return s
}

// scenario is one named conformance test: run opens the fresh stores it
// needs from newStore.
type scenario struct {
	name string
	run  func(t *testing.T, newStore NewStore)
}

// runScenarios runs each scenario as a parallel subtest of t, named after
// it.
func runScenarios(t *testing.T, newStore NewStore, scenarios []scenario) {
	t.Helper()
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			sc.run(t, newStore)
		})
	}
}

// contextCancelled returns a context that is already cancelled.
func contextCancelled(t *testing.T) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	return ctx, cancel
}

// pinger is a store that tells readiness checks whether its database
// answers (every store of this module is one).
type pinger interface {
	Ping(ctx context.Context) error
}

// testPing: Ping answers nil for a store that serves, and fails (never
// nil) under a cancelled context.
func testPing(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	p, ok := s.(pinger)
	if !ok {
		t.Skip("the store has no Ping")
	}
	require.NoError(t, p.Ping(t.Context()))
	ctx, cancel := contextCancelled(t)
	defer cancel()
	require.Error(t, p.Ping(ctx), "a cancelled context")
}
