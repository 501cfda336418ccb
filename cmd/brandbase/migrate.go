package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/httpadapter"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/storage"
	"github.com/brandbase/brandbase/storage/storeurl"
)

func runMigrate(ctx context.Context, c *cli, args []string) error {
	return subcommand(ctx, c, "migrate", args, map[string]func(context.Context, *cli, []string) error{
		"status": migrateStatus, "up": migrateUp,
	}, []string{"status", "up"})
}

// schemaView is what migrate status and migrate up print.
type schemaView struct {
	storage.SchemaStatus
	// State is up-to-date, pending or newer (newer wins over pending).
	State string `json:"state"`
}

func viewOf(st storage.SchemaStatus) schemaView {
	v := schemaView{SchemaStatus: st, State: "up-to-date"}
	switch {
	case len(st.Newer) > 0:
		v.State = "newer"
	case len(st.Pending) > 0:
		v.State = "pending"
	}
	return v
}

// errNewer says what to do with a schema newer than this binary.
func errNewer(st storage.SchemaStatus) error {
	return fmt.Errorf("the database schema is newer than this binary (migrations it does not hold: %s): "+
		"nothing changed; run the newer brandbase binary (this one may keep serving on it)", strings.Join(st.Newer, ", "))
}

func (f *flags) printSchema(v schemaView) error {
	return f.out(v, func(w io.Writer) error {
		var rows [][]string
		for _, m := range v.Applied {
			rows = append(rows, []string{m, "applied"})
		}
		for _, m := range v.Pending {
			rows = append(rows, []string{m, "pending"})
		}
		for _, m := range v.Newer {
			rows = append(rows, []string{m, "newer than this binary"})
		}
		if err := printTable(w, []string{"MIGRATION", "STATE"}, rows); err != nil {
			return err
		}
		switch v.State {
		case "newer":
			_, err := fmt.Fprintf(w, "the schema is newer than this binary: do not migrate it with this binary (it may keep serving on it)\n")
			return err
		case "pending":
			_, err := fmt.Fprintf(w, "%d migration(s) pending: brandbase migrate up applies them\n", len(v.Pending))
			return err
		}
		_, err := fmt.Fprintln(w, "the schema is up to date")
		return err
	})
}

func migrateStatus(ctx context.Context, c *cli, args []string) error {
	f := newFlags(c, "migrate status", "brandbase migrate status [flags]")
	db, err := f.dbOnly(args)
	if err != nil {
		return err
	}
	st, err := readSchema(ctx, db)
	if err != nil {
		return err
	}
	return f.printSchema(viewOf(st))
}

func migrateUp(ctx context.Context, c *cli, args []string) error {
	f := newFlags(c, "migrate up", "brandbase migrate up [flags]")
	db, err := f.dbOnly(args)
	if err != nil {
		return err
	}
	st, err := readSchema(ctx, db)
	if err != nil {
		return err
	}
	if len(st.Newer) > 0 {
		return errNewer(st)
	}
	// Opening the store applies the pending migrations (under the
	// schema's lock on PostgreSQL) and loads the default dataset.
	store, err := storeurl.Open(ctx, db, storeurl.Options{Logger: c.adminLogger()})
	if err != nil {
		return fmt.Errorf("migrate %s: %w", storeurl.Redact(db), err)
	}
	after, err := storeurl.Schema(ctx, db)
	store.Close()
	if err != nil {
		return err
	}
	return f.printSchema(viewOf(after))
}

// checkResult is one line of check.
type checkResult struct {
	Name   string `json:"name"`
	Status string `json:"status"` // ok, fail, degraded or skipped
	Detail string `json:"detail,omitempty"`
}

// checkView is what check prints.
type checkView struct {
	Status string        `json:"status"` // ok or unavailable
	Checks []checkResult `json:"checks"`
}

