package integrations

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
)

// kindSpec describes one kind of configuration once: its record kind, the
// type of app integration it attaches to, the permission that guards it,
// and how its typed record R maps to and from the store's [ConfigRecord]
// (the JSON of R's tagged fields is the Body; the secret slots are the
// Secrets). The rules every kind shares (parents, status, default,
// versions, revisions) are written once, on ConfigRecord.
type kindSpec[R any] struct {
	kindInfo
	header  func(*R) *ConfigHeader
	secrets []secretSlot[R]
}

// kindInfo is what the service knows of a kind without its record type.
type kindInfo struct {
	kind    RecordKind
	appType Type
	perm    auth.Permission
}

// kinds are the configuration kinds of the service, one per app
// integration type.
var kinds = []kindInfo{analyticsKind.kindInfo, paymentGatewayKind.kindInfo, smtpKind.kindInfo}

// secretSlot is one secret field of a typed record: its name (the JSON
// name, which is also its key in ConfigRecord.Secrets) and where R holds
// its ciphertext.
type secretSlot[R any] struct {
	name string
	at   func(*R) *[]byte
}

var analyticsKind = kindSpec[AnalyticsRecord]{
	kindInfo: kindInfo{kind: KindAnalytics, appType: TypeAnalytics, perm: auth.PermAnalyticsWrite},
	header:   func(r *AnalyticsRecord) *ConfigHeader { return &r.ConfigHeader },
	secrets: []secretSlot[AnalyticsRecord]{
		{"apiKey", func(r *AnalyticsRecord) *[]byte { return &r.APIKey }},
		{"apiSecret", func(r *AnalyticsRecord) *[]byte { return &r.APISecret }},
	},
}

var paymentGatewayKind = kindSpec[PaymentGatewayRecord]{
	kindInfo: kindInfo{kind: KindPaymentGateway, appType: TypePaymentGateway, perm: auth.PermPaymentGatewayWrite},
	header:   func(r *PaymentGatewayRecord) *ConfigHeader { return &r.ConfigHeader },
	secrets: []secretSlot[PaymentGatewayRecord]{
		{"privateKey", func(r *PaymentGatewayRecord) *[]byte { return &r.PrivateKey }},
	},
}

// encode returns r as the store keeps it.
func (k *kindSpec[R]) encode(r R) (ConfigRecord, error) {
	body, err := json.Marshal(r)
	if err != nil {
		return ConfigRecord{}, envelope.Internal(fmt.Errorf("integrations: encoding a %s: %w", k.kind, err))
	}
	c := ConfigRecord{Kind: k.kind, ConfigHeader: *k.header(&r), Body: body}
	for _, s := range k.secrets {
		if ct := *s.at(&r); ct != nil {
			if c.Secrets == nil {
				c.Secrets = map[string][]byte{}
			}
			c.Secrets[s.name] = ct
		}
	}
	return c, nil
}

// decode returns the typed record of c.
func (k *kindSpec[R]) decode(c ConfigRecord) (R, error) {
	var r R
	if err := json.Unmarshal(c.Body, &r); err != nil {
		return r, envelope.Internal(fmt.Errorf("integrations: decoding %s %s: %w", c.Kind, c.ID, err))
	}
	*k.header(&r) = c.ConfigHeader
	for _, s := range k.secrets {
		*s.at(&r) = c.Secrets[s.name]
	}
	return r, nil
}

// byID reads the configuration of kind k in brandID with that ID.
func (k *kindSpec[R]) byID(ctx context.Context, rd Reader, brandID, id string) (R, error) {
	c, err := rd.ConfigByID(ctx, k.kind, brandID, id)
	if err != nil {
		var zero R
		return zero, err
	}
	return k.decode(c)
}

