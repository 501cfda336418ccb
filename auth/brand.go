package auth

import (
	"net"
	"strings"
	"time"
	"unicode"

	"github.com/brandbase/brandbase/envelope"
)

// Status is the status of a brand or a user.
type Status string

// The statuses of brands and users.
const (
	StatusActive   Status = "Active"
	StatusInactive Status = "Inactive"
)

// parseStatus returns the canonical status for s, matched case-insensitively.
func parseStatus(s string) (Status, bool) {
	switch {
	case strings.EqualFold(s, string(StatusActive)):
		return StatusActive, true
	case strings.EqualFold(s, string(StatusInactive)):
		return StatusInactive, true
	}
	return "", false
}

// Brand is a tenant of the host application, identified by its domain.
type Brand struct {
	// ID is the brand's identifier, assigned at creation.
	ID string `json:"id"`
	// URL is the brand's normalised domain (see [NormalizeBrandURL]), unique
	// among brands.
	URL string `json:"url"`
	// Name is the display name.
	Name string `json:"name"`
	// Status is Active or Inactive; an inactive brand is refused by
	// [Service.ResolveBrand].
	Status Status `json:"status"`
	// DefaultCurrency is the ISO 4217 code that the currency list marks
	// isDefault for this brand.
	DefaultCurrency string `json:"defaultCurrency"`
	// CreatedAt is when the brand was created.
	CreatedAt time.Time `json:"createdAt"`
}

// NewBrand holds what [Service.CreateBrand] needs.
type NewBrand struct {
	// URL is the brand's domain, in any form NormalizeBrandURL accepts.
	// Required.
	URL string
	// Name is the display name. Required.
	Name string
	// DefaultCurrency is a three-letter currency code; "USD" when empty.
	DefaultCurrency string
	// Status defaults to Active.
	Status Status
}

// DefaultCurrency is the default currency of a brand that names none.
const DefaultCurrency = "USD"

// NormalizeBrandURL turns a Brand-URL value into the brand's lookup key: it
// trims space, drops a scheme, user info, path, query and fragment, lowercases
// the host and removes a trailing dot; a port is kept. It returns ok=false
// when nothing usable is left, the host ends in two dots, or it contains
// characters no domain can hold (space, control characters, punctuation). An
// accepted result normalises to itself.
//
//	NormalizeBrandURL("https://Shop.Example.com./cart") == "shop.example.com"
func NormalizeBrandURL(raw string) (string, bool) {
	s := strings.TrimSpace(raw)
	if i := strings.Index(s, "://"); i >= 0 {
		s = s[i+3:]
	} else if strings.HasPrefix(s, "//") {
		s = s[2:]
	}
	if i := strings.IndexAny(s, "/?#"); i >= 0 {
		s = s[:i]
	}
	if i := strings.LastIndexByte(s, '@'); i >= 0 {
		s = s[i+1:]
	}
	host, port := s, ""
	if h, p, err := net.SplitHostPort(s); err == nil {
		host, port = h, p
		if port == "" {
			return "", false
		}
		for _, c := range port {
			if c < '0' || c > '9' {
				return "", false
			}
		}
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "" || len(host) > 253 || strings.HasSuffix(host, ".") {
		return "", false // nothing left, too long, or an empty last label ("a..")
	}
	for _, c := range host {
		ok := c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == ':' ||
			c >= 0x80 && !unicode.IsSpace(c) && !unicode.IsControl(c)
		if !ok {
			return "", false
		}
	}
	if port != "" {
		return net.JoinHostPort(host, port), true
	}
	return host, true
}

// validate checks a NewBrand and fills its defaults.
func (nb *NewBrand) validate() error {
	var v envelope.Validation
	url, ok := NormalizeBrandURL(nb.URL)
	switch {
	case strings.TrimSpace(nb.URL) == "":
		v.Add("url", "required", "The brand URL is required.")
	case !ok:
		v.Add("url", "invalid_url", "The brand URL is not a valid domain.")
	}
	nb.URL = url
	nb.Name = strings.TrimSpace(nb.Name)
	if nb.Name == "" {
		v.Add("name", "required", "The brand name is required.")
	} else {
		v.Text("name", nb.Name)
	}
	nb.DefaultCurrency = strings.ToUpper(strings.TrimSpace(nb.DefaultCurrency))
	if nb.DefaultCurrency == "" {
		nb.DefaultCurrency = DefaultCurrency
	} else if !isCurrencyCode(nb.DefaultCurrency) {
		v.Add("defaultCurrency", "invalid_currency", "The default currency must be a three-letter code.")
	}
	if nb.Status == "" {
		nb.Status = StatusActive
	} else if s, ok := parseStatus(string(nb.Status)); ok {
		nb.Status = s
	} else {
		v.Add("status", "invalid_enum", "The status must be Active or Inactive.")
	}
	return v.Err()
}

func isCurrencyCode(s string) bool {
	if len(s) < 3 || len(s) > 5 {
		return false
	}
	for _, c := range s {
		if (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}
