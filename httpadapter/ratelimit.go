package httpadapter

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"maps"
	"math"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/ratelimit"
)

// Limiter decides whether one more request of a key may proceed under a
// policy at time now. Buckets are identified by (p.Name, key). The default
// is an in-memory [ratelimit.Limiter]; a host that runs several instances
// may replace it ([WithLimiter]) with one whose state is shared.
//
// When Allow returns an error the adapter logs it and lets the request
// through: an outage of a shared limiter does not become an outage of the
// API.
type Limiter interface {
	Allow(ctx context.Context, key string, p ratelimit.Policy, now time.Time) (ratelimit.Decision, error)
}

var _ Limiter = (*ratelimit.Limiter)(nil)

// RateLimits are the rate-limit policies of the routes. A zero Policy turns
// that limit off; an empty Name is filled with the name DefaultRateLimits
// uses for the field.
type RateLimits struct {
	// LoginPerIdentifier limits POST /api/v1/users/auth per brand and
	// username or email address (case-insensitive), and, apart, per user
	// the identifier names: a user gets this many password checks
	// whichever spellings (username, email address) the logins use. A
	// login from a device the user has logged in from before (its
	// X-Device-Code) is charged to a bucket of that device instead, under
	// this same policy: the device allowance.
	LoginPerIdentifier ratelimit.Policy
	// LoginPerIP limits POST /api/v1/users/auth per client IP, across
	// brands.
	LoginPerIP ratelimit.Policy
	// Refresh limits POST /api/v1/users/auth/refresh-auth-key per client
	// IP, across brands.
	Refresh ratelimit.Policy
	// Lists limits the currency, country and city lists together, per
	// brand and client IP.
	Lists ratelimit.Policy
	// Updates limits the integration updates (the PUT routes) per
	// authenticated user.
	Updates ratelimit.Policy
	// Register limits POST /api/v1/users/register per client IP, across
	// brands.
	Register ratelimit.Policy
	// PasswordReset limits POST /api/v1/users/forgot-password and
	// reset-password together, per client IP, across brands.
	PasswordReset ratelimit.Policy
}

// DefaultRateLimits returns the policies the adapter applies unless told
// otherwise (docs/rate-limits.md): login 10 per minute per (brand, identifier), per
// user and 30 per minute per client IP; refresh 30 per minute per client
// IP; lists 50 per second with bursts of 100 per
// (brand, client IP); updates 5 per second per user; sign-up 10 an hour
// per client IP; password-reset requests and resets, together, 10 an hour
// per client IP.
func DefaultRateLimits() RateLimits {
	return RateLimits{
		LoginPerIdentifier: ratelimit.Policy{Name: "login-identifier", Limit: 10, Per: time.Minute},
		LoginPerIP:         ratelimit.Policy{Name: "login-ip", Limit: 30, Per: time.Minute},
		Refresh:            ratelimit.Policy{Name: "refresh-ip", Limit: 30, Per: time.Minute},
		Lists:              ratelimit.Policy{Name: "lists", Limit: 50, Per: time.Second, Burst: 100},
		Updates:            ratelimit.Policy{Name: "updates", Limit: 5, Per: time.Second},
		Register:           ratelimit.Policy{Name: "register-ip", Limit: 10, Per: time.Hour},
		PasswordReset:      ratelimit.Policy{Name: "password-reset-ip", Limit: 10, Per: time.Hour},
	}
}

// all returns pointers to every policy of l with its default name.
func (l *RateLimits) all() []namedPolicy {
	d := DefaultRateLimits()
	return []namedPolicy{
		{&l.LoginPerIdentifier, d.LoginPerIdentifier.Name},
		{&l.LoginPerIP, d.LoginPerIP.Name},
		{&l.Refresh, d.Refresh.Name},
		{&l.Lists, d.Lists.Name},
		{&l.Updates, d.Updates.Name},
		{&l.Register, d.Register.Name},
		{&l.PasswordReset, d.PasswordReset.Name},
	}
}