// list reads the configurations of kind k that f selects.
func (k *kindSpec[R]) list(ctx context.Context, rd Reader, f ConfigFilter) ([]R, error) {
	f.Kind = k.kind
	recs, err := rd.ListConfigs(ctx, f)
	if err != nil {
		return nil, err
	}
	out := make([]R, 0, len(recs))
	for _, c := range recs {
		r, err := k.decode(c)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// commonInput is the part of a configuration body every kind shares, after
// validation.
type commonInput struct {
	appIntegrationID string
	isDefault        bool
	status           *Status // nil when not sent
}

// validateCommon checks appIntegrationId and reads isDefault; the caller
// checks status last, so that field errors come in the order of the spec's
// tables.
func validateCommon(v *envelope.Validation, appID *string, isDefault *bool) commonInput {
	return commonInput{appIntegrationID: requiredText(v, "appIntegrationId", appID, maxIDLen), isDefault: deref(isDefault)}
}

// save is one create (id "") or update of a configuration of kind k.
type save[R any] struct {
	k       *kindSpec[R]
	actor   auth.Principal
	brandID string
	id      string
	pre     []Precondition      // every one must hold; nil ones are ignored
	v       envelope.Validation // the body's field errors
	common  commonInput
	// apply sets the kind's own fields of next (whose header is set) from
	// the body; cur is nil on create.
	apply func(next *R, cur *R) error
}

// run authorizes, then in one transaction: finds the record (404), checks
// the precondition (412), checks the app integration it names and the body
// (400), applies the status rule and the body, clears the default of the
// others when this one becomes the default, and writes the record and its
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
			r, err := sv.k.byID(ctx, st.tx, sv.brandID, sv.id)
			if err != nil {
				return err
			}
			if err := sv.checkPrecondition(ctx, st, h(&r)); err != nil {
				return err
			}
			cur, next = &r, r
		}
		var err error
		if parent, err = sv.checkParent(ctx, st); err != nil {
			return err
		}
		nh := h(&next)
		sv.common.applyRules(nh, cur == nil, parent)
		if err := sv.apply(&next, cur); err != nil {
			return err
		}
		nh.Version++
		nh.UpdatedAt = st.now
		out = next
		return sv.write(ctx, st, cur, next)
	})
	return out, parent, err
}

// checkPrecondition checks the preconditions, when there are any, against
// the entity tag of the current record with header hd.
func (sv *save[R]) checkPrecondition(ctx context.Context, st *txState, hd *ConfigHeader) error {
	if !slices.ContainsFunc(sv.pre, func(p Precondition) bool { return p != nil }) {
		return nil
	}
	p, err := st.tx.AppIntegrationByID(ctx, sv.brandID, hd.AppIntegrationID)
	if err != nil {
		return err
	}
	tag := etag(hd.Version, p.Version)
	for _, pre := range sv.pre {
		if pre != nil && !pre(tag) {
			st.refused = sv.k.kind
			return preconditionFailed()
		}
	}
	return nil
}

// checkParent returns the app integration the body names, with a field
// error unless it is of the kind's type in the brand, and the body's other
// field errors.
func (sv *save[R]) checkParent(ctx context.Context, st *txState) (AppIntegration, error) {
	var parent AppIntegration
	v := sv.v
	if id := sv.common.appIntegrationID; !v.Has("appIntegrationId") {
		p, err := st.tx.AppIntegrationByID(ctx, sv.brandID, id)
		switch {
		case envelope.KindOf(err) == envelope.KindNotFound:
			v.Add("appIntegrationId", "unknown_reference", "No app integration of this brand has this ID.")
		case err != nil:
			return parent, err
		case p.Type != sv.k.appType:
			v.Add("appIntegrationId", "type_mismatch", "The app integration is not of type "+string(sv.k.appType)+".")
		}
		parent = p
	}
	return parent, v.Err()
}

// applyRules sets the app integration, status and default of nh: the
// status sent (Active on create when none is), Inactive while the app
// integration is, and never the default when Inactive.
func (c commonInput) applyRules(nh *ConfigHeader, create bool, parent AppIntegration) {
	nh.AppIntegrationID = parent.ID
	switch {
	case c.status != nil:
		nh.Status = *c.status
	case create:
		nh.Status = StatusActive
	}
	if parent.Status == StatusInactive {
		nh.Status = StatusInactive
	}
	nh.IsDefault = c.isDefault && nh.Status == StatusActive
}

// write stores next (a new record when cur is nil), first clearing the
// default of the others when next is the default, and writes the revision
// of an update.
func (sv *save[R]) write(ctx context.Context, st *txState, cur *R, next R) error {
	rec, err := sv.k.encode(next)
	if err != nil {
		return err
	}
	if rec.IsDefault {
		if err := clearDefault(ctx, st, rec.Kind, rec.BrandID, rec.ID); err != nil {
			return err
		}
	}
	if cur == nil {
		if err := st.tx.InsertConfig(ctx, rec); err != nil {
			return err
		}
		return st.created(ctx, rec.Kind, rec.BrandID, rec.ID)
	}
	if err := st.tx.UpdateConfig(ctx, rec); err != nil {
		return err
	}
	old, err := sv.k.encode(*cur)
	if err != nil {
		return err
	}
	ch, err := configChanges(old, rec)
	if err != nil {
		return err
	}
	return st.revise(ctx, rec.Kind, rec.BrandID, rec.ID, rec.Version, ch)
}

