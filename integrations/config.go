package integrations

import (
	"context"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
)

// configKind describes one kind of configuration record (analytics or
// payment gateway) to the code that both kinds share: the rules of
// parents, status, default, versions and revisions.
type configKind[R any] struct {
	kind    RecordKind
	appType Type
	perm    auth.Permission
	header  func(*R) *ConfigHeader
	byID    func(Reader, context.Context, string, string) (R, error)
	list    func(Reader, context.Context, ConfigFilter) ([]R, error)
	insert  func(Tx, context.Context, R) error
	update  func(Tx, context.Context, R) error
}

var analyticsKind = configKind[AnalyticsRecord]{
	kind:    KindAnalytics,
	appType: TypeAnalytics,
	perm:    auth.PermAnalyticsWrite,
	header:  func(r *AnalyticsRecord) *ConfigHeader { return &r.ConfigHeader },
	byID:    Reader.AnalyticsByID,
	list:    Reader.ListAnalytics,
	insert:  Tx.InsertAnalytics,
	update:  Tx.UpdateAnalytics,
}

var paymentGatewayKind = configKind[PaymentGatewayRecord]{
	kind:    KindPaymentGateway,
	appType: TypePaymentGateway,
	perm:    auth.PermPaymentGatewayWrite,
	header:  func(r *PaymentGatewayRecord) *ConfigHeader { return &r.ConfigHeader },
	byID:    Reader.PaymentGatewayByID,
	list:    Reader.ListPaymentGateways,
	insert:  Tx.InsertPaymentGateway,
	update:  Tx.UpdatePaymentGateway,
}

// commonInput is the part of a configuration body both kinds share, after
// validation.
type commonInput struct {
	appIntegrationID string
	isDefault        bool
	status           *auth.Status // nil when not sent
}

// validateCommon checks appIntegrationId and reads isDefault; the caller
// checks status last, so that field errors come in the order of the spec's
// tables.
func validateCommon(v *envelope.Validation, appID *string, isDefault *bool) commonInput {
	return commonInput{appIntegrationID: requiredText(v, "appIntegrationId", appID, maxIDLen), isDefault: deref(isDefault)}
}

// save is one create (id "") or update of a configuration of kind k.
type save[R any] struct {
	k       *configKind[R]
	actor   auth.Principal
	brandID string
	id      string
	pre     Precondition
	v       envelope.Validation // the body's field errors
	common  commonInput
	// apply sets the kind's own fields of next (whose header is set) from
	// the body; cur is nil on create.
	apply func(next *R, cur *R) error
	// diff returns the names of the kind's own fields that differ.
	diff func(old, next *R) []string
}

// run authorizes, then in one transaction: finds the record (404), checks
// the precondition (412), checks the app integration it names (a field
// error unless it is of the kind's type in the brand) and the body (400),
// applies the status rule and the body, clears the default of the others
// when this one becomes the default, and writes the record and its
// revision. It returns the stored record and its app integration.
func (sv *save[R]) run(ctx context.Context, s *Service) (R, AppIntegration, error) {
	var out R
	var parent AppIntegration
	if err := authorize(sv.actor, sv.brandID, sv.k.perm); err != nil {
		return out, parent, err
	}
	h := sv.k.header
	err := s.inTx(ctx, sv.actor, func(st *txState) error {
		var cur *R
		var next R
		if sv.id == "" {
			*h(&next) = ConfigHeader{ID: newID(), BrandID: sv.brandID, CreatedAt: st.now}
		} else {
			r, err := sv.k.byID(st.tx, ctx, sv.brandID, sv.id)
			if err != nil {
				return err
			}
			if sv.pre != nil {
				p, err := st.tx.AppIntegrationByID(ctx, sv.brandID, h(&r).AppIntegrationID)
				if err != nil {
					return err
				}
				if !sv.pre(etag(h(&r).Version, p.Version)) {
					return preconditionFailed()
				}
			}
			cur, next = &r, r
		}

		v := sv.v
		if id := sv.common.appIntegrationID; !v.Has("appIntegrationId") {
			p, err := st.tx.AppIntegrationByID(ctx, sv.brandID, id)
			switch {
			case envelope.KindOf(err) == envelope.KindNotFound:
				v.Add("appIntegrationId", "unknown_reference", "No app integration of this brand has this ID.")
			case err != nil:
				return err
			case p.Type != sv.k.appType:
				v.Add("appIntegrationId", "type_mismatch", "The app integration is not of type "+string(sv.k.appType)+".")
			}
			parent = p
		}
		if err := v.Err(); err != nil {
			return err
		}

		nh := h(&next)
		nh.AppIntegrationID = parent.ID
		switch {
		case sv.common.status != nil:
			nh.Status = *sv.common.status
		case cur == nil:
			nh.Status = auth.StatusActive
		}
		if parent.Status == auth.StatusInactive {
			nh.Status = auth.StatusInactive
		}
		nh.IsDefault = sv.common.isDefault && nh.Status == auth.StatusActive
		if err := sv.apply(&next, cur); err != nil {
			return err
		}
		nh.Version++
		nh.UpdatedAt = st.now

		if nh.IsDefault {
			if err := clearDefault(ctx, st, sv.k, sv.brandID, nh.ID); err != nil {
				return err
			}
		}
		if cur == nil {
			out = next
			return sv.k.insert(st.tx, ctx, next)
		}
		if err := sv.k.update(st.tx, ctx, next); err != nil {
			return err
		}
		ch := headerChanges(h(cur), nh)
		ch = append(ch, sv.diff(cur, &next)...)
		out = next
		return st.revise(ctx, sv.k.kind, sv.brandID, nh.ID, nh.Version, ch)
	})
	return out, parent, err
}

