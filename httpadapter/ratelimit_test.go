package httpadapter_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/httpadapter"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/internal/testkit/smtptest"
	"github.com/brandbase/brandbase/ratelimit"
	"github.com/brandbase/brandbase/storage"
	"github.com/brandbase/brandbase/storage/memory"
)

// fakeClock is a clock that moves only when told.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// listFrom serves GET /api/v1/currencies for brandURL from remoteAddr, with
// headers added.
func (f *fixture) listFrom(t *testing.T, brandURL, remoteAddr string, headers ...string) (*httptest.ResponseRecorder, env) {
	t.Helper()
	req := httptest.NewRequest("GET", "/api/v1/currencies?PageSize=1", nil)
	req.RemoteAddr = remoteAddr
	req.Header.Set("Brand-URL", brandURL)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Add(headers[i], headers[i+1])
	}
	return f.send(t, req)
}

// rateHeaders returns the RateLimit-* and Retry-After headers of rec.
func rateHeaders(rec *httptest.ResponseRecorder) map[string]string {
	m := map[string]string{}
	for _, k := range []string{"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "RateLimit-Policy", "Retry-After"} {
		if v := rec.Header().Get(k); v != "" {
			m[k] = v
		}
	}
	return m
}

func TestListRateLimitDefaults(t *testing.T) {
	t.Parallel()
	for storeName, newStore := range stores {
		t.Run(storeName, func(t *testing.T) {
			t.Parallel()
			clock := newClock()
			f := newFixture(t, newStore, httpadapter.WithClock(clock.Now))
			const ip = "198.51.100.7:40000"
			for i := range 100 {
				rec, _ := f.listFrom(t, "shop.example.com", ip)
				require.Equal(t, http.StatusOK, rec.Code, "request %d of the burst of 100", i+1)
				assert.Equal(t, map[string]string{
					"RateLimit-Limit":     "100",
					"RateLimit-Remaining": strconv.Itoa(99 - i),
					// 50 tokens a second: i+1 tokens taken come back in (i+1)/50 s.
					"RateLimit-Reset":  strconv.Itoa((i + 1 + 49) / 50),
					"RateLimit-Policy": "100;w=2",
				}, rateHeaders(rec))
			}

			rec, e := f.listFrom(t, "shop.example.com", ip)
			require.Equal(t, http.StatusTooManyRequests, rec.Code)
			assert.Equal(t, "rate_limited", e.Errors[0].Code)
			assert.Equal(t, map[string]string{
				"RateLimit-Limit":     "100",
				"RateLimit-Remaining": "0",
				"RateLimit-Reset":     "2",
				"RateLimit-Policy":    "100;w=2",
				"Retry-After":         "1", // 20 ms, rounded up to a whole second
			}, rateHeaders(rec))

			clock.Advance(19 * time.Millisecond)
			rec, _ = f.listFrom(t, "shop.example.com", ip)
			assert.Equal(t, http.StatusTooManyRequests, rec.Code, "the next token is 20 ms away")
			clock.Advance(time.Millisecond)
			rec, _ = f.listFrom(t, "shop.example.com", ip)
			assert.Equal(t, http.StatusOK, rec.Code, "one token back after 20 ms")
			assert.Equal(t, "0", rec.Header().Get("RateLimit-Remaining"))

			clock.Advance(time.Minute)
			rec, _ = f.listFrom(t, "shop.example.com", ip)
			assert.Equal(t, http.StatusOK, rec.Code)
			assert.Equal(t, "99", rec.Header().Get("RateLimit-Remaining"), "full again after idling")
		})
	}
}

// tightLists allows 2 list requests per minute, so that tests reach the
// limit in a few requests.
var tightLists = httpadapter.WithRateLimits(httpadapter.RateLimits{
	Lists: ratelimit.Policy{Limit: 2, Per: time.Minute},
})

func TestRetryAfterFollowsTheBucket(t *testing.T) {
	t.Parallel()
	clock := newClock()
	f := newFixture(t, stores["memory"], httpadapter.WithClock(clock.Now), tightLists)
	const ip = "198.51.100.7:1"
	for range 2 {
		rec, _ := f.listFrom(t, "shop.example.com", ip)
		require.Equal(t, http.StatusOK, rec.Code)
	}
	rec, _ := f.listFrom(t, "shop.example.com", ip)
	require.Equal(t, http.StatusTooManyRequests, rec.Code)
	assert.Equal(t, "30", rec.Header().Get("Retry-After"), "one token every 30 s")
	assert.Equal(t, "60", rec.Header().Get("RateLimit-Reset"))
	assert.Equal(t, "2;w=60", rec.Header().Get("RateLimit-Policy"))

	clock.Advance(12500 * time.Millisecond)
	rec, _ = f.listFrom(t, "shop.example.com", ip)
	require.Equal(t, http.StatusTooManyRequests, rec.Code)
	assert.Equal(t, "18", rec.Header().Get("Retry-After"), "17.5 s left, rounded up")
	assert.Equal(t, "48", rec.Header().Get("RateLimit-Reset"))

	clock.Advance(17500 * time.Millisecond)
	rec, _ = f.listFrom(t, "shop.example.com", ip)
	assert.Equal(t, http.StatusOK, rec.Code, "refused requests did not delay recovery")
	assert.Empty(t, rec.Header().Get("Retry-After"))
}

