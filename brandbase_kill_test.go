package brandbase_test

import (
	"bufio"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/internal/testkit/pgtest"
	"github.com/brandbase/brandbase/outbox"
	"github.com/brandbase/brandbase/storage/storeurl"
	"github.com/brandbase/brandbase/webhooks"
)

// The kill test (at least once, measured): three instances, child processes of the
// test, deliver 10,000 events to one webhook endpoint over one PostgreSQL
// schema while one of them is killed with SIGKILL again and again and the
// receiver answers 500 to everything for a window.
const (
	// killChildEnv, set to "<database URL> <owner>", makes the test binary
	// one instance of the kill test (TestOutboxKillChild).
	killChildEnv = "BRANDBASE_OUTBOX_KILL_CHILD"
	// killFullEnv=1 runs the kill test with item 7's 30 s window of 500s.
	killFullEnv = "BRANDBASE_OUTBOX_KILL_FULL"
	// killSubjects are the users the events are about (event i is about
	// user i mod killSubjects).
	killSubjects = 100
	// killInstances are the instances; killKills the SIGKILLs of one of
	// them: one while the receiver fails, the others while it answers 2xx,
	// when these fractions of the events have been delivered.
	killInstances = 3
	// killClaimTTL and killAttemptTimeout are the children's claim TTL and
	// attempt timeout: short, so that a killed child's claims are taken
	// over within seconds; the attempt ends well within its claim, so
	// that no claim expires under a live attempt (a duplicate that no
	// kill would explain).
	killClaimTTL       = 5 * time.Second
	killAttemptTimeout = 2 * time.Second
	// killJitterScale shortens the retry waits: the outbox's full jitter
	// draws from [0, killJitterScale) instead of [0, 1), so the waits are
	// under 0.1 s, 0.2 s, 0.4 s, ... instead of 5 s, 10 s, 20 s, ...
	killJitterScale = 0.02
	// killPoolSize is each child's pool of connections (pool_max_conns):
	// its 32 delivery slots each use a connection for a read and a write.
	killPoolSize = 12
)

// killFailWindow is how long the receiver answers 500 to every delivery:
// 5 s by default (CI), 30 s with BRANDBASE_OUTBOX_KILL_FULL=1.
// killEvents are the events written: 10,000 (item 7's figure) with
// killFullEnv=1, else 3,000, so that the run under the race detector in
// CI stays short; the figures in docs/reliability.md are the full run's.
var killEvents = func() int {
	if os.Getenv(killFullEnv) == "1" {
		return 10_000
	}
	return 3_000
}()

func killFailWindow() time.Duration {
	if os.Getenv(killFullEnv) == "1" {
		return 30 * time.Second
	}
	return 5 * time.Second
}

// killKeyRing is the key ring every instance shares: the endpoint's secret
// is sealed by the parent and opened by the children.
func killKeyRing() (*integrations.KeyRing, error) {
	return integrations.NewKeyRing("k1", map[string][]byte{"k1": []byte("0123456789abcdef0123456789abcdef")})
}

// TestOutboxKillChild is one instance of TestWebhooksThroughKills when
// the test binary is started with killChildEnv; it skips otherwise. It
// runs an App on the PostgreSQL URL with its dispatcher named by the
// owner, prints "ready", and delivers until it is killed or its standard
// input closes.
func TestOutboxKillChild(t *testing.T) {
	spec := os.Getenv(killChildEnv)
	if spec == "" {
		t.Skip("the kill test's child: run by TestWebhooksThroughKills")
	}
	url, owner, _ := strings.Cut(spec, " ")
	keys, err := killKeyRing()
	require.NoError(t, err)
	store, err := storeurl.Open(context.Background(), url+"&pool_max_conns="+strconv.Itoa(killPoolSize),
		storeurl.Options{Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	defer store.Close()
	app, err := brandbase.New(store, brandbase.Config{
		SecretKeys:     keys,
		OutboundPolicy: brandbase.OutboundPolicy{AllowLoopback: true},
		Logger:         slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError})),
		OutboxOptions: []outbox.Option{
			outbox.WithOwner(owner),
			outbox.WithClaimTTL(killClaimTTL),
			outbox.WithAttemptTimeout(outbox.ChannelWebhook, killAttemptTimeout),
			outbox.WithPollInterval(50 * time.Millisecond),
			outbox.WithConcurrency(32),
			outbox.WithPerBrandConcurrency(32),
			outbox.WithJitter(func() float64 { return rand.Float64() * killJitterScale }),
		},
	})
	require.NoError(t, err)
	defer app.Close()
	fmt.Println("ready")
	_, _ = io.Copy(io.Discard, os.Stdin) // until the parent closes it
}

