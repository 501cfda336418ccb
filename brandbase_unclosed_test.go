package brandbase_test

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/storage/memory"
)

// dispatchers counts the goroutines running an outbox dispatcher's loop.
func dispatchers() int {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	return strings.Count(string(buf), "outbox.(*Dispatcher).runLocked(")
}

// TestUnclosedAppStopsItsDispatcher holds that an App dropped without Close
// stops the dispatcher New started once the App is collected, rather than
// keep its store and poll it for ever. Not parallel: it counts the
// process's dispatchers, and parallel tests wait while it runs.
func TestUnclosedAppStopsItsDispatcher(t *testing.T) {
	store, err := memory.New(t.Context())
	require.NoError(t, err)
	t.Cleanup(func() { store.Close() })
	before := dispatchers()
	func() {
		app, err := brandbase.New(store, brandbase.Config{})
		require.NoError(t, err)
		require.Eventually(t, func() bool { return dispatchers() == before+1 }, 5*time.Second, 10*time.Millisecond)
		_ = app
	}()
	require.Eventually(t, func() bool {
		runtime.GC()
		return dispatchers() == before
	}, 10*time.Second, 20*time.Millisecond, "the dropped App's dispatcher still runs")
}