func TestListRateLimitIsolation(t *testing.T) {
	t.Parallel()
	for storeName, newStore := range stores {
		t.Run(storeName, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, newStore, httpadapter.WithClock(newClock().Now), tightLists)
			_, err := f.app.Auth.CreateBrand(t.Context(), auth.NewBrand{URL: "other.example.com", Name: "Other"})
			require.NoError(t, err)
			const ip = "198.51.100.7:1"
			for range 2 {
				rec, _ := f.listFrom(t, "shop.example.com", ip)
				require.Equal(t, http.StatusOK, rec.Code)
			}
			rec, _ := f.listFrom(t, "shop.example.com", "198.51.100.7:2")
			require.Equal(t, http.StatusTooManyRequests, rec.Code, "the port is not part of the client")

			rec, _ = f.listFrom(t, "other.example.com", ip)
			assert.Equal(t, http.StatusOK, rec.Code, "another brand, same IP: its own bucket")
			rec, _ = f.listFrom(t, "shop.example.com", "198.51.100.8:1")
			assert.Equal(t, http.StatusOK, rec.Code, "same brand, another IP: its own bucket")

			rec, _ = f.listFrom(t, "nobody.example.com", ip)
			assert.Equal(t, http.StatusNotFound, rec.Code, "an unknown brand is answered before limiting")
			assert.Empty(t, rec.Header().Get("RateLimit-Limit"))
		})
	}
}

func TestClientIPAndTrustedProxies(t *testing.T) {
	t.Parallel()
	proxies := httpadapter.WithTrustedProxies(netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("fd00::/8"))
	scenarios := []struct {
		name    string
		trusted bool
		remote  string
		xff     []string
		key     string
	}{
		{name: "remote address", remote: "203.0.113.5:1234", key: "203.0.113.5"},
		{name: "spoofed XFF ignored by default", remote: "203.0.113.5:1234", xff: []string{"192.0.2.1"}, key: "203.0.113.5"},
		{name: "proxy's XFF ignored by default", remote: "10.0.0.1:80", xff: []string{"192.0.2.1"}, key: "10.0.0.1"},
		{name: "IPv4-mapped IPv6", remote: "[::ffff:203.0.113.5]:1", key: "203.0.113.5"},
		{name: "IPv6 keyed on its /64", remote: "[2001:db8:1:2:aaaa::1]:443", key: "2001:db8:1:2::/64"},
		{name: "IPv6 with zone", remote: "[fe80::1%eth0]:443", key: "fe80::/64"},
		{name: "not an IP", remote: "@unix", key: "@unix"},
		{name: "trusted proxy", trusted: true, remote: "10.0.0.1:80", xff: []string{"192.0.2.1"}, key: "192.0.2.1"},
		{name: "right-most untrusted hop", trusted: true, remote: "10.0.0.1:80",
			xff: []string{"198.51.100.66, 192.0.2.1, 10.1.2.3"}, key: "192.0.2.1"},
		{name: "hops over several headers", trusted: true, remote: "10.0.0.1:80",
			xff: []string{"198.51.100.66, 192.0.2.1", "10.1.2.3"}, key: "192.0.2.1"},
		{name: "client's own spoofed hops ignored", trusted: true, remote: "10.0.0.1:80",
			xff: []string{"10.9.9.9, 192.0.2.1"}, key: "192.0.2.1"},
		{name: "hop with port", trusted: true, remote: "10.0.0.1:80", xff: []string{"192.0.2.1:5555"}, key: "192.0.2.1"},
		{name: "IPv6 hop", trusted: true, remote: "[fd00::1]:80", xff: []string{"2001:db8::7"}, key: "2001:db8::/64"},
		{name: "untrusted peer's XFF ignored", trusted: true, remote: "203.0.113.5:1", xff: []string{"192.0.2.1"}, key: "203.0.113.5"},
		{name: "garbage hop stops at last readable", trusted: true, remote: "10.0.0.1:80",
			xff: []string{"not-an-ip, 10.0.0.2"}, key: "10.0.0.2"},
		{name: "all hops trusted", trusted: true, remote: "10.0.0.1:80", xff: []string{"10.0.0.3, 10.0.0.2"}, key: "10.0.0.3"},
		{name: "trusted proxy without XFF", trusted: true, remote: "10.0.0.1:80", key: "10.0.0.1"},
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			lim := &recordingLimiter{}
			opts := []httpadapter.Option{httpadapter.WithLimiter(lim)}
			if sc.trusted {
				opts = append(opts, proxies)
			}
			f := newFixture(t, stores["memory"], opts...)
			var headers []string
			for _, v := range sc.xff {
				headers = append(headers, "X-Forwarded-For", v)
			}
			rec, _ := f.listFrom(t, "shop.example.com", sc.remote, headers...)
			require.Equal(t, http.StatusOK, rec.Code)
			require.Len(t, lim.calls, 1)
			assert.Equal(t, f.brand.ID+" "+sc.key, lim.calls[0].key)
		})
	}
}

func TestSpoofedForwardedForDoesNotEscapeTheLimit(t *testing.T) {
	t.Parallel()
	f := newFixture(t, stores["memory"], httpadapter.WithClock(newClock().Now), tightLists)
	for i := range 5 {
		rec, _ := f.listFrom(t, "shop.example.com", "203.0.113.5:1", "X-Forwarded-For", "192.0.2."+strconv.Itoa(i))
		assert.Equal(t, i < 2, rec.Code == http.StatusOK, "request %d", i+1)
	}
}

func TestRateLimitingOff(t *testing.T) {
	t.Parallel()
	for name, opt := range map[string]httpadapter.Option{
		"WithoutRateLimits":            httpadapter.WithoutRateLimits(),
		"WithRateLimits(RateLimits{})": httpadapter.WithRateLimits(httpadapter.RateLimits{}),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			lim := &recordingLimiter{}
			f := newFixture(t, stores["memory"], opt, httpadapter.WithLimiter(lim))
			for range 150 {
				rec, _ := f.listFrom(t, "shop.example.com", "198.51.100.7:1")
				require.Equal(t, http.StatusOK, rec.Code)
				require.Empty(t, rateHeaders(rec))
			}
			assert.Empty(t, lim.calls, "the limiter is never asked")
		})
	}
}

// recordingLimiter records its calls and answers with decision and err
// (allowed, when decision is zero).
type recordingLimiter struct {
	mu       sync.Mutex
	calls    []limiterCall
	decision ratelimit.Decision
	err      error
}