// killReceiver is the endpoint's receiver, written from the Standard
// Webhooks 1.0 specification (it never calls package webhooks): it checks
// every signature (v1, base64 of HMAC-SHA256 of "id.timestamp.body" keyed
// with the secret's bytes), answers 500 to every delivery until failUntil,
// 204 after, and records per webhook-id the 2xx answers it gave and per
// event (its payload's data.n) the webhook-ids and sequence it came with.
type killReceiver struct {
	key       []byte
	failUntil time.Time

	mu        sync.Mutex
	ok        map[string]int // webhook-id → 2xx answers
	ids       map[int][]string
	sequence  map[int]int64
	subject   map[int]string
	arrivals  []int // events answered 2xx, in the order first answered
	failed    int   // 500s answered
	refused   []string
	delivered int // events answered 2xx at least once
}

// newKillReceiver returns a receiver trusting the whsec_ secret.
func newKillReceiver(t *testing.T, secret string) *killReceiver {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(secret, "whsec_"))
	return &killReceiver{key: key, ok: map[string]int{}, ids: map[int][]string{}, sequence: map[int]int64{},
		subject: map[int]string{}}
}

// verified reports whether one of the header's signatures is the
// receiver's over id.timestamp.body.
func (r *killReceiver) verified(h http.Header, body []byte) bool {
	mac := hmac.New(sha256.New, r.key)
	mac.Write([]byte(h.Get("webhook-id") + "." + h.Get("webhook-timestamp") + "."))
	mac.Write(body)
	want := mac.Sum(nil)
	for _, sig := range strings.Fields(h.Get("webhook-signature")) {
		version, b64, ok := strings.Cut(sig, ",")
		got, err := base64.StdEncoding.DecodeString(b64)
		if ok && version == "v1" && err == nil && hmac.Equal(got, want) {
			return true
		}
	}
	return false
}

// killPayload is what the receiver reads of a delivery's body.
type killPayload struct {
	SubjectID string `json:"subjectId"`
	Sequence  int64  `json:"sequence"`
	Data      struct {
		N *int `json:"n"`
	} `json:"data"`
}

func (r *killReceiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	id := req.Header.Get("webhook-id")
	var p killPayload
	perr := json.Unmarshal(body, &p)
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case req.Method != http.MethodPost || id == "" || !r.verified(req.Header, body):
		r.refused = append(r.refused, "signature: "+id)
		http.Error(w, "bad signature", http.StatusBadRequest)
		return
	case perr != nil || p.Data.N == nil || p.Sequence <= 0:
		r.refused = append(r.refused, "payload: "+string(body))
		http.Error(w, "bad payload", http.StatusBadRequest)
		return
	case time.Now().Before(r.failUntil):
		r.failed++
		http.Error(w, "down for the test", http.StatusInternalServerError)
		return
	}
	n := *p.Data.N
	if !slices.Contains(r.ids[n], id) {
		r.ids[n] = append(r.ids[n], id)
	}
	if r.ok[id]++; r.ok[id] == 1 {
		r.delivered++
		r.arrivals = append(r.arrivals, n)
	}
	r.sequence[n], r.subject[n] = p.Sequence, p.SubjectID
	w.WriteHeader(http.StatusNoContent)
}

// progress returns the events answered 2xx at least once.
func (r *killReceiver) progress() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.delivered
}

// killChild is one instance: a child process.
type killChild struct {
	owner string
	cmd   *exec.Cmd
	stdin io.WriteCloser
	ready time.Time
}

