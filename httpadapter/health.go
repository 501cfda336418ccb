package httpadapter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/brandbase/brandbase/envelope"
)

// Defaults of ReadinessConfig.
const (
	// DefaultCheckTimeout bounds each readiness check.
	DefaultCheckTimeout = time.Second
	// DefaultReadinessCacheFor is how long a readiness result answers
	// further probes before the checks run again.
	DefaultReadinessCacheFor = time.Second
)

// Check is one readiness check: Name is how the body of [Readiness] names
// it, and Run reports nil when what it checks is ready, or why it is not:
// an error wrapped by [DependencyDown] when what failed is a dependency
// every instance shares rather than this instance. An error that wraps
// [ErrDegraded] says the instance serves but something is to be known (a
// database schema newer than this build, say): the check passes and the
// body names it "degraded". Run gets a context that ends after the check
// timeout; it must return soon after.
type Check struct {
	Name string
	Run  func(ctx context.Context) error
}

// dependencyDown is the error of a check whose shared dependency is down.
type dependencyDown struct{ err error }

func (d dependencyDown) Error() string { return "dependency down: " + d.err.Error() }
func (d dependencyDown) Unwrap() error { return d.err }

// DependencyDown wraps err, the failure of a check, to say that what
// failed is a dependency every instance shares (the database, its
// listener), not this instance: [Readiness] then answers 200 with status
// "degraded" naming the check, unless another check fails or
// ReadinessConfig.Strict is set. It returns nil for a nil err.
func DependencyDown(err error) error {
	if err == nil {
		return nil
	}
	return dependencyDown{err}
}

// IsDependencyDown reports whether err was wrapped by DependencyDown.
func IsDependencyDown(err error) bool {
	var d dependencyDown
	return errors.As(err, &d)
}

// ReadinessConfig configures [Readiness]. The zero value is usable.
type ReadinessConfig struct {
	// Timeout bounds each check (they run at once, so it bounds the
	// probe too); a check still running then fails.
	// DefaultCheckTimeout when 0.
	Timeout time.Duration
	// CacheFor is how long a result answers further probes without
	// running the checks again, so that frequent probes from several
	// orchestrators cost one round of checks a period;
	// DefaultReadinessCacheFor when 0, no cache when negative.
	CacheFor time.Duration
	// RetryAfter is the Retry-After, in seconds, of a 503;
	// envelope.DefaultRetryAfter when 0.
	RetryAfter int
	// Clock is where the cache period is measured; time.Now when nil.
	Clock func() time.Time
	// Logger receives a line at WARN when a check starts failing or
	// passes degraded (with its error, which the body does not show) and
	// at INFO when it passes again: one line a change, not one a probe.
	// slog.Default() when nil.
	Logger *slog.Logger
	// Strict makes a check failed by a shared dependency ([DependencyDown])
	// fail readiness (503) as any other does, for a host that prefers its
	// load balancer to take every instance out while the database is down
	// (and fail over to another site) rather than have them answer what
	// they hold. By default such a check makes the probe "degraded" (200):
	// the dependency is the same for every instance, so failing readiness
	// for it would take them all out at once (docs/operations.md).
	Strict bool
}

// ErrDegraded is wrapped by the error of a readiness [Check] that does not
// make the instance unready but that the probe's body names: the check's
// status is "degraded", and [HealthStatus].Degraded lists it.
var ErrDegraded = errors.New("degraded")

// HealthStatus is the body of [Liveness] and [Readiness]: Status is "ok"
// (200), "degraded" (200: only checks of shared dependencies failed, see
// [DependencyDown], or checks passed degraded, see [ErrDegraded]) or
// "unavailable" (503); Checks, for Readiness, has one entry a check, in the
// order given; Failed names the checks that failed, and Degraded those
// whose shared dependency is down or that passed degraded.
// It is plain JSON, not the /api/v1 envelope, as orchestrators expect.
type HealthStatus struct {
	Status   string        `json:"status"`
	Checks   []CheckResult `json:"checks,omitempty"`
	Failed   []string      `json:"failed,omitempty"`
	Degraded []string      `json:"degraded,omitempty"`
}

// CheckResult is one check of a [HealthStatus]: its name and "ok",
// "fail", or "degraded" (its shared dependency is down, or it passed
// degraded). Why goes to the log, not to the body, which anyone who can
// reach the probe reads.
type CheckResult struct {
	Name   string `json:"name"`
	Status string `json:"status"`
}

// The values of HealthStatus.Status and CheckResult.Status.
const (
	StatusOK          = "ok"
	StatusUnavailable = "unavailable"
	StatusFail        = "fail"
	StatusDegraded    = "degraded"
)

// Liveness returns the handler of a liveness probe (mount it at /healthz,
// say): GET and HEAD answer 200 with {"status":"ok"} for as long as the
// process serves HTTP; it checks no dependency, so that an orchestrator
// does not restart a process that only waits for its database. Other
// methods get 405 with Allow. It needs no header, is not rate limited,
// and answers plain JSON (no envelope), uncached (Cache-Control:
// no-store).
func Liveness() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if probeMethod(w, r) {
			writeHealth(w, r, http.StatusOK, HealthStatus{Status: StatusOK}, 0)
		}
	})
}

