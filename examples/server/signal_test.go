package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/auth"
)

// serverChildEnv, when set, turns the test binary into the demo server
// itself (main with the arguments after "--"), so a test can signal it.
const serverChildEnv = "BRANDBASE_SERVER_CHILD"

func TestMain(m *testing.M) {
	testAuthOptions = []auth.Option{auth.WithArgon2Params(auth.Argon2Params{Memory: 64, Iterations: 1, Parallelism: 1, SaltLen: 16, KeyLen: 32})}
	if os.Getenv(serverChildEnv) != "" {
		for i, a := range os.Args {
			if a == "--" {
				os.Args = append([]string{os.Args[0]}, os.Args[i+1:]...)
				break
			}
		}
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestStopsCleanlyOnSIGINT runs the real main in a child process, waits
// until it serves, sends SIGINT and expects a clean exit (status 0) after
// the shutdown, with the database closed.
func TestStopsCleanlyOnSIGINT(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	t.Parallel()
	exe, err := os.Executable()
	require.NoError(t, err)
	db := filepath.Join(t.TempDir(), "brandbase.db")
	cmd := exec.Command(exe, "-test.run=^$", "--", "-addr", "127.0.0.1:0", "-db", db)
	cmd.Env = append(os.Environ(), serverChildEnv+"=1")
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	defer func() { _ = cmd.Process.Kill() }() // a no-op once it exited

	listening := make(chan struct{})
	var log strings.Builder
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			log.WriteString(sc.Text() + "\n")
			if strings.Contains(sc.Text(), "msg=listening") {
				close(listening)
			}
		}
	}()
	select {
	case <-listening:
	case <-time.After(waitBound(t)):
		t.Fatal("the server did not start")
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	select {
	case <-done: // stderr closed: the process has exited
	case <-time.After(waitBound(t)):
		t.Fatal("the server did not stop on SIGINT")
	}
	err = cmd.Wait()
	assert.NoError(t, err, "exit status 0 after SIGINT; log:\n%s", log.String())
	assert.Contains(t, log.String(), `msg="shutting down"`)
}