type limiterCall struct {
	key    string
	policy ratelimit.Policy
	now    time.Time
}

func (l *recordingLimiter) Allow(_ context.Context, key string, p ratelimit.Policy, now time.Time) (ratelimit.Decision, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls = append(l.calls, limiterCall{key: key, policy: p, now: now})
	if l.decision == (ratelimit.Decision{}) {
		return ratelimit.Decision{Allowed: true, Limit: 7, Remaining: 6, Reset: time.Second}, l.err
	}
	return l.decision, l.err
}

func TestReplacedLimiter(t *testing.T) {
	t.Parallel()
	clock := newClock()

	lim := &recordingLimiter{decision: ratelimit.Decision{Limit: 7, Remaining: 0, Reset: 90 * time.Second, RetryAfter: 2500 * time.Millisecond}}
	f := newFixture(t, stores["memory"], httpadapter.WithClock(clock.Now), httpadapter.WithLimiter(lim))
	rec, e := f.listFrom(t, "shop.example.com", "198.51.100.7:1")
	require.Equal(t, http.StatusTooManyRequests, rec.Code)
	assert.Equal(t, "rate_limited", e.Errors[0].Code)
	assert.Equal(t, map[string]string{
		"RateLimit-Limit":     "7",
		"RateLimit-Remaining": "0",
		"RateLimit-Reset":     "90",
		"RateLimit-Policy":    "7;w=2",
		"Retry-After":         "3",
	}, rateHeaders(rec))
	require.Len(t, lim.calls, 1)
	assert.Equal(t, limiterCall{key: f.brand.ID + " 198.51.100.7", policy: httpadapter.DefaultRateLimits().Lists, now: clock.Now()}, lim.calls[0])

	failing := &recordingLimiter{err: errors.New("shared limiter unreachable")}
	f = newFixture(t, stores["memory"], httpadapter.WithLimiter(failing))
	rec, _ = f.listFrom(t, "shop.example.com", "198.51.100.7:1")
	assert.Equal(t, http.StatusOK, rec.Code, "a failing limiter lets requests through")
	assert.Empty(t, rateHeaders(rec))
	assert.Contains(t, f.logs.String(), "shared limiter unreachable", "and the failure is logged")
}

func TestRateLimitsConfigErrors(t *testing.T) {
	t.Parallel()
	for name, limits := range map[string]httpadapter.RateLimits{
		"invalid policy": {Lists: ratelimit.Policy{Limit: -1, Per: time.Second}},
		"no period":      {Updates: ratelimit.Policy{Limit: 5}},
		"shared name": {
			Lists:   ratelimit.Policy{Name: "same", Limit: 1, Per: time.Second},
			Updates: ratelimit.Policy{Name: "same", Limit: 1, Per: time.Second},
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, stores["memory"])
			_, err := f.app.Handler(httpadapter.WithRateLimits(limits))
			assert.Equal(t, envelope.KindInvalid, envelope.KindOf(err))
			assert.Equal(t, "invalid_rate_policy", envelope.CodeOf(err))
		})
	}
}

// TestEvictionBoundThroughHandler sends one request from each of 2,000
// client IPs, at one instant, through a limiter capped at 64 buckets: the
// limiter never holds more than its cap, every client that got a bucket is
// served, and the others share the shards' overflow buckets (no bucket is
// full again, so none is evicted), which refuse them once spent.
func TestEvictionBoundThroughHandler(t *testing.T) {
	t.Parallel()
	lim := ratelimit.New(ratelimit.Config{MaxBuckets: 64, Shards: 4})
	f := newFixture(t, stores["memory"], httpadapter.WithClock(newClock().Now), httpadapter.WithLimiter(lim))
	served := 0
	for i := range 2000 {
		rec, _ := f.listFrom(t, "shop.example.com", netip.AddrFrom4([4]byte{198, 18, byte(i >> 8), byte(i)}).String()+":1")
		require.Contains(t, []int{http.StatusOK, http.StatusTooManyRequests}, rec.Code)
		if rec.Code == http.StatusOK {
			served++
		}
		require.LessOrEqual(t, lim.Len(), 64)
	}
	assert.Equal(t, 64, lim.Len())
	assert.Greater(t, served, 64, "the clients with a bucket, and some on the overflow buckets")
	assert.Less(t, served, 2000, "the overflow buckets limit the rest")
}

// loginFrom serves POST /api/v1/users/auth with body to brandURL from
// remoteAddr.
func (f *fixture) loginFrom(t *testing.T, brandURL, remoteAddr, body string) (*httptest.ResponseRecorder, env) {
	t.Helper()
	return f.postFrom(t, "/api/v1/users/auth", brandURL, remoteAddr, body)
}

// postFrom serves a JSON POST of body to path for brandURL from
// remoteAddr.
func (f *fixture) postFrom(t *testing.T, path, brandURL, remoteAddr, body string) (*httptest.ResponseRecorder, env) {
	t.Helper()
	req := httptest.NewRequest("POST", path, strings.NewReader(body))
	req.RemoteAddr = remoteAddr
	req.Header.Set("Brand-URL", brandURL)
	req.Header.Set("Content-Type", "application/json")
	return f.send(t, req)
}

// limitedAuthFixture is an authFixture whose handler reads clock and has
// opts.
func limitedAuthFixture(t testing.TB, newStore func(t testing.TB) storage.Storage, clock *fakeClock, opts ...httpadapter.Option) *authFixture {
	t.Helper()
	f := newAuthFixture(t, newStore)
	h, err := f.app.Handler(append([]httpadapter.Option{withTestLogger(f.logs), httpadapter.WithClock(clock.Now)}, opts...)...)
	require.NoError(t, err)
	f.handler = h
	return f
}

