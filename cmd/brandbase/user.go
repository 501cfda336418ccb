package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/auth"
)

func runUser(ctx context.Context, c *cli, args []string) error {
	order := []string{"create", "list", "show", "set-password", "grant", "revoke", "activate", "deactivate", "sessions", "collisions"}
	return subcommand(ctx, c, "user", args, map[string]func(context.Context, *cli, []string) error{
		"create": userCreate, "list": userList, "show": userShow, "set-password": userSetPassword,
		"grant": userGrant(true), "revoke": userGrant(false),
		"activate": userStatus(auth.StatusActive), "deactivate": userStatus(auth.StatusInactive),
		"sessions": userSessions, "collisions": userCollisions,
	}, order)
}

var userHeader = []string{"USERNAME", "EMAIL", "STATUS", "PERMISSIONS", "ID", "CREATED"}

func userRow(u auth.User) []string {
	return []string{u.Username, orDash(u.EmailAddress), string(u.Status), orDash(perms(u.Permissions)), u.ID, when(u.CreatedAt)}
}

func perms(ps []auth.Permission) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = string(p)
	}
	return strings.Join(s, ",")
}

func (f *flags) printUser(u auth.User) error {
	return f.out(u, func(w io.Writer) error {
		return printFields(w, [][2]string{{"username", u.Username}, {"email", orDash(u.EmailAddress)},
			{"phone", orDash(u.PhoneNumber)}, {"status", string(u.Status)}, {"permissions", orDash(perms(u.Permissions))},
			{"id", u.ID}, {"brand id", u.BrandID}, {"created", when(u.CreatedAt)}, {"updated", when(u.UpdatedAt)}})
	})
}

// userFlags returns the flags of a user subcommand: the common ones and
// --brand.
func userFlags(c *cli, name, usage string) (*flags, *string) {
	f := newFlags(c, name, usage)
	brand := f.String("brand", "", "the user's brand: its URL or ID (required)")
	return f, brand
}

// userArg parses args of a command that reads a password before it opens
// the database: one USERNAME, a brand, a database named; it returns the
// username, so that no prompt comes before a usage error.
func (f *flags) userArg(args []string, brand *string) (string, error) {
	pos, err := f.parse(args)
	if err != nil {
		return "", err
	}
	if err := f.exactArgs(pos, "USERNAME"); err != nil {
		return "", err
	}
	if *brand == "" {
		return "", usagef("no brand: give --brand URL")
	}
	if _, err := f.db(); err != nil {
		return "", err
	}
	return pos[0], nil
}

// withUser opens the database and calls fn with the user userRef names in
// the brand.
func withUser(ctx context.Context, f *flags, brandRef, userRef string, fn func(*brandbase.App, auth.Brand, auth.User) error) error {
	if brandRef == "" {
		return usagef("no brand: give --brand URL")
	}
	return withBrand(ctx, f, brandRef, func(app *brandbase.App, b auth.Brand) error {
		u, err := findUser(ctx, app, b, userRef)
		if err != nil {
			return err
		}
		return fn(app, b, u)
	})
}

func userCreate(ctx context.Context, c *cli, args []string) error {
	f, brand := userFlags(c, "user create", "brandbase user create --brand URL [flags] USERNAME  (the password on standard input or a prompt)")
	email := f.String("email", "", "the user's email address")
	phone := f.String("phone", "", "the user's phone number")
	grant := f.String("permissions", "", "comma-separated permissions to grant: * (all), "+
		string(auth.PermAnalyticsWrite)+", "+string(auth.PermPaymentGatewayWrite)+", "+string(auth.PermUsersRead)+", "+string(auth.PermUsersWrite))
	username, err := f.userArg(args, brand)
	if err != nil {
		return err
	}
	password, err := c.readPassword("Password for " + username)
	if err != nil {
		return err
	}
	return withBrand(ctx, f, *brand, func(app *brandbase.App, b auth.Brand) error {
		var ps []auth.Permission
		for _, p := range splitList(*grant) {
			ps = append(ps, auth.Permission(p))
		}
		u, err := app.Auth.CreateUser(ctx, b.ID, auth.NewUser{Username: username, EmailAddress: *email, PhoneNumber: *phone,
			Password: password, Permissions: ps})
		if err != nil {
			return describe(err)
		}
		return f.printUser(u)
	})
}

