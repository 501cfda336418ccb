package main

import (
	"context"
	"flag"
	"io"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/auth"
)

func runBrand(ctx context.Context, c *cli, args []string) error {
	return subcommand(ctx, c, "brand", args, map[string]func(context.Context, *cli, []string) error{
		"create": brandCreate, "list": brandList, "show": brandShow, "set": brandSet,
	}, []string{"create", "list", "show", "set"})
}

// brandView is a brand as the command prints it. The brand settings of
// the account routes (sign-up, device cap, reset-link origins) join it
// where this build has them.
type brandView struct {
	auth.Brand
}

func brandRows(bs []brandView) [][]string {
	rows := make([][]string, len(bs))
	for i, b := range bs {
		rows[i] = []string{b.URL, b.Name, string(b.Status), b.DefaultCurrency, b.ID, when(b.CreatedAt)}
	}
	return rows
}

var brandHeader = []string{"URL", "NAME", "STATUS", "CURRENCY", "ID", "CREATED"}

func (f *flags) printBrand(b brandView) error {
	return f.out(b, func(w io.Writer) error {
		return printFields(w, [][2]string{{"url", b.URL}, {"name", b.Name}, {"status", string(b.Status)},
			{"default currency", b.DefaultCurrency}, {"id", b.ID}, {"created", when(b.CreatedAt)}})
	})
}

// brandSettings are the flags of brand create and brand set; a flag not
// given leaves its field as it is (set) or at its default (create).
type brandSettings struct {
	name, currency, status, url string
}

func (s *brandSettings) register(f *flags, withURL bool) {
	f.StringVar(&s.name, "name", "", "the brand's display name")
	f.StringVar(&s.currency, "currency", "", "the default currency, a three-letter code (default USD)")
	f.StringVar(&s.status, "status", "", "Active or Inactive (default Active)")
	if withURL {
		f.StringVar(&s.url, "url", "", "the brand's new URL (its domain)")
	}
}

// update returns the auth.BrandUpdate of the flags given.
func (s *brandSettings) update(f *flags) auth.BrandUpdate {
	var up auth.BrandUpdate
	f.Visit(func(fl *flag.Flag) {
		switch fl.Name {
		case "name":
			up.Name = &s.name
		case "currency":
			up.DefaultCurrency = &s.currency
		case "status":
			up.Status = new(auth.Status(s.status))
		case "url":
			up.URL = &s.url
		}
	})
	return up
}

func brandCreate(ctx context.Context, c *cli, args []string) error {
	f := newFlags(c, "brand create", "brandbase brand create [flags] URL --name NAME")
	var s brandSettings
	s.register(f, false)
	pos, err := f.parse(args)
	if err != nil {
		return err
	}
	if err := f.exactArgs(pos, "URL"); err != nil {
		return err
	}
	if s.name == "" {
		return usagef("brand create needs --name")
	}
	app, done, err := f.openApp(ctx, false, c.adminLogger())
	if err != nil {
		return err
	}
	defer done()
	b, err := app.Auth.CreateBrand(ctx, auth.NewBrand{URL: pos[0], Name: s.name, DefaultCurrency: s.currency, Status: auth.Status(s.status)})
	if err != nil {
		return describe(err)
	}
	return f.printBrand(brandView{b})
}

func brandList(ctx context.Context, c *cli, args []string) error {
	f := newFlags(c, "brand list", "brandbase brand list [flags]")
	pos, err := f.parse(args)
	if err != nil {
		return err
	}
	if err := f.exactArgs(pos); err != nil {
		return err
	}
	app, done, err := f.openApp(ctx, false, c.adminLogger())
	if err != nil {
		return err
	}
	defer done()
	bs, err := app.Auth.Brands(ctx)
	if err != nil {
		return describe(err)
	}
	views := make([]brandView, len(bs))
	for i, b := range bs {
		views[i] = brandView{b}
	}
	return f.out(views, func(w io.Writer) error { return printTable(w, brandHeader, brandRows(views)) })
}

func brandShow(ctx context.Context, c *cli, args []string) error {
	f := newFlags(c, "brand show", "brandbase brand show [flags] URL")
	pos, err := f.parse(args)
	if err != nil {
		return err
	}
	if err := f.exactArgs(pos, "URL"); err != nil {
		return err
	}
	return withBrand(ctx, f, pos[0], func(app *brandbase.App, b auth.Brand) error { return f.printBrand(brandView{b}) })
}

func brandSet(ctx context.Context, c *cli, args []string) error {
	f := newFlags(c, "brand set", "brandbase brand set [flags] URL [--name NAME] [--url NEWURL] [--currency CODE] [--status Active|Inactive]")
	var s brandSettings
	s.register(f, true)
	pos, err := f.parse(args)
	if err != nil {
		return err
	}
	if err := f.exactArgs(pos, "URL"); err != nil {
		return err
	}
	up := s.update(f)
	if up == (auth.BrandUpdate{}) {
		return usagef("brand set changes nothing: give --name, --url, --currency or --status")
	}
	return withBrand(ctx, f, pos[0], func(app *brandbase.App, b auth.Brand) error {
		b, err := app.Auth.UpdateBrand(ctx, b.ID, up)
		if err != nil {
			return describe(err)
		}
		return f.printBrand(brandView{b})
	})
}

// withBrand opens the database and calls fn with the brand ref names.
func withBrand(ctx context.Context, f *flags, ref string, fn func(*brandbase.App, auth.Brand) error) error {
	app, done, err := f.openApp(ctx, false, f.c.adminLogger())
	if err != nil {
		return err
	}
	defer done()
	b, err := findBrand(ctx, app, ref)
	if err != nil {
		return err
	}
	return fn(app, b)
}