func TestLoginRateLimitPerIdentifier(t *testing.T) {
	t.Parallel()
	for storeName, newStore := range stores {
		t.Run(storeName, func(t *testing.T) {
			t.Parallel()
			clock := newClock()
			f := limitedAuthFixture(t, newStore, clock)
			wrong := `{"username":"admin","password":"wrong password"}`
			for i := range 10 {
				// From ten addresses: the identifier limit holds across them.
				rec, _ := f.loginFrom(t, "shop.example.com", "198.51.100."+strconv.Itoa(i)+":1", wrong)
				require.Equal(t, http.StatusUnauthorized, rec.Code, "attempt %d", i+1)
				assert.Equal(t, map[string]string{
					// The tighter of the two limits: 10 per identifier, not 30 per IP.
					"RateLimit-Limit":     "10",
					"RateLimit-Remaining": strconv.Itoa(9 - i),
					"RateLimit-Reset":     strconv.Itoa(6 * (i + 1)),
					"RateLimit-Policy":    "10;w=60",
				}, rateHeaders(rec))
			}
			rec, e := f.loginFrom(t, "shop.example.com", "198.51.100.77:1", adminLogin())
			require.Equal(t, http.StatusTooManyRequests, rec.Code, "even the right password, from a new address")
			assert.Equal(t, "rate_limited", e.Errors[0].Code)
			assert.Equal(t, "6", rec.Header().Get("Retry-After"))
			assert.Equal(t, "0", rec.Header().Get("RateLimit-Remaining"))
			assert.Equal(t, "60", rec.Header().Get("RateLimit-Reset"))

			rec, _ = f.loginFrom(t, "shop.example.com", "198.51.100.77:1",
				`{"username":"  ADMIN ","emailAddress":"other@example.com","password":"x"}`)
			assert.Equal(t, http.StatusTooManyRequests, rec.Code, "the username is folded as auth folds it; the email is not the key")

			rec, _ = f.loginFrom(t, "other.example.com", "198.51.100.77:1", `{"username":"admin","password":"`+otherPassword+`"}`)
			assert.Equal(t, http.StatusOK, rec.Code, "admin of another brand: its own bucket")
			rec, _ = f.loginFrom(t, "shop.example.com", "198.51.100.77:1", `{"username":"viewer","password":"viewer password"}`)
			assert.Equal(t, http.StatusOK, rec.Code, "another user: its own bucket")
			rec, _ = f.loginFrom(t, "shop.example.com", "198.51.100.77:1", `{"emailAddress":"Admin@Shop.Example.com","password":"`+adminPassword+`"}`)
			assert.Equal(t, http.StatusTooManyRequests, rec.Code,
				"the same user by email address: its own identifier bucket, but the user's bucket is spent")
			rec, _ = f.loginFrom(t, "shop.example.com", "198.51.100.77:1", `{"emailAddress":"nobody@shop.example.com","password":"x"}`)
			assert.Equal(t, http.StatusUnauthorized, rec.Code, "a login by email address is keyed on the address")

			clock.Advance(6 * time.Second)
			rec, _ = f.loginFrom(t, "shop.example.com", "198.51.100.77:1", adminLogin())
			assert.Equal(t, http.StatusOK, rec.Code, "one attempt back after 6 s")
			rec, _ = f.loginFrom(t, "shop.example.com", "198.51.100.77:1", adminLogin())
			assert.Equal(t, http.StatusTooManyRequests, rec.Code)
		})
	}
}

func TestLoginRateLimitPerIP(t *testing.T) {
	t.Parallel()
	clock := newClock()
	f := limitedAuthFixture(t, stores["memory"], clock)
	const ip = "203.0.113.9:5000"
	for i := range 30 {
		rec, _ := f.loginFrom(t, "shop.example.com", ip, `{"username":"guess`+strconv.Itoa(i)+`","password":"x"}`)
		require.Equal(t, http.StatusUnauthorized, rec.Code, "attempt %d", i+1)
		// The headers tell of the policy with fewer requests left: the
		// fresh identifier's (9 left) until the address has 9 or fewer.
		wantLimit, wantRemaining := "10", "9"
		if 29-i <= 9 {
			wantLimit, wantRemaining = "30", strconv.Itoa(29-i)
		}
		assert.Equal(t, wantLimit, rec.Header().Get("RateLimit-Limit"), "attempt %d", i+1)
		assert.Equal(t, wantRemaining, rec.Header().Get("RateLimit-Remaining"), "attempt %d", i+1)
	}
	rec, _ := f.loginFrom(t, "other.example.com", ip, `{"username":"admin","password":"`+otherPassword+`"}`)
	require.Equal(t, http.StatusTooManyRequests, rec.Code, "31st login from the address, in any brand")
	assert.Equal(t, "2", rec.Header().Get("Retry-After"), "30 a minute: one every 2 s")
	assert.Equal(t, "30", rec.Header().Get("RateLimit-Limit"))

	rec, _ = f.loginFrom(t, "shop.example.com", "203.0.113.10:5000", adminLogin())
	assert.Equal(t, http.StatusOK, rec.Code, "another address")

	clock.Advance(2 * time.Second)
	rec, _ = f.loginFrom(t, "other.example.com", ip, `{"username":"admin","password":"`+otherPassword+`"}`)
	assert.Equal(t, http.StatusOK, rec.Code, "recovered")
}

func TestLoginRateLimitsConfigurable(t *testing.T) {
	t.Parallel()
	limits := httpadapter.DefaultRateLimits()
	limits.LoginPerIP = ratelimit.Policy{}
	limits.LoginPerIdentifier.Limit = 1
	f := limitedAuthFixture(t, stores["memory"], newClock(), httpadapter.WithRateLimits(limits))
	for i := range 40 {
		rec, _ := f.loginFrom(t, "shop.example.com", "203.0.113.9:1", `{"username":"guess`+strconv.Itoa(i)+`","password":"x"}`)
		require.Equal(t, http.StatusUnauthorized, rec.Code, "no limit per IP")
	}
	rec, _ := f.loginFrom(t, "shop.example.com", "203.0.113.9:1", adminLogin())
	require.Equal(t, http.StatusOK, rec.Code)
	rec, _ = f.loginFrom(t, "shop.example.com", "203.0.113.9:1", adminLogin())
	assert.Equal(t, http.StatusTooManyRequests, rec.Code, "1 per minute per identifier")
	assert.Equal(t, "60", rec.Header().Get("Retry-After"))
}

