package auth

import (
	"context"
	"strings"

	"github.com/brandbase/brandbase/envelope"
)

// CodeAccessDenied is the code of a refused authorization (403): an
// identity that lacks a permission in a brand, or a body authKey that
// proves no identity (see [Service.ActingIdentity]).
const CodeAccessDenied = "access_denied"

// Acting is the identity an update acts as: the brand it works
// in and the principal whose permissions authorize it.
type Acting struct {
	Brand     Brand
	Principal Principal
}

// Actor returns the principal an update acts as, in a.Brand: a.Principal
// when it belongs to a.Brand, else a principal of a.Brand that is neither a
// user nor the system and holds no permission, so that every write it
// attempts there is refused (access_denied). A body that names another
// brand without an authKey valid there thus authorizes nothing: the
// request's own key never carries its permissions into another brand.
func (a Acting) Actor() Principal {
	if a.Principal.BrandID == a.Brand.ID {
		return a.Principal
	}
	return Principal{BrandID: a.Brand.ID}
}

// ActingAs names, from a request body (authKey, brandUrl), who an update
// acts as. An empty field is absent.
type ActingAs struct {
	// AuthKey is an authKey of the acting user, valid in the acting brand.
	AuthKey string
	// BrandURL names the acting brand, as the Brand-URL header does; blank
	// means absent.
	BrandURL string
}

// ActingIdentity settles the identity an update acts as (see
// docs/integrations.md). brand and p are the request's own (header) brand and
// principal, already authenticated: the header key always authenticates.
// Authorization uses body's brand and key where present, else the
// request's: a body BrandURL is resolved as [Service.ResolveBrand] does
// (KindNotFound brand_not_found, KindForbidden brand_inactive), and a body
// AuthKey must be valid in the acting brand, else it proves no identity and
// the call fails with KindForbidden (access_denied). Whether the acting
// principal holds the permission an update needs in the acting brand is the
// caller's check (integrations does it on every write); the update looks
// its record up in the acting brand. Other failures of Authenticate (a
// store error) are returned as they are.
func (s *Service) ActingIdentity(ctx context.Context, brand Brand, p Principal, body ActingAs) (Acting, error) {
	act := Acting{Brand: brand, Principal: p}
	if strings.TrimSpace(body.BrandURL) != "" {
		b, err := s.ResolveBrand(ctx, body.BrandURL)
		if err != nil {
			return Acting{}, err
		}
		act.Brand = b
	}
	if body.AuthKey != "" {
		bp, err := s.Authenticate(ctx, act.Brand, body.AuthKey)
		if envelope.KindOf(err) == envelope.KindUnauthenticated {
			return Acting{}, envelope.New(envelope.KindForbidden, CodeAccessDenied,
				"The authKey of the body is not valid in the acting brand.")
		}
		if err != nil {
			return Acting{}, err
		}
		act.Principal = bp
	}
	return act, nil
}