type namedPolicy struct {
	p           *ratelimit.Policy
	defaultName string
}

// WithRateLimits replaces the default policies (see [DefaultRateLimits])
// with l. New fails with a KindInvalid error (code invalid_rate_policy) when
// a policy of l is invalid or two share a name.
func WithRateLimits(l RateLimits) Option {
	return func(h *Handler) { h.rl.limits = &l }
}

// WithoutRateLimits turns rate limiting off (for load tests, or a host that
// limits in front of the adapter).
func WithoutRateLimits() Option {
	return WithRateLimits(RateLimits{})
}

// WithLimiter makes the adapter keep its buckets in l instead of the
// default in-memory [ratelimit.Limiter]. A nil l keeps the default.
func WithLimiter(l Limiter) Option {
	return func(h *Handler) { h.rl.limiter = l }
}

// WithSharedLimiter keeps the buckets of the named policies in shared, a
// limiter that every instance of a host shares (storage/postgres is one),
// so that those limits hold across instances; every other policy keeps its
// buckets in this handler's memory, as by default. A [WithLimiter] replaces
// both.
func WithSharedLimiter(shared Limiter, policies ...string) Option {
	return func(h *Handler) {
		h.rl.shared = shared
		h.rl.sharedPolicies = append([]string(nil), policies...)
	}
}

// WithTrustedProxies names the reverse proxies in front of the adapter.
// Without it the client IP of a request is its RemoteAddr and
// X-Forwarded-For is ignored. With it, a request whose RemoteAddr is in one
// of the prefixes has the right-most address of X-Forwarded-For that is not
// in them as its client IP.
func WithTrustedProxies(prefixes ...netip.Prefix) Option {
	return func(h *Handler) {
		for _, p := range prefixes {
			h.rl.trusted = append(h.rl.trusted, p.Masked())
		}
	}
}

// WithClock sets the clock the adapter reads for rate limiting and for the
// time zones' current offsets (GET /api/v1/timezones); time.Now when not
// given or nil.
func WithClock(now func() time.Time) Option {
	return func(h *Handler) {
		if now != nil {
			h.rl.now = now
		}
	}
}

// rateLimiting is the rate-limit configuration of a Handler.
type rateLimiting struct {
	limits  *RateLimits // nil: DefaultRateLimits
	limiter Limiter
	// shared keeps the buckets of sharedPolicies when limiter is nil.
	shared         Limiter
	sharedPolicies []string
	trusted        []netip.Prefix
	now            func() time.Time
}

// init fills in the defaults once the options are applied, and checks the
// policies: an invalid policy or two policies of one name are a KindInvalid
// error of code invalid_rate_policy.
func (rl *rateLimiting) init() error {
	if rl.limits == nil {
		d := DefaultRateLimits()
		rl.limits = &d
	} else {
		// A copy of its own: the defaults filled in below must not write to
		// the RateLimits of an Option that several handlers share.
		l := *rl.limits
		rl.limits = &l
	}
	if rl.now == nil {
		rl.now = time.Now
	}
	names := map[string]bool{}
	for _, np := range rl.limits.all() {
		if np.p.IsZero() {
			continue
		}
		if np.p.Name == "" {
			np.p.Name = np.defaultName
		}
		if err := np.p.Validate(); err != nil {
			return fmt.Errorf("httpadapter: %w", err)
		}
		if names[np.p.Name] {
			return fmt.Errorf("httpadapter: %w", envelope.New(envelope.KindInvalid, "invalid_rate_policy",
				"Two rate-limit policies are named "+strconv.Quote(np.p.Name)+"."))
		}
		names[np.p.Name] = true
	}
	if rl.limiter == nil && len(names) > 0 {
		m := newPolicyLimiters(slices.Collect(maps.Keys(names)), ratelimit.Config{})
		for _, n := range rl.sharedPolicies {
			if rl.shared != nil && names[n] {
				m[n] = rl.shared
			}
		}
		rl.limiter = m
	}
	return nil
}

