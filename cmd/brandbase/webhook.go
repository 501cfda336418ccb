package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/outbox"
	"github.com/brandbase/brandbase/webhooks"
)

func runWebhook(ctx context.Context, c *cli, args []string) error {
	return subcommand(ctx, c, "webhook", args, map[string]func(context.Context, *cli, []string) error{
		"create": webhookCreate, "list": webhookList, "delete": webhookDelete,
		"rotate-secret": webhookRotate, "deliveries": webhookDeliveries,
	}, []string{"create", "list", "delete", "rotate-secret", "deliveries"})
}

// webhookApp opens the App and finds the brand of --brand; the caller
// acts as the system in it.
func webhookApp(ctx context.Context, f *flags, brand string) (*brandbase.App, auth.Principal, func(), error) {
	if brand == "" {
		return nil, auth.Principal{}, nil, usagef("no brand: give --brand URL")
	}
	app, done, err := f.openApp(ctx, true, f.c.adminLogger())
	if err != nil {
		return nil, auth.Principal{}, nil, err
	}
	b, err := findBrand(ctx, app, brand)
	if err != nil {
		done()
		return nil, auth.Principal{}, nil, err
	}
	return app, auth.SystemPrincipal(b.ID), done, nil
}

func webhookCreate(ctx context.Context, c *cli, args []string) error {
	f := newFlags(c, "webhook create", "brandbase webhook create --brand URL --url URL [--events TYPES] [flags]")
	brand := f.String("brand", "", "the brand: its URL or ID (required)")
	url := f.String("url", "", "where deliveries are POSTed: https (http only to a loopback host) (required)")
	events := f.String("events", "*", "comma-separated event types the endpoint takes; * for all")
	desc := f.String("description", "", "free text")
	disabled := f.Bool("disabled", false, "create it disabled")
	pos, err := f.parse(args)
	if err != nil {
		return err
	}
	if err := f.exactArgs(pos); err != nil {
		return err
	}
	app, system, done, err := webhookApp(ctx, f, *brand)
	if err != nil {
		return err
	}
	defer done()
	e, err := app.Webhooks.Create(ctx, system, webhooks.Input{URL: *url, EventTypes: splitList(*events),
		Enabled: new(!*disabled), Description: *desc})
	if err != nil {
		return describe(err)
	}
	return f.out(e, func(w io.Writer) error {
		if err := printEndpoint(w, e.Endpoint); err != nil {
			return err
		}
		_, err := fmt.Fprintf(w, "secret: %s\n(shown this once: give it to the receiver, which verifies every delivery with it)\n", e.Secret)
		return err
	})
}

func webhookList(ctx context.Context, c *cli, args []string) error {
	f := newFlags(c, "webhook list", "brandbase webhook list --brand URL [flags]")
	brand := f.String("brand", "", "the brand: its URL or ID (required)")
	pos, err := f.parse(args)
	if err != nil {
		return err
	}
	if err := f.exactArgs(pos); err != nil {
		return err
	}
	app, system, done, err := webhookApp(ctx, f, *brand)
	if err != nil {
		return err
	}
	defer done()
	list, err := app.Webhooks.List(ctx, system)
	if err != nil {
		return describe(err)
	}
	return f.out(list, func(w io.Writer) error {
		rows := make([][]string, len(list))
		for i, e := range list {
			rows[i] = []string{e.ID, e.URL, strings.Join(e.EventTypes, ","), strconv.FormatBool(e.Enabled), orDash(e.DisabledReason)}
		}
		return printTable(w, []string{"ID", "URL", "EVENTS", "ENABLED", "DISABLED BECAUSE"}, rows)
	})
}

// webhookOne runs a subcommand on one endpoint: --brand URL and its ID.
func webhookOne(ctx context.Context, c *cli, name string, args []string, fn func(*flags, *brandbase.App, auth.Principal, string, webhooks.DeliveryQuery) error) error {
	f := newFlags(c, "webhook "+name, "brandbase webhook "+name+" --brand URL ID [flags]")
	brand := f.String("brand", "", "the brand: its URL or ID (required)")
	var status *string
	var limit *int
	if name == "deliveries" {
		status = f.String("status", "", "pending, delivered or failed: only those")
		limit = f.Int("limit", 100, "the most deliveries listed, newest first (at most 1000)")
	}
	pos, err := f.parse(args)
	if err != nil {
		return err
	}
	if err := f.exactArgs(pos, "ID"); err != nil {
		return err
	}
	app, system, done, err := webhookApp(ctx, f, *brand)
	if err != nil {
		return err
	}
	defer done()
	var q webhooks.DeliveryQuery
	if status != nil {
		q = webhooks.DeliveryQuery{Status: outbox.Status(*status), Limit: *limit}
	}
	return fn(f, app, system, pos[0], q)
}

func webhookDelete(ctx context.Context, c *cli, args []string) error {
	return webhookOne(ctx, c, "delete", args, func(f *flags, app *brandbase.App, system auth.Principal, id string, q webhooks.DeliveryQuery) error {
		if err := app.Webhooks.Delete(ctx, system, id); err != nil {
			return describe(err)
		}
		return f.out(map[string]string{"deleted": id}, func(w io.Writer) error {
			_, err := fmt.Fprintf(w, "deleted webhook endpoint %s\n", id)
			return err
		})
	})
}

func webhookRotate(ctx context.Context, c *cli, args []string) error {
	return webhookOne(ctx, c, "rotate-secret", args, func(f *flags, app *brandbase.App, system auth.Principal, id string, q webhooks.DeliveryQuery) error {
		e, err := app.Webhooks.RotateSecret(ctx, system, id)
		if err != nil {
			return describe(err)
		}
		return f.out(e, func(w io.Writer) error {
			_, err := fmt.Fprintf(w, "secret: %s\n(shown this once; the old secret signs beside it until %s)\n", e.Secret, e.SecretOverlapUntil)
			return err
		})
	})
}

func webhookDeliveries(ctx context.Context, c *cli, args []string) error {
	return webhookOne(ctx, c, "deliveries", args, func(f *flags, app *brandbase.App, system auth.Principal, id string, q webhooks.DeliveryQuery) error {
		list, err := app.Webhooks.Deliveries(ctx, system, id, q)
		if err != nil {
			return describe(err)
		}
		return f.out(list, func(w io.Writer) error {
			rows := make([][]string, len(list))
			for i, d := range list {
				rows[i] = []string{d.ID, d.EventType, string(d.Status), strconv.Itoa(d.Attempts), strconv.Itoa(d.LastStatusCode),
					orDash(d.NextAttempt), orDash(d.LastError)}
			}
			return printTable(w, []string{"ID", "EVENT", "STATUS", "ATTEMPTS", "LAST CODE", "NEXT", "LAST ERROR"}, rows)
		})
	})
}

// printEndpoint prints an endpoint's fields.
func printEndpoint(w io.Writer, e webhooks.Endpoint) error {
	return printFields(w, [][2]string{{"id", e.ID}, {"url", e.URL}, {"events", strings.Join(e.EventTypes, ",")},
		{"enabled", strconv.FormatBool(e.Enabled)}, {"description", orDash(e.Description)}, {"created", e.CreatedDate}})
}
