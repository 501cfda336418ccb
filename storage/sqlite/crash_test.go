package sqlite_test

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
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
	"github.com/brandbase/brandbase/storage/sqlite"
)

// crashChildEnv, when set to a database path, turns the test binary into the
// crash test's child: it writes brands to that database as fast as it can and
// prints "ack <url>" after each committed write, until it is killed.
const crashChildEnv = "BRANDBASE_CRASH_CHILD_DB"

func TestMain(m *testing.M) {
	if path := os.Getenv(crashChildEnv); path != "" {
		os.Exit(crashChild(path))
	}
	os.Exit(m.Run())
}

func crashChild(path string) int {
	ctx := context.Background()
	s, err := sqlite.Open(ctx, path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "child open:", err)
		return 2
	}
	svc := auth.NewService(s)
	out := bufio.NewWriter(os.Stdout)
	fmt.Fprintln(out, "ready")
	out.Flush()
	for i := 0; ; i++ {
		url := fmt.Sprintf("crash-%d-%d.example.com", os.Getpid(), i)
		if _, err := svc.CreateBrand(ctx, auth.NewBrand{URL: url, Name: "Crash"}); err != nil {
			fmt.Fprintln(os.Stderr, "child write:", err)
			return 3
		}
		fmt.Fprintln(out, "ack", url)
		out.Flush()
	}
}

// TestCrashSafety kills a writing child process with SIGKILL at a random
// moment, again and again on the same file, and checks after each kill that
// the file opens, passes SQLite's integrity check and holds every write the
// child acknowledged.
func TestCrashSafety(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	t.Parallel()
	exe, err := os.Executable()
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "crash.db")
	const rounds = 8
	total := 0
	for round := range rounds {
		acked := runAndKill(t, exe, path, time.Duration(20+rand.IntN(150))*time.Millisecond)
		total += len(acked)

		s, err := sqlite.Open(t.Context(), path)
		require.NoError(t, err, "round %d: the file opens after SIGKILL", round)
		assert.NoError(t, s.Check(t.Context()), "round %d: integrity check", round)
		for _, url := range acked {
			_, err := s.BrandByURL(t.Context(), url)
			assert.NoError(t, err, "round %d: acknowledged write %s survives", round, url)
		}
		require.NoError(t, s.Close())
	}
	t.Logf("%d rounds, %d acknowledged writes, all present", rounds, total)
	assert.Positive(t, total, "the child wrote something")
}

// runAndKill starts the child on path, lets it write for about d after it is
// ready, kills it with SIGKILL and returns the URLs it acknowledged.
func runAndKill(t *testing.T, exe, path string, d time.Duration) []string {
	t.Helper()
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+path)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())

	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	var acked []string
	var deadline <-chan time.Time
	ready := time.After(60 * time.Second)
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				_ = cmd.Wait()
				t.Fatalf("child exited early: %s", stderr.String())
			}
			if line == "ready" {
				deadline = time.After(d)
				ready = nil
			} else if url, ok := strings.CutPrefix(line, "ack "); ok {
				acked = append(acked, url)
			}
		case <-ready:
			_ = cmd.Process.Kill()
			t.Fatal("child did not start")
		case <-deadline:
			require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
			for line := range lines { // what it printed before dying was acknowledged too
				if url, ok := strings.CutPrefix(line, "ack "); ok {
					acked = append(acked, url)
				}
			}
			_ = cmd.Wait()
			return acked
		}
	}
}
