package pgtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvBin is the environment variable that names the directory of the
// PostgreSQL server binaries (initdb, pg_ctl, postgres) NewCluster uses.
// Without it, NewCluster takes the newest /usr/lib/postgresql/*/bin.
const EnvBin = "BRANDBASE_TEST_PG_BIN"

// clusterDB is the database NewCluster creates in each cluster.
const clusterDB = "brandbase_test"

// Cluster is a throwaway PostgreSQL cluster that belongs to one test: the
// test may crash it (Stop), start it again on the same port with the same
// data (Start), and freeze and thaw its processes (Freeze, Thaw), which no
// test may do to the shared server that URL names. Its methods are safe
// for concurrent use.
type Cluster struct {
	bin  string   // directory of initdb, pg_ctl, postgres
	dir  string   // temporary directory: data/, server.log, the socket
	port int      // loopback port, the same across restarts
	as   []string // command prefix that runs a binary as the cluster's OS user

	mu      sync.Mutex
	running bool
	frozen  []int // processes Freeze stopped, postmaster first
}

// NewCluster initialises a throwaway cluster (initdb) in a temporary
// directory, starts it on a free loopback port with fsync and
// full_page_writes off (they guard against a crash of the machine, not of
// the server; commits stay synchronous, so Stop loses no acknowledged
// write),
// creates a database in it, and stops it and removes the directory when t
// ends. It skips t unless BRANDBASE_TEST_POSTGRES is set (CI sets it: the
// tests against a server are wanted) and the server binaries are found:
// BRANDBASE_TEST_PG_BIN names their directory, else the newest
// /usr/lib/postgresql/*/bin is used. When the test runs as root the
// binaries run as user postgres (runuser -u postgres --), since the server
// refuses to run as root.
func NewCluster(t testing.TB) *Cluster {
	t.Helper()
	URL(t) // skips unless the PostgreSQL tests are wanted
	bin, err := serverBin()
	if err != nil {
		t.Skipf("pgtest: no PostgreSQL server binaries: %v (set %s to their directory)", err, EnvBin)
	}
	c := &Cluster{bin: bin}
	dir, err := os.MkdirTemp("", "brandbase-pg-")
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	c.dir = dir
	t.Cleanup(func() { c.cleanup(t) })
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatalf("pgtest: running as root needs an OS user postgres to run the server: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatalf("pgtest: %v", err)
		}
		c.as = []string{"runuser", "-u", "postgres", "--"}
	}
	c.port, err = freePort()
	if err != nil {
		t.Fatalf("pgtest: free port: %v", err)
	}
	if out, err := c.run("initdb", "-D", c.data(), "-U", "postgres", "-A", "trust", "-E", "UTF8",
		"--locale=C.UTF-8", "--no-sync", "--no-instructions"); err != nil {
		t.Fatalf("pgtest: initdb: %v\n%s", err, out)
	}
	c.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.url("postgres"))
	if err != nil {
		t.Fatalf("pgtest: connect to the new cluster: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+clusterDB); err != nil {
		t.Fatalf("pgtest: create database: %v", err)
	}
	return c
}

// URL returns the URL of the cluster's database (user postgres, trust
// authentication, sslmode=disable). It stays valid across Stop and Start.
func (c *Cluster) URL() string { return c.url(clusterDB) }

func (c *Cluster) url(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", c.port, db)
}

// Stop crashes the cluster: pg_ctl stop -m immediate, which ends every
// server process at once without a checkpoint, so that the next Start
// recovers from the write-ahead log. It thaws a frozen cluster first.
func (c *Cluster) Stop(t testing.TB) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.thawLocked()
	if !c.running {
		return
	}
	if out, err := c.run("pg_ctl", "-D", c.data(), "-m", "immediate", "-w", "-t", "60", "stop"); err != nil {
		t.Fatalf("pgtest: stop cluster: %v\n%s", err, out)
	}
	c.running = false
}

// Start starts the cluster on its port with the data it had, and returns
// once it accepts connections. A running cluster is left as it is.
func (c *Cluster) Start(t testing.TB) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.running {
		return
	}
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off "+
		"-c full_page_writes=off -c max_connections=100 -c shared_buffers=16MB", c.port, c.dir)
	if out, err := c.run("pg_ctl", "-D", c.data(), "-l", c.log(), "-w", "-t", "60", "start", "-o", opts); err != nil {
		log, _ := os.ReadFile(c.log())
		t.Fatalf("pgtest: start cluster: %v\n%s\n%s", err, out, log)
	}
	c.running = true
}