// Readiness returns the handler of a readiness probe (mount it at /readyz,
// say): GET and HEAD run every check at once, each within cfg.Timeout, and
// answer 200 when all pass, 200 "degraded" when the only checks failing
// are those whose shared dependency is down ([DependencyDown]; 503 when
// cfg.Strict), else 503 with Retry-After; the body (a [HealthStatus])
// names each check and which failed. A result answers the
// probes of the next cfg.CacheFor without running the checks again, and
// concurrent probes share one run. Other methods get 405 with Allow. It
// needs no header, is not rate limited, and answers plain JSON (no
// envelope), uncached (Cache-Control: no-store). With no checks it is
// always ready.
func Readiness(checks []Check, cfg ReadinessConfig) http.Handler {
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultCheckTimeout
	}
	if cfg.CacheFor == 0 {
		cfg.CacheFor = DefaultReadinessCacheFor
	}
	if cfg.RetryAfter < 1 {
		cfg.RetryAfter = envelope.DefaultRetryAfter
	}
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	rd := &readiness{checks: append([]Check(nil), checks...), cfg: cfg, state: make([]string, len(checks))}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !probeMethod(w, r) {
			return
		}
		st := rd.status(r.Context())
		status := http.StatusOK
		if st.Status == StatusUnavailable {
			status = http.StatusServiceUnavailable
		}
		writeHealth(w, r, status, st, cfg.RetryAfter)
	})
}

// readiness runs the checks of a Readiness handler and keeps the last
// result.
type readiness struct {
	checks []Check
	cfg    ReadinessConfig

	mu    sync.Mutex // held while the checks run: concurrent probes wait for one run
	last  HealthStatus
	at    time.Time // when last was computed; zero: never
	state []string  // by check: its status last time, "" before the first (for the log)
}

// status returns the cached result when it is recent enough, else runs
// the checks.
func (rd *readiness) status(ctx context.Context) HealthStatus {
	rd.mu.Lock()
	defer rd.mu.Unlock()
	now := rd.cfg.Clock()
	if !rd.at.IsZero() && rd.cfg.CacheFor > 0 && now.Sub(rd.at) < rd.cfg.CacheFor {
		return rd.last
	}
	// The checks do not end with the probe that runs them: their result
	// serves the probes waiting for it, and the next.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), rd.cfg.Timeout)
	defer cancel()
	errs := make([]error, len(rd.checks))
	var wg sync.WaitGroup
	for i, c := range rd.checks {
		wg.Go(func() { errs[i] = runCheck(ctx, c) })
	}
	wg.Wait()
	st := HealthStatus{Status: StatusOK, Checks: make([]CheckResult, len(rd.checks))}
	for i, c := range rd.checks {
		res := CheckResult{Name: c.Name, Status: StatusOK}
		switch {
		case errs[i] == nil:
		case errors.Is(errs[i], ErrDegraded):
			res.Status = StatusDegraded
			if st.Status == StatusOK {
				st.Status = StatusDegraded
			}
			st.Degraded = append(st.Degraded, c.Name)
		case IsDependencyDown(errs[i]) && !rd.cfg.Strict:
			res.Status = StatusDegraded
			if st.Status == StatusOK {
				st.Status = StatusDegraded
			}
			st.Failed = append(st.Failed, c.Name)
			st.Degraded = append(st.Degraded, c.Name)
		default:
			res.Status = StatusFail
			st.Status = StatusUnavailable
			st.Failed = append(st.Failed, c.Name)
		}
		st.Checks[i] = res
		prev := rd.state[i]
		switch {
		case res.Status == prev:
		case res.Status == StatusFail:
			rd.cfg.Logger.Warn("readiness check failing", "check", c.Name, "error", errs[i])
		case res.Status == StatusDegraded:
			rd.cfg.Logger.Warn("readiness check degraded", "check", c.Name, "error", errs[i])
		case prev != "":
			rd.cfg.Logger.Info("readiness check passing again", "check", c.Name)
		}
		rd.state[i] = res.Status
	}
	rd.last, rd.at = st, now
	return st
}

// runCheck runs c, failing with ctx's error when c outlasts ctx (the
// check keeps running in the background until it returns), and with an
// error for a panic.
func runCheck(ctx context.Context, c Check) error {
	done := make(chan error, 1)
	go func() {
		defer func() {
			if v := recover(); v != nil {
				done <- fmt.Errorf("check %s panicked: %v", c.Name, v)
			}
		}()
		done <- c.Run(ctx)
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	// A check that watches ctx answers at its deadline too: its own answer
	// (a shared dependency down, a snapshot held) is the one to report, so
	// it gets a moment more before the deadline's error stands in for it.
	select {
	case err := <-done:
		return err
	case <-time.After(checkGrace):
		return ctx.Err()
	}
}

// checkGrace is how long runCheck waits, past a check's deadline, for the
// check's own answer.
const checkGrace = 100 * time.Millisecond

// probeMethod answers 405 with Allow to a method other than GET and HEAD,
// and reports whether r may go on.
func probeMethod(w http.ResponseWriter, r *http.Request) bool {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return true
	}
	w.Header().Set("Allow", "GET, HEAD")
	writeHealth(w, r, http.StatusMethodNotAllowed, HealthStatus{Status: "method_not_allowed"}, 0)
	return false
}

// writeHealth writes st as JSON with status, and Retry-After when
// retryAfter > 0 and status is 503; HEAD gets the headers alone.
func writeHealth(w http.ResponseWriter, r *http.Request, status int, st HealthStatus, retryAfter int) {
	body, _ := json.Marshal(st) // plain strings and slices: cannot fail
	body = append(body, '\n')
	hd := w.Header()
	hd.Set("Content-Type", "application/json")
	hd.Set("Cache-Control", "no-store")
	hd.Set("Content-Length", strconv.Itoa(len(body)))
	if status == http.StatusServiceUnavailable && retryAfter > 0 {
		hd.Set("Retry-After", strconv.Itoa(retryAfter))
	}
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}