// userListFlags are the filters of user list: the query of GET users.
type userListFlags struct {
	ids, username, email, status, from, to, keywords, sort, order *string
	page, pageSize                                                *int
}

func newUserListFlags(f *flags) userListFlags {
	return userListFlags{
		ids:      f.String("ids", "", "comma-separated user IDs: those users only"),
		username: f.String("username", "", "the user with this username (case ignored)"),
		email:    f.String("email", "", "the user with this email address (case ignored)"),
		status:   f.String("status", "", "Active, Inactive, Locked or Suspended"),
		from:     f.String("created-from", "", `users created at or after: RFC 3339, "2006-01-02 15:04:05" or 2006-01-02 (UTC)`),
		to:       f.String("created-to", "", "users created at or before (a date alone: its whole day)"),
		keywords: f.String("keywords", "", "every word the start of a word of the username, address or names (case and accents ignored)"),
		sort:     f.String("sort", "createdDate", "id, createdDate, username or status"),
		order:    f.String("order", "ASC", "ASC or DESC"),
		page:     f.Int("page", -1, "one page, from 0 (default: every page)"),
		pageSize: f.Int("page-size", auth.MaxUserPageSize, "the size of a page, 1 to 1000"),
	}
}

// query returns the query the flags name, of page n.
func (l userListFlags) query(n int) auth.UserQuery {
	opt := func(s *string) *string {
		if *s == "" {
			return nil
		}
		return s
	}
	q := auth.UserQuery{Username: opt(l.username), EmailAddress: opt(l.email), Status: opt(l.status),
		CreatedDateFrom: opt(l.from), CreatedDateTo: opt(l.to), Keywords: opt(l.keywords),
		SortDataField: opt(l.sort), SortOrder: opt(l.order), PageNumber: n, PageSize: *l.pageSize}
	if *l.ids != "" {
		q.IDs = splitList(*l.ids)
	}
	return q
}

// list returns the users the flags select in brand b: one page with
// --page, else every page.
func (l userListFlags) list(ctx context.Context, app *brandbase.App, b auth.Brand) ([]auth.User, error) {
	actor := auth.SystemPrincipal(b.ID)
	if *l.page >= 0 {
		p, err := app.Auth.ListUsers(ctx, actor, l.query(*l.page))
		return p.Items, err
	}
	us := []auth.User{}
	for n := 0; ; n++ {
		p, err := app.Auth.ListUsers(ctx, actor, l.query(n))
		if err != nil {
			return nil, err
		}
		us = append(us, p.Items...)
		if len(p.Items) < p.PageSize || len(us) >= p.TotalItems {
			return us, nil
		}
	}
}

func userList(ctx context.Context, c *cli, args []string) error {
	f, brand := userFlags(c, "user list", "brandbase user list --brand URL [filters] [flags]  (the filters of GET users; every page unless --page)")
	lf := newUserListFlags(f)
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
	return withBrand(ctx, f, *brand, func(app *brandbase.App, b auth.Brand) error {
		us, err := lf.list(ctx, app, b)
		if err != nil {
			return describe(err)
		}
		return f.out(us, func(w io.Writer) error {
			rows := make([][]string, len(us))
			for i, u := range us {
				rows[i] = userRow(u)
			}
			return printTable(w, userHeader, rows)
		})
	})
}

func userShow(ctx context.Context, c *cli, args []string) error {
	f, brand := userFlags(c, "user show", "brandbase user show --brand URL [flags] USERNAME")
	pos, err := f.parse(args)
	if err != nil {
		return err
	}
	if err := f.exactArgs(pos, "USERNAME"); err != nil {
		return err
	}
	return withUser(ctx, f, *brand, pos[0], func(_ *brandbase.App, _ auth.Brand, u auth.User) error { return f.printUser(u) })
}

