package auth

import (
	"context"
	"slices"

	"github.com/brandbase/brandbase/envelope"
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
// permissions the user holds.
type Principal struct {
	UserID      string
	BrandID     string
	Username    string
	Permissions []Permission
	// KeyID identifies the key pair that authenticated the request.
	KeyID string
}

// Can reports whether p holds perm (or PermAll).
func (p Principal) Can(perm Permission) bool {
	return slices.Contains(p.Permissions, perm) || slices.Contains(p.Permissions, PermAll)
}

// CodeUnauthenticated is the code of every failed key check (DESIGN.md 3).
const CodeUnauthenticated = "unauthenticated"

// Authenticate returns the principal that authKey proves in brand. It fails
// with KindUnauthenticated (code unauthenticated) when the key is empty,
// unknown, expired, revoked or of another brand.
func (s *Service) Authenticate(ctx context.Context, brand Brand, authKey string) (Principal, error) {
	// Key pairs arrive with the authentication issue; until then no key is
	// valid.
	return Principal{}, envelope.New(envelope.KindUnauthenticated, CodeUnauthenticated, "A valid Auth-Key header is required.")
}
