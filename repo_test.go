package brandbase_test

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNothingBuiltIsTracked fails when the repository tracks a build
// output: an executable (ELF, Mach-O, PE) or any file over 5 MB, such as
// the 24.8 MB demo-server binary once committed at the root. It reads the
// tracked files with git, and skips where the checkout has no git.
func TestNothingBuiltIsTracked(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("git", "ls-files", "-z").Output()
	if err != nil || len(out) == 0 {
		t.Skip("not a git checkout, or no git:", err)
	}
	magics := map[string][]byte{
		"an ELF executable":    []byte("\x7fELF"),
		"a Mach-O executable":  {0xcf, 0xfa, 0xed, 0xfe},
		"a Windows executable": []byte("MZ"),
	}
	for name := range strings.SplitSeq(strings.TrimRight(string(out), "\x00"), "\x00") {
		info, err := os.Stat(name)
		if err != nil {
			continue // deleted in the work tree, not yet committed
		}
		assert.LessOrEqual(t, info.Size(), int64(5<<20), "%s is tracked and over 5 MB", name)
		f, err := os.Open(name)
		require.NoError(t, err)
		head := make([]byte, 4)
		n, _ := f.Read(head)
		f.Close()
		for what, magic := range magics {
			assert.False(t, bytes.HasPrefix(head[:n], magic), "%s is tracked and is %s", name, what)
		}
	}
}

// TestBuildOutputsAreIgnored checks that the names `go build` gives the
// demo programs at the root are ignored by git.
func TestBuildOutputsAreIgnored(t *testing.T) {
	t.Parallel()
	if _, err := exec.Command("git", "rev-parse", "--git-dir").Output(); err != nil {
		t.Skip("not a git checkout, or no git:", err)
	}
	for _, name := range []string{"server", "embed", "inprocess", "brandbase.db", "cover.out", "brandbase.test"} {
		err := exec.Command("git", "check-ignore", "-q", name).Run()
		assert.NoError(t, err, "%s is not ignored", name)
	}
}
