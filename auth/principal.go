package auth

import (
	"slices"
	"time"
)

// Permission names something a user may do.
type Permission string

// The permissions brandbase checks.
const (
	PermAnalyticsWrite      Permission = "integrations.analytics.write"
	PermPaymentGatewayWrite Permission = "integrations.payment-gateway.write"
	// PermAll grants every permission.
	PermAll Permission = "*"
)

// Principal is the identity an auth key proves: a user of one brand and the
// permissions the user holds. [Service.Authenticate] returns it; its
// Permissions slice is the caller's own copy.
type Principal struct {
	UserID      string
	BrandID     string
	Username    string
	Permissions []Permission
	// KeyID identifies the key pair that authenticated the request.
	KeyID string
	// DeviceID is the device the key pair was issued on, or "".
	DeviceID string
	// ExpiresAt is when the authenticating key expires.
	ExpiresAt time.Time
}

// Can reports whether p holds perm (or PermAll).
func (p Principal) Can(perm Permission) bool {
	return slices.Contains(p.Permissions, perm) || slices.Contains(p.Permissions, PermAll)
}

// CodeUnauthenticated is the code of every failed key check (HTTP 401).
const CodeUnauthenticated = "unauthenticated"
