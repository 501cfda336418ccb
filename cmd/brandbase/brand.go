package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/auth"
)

func runBrand(ctx context.Context, c *cli, args []string) error {
	return subcommand(ctx, c, "brand", args, map[string]func(context.Context, *cli, []string) error{
		"create": brandCreate, "list": brandList, "show": brandShow, "set": brandSet,
	}, []string{"create", "list", "show", "set"})
}

// brandView is a brand as the command prints it, with the brand settings
// of the account routes (sign-up, device cap, reset-link origins) where
// they were read (brand show, create and set).
type brandView struct {
	auth.Brand
	Settings *auth.BrandSettings `json:"settings,omitempty"`
}

// viewWithSettings is b with its settings.
func viewWithSettings(ctx context.Context, app *brandbase.App, b auth.Brand) (brandView, error) {
	bs, err := app.Auth.BrandSettings(ctx, b.ID)
	if err != nil {
		return brandView{}, describe(err)
	}
	return brandView{Brand: b, Settings: &bs}, nil
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
		fields := [][2]string{{"url", b.URL}, {"name", b.Name}, {"status", string(b.Status)},
			{"default currency", b.DefaultCurrency}, {"id", b.ID}, {"created", when(b.CreatedAt)}}
		if st := b.Settings; st != nil {
			signUp, cap := "closed", "none"
			if st.RegistrationOpen {
				signUp = "open"
			}
			if st.MaxDevicesPerUser > 0 {
				cap = fmt.Sprint(st.MaxDevicesPerUser)
			}
			fields = append(fields, [2]string{"sign-up", signUp}, [2]string{"devices per user", cap},
				[2]string{"reset-link origins", orDash(strings.Join(st.ResetLinkOrigins, ", "))})
		}
		return printFields(w, fields)
	})
}

// brandSettings are the flags of brand create and brand set; a flag not
// given leaves its field as it is (set) or at its default (create).
type brandSettings struct {
	name, currency, status, url string
	// The account routes' settings (auth.BrandSettings).
	signUp     bool
	maxDevices int
	origins    string
}

func (s *brandSettings) register(f *flags, withURL bool) {
	f.StringVar(&s.name, "name", "", "the brand's display name")
	f.StringVar(&s.currency, "currency", "", "the default currency, a three-letter code (default USD)")
	f.StringVar(&s.status, "status", "", "Active or Inactive (default Active)")
	if withURL {
		f.StringVar(&s.url, "url", "", "the brand's new URL (its domain)")
	}
	f.BoolVar(&s.signUp, "sign-up", false, "sign-up open (POST users/register); closed by default")
	f.IntVar(&s.maxDevices, "max-devices", 0, "the most devices a user may be signed in on (0: no cap); a login past it ends the one used longest ago")
	f.StringVar(&s.origins, "reset-link-origins", "", "comma-separated origins password-reset links may point to, beyond https:// and the brand's URL")
}

// settingsGiven reports whether a flag of the account settings was given.
func (s *brandSettings) settingsGiven(f *flags) bool {
	given := false
	f.Visit(func(fl *flag.Flag) {
		given = given || fl.Name == "sign-up" || fl.Name == "max-devices" || fl.Name == "reset-link-origins"
	})
	return given
}

// applySettings changes the brand settings the flags give, keeping the
// others, and returns b with its settings.
func (s *brandSettings) applySettings(ctx context.Context, f *flags, app *brandbase.App, b auth.Brand) (brandView, error) {
	if s.settingsGiven(f) {
		bs, err := app.Auth.BrandSettings(ctx, b.ID)
		if err != nil {
			return brandView{}, describe(err)
		}
		f.Visit(func(fl *flag.Flag) {
			switch fl.Name {
			case "sign-up":
				bs.RegistrationOpen = s.signUp
			case "max-devices":
				bs.MaxDevicesPerUser = s.maxDevices
			case "reset-link-origins":
				bs.ResetLinkOrigins = nil
				for o := range strings.SplitSeq(s.origins, ",") {
					if o = strings.TrimSpace(o); o != "" {
						bs.ResetLinkOrigins = append(bs.ResetLinkOrigins, o)
					}
				}
			}
		})
		if err := app.Auth.SetBrandSettings(ctx, b.ID, bs); err != nil {
			return brandView{}, describe(err)
		}
	}
	return viewWithSettings(ctx, app, b)
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
	v, err := s.applySettings(ctx, f, app, b)
	if err != nil {
		return err
	}
	return f.printBrand(v)
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
		views[i] = brandView{Brand: b}
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
	return withBrand(ctx, f, pos[0], func(app *brandbase.App, b auth.Brand) error {
		v, err := viewWithSettings(ctx, app, b)
		if err != nil {
			return err
		}
		return f.printBrand(v)
	})
}

func brandSet(ctx context.Context, c *cli, args []string) error {
	f := newFlags(c, "brand set", "brandbase brand set [flags] URL [--name NAME] [--url NEWURL] [--currency CODE] [--status Active|Inactive] [--sign-up=true|false] [--max-devices N] [--reset-link-origins O1,O2]")
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
	if up == (auth.BrandUpdate{}) && !s.settingsGiven(f) {
		return usagef("brand set changes nothing: give --name, --url, --currency, --status, --sign-up, --max-devices or --reset-link-origins")
	}
	return withBrand(ctx, f, pos[0], func(app *brandbase.App, b auth.Brand) error {
		if up != (auth.BrandUpdate{}) {
			var err error
			if b, err = app.Auth.UpdateBrand(ctx, b.ID, up); err != nil {
				return describe(err)
			}
		}
		v, err := s.applySettings(ctx, f, app, b)
		if err != nil {
			return err
		}
		return f.printBrand(v)
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
