package integrations

import (
	"net"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/brandbase/brandbase/envelope"
)

// Length limits of the text fields, in characters.
const (
	maxIDLen     = 100
	maxNameLen   = 200
	maxURLLen    = 2048
	maxSecretLen = 4096
	maxTextLen   = 4000
	maxMetaLen   = 10000
)

// requiredText checks a required single-line field that the request may not
// have sent (nil): absent → required, blank → too_short (min length 1),
// longer than max → too_long. It returns the trimmed value.
func requiredText(v *envelope.Validation, field string, p *string, max int) string {
	if p == nil {
		v.Add(field, "required", "The field "+field+" is required.")
		return ""
	}
	s := strings.TrimSpace(*p)
	checkLine(v, field, s, max)
	return s
}

// requiredString checks a required single-line field of an in-process
// input, where empty means not given: blank → required. It returns the
// trimmed value.
func requiredString(v *envelope.Validation, field, s string, max int) string {
	s = strings.TrimSpace(s)
	if s == "" {
		v.Add(field, "required", "The field "+field+" is required.")
		return s
	}
	checkLine(v, field, s, max)
	return s
}

// checkLine checks a single-line value: not blank, at most max characters,
// no control characters.
func checkLine(v *envelope.Validation, field, s string, max int) {
	switch {
	case s == "":
		v.Add(field, "too_short", "The field "+field+" must have at least 1 character.")
	case utf8.RuneCountInString(s) > max:
		tooLong(v, field, max)
	case strings.IndexFunc(s, unicode.IsControl) >= 0:
		v.Add(field, "invalid_format", "The field "+field+" must not contain control characters.")
	}
}

// optionalText returns an optional free-text field: nil when not sent or
// empty, a too_long field error past max characters, an invalid_format
// one for text no store can hold (envelope.Validation.Text).
func optionalText(v *envelope.Validation, field string, p *string, max int) *string {
	if p == nil || *p == "" {
		return nil
	}
	if utf8.RuneCountInString(*p) > max {
		tooLong(v, field, max)
	} else {
		v.Text(field, *p)
	}
	s := *p
	return &s
}

// optionalURL returns an optional link: nil when not sent or blank, else the
// trimmed value, which must be an absolute http(s) URL; with requireHTTPS,
// http is allowed only for localhost.
func optionalURL(v *envelope.Validation, field string, p *string, requireHTTPS bool) *string {
	if p == nil || strings.TrimSpace(*p) == "" {
		return nil
	}
	s := strings.TrimSpace(*p)
	checkURL(v, field, s, requireHTTPS)
	return &s
}

// checkURL checks that s is an absolute http(s) URL with a host (code
// invalid_url), at most maxURLLen characters (too_long), and, with
// requireHTTPS, https unless the host is localhost (https_required).
func checkURL(v *envelope.Validation, field, s string, requireHTTPS bool) {
	if utf8.RuneCountInString(s) > maxURLLen {
		tooLong(v, field, maxURLLen)
		return
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || u.Hostname() == "" || u.User != nil || u.Opaque != "" ||
		strings.IndexFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 {
		v.Add(field, "invalid_url", "The field "+field+" must be an absolute http or https URL.")
		return
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
	case "http":
		if requireHTTPS && !isLocalhost(u.Hostname()) {
			v.Add(field, "https_required", "The field "+field+" must be an https URL (http is allowed in test mode or for localhost).")
		}
	default:
		v.Add(field, "invalid_url", "The field "+field+" must be an absolute http or https URL.")
	}
}

// isLocalhost reports whether host names the local machine: localhost, a
// *.localhost name or a loopback address.
func isLocalhost(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// optionalSecret checks a secret the request may have sent: nil when not
// sent; too_long past maxSecretLen. Secrets are kept verbatim (not trimmed).
func optionalSecret(v *envelope.Validation, field string, p *string) *string {
	if p != nil && utf8.RuneCountInString(*p) > maxSecretLen {
		tooLong(v, field, maxSecretLen)
	}
	return p
}

// parseStatus returns the canonical status for p: nil when not sent, an
// invalid_enum field error for anything but Active or Inactive (in any
// case).
func parseStatus(v *envelope.Validation, field string, p *Status) *Status {
	if p == nil {
		return nil
	}
	st, ok := ParseStatus(string(*p))
	if !ok {
		v.Add(field, "invalid_enum", "The field "+field+" must be Active or Inactive.")
		return nil
	}
	return &st
}

func tooLong(v *envelope.Validation, field string, max int) {
	v.Add(field, "too_long", "The field "+field+" is longer than the limit of "+strconv.Itoa(max)+" characters.")
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