// startKillChild starts an instance on url whose dispatcher is owner, and
// returns once it printed "ready".
func startKillChild(t *testing.T, url, owner string) *killChild {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(exe, "-test.run=^TestOutboxKillChild$")
	cmd.Env = append(os.Environ(), killChildEnv+"="+url+" "+owner)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	c := &killChild{owner: owner, cmd: cmd, stdin: stdin}
	t.Cleanup(func() { c.stop() })
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if sc.Text() == "ready" {
				ready <- true
			}
		}
		ready <- false
		_, _ = io.Copy(io.Discard, stdout)
	}()
	select {
	case ok := <-ready:
		require.True(t, ok, "child %s exited before it was ready", owner)
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("child %s did not start", owner)
	}
	c.ready = time.Now()
	return c
}

// stop ends the child: its standard input closed, it closes its App; it
// is killed if it has not exited within 30 s.
func (c *killChild) stop() {
	if c.cmd.ProcessState != nil {
		return
	}
	_ = c.stdin.Close()
	done := make(chan struct{})
	go func() { _ = c.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = c.cmd.Process.Kill()
		<-done
	}
}

// kill sends SIGKILL to the child and waits for it to be gone.
func (c *killChild) kill(t *testing.T) {
	t.Helper()
	require.NoError(t, c.cmd.Process.Signal(syscall.SIGKILL))
	_ = c.cmd.Wait()
}

// claimedBy returns the pending items of each channel claimed by owner
// (the dispatcher's claims are named owner#n).
func claimedBy(t *testing.T, conn *pgx.Conn, owner string) map[outbox.Channel]int {
	t.Helper()
	rows, err := conn.Query(t.Context(), `SELECT channel, count(*) FROM outbox
		WHERE status = 'pending' AND claimed_by LIKE $1 GROUP BY channel`, owner+"#%")
	require.NoError(t, err)
	out := map[outbox.Channel]int{}
	for rows.Next() {
		var ch string
		var n int
		require.NoError(t, rows.Scan(&ch, &n))
		out[outbox.Channel(ch)] = n
	}
	require.NoError(t, rows.Err())
	return out
}

// killEvent returns event n of brand: an event item about user n mod
// killSubjects, its payload in the shape of the service's events with
// data.n naming it.
func killEvent(brand string, n int, at time.Time) outbox.Item {
	subject := fmt.Sprintf("usr_%03d", n%killSubjects)
	payload, _ := json.Marshal(map[string]any{"type": "user.updated", "version": 1,
		"timestamp": at.Format(time.RFC3339Nano), "brandId": brand, "subjectId": subject,
		"data": map[string]any{"n": n}})
	return outbox.Item{ID: fmt.Sprintf("evt_kill_%05d", n), BrandID: brand, Channel: outbox.ChannelEvent,
		Topic: "user.updated", SubjectID: subject, Payload: payload, CreatedAt: at}
}

// killRecord is what the test saw at one kill.
type killRecord struct {
	owner             string
	delivered         int // events answered 2xx before the kill
	inFlight, events  int // webhook deliveries and events the killed child held claimed
	inWindow          bool
	restartedInMillis int64
}