// headerChanges returns the names of the shared fields that differ.
func headerChanges(old, next *ConfigHeader) changes {
	var c changes
	c.check("appIntegrationId", old.AppIntegrationID != next.AppIntegrationID)
	c.check("isDefault", old.IsDefault != next.IsDefault)
	c.check("status", old.Status != next.Status)
	return c
}

// clearDefault makes every other default configuration of kind k in brandID
// not the default, each with a new version and a revision.
func clearDefault[R any](ctx context.Context, st *txState, k *configKind[R], brandID, exceptID string) error {
	yes := true
	others, err := k.list(st.tx, ctx, ConfigFilter{BrandID: brandID, IsDefault: &yes})
	if err != nil {
		return err
	}
	for _, o := range others {
		if k.header(&o).ID == exceptID {
			continue
		}
		if err := touch(ctx, st, k, o, func(oh *ConfigHeader) { oh.IsDefault = false }); err != nil {
			return err
		}
	}
	return nil
}

// deactivateConfigs makes every configuration of kind k attached to the app
// integration appID Inactive and not the default.
func deactivateConfigs[R any](ctx context.Context, st *txState, k *configKind[R], brandID, appID string) error {
	list, err := k.list(st.tx, ctx, ConfigFilter{BrandID: brandID, AppIntegrationID: &appID})
	if err != nil {
		return err
	}
	for _, r := range list {
		if hd := k.header(&r); hd.Status == auth.StatusInactive && !hd.IsDefault {
			continue
		}
		err := touch(ctx, st, k, r, func(hd *ConfigHeader) {
			hd.Status, hd.IsDefault = auth.StatusInactive, false
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// touch applies fn to the header of r and stores it as a new version with a
// revision naming the header fields fn changed.
func touch[R any](ctx context.Context, st *txState, k *configKind[R], r R, fn func(*ConfigHeader)) error {
	hd := k.header(&r)
	old := *hd
	fn(hd)
	hd.Version++
	hd.UpdatedAt = st.now
	if err := k.update(st.tx, ctx, r); err != nil {
		return err
	}
	return st.revise(ctx, k.kind, hd.BrandID, hd.ID, hd.Version, headerChanges(&old, hd))
}

// secretOf names the secret field of a record of kind k with header hd.
func secretOf(kind RecordKind, hd *ConfigHeader, field string) secretField {
	return secretField{brandID: hd.BrandID, recordID: hd.ID, kind: kind, field: field}
}

// readConfig returns the configuration of kind k in brandID with that ID and
// its app integration, or KindNotFound.
func readConfig[R any](ctx context.Context, s *Service, k *configKind[R], brandID, id string) (R, AppIntegration, error) {
	var zero R
	if err := requireBrand(brandID); err != nil {
		return zero, AppIntegration{}, err
	}
	r, err := k.byID(s.store, ctx, brandID, id)
	if err != nil {
		return zero, AppIntegration{}, err
	}
	p, err := s.store.AppIntegrationByID(ctx, brandID, k.header(&r).AppIntegrationID)
	if err != nil {
		return zero, AppIntegration{}, err
	}
	return r, p, nil
}

// listConfigs returns the views of every configuration of kind k in brandID,
// oldest first.
func listConfigs[R, V any](ctx context.Context, s *Service, k *configKind[R], brandID string, view func(R, AppIntegration) (V, error)) ([]V, error) {
	if err := requireBrand(brandID); err != nil {
		return nil, err
	}
	apps, err := s.store.ListAppIntegrations(ctx, AppIntegrationFilter{BrandID: brandID, Type: &k.appType})
	if err != nil {
		return nil, err
	}
	byID := make(map[string]AppIntegration, len(apps))
	for _, a := range apps {
		byID[a.ID] = a
	}
	recs, err := k.list(s.store, ctx, ConfigFilter{BrandID: brandID})
	if err != nil {
		return nil, err
	}
	out := make([]V, 0, len(recs))
	for _, r := range recs {
		v, err := view(r, byID[k.header(&r).AppIntegrationID])
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}