func TestUpdateRateLimitHeaders(t *testing.T) {
	t.Parallel()
	clock := newClock()
	f := newIntegFixture(t, stores["memory"], httpadapter.WithClock(clock.Now))
	body := analyticsBody(f.analytics.AppIntegration.ID, nil)
	for i := range 5 {
		rec, _ := f.request(t, "PUT", analyticsPath(f.analytics.ID), "admin", "shop.example.com", body)
		require.Equal(t, 200, rec.Code, rec.Body.String())
		assert.Equal(t, strconv.Itoa(4-i), rec.Header().Get("RateLimit-Remaining"))
		assert.Equal(t, "5;w=1", rec.Header().Get("RateLimit-Policy"))
	}
	rec, _ := f.request(t, "PUT", gatewayPath(f.gateway.ID), "admin", "shop.example.com", gatewayBody(f.gateway.AppIntegration.ID, nil))
	require.Equal(t, http.StatusTooManyRequests, rec.Code, "one bucket per user for both update routes")
	assert.Equal(t, map[string]string{
		"RateLimit-Limit":     "5",
		"RateLimit-Remaining": "0",
		"RateLimit-Reset":     "1",
		"RateLimit-Policy":    "5;w=1",
		"Retry-After":         "1",
	}, rateHeaders(rec))
	clock.Advance(200 * time.Millisecond)
	rec, _ = f.request(t, "PUT", gatewayPath(f.gateway.ID), "admin", "shop.example.com", gatewayBody(f.gateway.AppIntegration.ID, nil))
	assert.Equal(t, 200, rec.Code, "one update back after 200 ms")
}