func runCheck(ctx context.Context, c *cli, args []string) error {
	f := newFlags(c, "check", "brandbase check [flags]")
	timeout := f.Duration("timeout", 5*time.Second, "how long the checks may take in all")
	db, err := f.dbOnly(args)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	v := checks(ctx, f, db)
	if err := f.out(v, func(w io.Writer) error {
		rows := make([][]string, len(v.Checks))
		for i, r := range v.Checks {
			rows[i] = []string{r.Name, r.Status, orDash(r.Detail)}
		}
		return printTable(w, []string{"CHECK", "STATUS", "DETAIL"}, rows)
	}); err != nil {
		return err
	}
	if v.Status != httpadapter.StatusOK {
		var failed []string
		for _, r := range v.Checks {
			if r.Status == httpadapter.StatusFail {
				failed = append(failed, r.Name)
			}
		}
		return fmt.Errorf("not ready: %s failed (details above)", strings.Join(failed, ", "))
	}
	return nil
}

// checks runs what /readyz checks, from here: the schema first, without
// migrating (pending or newer migrations fail), then, on a schema this
// binary serves, the store, the reference-data index and the listener of
// an App opened on it.
func checks(ctx context.Context, f *flags, db string) checkView {
	v := checkView{Status: httpadapter.StatusOK}
	add := func(name, status, detail string) {
		v.Checks = append(v.Checks, checkResult{name, status, detail})
		if status == httpadapter.StatusFail {
			v.Status = httpadapter.StatusUnavailable
		}
	}
	skip := func(names ...string) {
		for _, n := range names {
			add(n, "skipped", "")
		}
	}
	st, err := storeurl.Schema(ctx, db)
	if err != nil {
		add(brandbase.CheckStore, httpadapter.StatusFail, oneLine(err.Error()))
		skip(brandbase.CheckMigrations, brandbase.CheckRefDataIndex)
		return v
	}
	switch {
	case len(st.Newer) > 0:
		add(brandbase.CheckMigrations, httpadapter.StatusFail, "the schema is newer than this binary: "+strings.Join(st.Newer, ", "))
	case len(st.Pending) > 0:
		add(brandbase.CheckMigrations, httpadapter.StatusFail, "pending (brandbase migrate up): "+strings.Join(st.Pending, ", "))
	}
	if len(v.Checks) > 0 {
		skip(brandbase.CheckStore, brandbase.CheckRefDataIndex)
		return v
	}
	store, err := storeurl.Open(ctx, db, storeurl.Options{Logger: f.c.adminLogger()})
	if err != nil {
		add(brandbase.CheckStore, httpadapter.StatusFail, oneLine(err.Error()))
		return v
	}
	defer store.Close()
	app, err := brandbase.New(store, brandbase.Config{SecretKeys: integrations.EphemeralKeyRing(), Logger: f.c.adminLogger(), OutboxManualStart: true})
	if err != nil {
		add(brandbase.CheckStore, httpadapter.StatusFail, oneLine(err.Error()))
		return v
	}
	defer app.Close()
	_ = app.WarmUp(ctx) // its failure is the refdata_index check's
	cs := app.ReadinessChecks()
	errs := make([]error, len(cs))
	// A listener starts with the store: a check that fails is tried
	// again until it passes or the time runs out.
	for {
		pending := false
		for i, ch := range cs {
			cctx, ccancel := context.WithTimeout(ctx, httpadapter.DefaultCheckTimeout)
			errs[i] = ch.Run(cctx)
			ccancel()
			if errs[i] != nil && !errors.Is(errs[i], httpadapter.ErrDegraded) {
				pending = true
			}
		}
		if !pending || ctx.Err() != nil {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
	for i, ch := range cs {
		switch {
		case errs[i] == nil:
			add(ch.Name, httpadapter.StatusOK, "")
		case errors.Is(errs[i], httpadapter.ErrDegraded):
			add(ch.Name, httpadapter.StatusDegraded, oneLine(errs[i].Error()))
		default:
			add(ch.Name, httpadapter.StatusFail, oneLine(errs[i].Error()))
		}
	}
	return v
}

// readSchema reads db's schema status without migrating it.
func readSchema(ctx context.Context, db string) (storage.SchemaStatus, error) {
	st, err := storeurl.Schema(ctx, db)
	if err != nil {
		return st, fmt.Errorf("cannot read the schema of %s: %w (check --db or BRANDBASE_DATABASE_URL)", storeurl.Redact(db), err)
	}
	return st, nil
}
