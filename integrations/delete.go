package integrations

import (
	"context"
	"slices"
	"strings"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/internal/textfold"
)

// FieldDeleted is the one field name of the [Revision] that records the
// deletion of a configuration: its Version is the record's last version
// plus one, and its actor is who deleted it.
const FieldDeleted = "deleted"

// Deleted reports whether rev records the deletion of its record.
func (rev Revision) Deleted() bool {
	return slices.Equal(rev.Fields, []string{FieldDeleted})
}

// DeleteAnalytics deletes the analytics configuration with that ID in the
// actor's brand (actor.BrandID), on behalf of actor (who needs
// auth.PermAnalyticsWrite there): its sealed secrets and its default flag go
// with the record (a brand whose default it was has no default analytics
// configuration after it), and a revision records who deleted it
// ([Revision.Deleted]). It fails with KindForbidden (access_denied) or
// KindNotFound (no such configuration in the brand).
func (s *Service) DeleteAnalytics(ctx context.Context, actor auth.Principal, id string) error {
	return s.deleteConfig(ctx, actor, analyticsKind.kindInfo, id)
}

// DeletePaymentGateway deletes the payment-gateway configuration with that
// ID in the actor's brand, as [Service.DeleteAnalytics] does, on behalf of
// an actor who holds auth.PermPaymentGatewayWrite there.
func (s *Service) DeletePaymentGateway(ctx context.Context, actor auth.Principal, id string) error {
	return s.deleteConfig(ctx, actor, paymentGatewayKind.kindInfo, id)
}

// deleteConfig authorizes, then in one transaction reads the record (404),
// deletes it and writes the revision of its deletion.
func (s *Service) deleteConfig(ctx context.Context, actor auth.Principal, k kindInfo, id string) error {
	brandID := actor.BrandID
	if err := authorize(actor, brandID, k.perm); err != nil {
		return err
	}
	if id == "" {
		return ErrConfigNotFound
	}
	return s.inTx(ctx, actor, func(st *txState) error {
		cur, err := st.tx.ConfigByID(ctx, k.kind, brandID, id)
		if err != nil {
			return err
		}
		if err := st.tx.DeleteConfig(ctx, k.kind, brandID, id); err != nil {
			return err
		}
		return st.revise(ctx, k.kind, brandID, id, cur.Version+1, []string{FieldDeleted})
	})
}

// AppIntegrationQuery selects the app integrations of a brand; a nil field
// selects every value.
type AppIntegrationQuery struct {
	// Type selects one type (Analytics, PaymentGateway or SMTP, any case).
	Type *string
	// Status selects one status (Active or Inactive, any case).
	Status *string
	// Keywords is free text: every word must start a word of the
	// integration's type, name, domain or description, case and accents
	// ignored. Without a letter or digit it matches nothing.
	Keywords *string
}

// maxKeywordsLen bounds Keywords, as the reference lists bound their text
// parameters.
const maxKeywordsLen = 200

// ListAppIntegrations returns the app integrations of brandID that q
// selects, oldest first (empty, never nil, when none does). It fails with
// KindInvalid (invalid_enum for a type or status that is not one of the
// values, too_long for keywords over 200 bytes).
func (s *Service) ListAppIntegrations(ctx context.Context, brandID string, q AppIntegrationQuery) ([]AppIntegration, error) {
	var v envelope.Validation
	var typ *Type
	if q.Type != nil && strings.TrimSpace(*q.Type) != "" {
		if t, ok := parseType(Type(*q.Type)); ok {
			typ = &t
		} else {
			v.Add("type", "invalid_enum", "The field type must be Analytics, PaymentGateway or SMTP.")
		}
	}
	var status *Status
	if q.Status != nil && strings.TrimSpace(*q.Status) != "" {
		status = parseStatus(&v, "status", (*Status)(q.Status))
	}
	var terms []string
	nothing := false // keywords without a letter or digit match nothing
	if q.Keywords != nil {
		if len(*q.Keywords) > maxKeywordsLen {
			tooLong(&v, "keywords", maxKeywordsLen)
		}
		terms = textfold.Words(*q.Keywords)
		nothing = len(terms) == 0 && strings.TrimSpace(*q.Keywords) != ""
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	all, err := s.AppIntegrations(ctx, brandID, typ)
	if err != nil {
		return nil, err
	}
	out := make([]AppIntegration, 0, len(all))
	for _, a := range all {
		if nothing || status != nil && a.Status != *status {
			continue
		}
		if !textfold.MatchTerms(terms, string(a.Type), a.Name, a.Domain, a.Description) {
			continue
		}
		out = append(out, a)
	}
	return out, nil
}
