package brandbase

import (
	"errors"
	"time"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/httpadapter"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/storage"
)

// Config holds the settings of an [App]. The zero value is usable.
type Config struct {
	// Clock is where the services read the time; time.Now when nil.
	Clock func() time.Time
}

// App wires the domain services of brandbase onto one store. Its fields are
// ready to call in-process; Handler serves them over HTTP.
type App struct {
	// Store is the backend every service reads and writes.
	Store storage.Storage
	// Auth manages brands, users, key pairs, devices and permissions.
	Auth *auth.Service
	// RefData answers the currency, country and city lists.
	RefData *refdata.Service
	// Integrations manages app integrations and their configurations.
	Integrations *integrations.Service
}

// New returns an App on store. The App does not own the store: close it
// yourself when done.
func New(store storage.Storage, cfg Config) (*App, error) {
	if store == nil {
		return nil, errors.New("brandbase: a store is required")
	}
	var authOpts []auth.Option
	if cfg.Clock != nil {
		authOpts = append(authOpts, auth.WithClock(cfg.Clock))
	}
	return &App{
		Store:        store,
		Auth:         auth.NewService(store, authOpts...),
		RefData:      refdata.NewService(store),
		Integrations: integrations.NewService(store),
	}, nil
}

// Handler returns the net/http handler of every /api/v1 route, to mount on
// a host's mux (see package httpadapter for the options).
func (a *App) Handler(opts ...httpadapter.Option) (*httpadapter.Handler, error) {
	return httpadapter.New(httpadapter.Services{Auth: a.Auth, RefData: a.RefData, Integrations: a.Integrations}, opts...)
}
