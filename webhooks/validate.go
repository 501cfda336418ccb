package webhooks

import (
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/brandbase/brandbase/envelope"
)

// Limits of an endpoint's fields.
const (
	maxURL         = 2000
	maxDescription = 500
	maxEventTypes  = 100
	maxEventType   = 100
)

// valid is an Input after checking: what a record takes.
type valid struct {
	url         string
	eventTypes  []string
	enabled     bool
	description string
}

// check validates in: one field error per bad field (KindInvalid).
func (s *Service) check(in Input) (valid, error) {
	var errs []envelope.ErrorItem
	u, item := s.checkURL(in.URL)
	if item != nil {
		errs = append(errs, *item)
	}
	types, items := checkEventTypes(in.EventTypes)
	errs = append(errs, items...)
	switch {
	case !utf8.ValidString(in.Description) || strings.ContainsRune(in.Description, 0):
		errs = append(errs, envelope.Field("description", "invalid_format", "The description must be UTF-8 text without NUL."))
	case utf8.RuneCountInString(in.Description) > maxDescription:
		errs = append(errs, envelope.Field("description", "too_long", "The description is at most 500 characters."))
	}
	if len(errs) > 0 {
		return valid{}, envelope.Invalid("The webhook endpoint is invalid.", errs...)
	}
	enabled := in.Enabled == nil || *in.Enabled
	return valid{url: u, eventTypes: types, enabled: enabled, description: in.Description}, nil
}

// checkURL checks an endpoint's URL: absolute https (http only to a
// loopback host), no user information, and, when the host is an address,
// one the address policy allows (a name is checked on each connection).
func (s *Service) checkURL(raw string) (string, *envelope.ErrorItem) {
	bad := func(code, msg string) (string, *envelope.ErrorItem) {
		it := envelope.Field("url", code, msg)
		return "", &it
	}
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return bad("required", "The url is required.")
	}
	if len(raw) > maxURL {
		return bad("too_long", "The url is at most 2000 characters.")
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Hostname() == "" || u.Opaque != "" {
		return bad("invalid_url", "The url must be an absolute http(s) URL.")
	}
	if u.User != nil {
		return bad("invalid_url", "The url must not carry a user name or password.")
	}
	u.Scheme = strings.ToLower(u.Scheme)
	u.Fragment, u.RawFragment = "", ""
	host := u.Hostname()
	addr, isAddr := parseHost(host)
	switch u.Scheme {
	case "https":
	case "http":
		if !isLoopbackHost(host) {
			return bad("https_required", "The url must be https; plain http only to a loopback host (localhost, 127.0.0.1, ::1).")
		}
	default:
		return bad("invalid_url", "The url must be an absolute http(s) URL.")
	}
	if isAddr {
		if err := s.policy.Check(addr); err != nil {
			return bad("forbidden_address", "The url's address is not one the service may connect to (loopback, private and link-local addresses need the host's leave).")
		}
	}
	return u.String(), nil
}

// parseHost returns host as an address, when it is one.
func parseHost(host string) (netip.Addr, bool) {
	a, err := netip.ParseAddr(host)
	return a, err == nil
}

// isLoopbackHost reports whether host is localhost (or a name under it) or
// a loopback address.
func isLoopbackHost(host string) bool {
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// checkEventTypes checks and normalises the event types: at least one, each
// of a-z 0-9 . _ - (or "*"), sorted without repeats.
func checkEventTypes(types []string) ([]string, []envelope.ErrorItem) {
	if len(types) == 0 {
		return nil, []envelope.ErrorItem{envelope.Field("eventTypes", "required", "At least one event type is required (\"*\" for all).")}
	}
	if len(types) > maxEventTypes {
		return nil, []envelope.ErrorItem{envelope.Field("eventTypes", "too_long", "At most 100 event types.")}
	}
	out := make([]string, 0, len(types))
	for _, t := range types {
		t = strings.TrimSpace(t)
		if !validEventType(t) {
			return nil, []envelope.ErrorItem{envelope.Field("eventTypes", "invalid_format",
				"An event type is \"*\" or 1 to 100 characters of a-z 0-9 . _ - (such as user.created).")}
		}
		out = append(out, t)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

func validEventType(t string) bool {
	if t == "*" {
		return true
	}
	if t == "" || len(t) > maxEventType {
		return false
	}
	for _, c := range []byte(t) {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// Takes reports whether an endpoint of eventTypes takes events of topic.
func Takes(eventTypes []string, topic string) bool {
	return slices.Contains(eventTypes, "*") || slices.Contains(eventTypes, topic)
}
