package brandbase

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/httpadapter"
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
	if m, ok := a.Store.(migrationsReporter); ok {
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