// Freeze stops (SIGSTOP) the cluster's postmaster and every process it
// started, so that connections stay open and nothing answers: a stalled
// server. Only this cluster's processes are touched: they are the process
// named in its postmaster.pid and that process's children. Thaw (or Stop,
// or the end of the test) resumes them.
func (c *Cluster) Freeze(t testing.TB) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.running {
		t.Fatalf("pgtest: freeze: the cluster is not running")
	}
	if c.frozen != nil {
		return
	}
	pm, err := c.postmaster()
	if err != nil {
		t.Fatalf("pgtest: freeze: %v", err)
	}
	// The postmaster first, so that it starts no process once its
	// children have been listed.
	if err := syscall.Kill(pm, syscall.SIGSTOP); err != nil {
		t.Fatalf("pgtest: freeze postmaster %d: %v", pm, err)
	}
	c.frozen = []int{pm}
	for _, pid := range children(pm) {
		if syscall.Kill(pid, syscall.SIGSTOP) == nil {
			c.frozen = append(c.frozen, pid)
		}
	}
}

// Thaw resumes (SIGCONT) the processes Freeze stopped. A cluster that is
// not frozen is left as it is.
func (c *Cluster) Thaw(t testing.TB) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.thawLocked()
}

func (c *Cluster) thawLocked() {
	if c.frozen == nil {
		return
	}
	// Children first, the postmaster last: it may start new ones.
	for i := len(c.frozen) - 1; i >= 0; i-- {
		_ = syscall.Kill(c.frozen[i], syscall.SIGCONT) // a process that ended needs no waking
	}
	c.frozen = nil
}

func (c *Cluster) cleanup(t testing.TB) {
	c.mu.Lock()
	c.thawLocked()
	if c.running {
		if out, err := c.run("pg_ctl", "-D", c.data(), "-m", "immediate", "-w", "-t", "60", "stop"); err != nil {
			t.Errorf("pgtest: stop cluster: %v\n%s", err, out)
		}
		c.running = false
	}
	c.mu.Unlock()
	if err := os.RemoveAll(c.dir); err != nil {
		t.Errorf("pgtest: remove cluster: %v", err)
	}
}

func (c *Cluster) data() string { return filepath.Join(c.dir, "data") }
func (c *Cluster) log() string  { return filepath.Join(c.dir, "server.log") }

// run runs one of the server binaries as the cluster's OS user and returns
// its combined output.
func (c *Cluster) run(name string, args ...string) ([]byte, error) {
	argv := append(append(append([]string{}, c.as...), filepath.Join(c.bin, name)), args...)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = c.dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.Bytes(), err
}

// postmaster reads the postmaster's process id from postmaster.pid.
func (c *Cluster) postmaster() (int, error) {
	b, err := os.ReadFile(filepath.Join(c.data(), "postmaster.pid"))
	if err != nil {
		return 0, err
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil || pid <= 0 {
		return 0, fmt.Errorf("postmaster.pid: bad pid %q", first)
	}
	return pid, nil
}

// children lists the processes whose parent is ppid, from /proc/*/stat.
func children(ppid int) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue // ended meanwhile
		}
		if parent, err := statPPID(b); err == nil && parent == ppid {
			pids = append(pids, pid)
		}
	}
	sort.Ints(pids)
	return pids
}

// statPPID returns the parent process id from the text of /proc/PID/stat:
// "pid (comm) state ppid ...", where comm may hold spaces and parentheses,
// so the fields are counted after the last ')'.
func statPPID(stat []byte) (int, error) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, errors.New("no comm")
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 2 {
		return 0, errors.New("short stat")
	}
	return strconv.Atoi(f[1])
}

// serverBin finds the directory of the server binaries.
func serverBin() (string, error) {
	if d := os.Getenv(EnvBin); d != "" {
		if _, err := os.Stat(filepath.Join(d, "pg_ctl")); err != nil {
			return "", fmt.Errorf("%s=%s: %w", EnvBin, d, err)
		}
		return d, nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	best, bestVer := "", -1.0
	for _, d := range dirs {
		v, err := strconv.ParseFloat(filepath.Base(filepath.Dir(d)), 64)
		if err != nil {
			continue
		}
		if _, err := os.Stat(filepath.Join(d, "pg_ctl")); err == nil && v > bestVer {
			best, bestVer = d, v
		}
	}
	if best == "" {
		return "", errors.New("none under /usr/lib/postgresql/*/bin")
	}
	return best, nil
}

// freePort asks the kernel for a free loopback port. Another process may
// take it before the server binds it; that is rare enough for tests.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