// A host behind load balancers in 10.0.0.0/8 that allows 2 list requests
// a minute per brand and client (and keeps the default login and update
// limits): the third request is refused.
func ExampleWithRateLimits() {
	ctx := context.Background()
	store, err := memory.New(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer store.Close()
	app, err := brandbase.New(store, brandbase.Config{SecretKeys: integrations.EphemeralKeyRing()})
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := app.Auth.CreateBrand(ctx, auth.NewBrand{URL: "shop.example.com", Name: "Shop"}); err != nil {
		fmt.Println(err)
		return
	}
	limits := httpadapter.DefaultRateLimits()
	limits.Lists = ratelimit.Policy{Name: "lists", Limit: 2, Per: time.Minute}
	h, err := app.Handler(
		httpadapter.WithRateLimits(limits),
		httpadapter.WithTrustedProxies(netip.MustParsePrefix("10.0.0.0/8")),
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	for range 3 {
		req := httptest.NewRequest("GET", "/api/v1/currencies?PageSize=1", nil)
		req.RemoteAddr = "10.1.2.3:40000" // the load balancer
		req.Header.Set("X-Forwarded-For", "203.0.113.5")
		req.Header.Set("Brand-URL", "shop.example.com")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		fmt.Printf("%d RateLimit-Remaining=%s Retry-After=%s\n",
			rec.Code, rec.Header().Get("RateLimit-Remaining"), rec.Header().Get("Retry-After"))
	}
	// Output:
	// 200 RateLimit-Remaining=1 Retry-After=
	// 200 RateLimit-Remaining=0 Retry-After=
	// 429 RateLimit-Remaining=0 Retry-After=30
}

// TestRoutesAndTheirLimits sends one valid request to every mounted route
// and checks which policies it is counted under: the list routes (whichever
// are mounted, and the OpenAPI document) under Lists, login under LoginPerIP then LoginPerIdentifier
// twice (identifier, then user), refresh under Refresh, the updates under Updates, and every other route under none.
func TestRoutesAndTheirLimits(t *testing.T) {
	t.Parallel()
	lim := &recordingLimiter{}
	f := newIntegFixture(t, stores["memory"], httpadapter.WithLimiter(lim))
	want := map[string][]string{
		"GET /api/v1/currencies":                                    {"lists"},
		"GET /api/v1/countries":                                     {"lists"},
		"GET /api/v1/cities":                                        {"lists"},
		"POST /api/v1/users/auth":                                   {"login-ip", "login-identifier", "login-identifier"},
		"POST /api/v1/users/auth/refresh-auth-key":                  {"refresh-ip"},
		"PUT /api/v1/app-integrations/analytics/{id}":               {"updates"},
		"PUT /api/v1/app-integrations/payment-gateway/{id}":         {"updates"},
		"POST /api/v1/app-integrations/analytics":                   {"updates"},
		"POST /api/v1/app-integrations/payment-gateway":             {"updates"},
		"DELETE /api/v1/app-integrations/analytics/{id}":            {"updates"},
		"DELETE /api/v1/app-integrations/payment-gateway/{id}":      {"updates"},
		"GET /api/v1/app-integrations/smtp":                         nil,
		"GET /api/v1/app-integrations/smtp/{id}":                    nil,
		"POST /api/v1/app-integrations/smtp":                        {"updates"},
		"PUT /api/v1/app-integrations/smtp/{id}":                    {"updates"},
		"DELETE /api/v1/app-integrations/smtp/{id}":                 {"updates"},
		"POST /api/v1/app-integrations/smtp/test":                   {"updates"},
		"GET /api/v1/states":                                        {"lists"},
		"GET /api/v1/timezones":                                     {"lists"},
		"GET /api/v1/languages":                                     {"lists"},
		"DELETE /api/v1/users/{userId}/devices/{deviceId}":          {"updates"},
		"POST /api/v1/users/check-auth-key-available":               {"refresh-ip"},
		"POST /api/v1/users/register":                               {"register-ip"},
		"PUT /api/v1/users/change-password":                         {"login-ip", "login-identifier"},
		"PUT /api/v1/users/{id}/change-password":                    {"updates"},
		"POST /api/v1/users/forgot-password":                        {"password-reset-ip"},
		"POST /api/v1/users/reset-password":                         {"password-reset-ip"},
		"GET /api/v1/brands/by-url":                                 {"lists"},
		"GET /api/v1/openapi.json":                                  {"lists"},
		"POST /api/v1/webhooks":                                     {"updates"},
		"PUT /api/v1/webhooks/{id}":                                 {"updates"},
		"DELETE /api/v1/webhooks/{id}":                              {"updates"},
		"POST /api/v1/webhooks/{id}/rotate-secret":                  {"updates"},
		"POST /api/v1/webhooks/{id}/deliveries/{deliveryId}/replay": {"updates"},
		"GET /api/v1/users":                                         {"lists"},
		"PUT /api/v1/users/{id}":                                    {"updates"},
		"DELETE /api/v1/users/{id}":                                 {"updates"},
		"POST /api/v1/users/{id}/activate":                          {"updates"},
		"POST /api/v1/users/{id}/deactivate":                        {"updates"},
		"POST /api/v1/users/{id}/lock":                              {"updates"},
		"POST /api/v1/users/{id}/unlock":                            {"updates"},
		"POST /api/v1/users/{id}/suspend":                           {"updates"},
		"POST /api/v1/users/{id}/unsuspend":                         {"updates"},
		"POST /api/v1/email-templates":                              {"updates"},
		"PUT /api/v1/email-templates/{id}":                          {"updates"},
		"DELETE /api/v1/email-templates/{id}":                       {"updates"},
	}
	templateID := ""                                                        // the template the POST creates, for the routes of one
	doomedA, doomedP := seedIntegrations(t, f.app.Integrations, f.brand.ID) // the DELETEs' own records
	plain := smtptest.Start(t, smtptest.Options{TLS: smtptest.NoTLS})       // the SMTP test's server, on loopback
	require.NoError(t, f.app.Auth.SetBrandSettings(t.Context(), f.brand.ID, auth.BrandSettings{RegistrationOpen: true}))
	// The reset is of a user of its own, so that it ends no session the
	// other routes use, whatever their order.
	_, err := f.app.Auth.CreateUser(t.Context(), f.brand.ID, auth.NewUser{Username: "resetter",
		EmailAddress: "resetter@shop.example.com", Password: "resetter pass phrase"})
	require.NoError(t, err)
	require.NoError(t, f.app.Auth.RequestPasswordReset(t.Context(), f.brand, auth.PasswordResetRequest{
		EmailAddress: "resetter@shop.example.com", ResetPasswordLink: "https://shop.example.com/reset"}))
	resetLink, err := url.Parse(f.mail.next(t).Link)
	require.NoError(t, err)
	// The administration routes act on users of their own, each in the
	// status its change leaves from.
	targets := userAdminSamples(t, f)
	hook, doomedHook := webhookSamples(t, f)
	// Seeded after the reset's mail left: with a default SMTP integration
	// the brand's mail goes through it, not the host's sender.
	relay, doomedS := seedSMTP(t, f.app.Integrations, f.brand.ID), seedSMTP(t, f.app.Integrations, f.brand.ID)
	limited := 0
	deleteKey := ""
	for _, pattern := range f.handler.(*httpadapter.Handler).Routes() {
		method, path, _ := strings.Cut(pattern, " ")
		body := ""
		switch {
		case pattern == "GET /api/v1/users/statistics":
			path += "?startDate=2026-01-01&endDate=2026-01-02"
		case pattern == "GET /api/v1/users/by-username/{username}":
			path = "/api/v1/users/by-username/viewer"
		case pattern == "GET /api/v1/users/{id}":
			path = "/api/v1/users/" + f.viewer.ID
		case strings.HasPrefix(path, "/api/v1/users/{id}") && path != "/api/v1/users/{id}/change-password":
			target := strings.ToLower(method)
			if rest := strings.TrimPrefix(path, "/api/v1/users/{id}/"); rest != path {
				target = rest
			}
			path = strings.Replace(path, "{id}", targets[target], 1)
			body = `{"username":"sample-put"}`
		case pattern == "DELETE /api/v1/app-integrations/analytics/{id}":
			path = analyticsPath(doomedA.ID)
		case pattern == "DELETE /api/v1/app-integrations/payment-gateway/{id}":
			path = gatewayPath(doomedP.ID)
		case pattern == "DELETE /api/v1/app-integrations/smtp/{id}":
			path = smtpPath(doomedS.ID)
		case pattern == "POST /api/v1/app-integrations/smtp/test":
			body = testBody("127.0.0.1", plain.Port, map[string]any{"useTls": false, "username": nil, "password": nil})
		case strings.HasSuffix(path, "/smtp"):
			body = smtpBody(relay.AppIntegration.ID, map[string]any{"isDefault": false})
		case strings.Contains(path, "/smtp/"):
			path = smtpPath(relay.ID)
			body = smtpBody(relay.AppIntegration.ID, map[string]any{"password": *relay.Password})
		case strings.HasSuffix(path, "/analytics"):
			body = analyticsBody(f.analytics.AppIntegration.ID, map[string]any{"isDefault": false})
		case strings.HasSuffix(path, "/payment-gateway"):
			body = gatewayBody(f.gateway.AppIntegration.ID, map[string]any{"isDefault": false})
		case strings.Contains(path, "/analytics/"):
			path = analyticsPath(f.analytics.ID)
			body = analyticsBody(f.analytics.AppIntegration.ID, nil)
		case strings.Contains(path, "/payment-gateway/"):
			path = gatewayPath(f.gateway.ID)
			body = gatewayBody(f.gateway.AppIntegration.ID, nil)
		case pattern == "DELETE /api/v1/webhooks/{id}":
			path = "/api/v1/webhooks/" + doomedHook
		case strings.HasPrefix(path, "/api/v1/webhooks"):
			path = strings.NewReplacer("{id}", hook, "{deliveryId}", "evt_sample").Replace(path)
			body = `{"url":"https://hooks.example.com/in","eventTypes":["*"]}`
		case pattern == "POST /api/v1/users/auth":
			body = adminLogin()
		case strings.Contains(path, "/{deviceId}"): // as the viewer, its own device
			pair := f.login(t, `{"username":"viewer","password":"viewer password"}`, jsonHeaders("shop.example.com"))
			path = "/api/v1/users/" + f.viewer.ID + "/devices/" + deviceIDByCode(t, f.authFixture, f.viewer.ID, pair.DeviceCode)
			deleteKey = pair.AuthKey
		case strings.Contains(path, "/{userId}/"):
			path = strings.Replace(path, "{userId}", f.admin.ID, 1)
		case strings.HasSuffix(path, "/refresh-auth-key"):
			pair := f.login(t, `{"username":"analyst","password":"analyst password"}`, jsonHeaders("shop.example.com"))
			body = `{"refreshAuthKey":"` + pair.RefreshAuthKey + `"}`
		case path == "/api/v1/users/check-auth-key-available":
			body = `{"authKey":"` + f.keys["viewer"] + `"}`
		case path == "/api/v1/users/register":
			body = `{"username":"limited","password":"a long new password"}`
		case path == "/api/v1/users/change-password":
			body = `{"oldPassword":"analyst password","newPassword":"a fresh passphrase","confirmPassword":"a fresh passphrase"}`
		case path == "/api/v1/users/{id}/change-password":
			path = "/api/v1/users/" + f.viewer.ID + "/change-password"
			body = `{"newPassword":"set by the admin"}`
		case path == "/api/v1/email-templates":
			body = `{"eventId":"password_reset","languageCode":"en","subject":"Reset","body":"<a href=\"{{.link}}\">go</a>"}`
		case strings.HasPrefix(path, "/api/v1/email-templates/{id}"):
			path = strings.Replace(path, "{id}", templateID, 1)
			body = `{"eventId":"password_reset","languageCode":"en","subject":"Reset again","body":"<p>{{.link}}</p>"}`
		case path == "/api/v1/users/forgot-password":
			body = `{"emailAddress":"nobody@shop.example.com","resetPasswordLink":"https://shop.example.com/reset"}`
		case path == "/api/v1/users/reset-password":
			body = `{"emailAddress":"resetter@shop.example.com","token":"` + resetLink.Query().Get("token") + `","newPassword":"reset passphrase"}`
		}
		if method != "PUT" && method != "POST" {
			body = ""
		}
		lim.mu.Lock()
		lim.calls = nil
		lim.mu.Unlock()
		key := f.keys["admin"]
		if pattern == "DELETE /api/v1/users/auth" {
			key = f.keys["viewer"] // logout revokes it
		}
		switch {
		case deleteKey != "":
			key, deleteKey = deleteKey, "" // a key of the device it ends
		case pattern == "PUT /api/v1/users/change-password":
			key = f.keys["analyst"] // it ends the caller's other sessions
		}
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		for k, v := range jsonHeaders("shop.example.com", "Auth-Key", key) {
			req.Header.Set(k, v)
		}
		rec := httptest.NewRecorder()
		f.handler.ServeHTTP(rec, req)
		assert.Less(t, rec.Code, 300, "%s: %s", pattern, rec.Body.String())
		if pattern == "POST /api/v1/email-templates" {
			var e struct{ Data struct{ ID string } }
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &e))
			templateID = e.Data.ID
		}
		var got []string
		for _, c := range lim.calls {
			got = append(got, c.policy.Name)
		}
		assert.Equal(t, want[pattern], got, pattern)
		if want[pattern] != nil {
			limited++
		}
	}
	assert.GreaterOrEqual(t, limited, 4, "currencies, login and both updates at least")
}