// TestWebhooksThroughKills measures at-least-once delivery on a real PostgreSQL (it
// skips without BRANDBASE_TEST_POSTGRES, and with -short): three
// instances (child processes of the test binary, each a brandbase.App on
// storage/postgres with its own outbox owner) deliver 10,000 events,
// written as outbox event items in ten transactions of 1,000, to one
// webhook endpoint on a loopback receiver that answers 500 to everything
// for killFailWindow; one instance is killed with SIGKILL four times (once
// in the window, three times while deliveries succeed) and restarted each
// time. Right after each kill the deliveries it held claimed are counted:
// those in flight. Every event must be answered 2xx at least once, every
// duplicate must carry its event's webhook-id, the duplicates must be at
// most the deliveries in flight at the kills, and each user's events must
// carry increasing sequences in the order they were written. It runs
// alone (not in parallel): its figures are docs/reliability.md's.
func TestWebhooksThroughKills(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	url := pgtest.Schema(t)
	ctx := t.Context()
	window := killFailWindow()
	app, rcv := killSetUp(t, url)
	brand := rcv.brand
	conn, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close(context.Background()) })

	start := time.Now()
	for b := 0; b < killEvents; b += 1000 {
		batch := make([]outbox.Item, 0, 1000)
		for n := b; n < b+1000; n++ {
			batch = append(batch, killEvent(brand, n, time.Now().UTC()))
		}
		require.NoError(t, app.Store.Enqueue(ctx, batch...))
	}
	t.Logf("%d events written in %s; the receiver answers 500 for %s from now", killEvents,
		time.Since(start).Round(time.Millisecond), window)
	start = time.Now()
	rcv.mu.Lock()
	rcv.failUntil = start.Add(window)
	rcv.mu.Unlock()
	children := make([]*killChild, killInstances)
	for i := range children {
		children[i] = startKillChild(t, url, fmt.Sprintf("kill-%d.0", i))
	}
	kills := killAndRestart(t, url, conn, rcv, children, start.Add(window/2), []int{killEvents * 15 / 100,
		killEvents * 40 / 100, killEvents * 65 / 100})
	deadline := time.Now().Add(4*time.Minute + window)
	for rcv.progress() < killEvents || pendingItems(t, conn) > 0 {
		require.True(t, time.Now().Before(deadline), "not drained: %d of %d events delivered, %d items pending",
			rcv.progress(), killEvents, pendingItems(t, conn))
		time.Sleep(50 * time.Millisecond)
	}
	drained := time.Since(start)
	for _, c := range children {
		c.stop()
	}
	killCheck(t, conn, rcv, kills, window, drained)
}