func userSetPassword(ctx context.Context, c *cli, args []string) error {
	f, brand := userFlags(c, "user set-password", "brandbase user set-password --brand URL [flags] USERNAME  (the password on standard input or a prompt)")
	username, err := f.userArg(args, brand)
	if err != nil {
		return err
	}
	password, err := c.readPassword("New password for " + username)
	if err != nil {
		return err
	}
	return withUser(ctx, f, *brand, username, func(app *brandbase.App, _ auth.Brand, u auth.User) error {
		if err := app.Auth.SetPassword(ctx, u.ID, password); err != nil {
			return describe(err)
		}
		u, err := app.Auth.User(ctx, u.ID)
		if err != nil {
			return describe(err)
		}
		return f.printUser(u)
	})
}

func userGrant(grant bool) func(context.Context, *cli, []string) error {
	name := map[bool]string{true: "grant", false: "revoke"}[grant]
	return func(ctx context.Context, c *cli, args []string) error {
		f, brand := userFlags(c, "user "+name, "brandbase user "+name+" --brand URL [flags] USERNAME PERMISSION...")
		pos, err := f.parse(args)
		if err != nil {
			return err
		}
		if len(pos) < 2 {
			return usagef("user %s takes USERNAME and one or more permissions (*, %s, %s)", name, auth.PermAnalyticsWrite, auth.PermPaymentGatewayWrite)
		}
		var ps []auth.Permission
		for _, p := range pos[1:] {
			for _, q := range splitList(p) {
				ps = append(ps, auth.Permission(q))
			}
		}
		return withUser(ctx, f, *brand, pos[0], func(app *brandbase.App, _ auth.Brand, u auth.User) error {
			var err error
			if grant {
				u, err = app.Auth.Grant(ctx, u.ID, ps...)
			} else {
				u, err = app.Auth.Revoke(ctx, u.ID, ps...)
			}
			if err != nil {
				return describe(err)
			}
			return f.printUser(u)
		})
	}
}

func userStatus(status auth.Status) func(context.Context, *cli, []string) error {
	name := map[auth.Status]string{auth.StatusActive: "activate", auth.StatusInactive: "deactivate"}[status]
	return func(ctx context.Context, c *cli, args []string) error {
		f, brand := userFlags(c, "user "+name, "brandbase user "+name+" --brand URL [flags] USERNAME")
		pos, err := f.parse(args)
		if err != nil {
			return err
		}
		if err := f.exactArgs(pos, "USERNAME"); err != nil {
			return err
		}
		return withUser(ctx, f, *brand, pos[0], func(app *brandbase.App, _ auth.Brand, u auth.User) error {
			u, err := app.Auth.SetUserStatus(ctx, u.ID, status)
			if err != nil {
				return describe(err)
			}
			return f.printUser(u)
		})
	}
}

// sessionsView is what user sessions prints: the user's devices (every
// login with device headers is one). The sessions (key pairs) of each
// device join it once this build lists them.
type sessionsView struct {
	User    auth.User     `json:"user"`
	Devices []auth.Device `json:"devices"`
	// Ended is what --end or --end-all ended: device IDs, or "all".
	Ended []string `json:"ended,omitempty"`
	// KeysRevoked is how many key pairs --end-all revoked.
	KeysRevoked int `json:"keysRevoked,omitempty"`
}

