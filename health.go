package brandbase

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/httpadapter"
	"github.com/brandbase/brandbase/storage"
)

// The names of the checks of [App.ReadinessChecks], as the body of the
// readiness probe reports them.
const (
	CheckStore        = "store"
	CheckMigrations   = "migrations"
	CheckRefDataIndex = "refdata_index"
	CheckListener     = "listener"
)

// pinger is a store that can tell whether it reaches its database now.
type pinger interface {
	Ping(ctx context.Context) error
}

// migrationsReporter is a store that keeps schema migrations (the SQL
// stores) and tells which of them its database has not applied.
type migrationsReporter interface {
	PendingMigrations(ctx context.Context) ([]string, error)
}

// schemaReporter is a store that tells the status of its schema: the
// migrations applied, pending, and newer than this build (the SQL stores).
type schemaReporter interface {
	Schema(ctx context.Context) (storage.SchemaStatus, error)
}

// listenerReporter is a store that listens for other instances' changes
// (storage/postgres) and tells whether it does now.
type listenerReporter interface {
	Listening() bool
}

// Liveness returns the handler of the liveness probe (the demo server
// mounts it at GET /healthz): 200 for as long as the process serves, with
// no check of any dependency (see httpadapter.Liveness).
func (a *App) Liveness() http.Handler { return httpadapter.Liveness() }

// Readiness returns the handler of the readiness probe (the demo server
// mounts it at GET /readyz): 200 when every check of
// [App.ReadinessChecks] passes; 200 with status "degraded" naming the
// checks when only the database or its listener is down, which every
// instance shares, while this instance can still answer (503 with
// cfg.Strict); else 503 with Retry-After and a JSON body naming the checks
// that failed; each check bounded by cfg.Timeout, a result reused for
// cfg.CacheFor (see httpadapter.Readiness). Mount it outside the /api/v1
// handler: it needs no Brand-URL and is not rate limited.
func (a *App) Readiness(cfg httpadapter.ReadinessConfig) http.Handler {
	if cfg.Logger == nil {
		cfg.Logger = a.logger
	}
	return httpadapter.Readiness(a.ReadinessChecks(), cfg)
}

// ReadinessChecks returns the checks of the App's readiness, those its
// store supports, in this order:
//
//   - CheckStore: the store reaches its database now (a store with a
//     Ping(ctx) error method; every store of this module has one); a
//     shared dependency (httpadapter.DependencyDown);
//   - CheckMigrations: the database has applied every migration this
//     build embeds (a store with PendingMigrations: SQLite, PostgreSQL);
//     when the database cannot be reached to tell, a shared dependency;
//     when it has also applied migrations this build does not hold (a
//     newer build migrated it, during a rolling deploy say), the check
//     passes degraded (httpadapter.ErrDegraded) and names them in the
//     log: this build keeps serving, as the schema only expands until
//     every instance runs the newer build (see [App.Schema]);
//   - CheckRefDataIndex: the reference-data service holds a snapshot that
//     lists answer from (refdata.Service.Holds: also one behind the
//     store, being patched, or held while the store is unavailable); a
//     probe that finds none starts its read (refdata.Service.Warm),
//     without waiting for it, and fails until it is done ([App.WarmUp] at
//     start avoids that);
//   - CheckListener: the store listens for the changes of other instances
//     (a store with Listening() bool: storage/postgres); while it does
//     not, this instance's caches are not trusted; a shared dependency.
//
// A failing check of a shared dependency makes the probe "degraded"
// (200) rather than 503, unless the other checks fail too or the
// httpadapter.ReadinessConfig is Strict (docs/operations.md).
// A host may add checks of its own and pass them to httpadapter.Readiness.
func (a *App) ReadinessChecks() []httpadapter.Check {
	var checks []httpadapter.Check
	if p, ok := a.Store.(pinger); ok {
		checks = append(checks, httpadapter.Check{Name: CheckStore, Run: func(ctx context.Context) error {
			return httpadapter.DependencyDown(p.Ping(ctx))
		}})
	}
	if sr, ok := a.Store.(schemaReporter); ok {
		checks = append(checks, httpadapter.Check{Name: CheckMigrations, Run: func(ctx context.Context) error {
			st, err := sr.Schema(ctx)
			switch {
			case err != nil && (envelope.IsUnavailable(err) || ctx.Err() != nil):
				return httpadapter.DependencyDown(err) // the database cannot tell now: CheckStore says why
			case err != nil:
				return err
			case len(st.Pending) > 0:
				return fmt.Errorf("brandbase: migrations not applied: %s", strings.Join(st.Pending, ", "))
			case len(st.Newer) > 0:
				return fmt.Errorf("%w: %w", httpadapter.ErrDegraded, ErrSchemaNewer{Migrations: st.Newer})
			}
			return nil
		}})
	} else if m, ok := a.Store.(migrationsReporter); ok {
		checks = append(checks, httpadapter.Check{Name: CheckMigrations, Run: func(ctx context.Context) error {
			pending, err := m.PendingMigrations(ctx)
			switch {
			case err != nil && (envelope.IsUnavailable(err) || ctx.Err() != nil):
				return httpadapter.DependencyDown(err) // the database cannot tell now: CheckStore says why
			case err == nil && len(pending) > 0:
				err = fmt.Errorf("brandbase: migrations not applied: %s", strings.Join(pending, ", "))
			}
			return err
		}})
	}
	checks = append(checks, httpadapter.Check{Name: CheckRefDataIndex, Run: func(ctx context.Context) error {
		warm, err := a.RefData.Warm(ctx)
		switch {
		case a.RefData.Holds():
			return nil // lists answer from it, while a read goes on or the store is away
		case err != nil:
			return err
		case !warm:
			return errors.New("brandbase: the reference-data snapshot is being read")
		}
		return nil
	}})
	if l, ok := a.Store.(listenerReporter); ok {
		checks = append(checks, httpadapter.Check{Name: CheckListener, Run: func(context.Context) error {
			if !l.Listening() {
				return httpadapter.DependencyDown(errors.New("brandbase: the store is not listening for other instances' changes"))
			}
			return nil
		}})
	}
	return checks
}

// ErrSchemaNewer says that the database's schema holds migrations this
// build does not embed: a newer build migrated it. This build serves on
// it (migrations expand the schema first and contract it only a release
// later; see docs/operations.md) but must not migrate it.
type ErrSchemaNewer struct {
	// Migrations are the names of the migrations this build does not hold.
	Migrations []string
}

func (e ErrSchemaNewer) Error() string {
	return "brandbase: the database schema is newer than this build (migrations it does not hold: " +
		strings.Join(e.Migrations, ", ") + ")"
}

// Schema returns the status of the store's schema (storage.SchemaStatus:
// the migrations applied, pending, and newer than this build), for a
// store that keeps migrations (SQLite, PostgreSQL); for another (the
// memory store) a status with nothing pending or newer. It fails with
// the store's error when its database cannot answer.
func (a *App) Schema(ctx context.Context) (storage.SchemaStatus, error) {
	if sr, ok := a.Store.(schemaReporter); ok {
		return sr.Schema(ctx)
	}
	return storage.SchemaStatus{Applied: []string{}, Pending: []string{}, Newer: []string{}}, nil
}
