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
	// PermSMTPWrite lets a user create, change and delete the brand's SMTP
	// integrations and send a test message (POST app-integrations/smtp/test).
	PermSMTPWrite Permission = "integrations.smtp.write"
	// PermUsersWrite lets a user manage the other users of its brand: list
	// and end their devices, change their password. It is the permission
	// of user management: a user's own account and devices need none.
	PermUsersWrite Permission = "users.write"
	// PermAll grants every permission.
	PermAll Permission = "*"
)

// Principal is who acts: a user of one brand and the permissions the user
// holds, as an auth key proves ([Service.Authenticate] returns it; its
// Permissions slice is the caller's own copy), or the host itself acting in
// a brand ([SystemPrincipal]).
type Principal struct {
	// UserID is the acting user; "" for the system principal.
	UserID   string
	BrandID  string
	Username string
	// Permissions are what the principal may do (PermAll for the system).
	Permissions []Permission
	// KeyID identifies the key pair that authenticated the request.
	KeyID string
	// DeviceID is the device the key pair was issued on, or "".
	DeviceID string
	// ExpiresAt is when the authenticating key expires.
	ExpiresAt time.Time
	// System reports the host itself acting in BrandID ([SystemPrincipal]),
	// not a user. No request authenticates as it.
	System bool
}

// SystemActor is the name the system principal goes by (its Username), and
// how records of who changed what name it.
const SystemActor = "system"

// SystemPrincipal returns the principal of the host itself acting in
// brandID, with every permission: for what the host does on its own
// behalf, in-process, such as setting up a brand's first integrations, an
// import or a scheduled job. It names no user (UserID is empty, Username
// is [SystemActor], System is set), so that the revisions of what it
// changes say the system made the change rather than naming a user who does
// not exist. [Service.Authenticate] never returns it: over HTTP every
// change is a user's. To act as a user instead, log in
// ([Service.Login]) and authenticate the key ([Service.Authenticate]).
func SystemPrincipal(brandID string) Principal {
	return Principal{BrandID: brandID, Username: SystemActor, Permissions: []Permission{PermAll}, System: true}
}

// Can reports whether p holds perm (or PermAll).
func (p Principal) Can(perm Permission) bool {
	return slices.Contains(p.Permissions, perm) || slices.Contains(p.Permissions, PermAll)
}

// CodeUnauthenticated is the code of every failed key check (HTTP 401).
const CodeUnauthenticated = "unauthenticated"