// policyLimiters is the default Limiter: one ratelimit.Limiter, with its
// own bound on buckets, per policy (or the shared limiter, for the
// policies of WithSharedLimiter). A flood of keys under one policy (lists
// from many addresses, say) then evicts only that policy's buckets, never
// those of another (the per-account login limit).
type policyLimiters map[string]Limiter

// newPolicyLimiters returns a limiter per policy name, each built with cfg.
func newPolicyLimiters(names []string, cfg ratelimit.Config) policyLimiters {
	m := make(policyLimiters, len(names))
	for _, n := range names {
		m[n] = ratelimit.New(cfg)
	}
	return m
}

// Allow takes one request of key under p in p's own limiter.
func (m policyLimiters) Allow(ctx context.Context, key string, p ratelimit.Policy, now time.Time) (ratelimit.Decision, error) {
	l, ok := m[p.Name]
	if !ok {
		return ratelimit.Decision{}, fmt.Errorf("httpadapter: no limiter for policy %q", p.Name)
	}
	return l.Allow(ctx, key, p, now)
}

// limitScope says what a route's limit is keyed on.
type limitScope int

const (
	// limitLists: the Lists policy per (brand, client IP); inside withBrand.
	limitLists limitScope = iota + 1
	// limitLoginIP: the LoginPerIP policy per client IP.
	limitLoginIP
	// limitUpdates: the Updates policy per user; inside withAuthKey.
	limitUpdates
	// limitRefreshIP: the Refresh policy per client IP.
	limitRefreshIP
	// limitCheckKeyIP: the Refresh policy per client IP, in buckets of
	// its own (checking keys does not spend the refresh budget).
	limitCheckKeyIP
	// limitRegisterIP: the Register policy per client IP.
	limitRegisterIP
	// limitResetIP: the PasswordReset policy per client IP.
	limitResetIP
	// limitPasswordChange: the login limits, charged by the handler once
	// it knows the user (limitPasswordCheck); documented, not applied by
	// rateLimited.
	limitPasswordChange
)

// rateLimited wraps the handler of a route with the limit of scope. When
// that limit is off it returns next itself. It runs inside withBrand (and
// inside withAuthKey for limitUpdates), as mount places it for the limit
// a route declares in the route table.
func (h *Handler) rateLimited(scope limitScope, next http.HandlerFunc) http.HandlerFunc {
	var p ratelimit.Policy
	switch scope {
	case limitLists:
		p = h.rl.limits.Lists
	case limitLoginIP:
		p = h.rl.limits.LoginPerIP
	case limitUpdates:
		p = h.rl.limits.Updates
	case limitRefreshIP, limitCheckKeyIP:
		p = h.rl.limits.Refresh
	case limitRegisterIP:
		p = h.rl.limits.Register
	case limitResetIP:
		p = h.rl.limits.PasswordReset
	}
	if p.IsZero() {
		return next
	}
	return func(w http.ResponseWriter, r *http.Request) {
		if h.limit(w, r, p, h.limitKey(scope, r)) {
			next(w, r)
		}
	}
}

// limitKey returns the bucket key of r under scope.
func (h *Handler) limitKey(scope limitScope, r *http.Request) string {
	ctx := r.Context()
	if scope == limitUpdates {
		if id := principalFrom(ctx).UserID; id != "" {
			return id
		}
	}
	ip := h.rl.clientIP(r)
	switch scope {
	case limitLoginIP, limitRefreshIP, limitRegisterIP, limitResetIP:
		return ip
	case limitCheckKeyIP:
		return "check-auth-key " + ip
	}
	return brandFrom(ctx).ID + " " + ip
}