// TestLoginRateLimitPerUser checks that a user gets 10 password checks a
// minute whichever identifiers the logins alternate between (username,
// email address, their case), not 10 per spelling; an unknown identifier
// is limited on its own bucket only.
func TestLoginRateLimitPerUser(t *testing.T) {
	t.Parallel()
	for storeName, newStore := range stores {
		t.Run(storeName, func(t *testing.T) {
			t.Parallel()
			clock := newClock()
			f := limitedAuthFixture(t, newStore, clock)
			spellings := []string{
				`{"username":"admin","password":"wrong password"}`,
				`{"emailAddress":"admin@shop.example.com","password":"wrong password"}`,
				`{"username":"ADMIN","password":"wrong password"}`,
				`{"emailAddress":"ADMIN@shop.example.com","password":"wrong password"}`,
			}
			for i := range 10 {
				rec, _ := f.loginFrom(t, "shop.example.com", "198.51.100."+strconv.Itoa(i)+":1", spellings[i%len(spellings)])
				require.Equal(t, http.StatusUnauthorized, rec.Code, "attempt %d", i+1)
				assert.Equal(t, strconv.Itoa(9-i), rec.Header().Get("RateLimit-Remaining"), "attempt %d", i+1)
			}
			for _, body := range []string{
				adminLogin(),
				`{"emailAddress":"admin@shop.example.com","password":"` + adminPassword + `"}`,
				`{"username":"admin","emailAddress":"admin@shop.example.com","password":"` + adminPassword + `"}`,
			} {
				rec, e := f.loginFrom(t, "shop.example.com", "198.51.100.99:1", body)
				require.Equal(t, http.StatusTooManyRequests, rec.Code, body)
				assert.Equal(t, "rate_limited", e.Errors[0].Code)
				assert.Equal(t, "6", rec.Header().Get("Retry-After"), body)
			}
			for i := range 10 {
				rec, _ := f.loginFrom(t, "shop.example.com", "198.51.100.100:1", `{"username":"ghost","password":"x`+strconv.Itoa(i)+`"}`)
				require.Equal(t, http.StatusUnauthorized, rec.Code, "an unknown user: its identifier's bucket, attempt %d", i+1)
			}

			clock.Advance(6 * time.Second)
			rec, _ := f.loginFrom(t, "shop.example.com", "198.51.100.99:1",
				`{"emailAddress":"admin@shop.example.com","password":"`+adminPassword+`"}`)
			assert.Equal(t, http.StatusOK, rec.Code, "one check back after 6 s")
		})
	}
}