func userSessions(ctx context.Context, c *cli, args []string) error {
	f, brand := userFlags(c, "user sessions", "brandbase user sessions --brand URL [flags] USERNAME [--end DEVICE_ID | --end-all]")
	end := f.String("end", "", "end the sessions of this device (its ID): every key issued on it stops; it may sign in again with the password")
	endAll := f.Bool("end-all", false, "end every session of the user (every key pair)")
	pos, err := f.parse(args)
	if err != nil {
		return err
	}
	if err := f.exactArgs(pos, "USERNAME"); err != nil {
		return err
	}
	if *end != "" && *endAll {
		return usagef("give --end DEVICE_ID or --end-all, not both")
	}
	return withUser(ctx, f, *brand, pos[0], func(app *brandbase.App, _ auth.Brand, u auth.User) error {
		v := sessionsView{User: u}
		switch {
		case *end != "":
			if _, err := app.Auth.EndDevice(ctx, u.ID, *end); err != nil {
				return fmt.Errorf("end device %s: %w", *end, describe(err))
			}
			v.Ended = []string{*end}
		case *endAll:
			n, err := app.Auth.RevokeUserKeys(ctx, u.ID)
			if err != nil {
				return describe(err)
			}
			v.Ended, v.KeysRevoked = []string{"all"}, n
		}
		ds, err := app.Auth.Devices(ctx, u.ID)
		if err != nil {
			return describe(err)
		}
		if ds == nil {
			ds = []auth.Device{}
		}
		v.Devices = ds
		signedIn, err := app.Auth.UserDevices(ctx, u.ID)
		if err != nil {
			return describe(err)
		}
		in := map[string]bool{}
		for _, d := range signedIn {
			in[d.ID] = true
		}
		return f.out(v, func(w io.Writer) error {
			if *endAll {
				fmt.Fprintf(w, "ended every session of %s (%d key pairs revoked)\n", u.Username, v.KeysRevoked)
			} else if *end != "" {
				fmt.Fprintf(w, "ended the sessions of device %s\n", *end)
			}
			rows := make([][]string, len(ds))
			for i, d := range ds {
				state := "signed out"
				switch {
				case d.Revoked():
					state = "revoked " + when(d.RevokedAt)
				case in[d.ID]:
					state = "signed in"
				case !d.EndedAt.IsZero():
					state = "ended " + when(d.EndedAt)
				}
				rows[i] = []string{d.ID, orDash(d.Name), orDash(d.OS), orDash(d.AppVersion), when(d.CreatedAt), when(d.LastAccessAt), state}
			}
			return printTable(w, []string{"DEVICE", "NAME", "OS", "APP", "FIRST SEEN", "LAST ACCESS", "STATE"}, rows)
		})
	})
}

// collisionView is one line of brandbase user collisions --json.
type collisionView struct {
	// BrandURL is the brand of the users.
	BrandURL string `json:"brandUrl"`
	auth.IdentifierCollision
}

// userCollisions reports the users whose usernames or email addresses
// collide under the rules new users obey (auth.Service.IdentifierCollisions),
// in one brand or in every brand; it fails (exit 1) when it finds any.
func userCollisions(ctx context.Context, c *cli, args []string) error {
	f := newFlags(c, "user collisions", "brandbase user collisions [--brand URL] [flags]  (exit 1 when users collide)")
	brand := f.String("brand", "", "the brand to check: its URL or ID (every brand when not given)")
	pos, err := f.parse(args)
	if err != nil {
		return err
	}
	if err := f.exactArgs(pos); err != nil {
		return err
	}
	app, done, err := f.openApp(ctx, false, f.c.adminLogger())
	if err != nil {
		return err
	}
	defer done()
	var brands []auth.Brand
	if *brand != "" {
		b, err := findBrand(ctx, app, *brand)
		if err != nil {
			return err
		}
		brands = []auth.Brand{b}
	} else if brands, err = app.Auth.Brands(ctx); err != nil {
		return describe(err)
	}
	vs := []collisionView{}
	for _, b := range brands {
		cs, err := app.Auth.IdentifierCollisions(ctx, b.ID)
		if err != nil {
			return describe(err)
		}
		for _, c := range cs {
			vs = append(vs, collisionView{b.URL, c})
		}
	}
	if err := f.out(vs, func(w io.Writer) error {
		if len(vs) == 0 {
			_, err := fmt.Fprintf(w, "no collisions: the usernames and email addresses of %d brands are sound\n", len(brands))
			return err
		}
		rows := make([][]string, len(vs))
		for i, v := range vs {
			rows[i] = []string{v.BrandURL, v.Reason, v.User.Username, orDash(v.User.EmailAddress),
				orDash(v.Other.Username), v.Key, v.User.ID}
		}
		return printTable(w, []string{"BRAND", "REASON", "USERNAME", "EMAIL", "OTHER USER", "KEY", "ID"}, rows)
	}); err != nil {
		return err
	}
	if len(vs) > 0 {
		return fmt.Errorf("%d collisions of usernames and email addresses (listed above; docs/authentication.md says what each means and what to do)", len(vs))
	}
	return nil
}
