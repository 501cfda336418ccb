package integrations

import (
	"context"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
)

// paymentGatewayFields is a PaymentGatewayInput after validation.
type paymentGatewayFields struct {
	common                                          commonInput
	name                                            string
	ipn, cancelWithoutLogin, cancel, ret, publicKey *string
	privateKey                                      *string
	description, notes                              *string
	testMode                                        bool
}

// validate checks in, with a field error for every bad field.
func (in PaymentGatewayInput) validate(v *envelope.Validation) paymentGatewayFields {
	f := paymentGatewayFields{testMode: deref(in.TestMode)}
	f.common = validateCommon(v, in.AppIntegrationID, in.IsDefault)
	f.name = requiredText(v, "name", in.Name, maxNameLen)
	https := !f.testMode
	f.ipn = optionalURL(v, "ipnListenerLink", in.IPNListenerLink, https)
	f.cancelWithoutLogin = optionalURL(v, "cancelLinkWithoutLogin", in.CancelLinkWithoutLogin, https)
	f.cancel = optionalURL(v, "cancelLink", in.CancelLink, https)
	f.ret = optionalURL(v, "returnLink", in.ReturnLink, https)
	f.publicKey = optionalText(v, "publicKey", in.PublicKey, maxSecretLen)
	f.privateKey = optionalSecret(v, "privateKey", in.PrivateKey)
	f.description = optionalText(v, "description", in.Description, maxTextLen)
	f.notes = optionalText(v, "notes", in.Notes, maxTextLen)
	f.common.status = parseStatus(v, "status", in.Status)
	return f
}

// savePaymentGateway creates (id "") or updates a payment-gateway
// configuration.
func (s *Service) savePaymentGateway(ctx context.Context, actor auth.Principal, brandID, id string, in PaymentGatewayInput, pre []Precondition) (PaymentGateway, error) {
	sv := &save[PaymentGatewayRecord]{k: &paymentGatewayKind, actor: actor, brandID: brandID, id: id, pre: pre}
	f := in.validate(&sv.v)
	sv.common = f.common
	sv.apply = func(next, cur *PaymentGatewayRecord) error {
		next.Name, next.TestMode = f.name, f.testMode
		next.IPNListenerLink, next.CancelLinkWithoutLogin, next.CancelLink, next.ReturnLink = f.ipn, f.cancelWithoutLogin, f.cancel, f.ret
		next.PublicKey, next.Description, next.Notes = f.publicKey, f.description, f.notes
		var curKey []byte
		if cur != nil {
			curKey = cur.PrivateKey
		}
		var err error
		next.PrivateKey, err = s.nextSecret(secretOf(KindPaymentGateway, &next.ConfigHeader, "privateKey"), curKey, f.privateKey)
		return err
	}
	r, p, err := sv.run(ctx, s)
	if err != nil {
		return PaymentGateway{}, err
	}
	return s.paymentGatewayView(r, p)
}

// CreatePaymentGateway validates in and stores a new payment-gateway
// configuration in the actor's brand (actor.BrandID) on behalf of actor (who
// needs auth.PermPaymentGatewayWrite there), applying the status and default
// rules. It fails with KindForbidden (access_denied) or KindInvalid (a field
// error per bad field: name and appIntegrationId are required,
// appIntegrationId must name a PaymentGateway app integration of the brand,
// and every link must be an absolute http(s) URL, https unless testMode or
// the host is localhost).
func (s *Service) CreatePaymentGateway(ctx context.Context, actor auth.Principal, in PaymentGatewayInput) (PaymentGateway, error) {
	return s.savePaymentGateway(ctx, actor, actor.BrandID, "", in, nil)
}

// UpdatePaymentGateway replaces the payment-gateway configuration with that
// ID in the actor's brand (actor.BrandID) on behalf of actor (who needs
// auth.PermPaymentGatewayWrite there), under every precondition given,
// with the rules and errors of [Service.UpdateAnalytics].
func (s *Service) UpdatePaymentGateway(ctx context.Context, actor auth.Principal, id string, in PaymentGatewayInput, pre ...Precondition) (PaymentGateway, error) {
	if id == "" {
		return PaymentGateway{}, ErrConfigNotFound
	}
	return s.savePaymentGateway(ctx, actor, actor.BrandID, id, in, pre)
}

// PaymentGateway returns the payment-gateway configuration of brandID with
// that ID, its private key masked, or KindNotFound. It fails with
// ErrSecretUnreadable when the private key does not decrypt with the key
// ring.
func (s *Service) PaymentGateway(ctx context.Context, brandID, id string) (PaymentGateway, error) {
	r, p, err := readConfig(ctx, s, &paymentGatewayKind, brandID, id)
	if err != nil {
		return PaymentGateway{}, err
	}
	g, err := s.paymentGatewayView(r, p)
	if err != nil {
		return PaymentGateway{}, err
	}
	return g, nil
}

// ListPaymentGateways returns the payment-gateway configurations of
// brandID, private keys masked, oldest first. A configuration whose private
// key does not decrypt with the key ring is listed with SecretsUnreadable
// set and PrivateKey nil, not as a failure of the list.
func (s *Service) ListPaymentGateways(ctx context.Context, brandID string) ([]PaymentGateway, error) {
	return listConfigs(ctx, s, &paymentGatewayKind, brandID, s.paymentGatewayView)
}

// PaymentGatewaySecrets returns the plaintext private key of the
// payment-gateway configuration of brandID with that ID, for the host's own
// use (never to be sent to clients). It fails with KindNotFound, or
// ErrSecretUnreadable when the key does not decrypt with the key ring.
func (s *Service) PaymentGatewaySecrets(ctx context.Context, brandID, id string) (PaymentGatewaySecrets, error) {
	r, _, err := readConfig(ctx, s, &paymentGatewayKind, brandID, id)
	if err != nil {
		return PaymentGatewaySecrets{}, err
	}
	key, err := s.open(secretOf(KindPaymentGateway, &r.ConfigHeader, "privateKey"), r.PrivateKey)
	if err != nil {
		return PaymentGatewaySecrets{}, err
	}
	return PaymentGatewaySecrets{PrivateKey: key}, nil
}

// paymentGatewayView returns the answer for r under app integration p.
// When the private key does not decrypt it returns the answer with
// PrivateKey nil and SecretsUnreadable set, and ErrSecretUnreadable.
func (s *Service) paymentGatewayView(r PaymentGatewayRecord, p AppIntegration) (PaymentGateway, error) {
	key, err := s.openMasked(secretOf(KindPaymentGateway, &r.ConfigHeader, "privateKey"), r.PrivateKey)
	return PaymentGateway{
		AppIntegration: p, Name: nonEmpty(r.Name), IPNListenerLink: r.IPNListenerLink,
		CancelLinkWithoutLogin: r.CancelLinkWithoutLogin, CancelLink: r.CancelLink, ReturnLink: r.ReturnLink,
		PublicKey: r.PublicKey, PrivateKey: key, Description: r.Description, Notes: r.Notes,
		TestMode: r.TestMode, IsDefault: r.IsDefault, Status: r.Status, ID: r.ID,
		CreatedDate: formatDate(r.CreatedAt), UpdatedDate: formatDate(r.UpdatedAt),
		BrandID: r.BrandID, Version: r.Version, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
		SecretsUnreadable: err != nil,
	}, err
}

// nonEmpty returns &s, or nil for "".
func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