// headerChanges returns the names of the shared fields that differ.
func headerChanges(old, next *ConfigHeader) changes {
	var c changes
	c.check("appIntegrationId", old.AppIntegrationID != next.AppIntegrationID)
	c.check("isDefault", old.IsDefault != next.IsDefault)
	c.check("status", old.Status != next.Status)
	return c
}

// configChanges returns the names of the fields that differ between two
// records of one kind: header fields, body fields (by their JSON names) and
// secrets (by ciphertext).
func configChanges(old, next ConfigRecord) (changes, error) {
	c := headerChanges(&old.ConfigHeader, &next.ConfigHeader)
	var ob, nb map[string]json.RawMessage
	if err := json.Unmarshal(old.Body, &ob); err != nil {
		return nil, envelope.Internal(err)
	}
	if err := json.Unmarshal(next.Body, &nb); err != nil {
		return nil, envelope.Internal(err)
	}
	diffEntries(&c, ob, nb, func(a, b json.RawMessage) bool { return bytes.Equal(a, b) })
	diffEntries(&c, old.Secrets, next.Secrets, bytes.Equal)
	return c, nil
}

// diffEntries adds to c the names of the entries of old and next that
// differ, or are in one of them only.
func diffEntries[V any](c *changes, old, next map[string]V, eq func(a, b V) bool) {
	for name, v := range next {
		o, ok := old[name]
		c.check(name, !ok || !eq(o, v))
	}
	for name := range old {
		_, ok := next[name]
		c.check(name, !ok)
	}
}

// clearDefault makes every other default configuration of kind in brandID
// not the default, each with a new version and a revision.
func clearDefault(ctx context.Context, st *txState, kind RecordKind, brandID, exceptID string) error {
	yes := true
	others, err := st.tx.ListConfigs(ctx, ConfigFilter{Kind: kind, BrandID: brandID, IsDefault: &yes})
	if err != nil {
		return err
	}
	for _, o := range others {
		if o.ID == exceptID {
			continue
		}
		if err := touch(ctx, st, o, func(oh *ConfigHeader) { oh.IsDefault = false }); err != nil {
			return err
		}
	}
	return nil
}

// deactivateConfigs makes every configuration (of any kind) attached to
// the app integration appID Inactive and not the default.
func deactivateConfigs(ctx context.Context, st *txState, brandID, appID string) error {
	list, err := st.tx.ListConfigs(ctx, ConfigFilter{BrandID: brandID, AppIntegrationID: &appID})
	if err != nil {
		return err
	}
	for _, r := range list {
		if r.Status == StatusInactive && !r.IsDefault {
			continue
		}
		err := touch(ctx, st, r, func(hd *ConfigHeader) {
			hd.Status, hd.IsDefault = StatusInactive, false
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// touch applies fn to the header of r and stores it as a new version with a
// revision naming the header fields fn changed.
func touch(ctx context.Context, st *txState, r ConfigRecord, fn func(*ConfigHeader)) error {
	old := r.ConfigHeader
	fn(&r.ConfigHeader)
	r.Version++
	r.UpdatedAt = st.now
	if err := st.tx.UpdateConfig(ctx, r); err != nil {
		return err
	}
	return st.revise(ctx, r.Kind, r.BrandID, r.ID, r.Version, headerChanges(&old, &r.ConfigHeader))
}

// secretOf names the secret field of a record of kind k with header hd.
func secretOf(kind RecordKind, hd *ConfigHeader, field string) secretField {
	return secretField{brandID: hd.BrandID, recordID: hd.ID, kind: kind, field: field}
}

// readConfig returns the configuration of kind k in brandID with that ID and
// its app integration, or ErrConfigNotFound.
func readConfig[R any](ctx context.Context, s *Service, k *kindSpec[R], brandID, id string) (R, AppIntegration, error) {
	var zero R
	if err := requireBrand(brandID); err != nil {
		return zero, AppIntegration{}, err
	}
	r, err := k.byID(ctx, s.store, brandID, id)
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
// oldest first. A view whose secrets do not decrypt is listed as view
// flagged it (SecretsUnreadable): one such record never fails the list.
func listConfigs[R, V any](ctx context.Context, s *Service, k *kindSpec[R], brandID string, view func(R, AppIntegration) (V, error)) ([]V, error) {
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
	recs, err := k.list(ctx, s.store, ConfigFilter{BrandID: brandID})
	if err != nil {
		return nil, err
	}
	out := make([]V, 0, len(recs))
	for _, r := range recs {
		v, err := view(r, byID[k.header(&r).AppIntegrationID])
		if err != nil && !errors.Is(err, ErrSecretUnreadable) {
			return nil, err
		}
		out = append(out, v) // flagged SecretsUnreadable by view when it failed so
	}
	return out, nil
}