// killSetUp makes the schema's brand and its endpoint taking every event,
// through an App that does not deliver, and returns the App and the
// endpoint's receiver (its brand set), served on loopback.
func killSetUp(t *testing.T, url string) (*brandbase.App, *killReceiverServer) {
	t.Helper()
	keys, err := killKeyRing()
	require.NoError(t, err)
	store, err := storeurl.Open(t.Context(), url, storeurl.Options{Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	t.Cleanup(func() { store.Close() })
	app, err := brandbase.New(store, brandbase.Config{SecretKeys: keys, OutboxManualStart: true,
		OutboundPolicy: brandbase.OutboundPolicy{AllowLoopback: true}, Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	t.Cleanup(func() { app.Close() })
	b, err := app.Auth.CreateBrand(t.Context(), auth.NewBrand{URL: "kill.example.com", Name: "Kill"})
	require.NoError(t, err)
	var handler http.Handler
	var once sync.Once
	ready := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-ready
		handler.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { once.Do(func() { close(ready) }) })
	ep, err := app.Webhooks.Create(t.Context(), auth.SystemPrincipal(b.ID),
		webhooks.Input{URL: srv.URL + "/hooks", EventTypes: []string{"*"}})
	require.NoError(t, err)
	rcv := &killReceiverServer{killReceiver: newKillReceiver(t, ep.Secret), brand: b.ID}
	handler = rcv
	once.Do(func() { close(ready) })
	return app, rcv
}

// killReceiverServer is the receiver and the brand it serves.
type killReceiverServer struct {
	*killReceiver
	brand string
}

// killAndRestart kills children[0] once at inWindow and once at each
// progress of thresholds (events delivered), each time at least 300 ms
// after its restart and while it holds claimed items (it is delivering),
// counts what it held claimed once it is gone, and restarts it under a
// new owner. It returns what it saw at each kill.
func killAndRestart(t *testing.T, url string, conn *pgx.Conn, rcv *killReceiverServer, children []*killChild,
	inWindow time.Time, thresholds []int) []killRecord {
	t.Helper()
	var kills []killRecord
	for k := range len(thresholds) + 1 {
		victim := children[0]
		due := func() bool {
			if time.Since(victim.ready) < 300*time.Millisecond {
				return false
			}
			if k == 0 && time.Now().Before(inWindow) || k > 0 && rcv.progress() < thresholds[k-1] {
				return false
			}
			held := claimedBy(t, conn, victim.owner)
			return held[outbox.ChannelWebhook]+held[outbox.ChannelEvent] > 0 // it is delivering
		}
		deadline := time.Now().Add(3 * time.Minute)
		for !due() {
			require.True(t, time.Now().Before(deadline), "kill %d never came due", k+1)
			time.Sleep(time.Millisecond)
		}
		rec := killRecord{owner: victim.owner, delivered: rcv.progress()}
		rcv.mu.Lock()
		rec.inWindow = time.Now().Before(rcv.failUntil)
		rcv.mu.Unlock()
		victim.kill(t)
		held := claimedBy(t, conn, victim.owner)
		rec.inFlight, rec.events = held[outbox.ChannelWebhook], held[outbox.ChannelEvent]
		restart := time.Now()
		children[0] = startKillChild(t, url, fmt.Sprintf("kill-0.%d", k+1))
		rec.restartedInMillis = time.Since(restart).Milliseconds()
		t.Logf("kill %d of %s (receiver failing: %v): %d events delivered before it; %d webhook deliveries in flight (and %d events); restarted in %d ms",
			k+1, rec.owner, rec.inWindow, rec.delivered, rec.inFlight, rec.events, rec.restartedInMillis)
		kills = append(kills, rec)
	}
	return kills
}

// pendingItems counts the outbox's pending items.
func pendingItems(t *testing.T, conn *pgx.Conn) int {
	t.Helper()
	var n int
	require.NoError(t, conn.QueryRow(t.Context(), `SELECT count(*) FROM outbox WHERE status = 'pending'`).Scan(&n))
	return n
}

// killCheck asserts what item 7 asks of the drained run and logs its
// figures.
func killCheck(t *testing.T, conn *pgx.Conn, rcv *killReceiverServer, kills []killRecord, window, drained time.Duration) {
	t.Helper()
	rcv.mu.Lock()
	defer rcv.mu.Unlock()
	assert.Empty(t, rcv.refused, "every delivery is signed by the endpoint's secret and carries its event")
	require.Len(t, kills, 4)
	assert.True(t, kills[0].inWindow, "the first kill is while the receiver fails")
	inFlight, duplicates := 0, 0
	for _, k := range kills {
		inFlight += k.inFlight
	}
	for n := range killEvents {
		want := killEvent(rcv.brand, n, time.Time{}).ID
		if assert.Equal(t, []string{want}, rcv.ids[n], "event %d: every delivery carries its webhook-id", n) {
			duplicates += rcv.ok[want] - 1
		}
	}
	assert.Len(t, rcv.ok, killEvents, "every event answered 2xx at least once")
	assert.LessOrEqual(t, duplicates, inFlight, "duplicates are at most the deliveries in flight at the kills")
	// Each user's events carry increasing sequences in the order written.
	for s := range killSubjects {
		last := int64(0)
		for n := s; n < killEvents; n += killSubjects {
			assert.Greater(t, rcv.sequence[n], last, "user %d, event %d: its sequence follows the user's previous event", s, n)
			assert.Equal(t, fmt.Sprintf("usr_%03d", s), rcv.subject[n])
			last = rcv.sequence[n]
		}
	}
	late, highest := 0, map[int]int{}
	for _, n := range rcv.arrivals {
		s := n % killSubjects
		if h, ok := highest[s]; ok && n < h {
			late++
		} else {
			highest[s] = n
		}
	}
	var statuses []string
	rows, err := conn.Query(t.Context(), `SELECT channel || ' ' || status || ' ' || count(*) FROM outbox GROUP BY channel, status ORDER BY 1`)
	require.NoError(t, err)
	statuses, err = pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"event delivered " + strconv.Itoa(killEvents), "webhook delivered " + strconv.Itoa(killEvents)},
		statuses, "every event and delivery delivered, none failed")
	per := make([]string, len(kills))
	for i, k := range kills {
		per[i] = strconv.Itoa(k.inFlight)
	}
	t.Logf("figures: %d events; %d kills, webhook deliveries in flight at each: %s (sum %d); duplicates %d; 500s answered %d over a %s window; "+
		"drained %s after the events were written (%s after the window); %d of %d events first delivered after a later event of their user",
		killEvents, len(kills), strings.Join(per, ", "), inFlight, duplicates, rcv.failed, window,
		drained.Round(100*time.Millisecond), (drained - window).Round(100*time.Millisecond), late, killEvents)
}