// limitLogin applies the LoginPerIdentifier limit to login request req in
// the request's brand, twice: keyed on the identifier auth.Service.Login
// looks the user up by (the username, or the email address when there is
// no username, folded with auth.FoldKey), then, when that identifier names
// a user (auth.Service.LoginUserID, one store lookup, no hashing), keyed on
// the user. Both are charged before Login checks the password, so a user
// gets at most the policy's password checks whichever spellings the logins
// use, concurrent ones included. A login whose X-Device-Code names a
// device the user has logged in from before (auth.Service.KnownLoginDevice)
// is charged to a bucket of that device instead, and to neither of the
// others: its allowance of its own (docs/authentication.md). It answers
// 429 and returns false when the request is refused; the login handler
// calls it once the body is decoded:
//
//	if !h.limitLogin(w, r, req) {
//		return
//	}
//
// A failed lookup is logged (at DEBUG when the store is unavailable: the
// store logs its outage itself) and lets the request through to Login,
// which meets the same store.
func (h *Handler) limitLogin(w http.ResponseWriter, r *http.Request, req auth.LoginRequest) bool {
	p := h.rl.limits.LoginPerIdentifier
	if p.IsZero() {
		return true
	}
	ctx := r.Context()
	brand := brandFrom(ctx)
	var userID string
	var err error
	looked := false
	if code := strings.TrimSpace(req.Device.Code); code != "" {
		// The device allowance: a login from a device the user has logged
		// in from before is charged to that device's bucket only, so that
		// guesses from elsewhere, which exhaust the identifier's and the
		// user's buckets, do not lock the owner out.
		userID, err = h.svc.Auth.LoginUserID(ctx, brand, req)
		looked = err == nil
		known := false
		if err == nil && userID != "" {
			known, err = h.svc.Auth.KnownLoginDevice(ctx, userID, code)
		}
		if err != nil {
			h.log.Log(ctx, faultLevel(err), "login device lookup failed, device allowance skipped", "error", err)
		}
		if known {
			return h.limit(w, r, p, loginDeviceKey(userID, code))
		}
	}
	if !h.limit(w, r, p, loginKey(brand.ID, req)) {
		return false
	}
	if !looked {
		userID, err = h.svc.Auth.LoginUserID(ctx, brand, req)
	}
	if err != nil {
		h.log.Log(ctx, faultLevel(err), "login user lookup failed, per-user limit skipped", "error", err)
		return true
	}
	if userID == "" {
		return true
	}
	return h.limit(w, r, p, loginUserKey(userID))
}

// loginDeviceKey is the LoginPerIdentifier bucket key of a user's known
// device: the user and a digest of the device's code.
func loginDeviceKey(userID, code string) string {
	sum := sha256.Sum256([]byte(code))
	return "device " + userID + " " + base64.RawURLEncoding.EncodeToString(sum[:16])
}

// loginUserKey is the LoginPerIdentifier bucket key of a user: user IDs are
// unique across brands, and the prefix keeps them apart from the
// identifier keys of loginKey.
func loginUserKey(userID string) string {
	return "user " + userID
}

// loginKey is the LoginPerIdentifier bucket key of req in a brand: the
// brand and a digest of the folded identifier, so that a bucket costs the
// same few bytes whatever the body sent.
func loginKey(brandID string, req auth.LoginRequest) string {
	id := req.Username
	if strings.TrimSpace(id) == "" {
		id = req.EmailAddress
	}
	sum := sha256.Sum256([]byte(auth.FoldKey(id)))
	return brandID + " " + base64.RawURLEncoding.EncodeToString(sum[:16])
}

// errRateLimited is the answer to a refused request.
var errRateLimited = envelope.New(envelope.KindRateLimited, "rate_limited",
	"Too many requests: retry after the number of seconds in the Retry-After header.")

