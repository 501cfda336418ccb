package main

import (
	"context"
	"io"
	"strconv"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/integrations"
)

func runIntegration(ctx context.Context, c *cli, args []string) error {
	return subcommand(ctx, c, "integration", args, map[string]func(context.Context, *cli, []string) error{
		"list": integrationList,
	}, []string{"list"})
}

// integrationsView is what integration list prints: the brand's
// configurations of each kind, secrets masked as the API masks them.
type integrationsView struct {
	Analytics       []integrations.Analytics      `json:"analytics"`
	PaymentGateways []integrations.PaymentGateway `json:"paymentGateways"`
}

func integrationList(ctx context.Context, c *cli, args []string) error {
	f := newFlags(c, "integration list", "brandbase integration list --brand URL [flags]")
	brand := f.String("brand", "", "the brand: its URL or ID (required)")
	pos, err := f.parse(args)
	if err != nil {
		return err
	}
	if err := f.exactArgs(pos); err != nil {
		return err
	}
	if *brand == "" {
		return usagef("no brand: give --brand URL")
	}
	app, done, err := f.openApp(ctx, true, c.adminLogger())
	if err != nil {
		return err
	}
	defer done()
	b, err := findBrand(ctx, app, *brand)
	if err != nil {
		return err
	}
	v, err := listIntegrations(ctx, app, b)
	if err != nil {
		return describe(err)
	}
	return f.out(v, func(w io.Writer) error {
		var rows [][]string
		for _, a := range v.Analytics {
			rows = append(rows, []string{"analytics", a.ID, a.AppIntegration.Name, a.TrackingID, masked(a.APIKey),
				masked(a.APISecret), "-", strconv.FormatBool(a.IsDefault), string(a.Status)})
		}
		for _, g := range v.PaymentGateways {
			rows = append(rows, []string{"payment-gateway", g.ID, g.AppIntegration.Name, orDash(deref(g.Name)), masked(g.PublicKey),
				"-", masked(g.PrivateKey), strconv.FormatBool(g.IsDefault), string(g.Status)})
		}
		return printTable(w, []string{"KIND", "ID", "APP", "NAME/TRACKING", "KEY", "SECRET", "PRIVATE KEY", "DEFAULT", "STATUS"}, rows)
	})
}

func listIntegrations(ctx context.Context, app *brandbase.App, b auth.Brand) (integrationsView, error) {
	as, err := app.Integrations.ListAnalytics(ctx, b.ID)
	if err != nil {
		return integrationsView{}, err
	}
	gs, err := app.Integrations.ListPaymentGateways(ctx, b.ID)
	if err != nil {
		return integrationsView{}, err
	}
	if as == nil {
		as = []integrations.Analytics{}
	}
	if gs == nil {
		gs = []integrations.PaymentGateway{}
	}
	return integrationsView{Analytics: as, PaymentGateways: gs}, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// masked returns a masked secret for a table ("-" for none).
func masked(s *string) string { return orDash(deref(s)) }