// TestRefreshRateLimitPerIP checks the Refresh policy: 30 refreshes a
// minute per client IP, across brands, whatever the keys.
func TestRefreshRateLimitPerIP(t *testing.T) {
	t.Parallel()
	clock := newClock()
	f := limitedAuthFixture(t, stores["memory"], clock)
	refresh := func(f *authFixture, remoteAddr string) *httptest.ResponseRecorder {
		rec, _ := f.postFrom(t, "/api/v1/users/auth/refresh-auth-key", "shop.example.com", remoteAddr, `{"refreshAuthKey":"guess"}`)
		return rec
	}
	for i := range 30 {
		rec := refresh(f, "203.0.113.9:1")
		require.Equal(t, http.StatusUnauthorized, rec.Code, "attempt %d", i+1)
		assert.Equal(t, "30;w=60", rec.Header().Get("RateLimit-Policy"))
		assert.Equal(t, strconv.Itoa(29-i), rec.Header().Get("RateLimit-Remaining"))
	}
	rec := refresh(f, "203.0.113.9:2")
	require.Equal(t, http.StatusTooManyRequests, rec.Code, "31st refresh from the address")
	assert.Equal(t, "2", rec.Header().Get("Retry-After"))
	assert.Equal(t, http.StatusUnauthorized, refresh(f, "203.0.113.10:1").Code, "another address")

	limits := httpadapter.DefaultRateLimits()
	limits.Refresh = ratelimit.Policy{}
	off := limitedAuthFixture(t, stores["memory"], clock, httpadapter.WithRateLimits(limits))
	for range 40 {
		require.Equal(t, http.StatusUnauthorized, refresh(off, "203.0.113.9:1").Code, "a zero Refresh policy turns the limit off")
	}
}

// One RateLimits option may serve several handlers built at once: New fills
// in policy names on a copy of its own (the race detector fails this test
// when it writes to the option's value), and each handler enforces the
// policies as given.
func TestSharedRateLimitsOptionBuildsHandlersConcurrently(t *testing.T) {
	t.Parallel()
	opt := httpadapter.WithRateLimits(httpadapter.RateLimits{
		Lists: ratelimit.Policy{Limit: 1, Per: time.Minute, Burst: 1},
	})
	store, err := memory.New(t.Context())
	require.NoError(t, err)
	t.Cleanup(func() { store.Close() })
	app, err := brandbase.New(store, brandbase.Config{SecretKeys: integrations.EphemeralKeyRing()})
	require.NoError(t, err)
	_, err = app.Auth.CreateBrand(t.Context(), auth.NewBrand{URL: "shop.example.com", Name: "Shop"})
	require.NoError(t, err)

	handlers := make([]http.Handler, 8)
	var wg sync.WaitGroup
	for i := range handlers {
		wg.Go(func() {
			h, err := app.Handler(opt)
			assert.NoError(t, err)
			handlers[i] = h
		})
	}
	wg.Wait()
	for i, h := range handlers {
		require.NotNil(t, h, "handler %d", i)
		codes := make([]int, 2)
		for j := range codes {
			req := httptest.NewRequest("GET", "/api/v1/currencies?PageSize=1&Code=US"+strconv.Itoa(j), nil)
			req.Header.Set("Brand-URL", "shop.example.com")
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			codes[j] = rec.Code
		}
		assert.Equal(t, []int{http.StatusOK, http.StatusTooManyRequests}, codes, "handler %d keeps its own bucket of one", i)
	}
}

// WithSharedLimiter sends the named policies to the shared limiter and
// keeps the others in the handler's own buckets; WithLimiter replaces both.
func TestSharedLimiterTakesTheNamedPolicies(t *testing.T) {
	t.Parallel()
	d := httpadapter.DefaultRateLimits()
	clock := newClock()
	shared := &recordingLimiter{}
	f := limitedAuthFixture(t, stores["memory"], clock,
		httpadapter.WithSharedLimiter(shared, d.LoginPerIdentifier.Name, d.LoginPerIP.Name, "no-such-policy"))

	rec, _ := f.loginFrom(t, "shop.example.com", "198.51.100.7:1", adminLogin())
	require.Equal(t, http.StatusOK, rec.Code)
	rec, _ = f.listFrom(t, "shop.example.com", "198.51.100.7:1")
	require.Equal(t, http.StatusOK, rec.Code)
	assert.Equal(t, "100", rec.Header().Get("RateLimit-Limit"), "the list limit stays in the handler's memory")

	shared.mu.Lock()
	var policies []string
	for _, c := range shared.calls {
		policies = append(policies, c.policy.Name)
	}
	shared.mu.Unlock()
	assert.ElementsMatch(t, []string{d.LoginPerIdentifier.Name, d.LoginPerIdentifier.Name, d.LoginPerIP.Name}, policies,
		"the login limits (identifier, user, IP) go to the shared limiter, the list limit does not")

	replaced := &recordingLimiter{}
	f = limitedAuthFixture(t, stores["memory"], clock,
		httpadapter.WithSharedLimiter(shared, d.Lists.Name), httpadapter.WithLimiter(replaced))
	before := len(shared.calls)
	rec, _ = f.listFrom(t, "shop.example.com", "198.51.100.8:1")
	require.Equal(t, http.StatusOK, rec.Code)
	assert.Len(t, shared.calls, before, "WithLimiter replaces the shared limiter too")
	assert.Len(t, replaced.calls, 1)
}