// limit takes one request of key under p. It sets the RateLimit-* headers
// (keeping those of an earlier policy of this request that has fewer
// requests remaining), and when the request is refused it answers 429
// rate_limited with Retry-After and returns false. A failing limiter is
// logged (at DEBUG when it is unavailable: a shared limiter's store logs
// its outage itself) and the request let through.
func (h *Handler) limit(w http.ResponseWriter, r *http.Request, p ratelimit.Policy, key string) bool {
	d, err := h.rl.limiter.Allow(r.Context(), key, p, h.rl.now())
	if err != nil {
		h.log.Log(r.Context(), faultLevel(err), "rate limiter failed, request let through",
			"policy", p.Name, "path", r.URL.Path, "error", err)
		return true
	}
	hd := w.Header()
	if prev, err := strconv.Atoi(hd.Get("RateLimit-Remaining")); err != nil || !d.Allowed || d.Remaining < prev {
		hd.Set("RateLimit-Limit", strconv.Itoa(d.Limit))
		hd.Set("RateLimit-Remaining", strconv.Itoa(d.Remaining))
		hd.Set("RateLimit-Reset", strconv.Itoa(seconds(d.Reset)))
		hd.Set("RateLimit-Policy", strconv.Itoa(d.Limit)+";w="+strconv.Itoa(seconds(p.Window())))
	}
	if d.Allowed {
		return true
	}
	hd.Set("Retry-After", strconv.Itoa(max(1, seconds(d.RetryAfter))))
	l := h.rl.limits
	h.tel.Refused(r.Context(), p.Name, p.Name == l.LoginPerIP.Name || p.Name == l.LoginPerIdentifier.Name)
	h.fail(w, r, errRateLimited)
	return false
}

// seconds returns d in whole seconds, rounded up (after rounding to the
// millisecond, so that float noise never adds a second).
func seconds(d time.Duration) int {
	return int(math.Ceil(d.Round(time.Millisecond).Seconds()))
}

// clientIP returns the client address the limits of r are keyed on: the
// RemoteAddr, or, when it is a trusted proxy, the right-most untrusted
// address of X-Forwarded-For. An IPv6 client is keyed on its /64, the block
// one subscriber holds. A RemoteAddr that is not an IP is used as it is.
func (rl *rateLimiting) clientIP(r *http.Request) string {
	addr, ok := parseAddr(r.RemoteAddr)
	if !ok {
		return r.RemoteAddr
	}
	if rl.trusts(addr) {
		addr = rl.forwardedFor(r.Header.Values("X-Forwarded-For"), addr)
	}
	if addr.Is4() {
		return addr.String()
	}
	return netip.PrefixFrom(addr, 64).Masked().String()
}

// forwardedFor walks the X-Forwarded-For hops from the right, starting from
// the trusted proxy peer, and returns the first address that is not
// trusted. A hop that does not parse ends the walk at the last address read;
// when every hop is trusted, the left-most is the client.
func (rl *rateLimiting) forwardedFor(values []string, peer netip.Addr) netip.Addr {
	client := peer
	for i := len(values) - 1; i >= 0; i-- {
		rest := values[i]
		for rest != "" {
			hop := rest
			if j := strings.LastIndexByte(rest, ','); j >= 0 {
				hop, rest = rest[j+1:], rest[:j]
			} else {
				rest = ""
			}
			hop = strings.TrimSpace(hop)
			if hop == "" {
				continue
			}
			a, ok := parseAddr(hop)
			if !ok {
				return client
			}
			client = a
			if !rl.trusts(a) {
				return a
			}
		}
	}
	return client
}

// trusts reports whether a is in a trusted proxy prefix.
func (rl *rateLimiting) trusts(a netip.Addr) bool {
	for _, p := range rl.trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// parseAddr reads an IP address with or without a port ("1.2.3.4:80",
// "[::1]:80", "::1", "[::1]"), without its zone, IPv4-mapped IPv6 as IPv4.
func parseAddr(s string) (netip.Addr, bool) {
	var a netip.Addr
	if ap, err := netip.ParseAddrPort(s); err == nil {
		a = ap.Addr()
	} else if a, err = netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")); err != nil {
		return netip.Addr{}, false
	}
	return a.WithZone("").Unmap(), true
}
