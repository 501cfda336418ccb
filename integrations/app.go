package integrations

import (
	"context"
	"slices"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
)

// appFields is an AppIntegrationInput after validation.
type appFields struct {
	typ         Type // "" when not given
	name        string
	domain      string
	description string
	logoURL     *string
	status      *Status // nil when not given
}

// validate checks in and returns its normalised fields, with a field error
// for every bad field.
func (in AppIntegrationInput) validate(v *envelope.Validation, create bool) appFields {
	var f appFields
	switch t, ok := parseType(in.Type); {
	case ok:
		f.typ = t
	case in.Type == "" && create:
		v.Add("type", "required", "The field type is required.")
	case in.Type != "":
		v.Add("type", "invalid_enum", "The field type must be Analytics, PaymentGateway or SMTP.")
	}
	f.name = requiredString(v, "name", in.Name, maxNameLen)
	if f.domain = requiredString(v, "domain", in.Domain, maxURLLen); !v.Has("domain") {
		checkURL(v, "domain", f.domain, false)
	}
	if d := optionalText(v, "description", &in.Description, maxTextLen); d != nil {
		f.description = *d
	}
	f.logoURL = optionalURL(v, "logoURL", in.LogoURL, false)
	if in.Status != "" {
		f.status = parseStatus(v, "status", &in.Status)
	}
	return f
}

// CreateAppIntegration validates in and stores a new app integration in the
// actor's brand (actor.BrandID) on behalf of actor (who needs the write
// permission of its type there). It fails with KindInvalid (a field error
// per bad field), KindForbidden (access_denied), or KindNotFound when the
// brand does not exist.
func (s *Service) CreateAppIntegration(ctx context.Context, actor auth.Principal, in AppIntegrationInput) (AppIntegration, error) {
	brandID := actor.BrandID
	var v envelope.Validation
	f := in.validate(&v, true)
	if f.typ != "" {
		if err := authorize(actor, brandID, permissionFor(f.typ)); err != nil {
			return AppIntegration{}, err
		}
	}
	if err := v.Err(); err != nil {
		return AppIntegration{}, err
	}
	var out AppIntegration
	err := s.inTx(ctx, actor, func(st *txState) error {
		a := AppIntegration{
			Type: f.typ, Name: f.name, Domain: f.domain, Description: f.description, LogoURL: f.logoURL,
			Status: deref(f.status), ID: newID(), BrandID: brandID, Version: 1, CreatedAt: st.now, UpdatedAt: st.now,
		}
		if a.Status == "" {
			a.Status = StatusActive
		}
		out = a
		if err := st.tx.InsertAppIntegration(ctx, a); err != nil {
			return err
		}
		return st.created(ctx, KindAppIntegration, brandID, a.ID)
	})
	if err != nil {
		return AppIntegration{}, err
	}
	return out, nil
}

// UpdateAppIntegration replaces the name, domain, description, logo URL and
// (when in.Status is not empty) status of the app integration with that ID
// in the actor's brand (actor.BrandID), on behalf of actor (who needs the
// write permission of its type there), and writes a revision. Its type never
// changes. Making it Inactive makes its configurations Inactive and not
// default, in the same transaction (with a revision each). It fails with
// KindForbidden (access_denied; before any lookup for an actor who may
// write no type at all, such as a principal of another brand acting in
// this one), KindNotFound (no such app integration in the brand), or
// KindInvalid (a field error per bad field; code immutable for another
// type).
func (s *Service) UpdateAppIntegration(ctx context.Context, actor auth.Principal, id string, in AppIntegrationInput) (AppIntegration, error) {
	brandID := actor.BrandID
	if err := requireBrand(brandID); err != nil {
		return AppIntegration{}, err
	}
	if !slices.ContainsFunc(kinds, func(k kindInfo) bool { return actor.Can(k.perm) }) {
		return AppIntegration{}, authorize(actor, brandID, auth.PermAll)
	}
	var v envelope.Validation
	f := in.validate(&v, false)
	var out AppIntegration
	err := s.inTx(ctx, actor, func(st *txState) error {
		cur, err := st.tx.AppIntegrationByID(ctx, brandID, id)
		if err != nil {
			return err
		}
		if err := authorize(actor, brandID, permissionFor(cur.Type)); err != nil {
			return err
		}
		v := v
		if f.typ != "" && f.typ != cur.Type {
			v.Add("type", "immutable", "The type of an app integration cannot change.")
		}
		if err := v.Err(); err != nil {
			return err
		}
		next := cur
		next.Name, next.Domain, next.Description, next.LogoURL = f.name, f.domain, f.description, f.logoURL
		if f.status != nil {
			next.Status = *f.status
		}
		var c changes
		c.check("name", next.Name != cur.Name)
		c.check("domain", next.Domain != cur.Domain)
		c.check("description", next.Description != cur.Description)
		c.check("logoURL", !eqPtr(next.LogoURL, cur.LogoURL))
		c.check("status", next.Status != cur.Status)
		next.Version++
		next.UpdatedAt = st.now
		if err := st.tx.UpdateAppIntegration(ctx, next); err != nil {
			return err
		}
		if err := st.revise(ctx, KindAppIntegration, brandID, id, next.Version, c); err != nil {
			return err
		}
		if next.Status == StatusInactive {
			err = deactivateConfigs(ctx, st, brandID, id)
		}
		out = next
		return err
	})
	if err != nil {
		return AppIntegration{}, err
	}
	return out, nil
}

// AppIntegration returns the app integration of brandID with that ID, or
// KindNotFound.
func (s *Service) AppIntegration(ctx context.Context, brandID, id string) (AppIntegration, error) {
	if err := requireBrand(brandID); err != nil {
		return AppIntegration{}, err
	}
	return s.store.AppIntegrationByID(ctx, brandID, id)
}

// AppIntegrations returns the app integrations of brandID (of type typ
// when not nil), oldest first.
func (s *Service) AppIntegrations(ctx context.Context, brandID string, typ *Type) ([]AppIntegration, error) {
	if err := requireBrand(brandID); err != nil {
		return nil, err
	}
	list, err := s.store.ListAppIntegrations(ctx, AppIntegrationFilter{BrandID: brandID, Type: typ})
	if list == nil && err == nil {
		list = []AppIntegration{}
	}
	return list, err
}
