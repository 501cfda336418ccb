package brandbase

import (
	"context"
	"errors"
	"log/slog"
	"runtime"
	"slices"
	"time"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/httpadapter"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/internal/netguard"
	"github.com/brandbase/brandbase/internal/storecalls"
	"github.com/brandbase/brandbase/internal/telemetry"
	"github.com/brandbase/brandbase/mail"
	"github.com/brandbase/brandbase/messages"
	"github.com/brandbase/brandbase/outbox"
	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/storage"
	"github.com/brandbase/brandbase/webhooks"
)

// ChangeFeed is implemented by a store that several instances (processes)
// share and that reports the changes any of them makes, such as
// storage/postgres. [New] subscribes the App's auth service to it, so that
// a key, user or brand changed through another instance is not answered
// from this instance's caches for long (see auth.Service.Forget).
type ChangeFeed interface {
	// OnAuthChange calls fn with every change that may make an
	// auth.Service's cached answers stale, until unsubscribe is called.
	OnAuthChange(fn func(auth.Change)) (unsubscribe func())
}

// SharedLimiter is implemented by a store that can keep rate-limit buckets
// for every instance sharing it, such as storage/postgres. An App on such a
// store applies the login limits (per identifier, per user, per client IP)
// and the refresh limit in it, so that they hold across instances; see
// [App.Handler].
type SharedLimiter interface {
	httpadapter.Limiter
}

// EphemeralStore is implemented by a store whose data lives only as long
// as the process, such as storage/memory, and reports it with Ephemeral.
// [New] lets such a store seal integration secrets under a per-process key
// when Config.SecretKeys is nil; every other store needs a key ring.
type EphemeralStore interface {
	// Ephemeral reports whether the store's data ends with the process.
	Ephemeral() bool
}

// ErrSecretKeysRequired is the error of [New] for a store that outlives the
// process (any store but an [EphemeralStore]) without Config.SecretKeys:
// secrets sealed under a per-process key could not be read after a
// restart.
var ErrSecretKeysRequired = errors.New("brandbase: Config.SecretKeys is required for a store that outlives the process, " +
	"else the integration secrets stored now cannot be read after a restart: " +
	"set it to integrations.LoadOrCreateKeyRing(path) (a key file kept apart from the database), " +
	"integrations.ParseKeyRing(text), or integrations.EphemeralKeyRing() to accept losing them")

// Config holds the settings of an [App]. The zero value is usable for an
// in-memory store; any other store needs SecretKeys.
type Config struct {
	// Clock is where the services and the HTTP adapter (rate limits) read
	// the time; time.Now when nil.
	Clock func() time.Time
	// SecretKeys is the key ring that encrypts integration secrets (apiKey,
	// apiSecret, privateKey) at rest; see integrations.KeyRing and
	// integrations.ParseKeyRing and integrations.LoadOrCreateKeyRing. It
	// is required unless the store is an [EphemeralStore] (storage/memory),
	// for which nil means a random key that lives as long as the process:
	// [New] fails with [ErrSecretKeysRequired] without it, rather than seal
	// secrets that a restart makes unreadable.
	SecretKeys *integrations.KeyRing
	// OnIntegrationUpdated, when set, is called in-process after every
	// committed update of an app integration or a configuration, once per
	// revision (see integrations.Service.OnIntegrationUpdated). With
	// several instances on one database it is called once per change, on
	// the instance that made it, never on the others.
	OnIntegrationUpdated func(context.Context, integrations.IntegrationUpdated)

	// WebhookAutoDisable is how long an endpoint's deliveries may fail
	// without a success before it is disabled (and a webhook.disabled
	// event emitted); webhooks.DefaultAutoDisable (5 days) when 0.
	WebhookAutoDisable time.Duration
	// WebhookSecretOverlap is how long, after a secret rotation, the old
	// secret signs beside the new one; webhooks.DefaultSecretOverlap
	// (24 h) when 0.
	WebhookSecretOverlap time.Duration

	// MaxConcurrentHashes bounds how many password hashes (logins, new
	// passwords) are computed at once; auth.DefaultMaxConcurrentHashes
	// (half of GOMAXPROCS, at least 1) when 0.
	MaxConcurrentHashes int
	// MaxHashWait bounds how long a login waits for a
	// hashing slot: past it, or at once when the logins already waiting
	// would keep it waiting longer, it fails with 503 unavailable and a
	// Retry-After, whoever the user is, so that logins do not queue
	// without bound under load; a login's store calls share the bound, so
	// that a login takes at most it plus one hash. auth.DefaultMaxHashWait (1 s) when 0; no
	// bound when below 0.
	MaxHashWait time.Duration
	// AuthKeyTTL and RefreshKeyTTL are the lifetimes of new key pairs;
	// auth.DefaultAuthKeyTTL (24 h) and auth.DefaultRefreshKeyTTL (30 days)
	// when 0.
	AuthKeyTTL    time.Duration
	RefreshKeyTTL time.Duration
	// RefreshReuseInterval is how long after a refresh key's rotation a
	// second use of it (two tabs refreshing together, a retry after an
	// answer lost on the network) gets a working pair of the same family
	// instead of revoking the family as a stolen key's use does:
	// auth.DefaultRefreshReuseInterval (10 s) when 0; none when negative
	// (every reuse revokes the family). See auth.WithRefreshReuseInterval.
	RefreshReuseInterval time.Duration
	// KeyCacheTTL is how long a checked Auth-Key is trusted without a store
	// read: auth.DefaultKeyCacheTTL when 0, no cache when negative.
	// Revocations through this App are seen at once. One made by another
	// process sharing the store is seen within about a second when the
	// store is a [ChangeFeed] (storage/postgres), else within KeyCacheTTL.
	KeyCacheTTL time.Duration
	// OnAuthEvent, when set, is called in-process after a user authenticated
	// and after a device was registered (see auth.WithEventHook): once per
	// event, on the instance where it happened.
	OnAuthEvent func(context.Context, auth.Event)
	// OutboundPolicy is the address rule of the service's outgoing
	// connections (SMTP servers, see mail.WithPolicy; webhook deliveries,
	// see webhooks.WithAddressPolicy): the zero value
	// allows public addresses only, so that no caller makes the service
	// reach into its own network; AllowLoopback (development, the demo
	// server) and AllowPrivate widen it. It is checked on the address a
	// connection is made to, after the name resolved.
	OutboundPolicy OutboundPolicy
	// AuthOptions are applied after the fields above, for auth settings
	// Config does not name (argon2id parameters, random source).
	AuthOptions []auth.Option
	// Logger receives the lines of the App's services (auth, reference
	// data), of its HTTP adapter and of its readiness probe, unless their
	// own options set another; slog.Default() when nil. A store's own
	// lines go to the logger given to the store (postgres.WithLogger;
	// storeurl.Options.Logger).
	Logger *slog.Logger

	// MeterProvider, when set, receives the App's metrics: the HTTP
	// adapter's requests and rate-limit refusals, the auth service's
	// logins, password hashing waits, cache hits and changes heard, and
	// the integration updates and If-Match conflicts, the store calls,
	// the reference-data snapshot's builds, patches and lag, and the list
	// cache's hits. TracerProvider, when set, receives a server span per
	// request, a span per store call, password hash and snapshot build or
	// patch. Pass them to the store too (postgres.WithMeterProvider and
	// postgres.WithTracerProvider, or storeurl.Options: its pool, listener
	// and statement spans). Nil means none: the global otel providers are never read.
	// docs/observability.md lists every metric and span.
	MeterProvider  metric.MeterProvider
	TracerProvider trace.TracerProvider
	// Propagator reads the trace context of incoming requests;
	// propagation.TraceContext (the traceparent header) when nil.
	Propagator propagation.TextMapPropagator

	// OutboxManualStart, when true, makes New build App.Outbox without
	// starting it: the host starts it (App.Outbox.Start or Run) in the
	// processes that deliver, and leaves it stopped in those that only
	// serve requests or run an operator's command (the items wait in the
	// store for a process that delivers). New starts it when false.
	OutboxManualStart bool
	// OutboxOptions are applied to App.Outbox after the App's own (Clock,
	// Logger, MeterProvider), for the settings Config does not name:
	// outbox.WithConcurrency (64), outbox.WithPerBrandConcurrency (8),
	// outbox.WithRetryBound (24 h), outbox.WithClaimTTL (1 min),
	// outbox.WithAttemptTimeout (30 s), outbox.WithPollInterval (1 s),
	// outbox.WithRetention (7 days).
	OutboxOptions []outbox.Option
}

// OutboundPolicy is the address rule of outgoing connections
// (Config.OutboundPolicy): which addresses beyond the public internet a
// connection may reach.
type OutboundPolicy = netguard.Policy

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
	// Messages manages the brands' message templates and renders the
	// mail the outbox sends (messages.Service.Render).
	Messages *messages.Service
	// Outbox delivers what the services enqueue (mail, events and their
	// webhooks): register the handler of each channel with Handle. New
	// starts it unless Config.OutboxManualStart; Close stops it.
	Outbox *outbox.Dispatcher
	// Mail sends the brand's mail: its Deliver is the outbox's handler of
	// mail items (the brand's default SMTP integration, else the host's
	// auth.MessageSender), its SendTest the SMTP test route's message.
	Mail *mail.Service
	// Webhooks manages the brands' webhook endpoints and provides the
	// outbox handlers that fan events out to them and deliver them.
	Webhooks *webhooks.Service

	clock       func() time.Time     // Config.Clock, for the adapter
	logger      *slog.Logger         // Config.Logger, for the adapter and readiness; nil: theirs
	telemetry   []httpadapter.Option // Config's providers, for the adapter
	unsubscribe func()               // from the store's changes; nil when it has none
}

// New returns an App on store. The App does not own the store: close it
// yourself when done.
//
// When the store is shared by several instances and reports their changes
// (a [ChangeFeed], such as storage/postgres), the App's auth service
// forgets the cached answers each change makes stale, for as long as the
// store is open or until [App.Close]. On an [EphemeralStore] (the memory
// store: no I/O), New reads the reference-data snapshot that lists answer
// from before it returns (milliseconds for the default dataset), so the
// App is ready at once; on another store, call [App.WarmUp] at start. It
// fails without a store, with [ErrSecretKeysRequired] for a store that
// outlives the process without Config.SecretKeys, and with the memory
// store's error if its snapshot cannot be read.
func New(store storage.Storage, cfg Config) (*App, error) {
	if store == nil {
		return nil, errors.New("brandbase: a store is required")
	}
	if cfg.SecretKeys == nil && !isEphemeral(store) {
		return nil, ErrSecretKeysRequired
	}
	authOpts := authOptions(cfg)
	refOpts := []refdata.Option{refdata.WithMeterProvider(cfg.MeterProvider), refdata.WithTracerProvider(cfg.TracerProvider), refdata.WithClock(cfg.Clock)}
	if cfg.Logger != nil {
		refOpts = append(refOpts, refdata.WithLogger(cfg.Logger))
	}
	// The services reach the store through a recorder of its calls when
	// a provider is set; the App's Store, where capabilities are looked
	// for, stays the store itself.
	backend := storecalls.Wrap(store, telemetry.NewStoreCalls(dbSystem(store), cfg.MeterProvider, cfg.TracerProvider))
	keys := cfg.SecretKeys
	if keys == nil {
		keys = integrations.EphemeralKeyRing()
	}
	integ := integrations.NewService(backend, integrations.WithKeyRing(keys), integrations.WithClock(cfg.Clock),
		integrations.WithMeterProvider(cfg.MeterProvider))
	if cfg.OnIntegrationUpdated != nil {
		integ.OnIntegrationUpdated(cfg.OnIntegrationUpdated)
	}
	// The password-reset mail goes through the outbox, written with its
	// token; the dispatcher is woken when one is written.
	ob := newOutbox(backend, cfg)
	authSvc := auth.NewService(backend, append(authOpts, auth.WithMailOutbox(ob.Notify))...)
	msgs := messages.NewService(store, messageOpts(cfg)...)
	a := &App{
		Store:        store,
		Auth:         authSvc,
		RefData:      refdata.NewService(backend, refOpts...),
		Integrations: integ,
		Messages:     msgs,
		Outbox:       ob,
		Mail:         newMail(cfg, integ, msgs, authSvc),
		Webhooks:     newWebhooks(backend, keys, cfg),
		clock:        cfg.Clock,
		logger:       cfg.Logger,
		telemetry: []httpadapter.Option{httpadapter.WithMeterProvider(cfg.MeterProvider),
			httpadapter.WithTracerProvider(cfg.TracerProvider), httpadapter.WithPropagator(cfg.Propagator)},
	}
	if isEphemeral(store) {
		if err := a.RefData.Ready(context.Background()); err != nil {
			return nil, err
		}
	}
	if feed, ok := store.(ChangeFeed); ok {
		a.unsubscribe = feed.OnAuthChange(a.Auth.Forget)
	}
	a.startOutbox(cfg)
	return a, nil
}

// authOptions returns the auth service's options from cfg: its fields
// first, then cfg.AuthOptions.
func authOptions(cfg Config) []auth.Option {
	var authOpts []auth.Option
	if cfg.Clock != nil {
		authOpts = append(authOpts, auth.WithClock(cfg.Clock))
	}
	authOpts = append(authOpts,
		auth.WithMaxConcurrentHashes(cfg.MaxConcurrentHashes),
		auth.WithMaxHashWait(cfg.MaxHashWait),
		auth.WithKeyLifetimes(cfg.AuthKeyTTL, cfg.RefreshKeyTTL),
		auth.WithEventHook(cfg.OnAuthEvent))
	switch {
	case cfg.RefreshReuseInterval < 0:
		authOpts = append(authOpts, auth.WithRefreshReuseInterval(0))
	case cfg.RefreshReuseInterval > 0:
		authOpts = append(authOpts, auth.WithRefreshReuseInterval(cfg.RefreshReuseInterval))
	}
	switch {
	case cfg.KeyCacheTTL < 0:
		authOpts = append(authOpts, auth.WithKeyCache(0, 0))
	case cfg.KeyCacheTTL > 0:
		authOpts = append(authOpts, auth.WithKeyCache(cfg.KeyCacheTTL, 0))
	}
	authOpts = append(authOpts, auth.WithMeterProvider(cfg.MeterProvider), auth.WithTracerProvider(cfg.TracerProvider))
	if cfg.Logger != nil {
		authOpts = append(authOpts, auth.WithLogger(cfg.Logger))
	}
	authOpts = append(authOpts, cfg.AuthOptions...)
	return authOpts
}

// newMail returns the App's mail service: the brand's SMTP integrations
// from integ, its templates rendered by msgs, and the host's sender of
// authSvc (if any) as the fallback.
func newMail(cfg Config, integ *integrations.Service, msgs *messages.Service, authSvc *auth.Service) *mail.Service {
	mailOpts := []mail.Option{mail.WithPolicy(cfg.OutboundPolicy), mail.WithLogger(cfg.Logger),
		mail.WithRenderer(mail.RenderFunc(func(ctx context.Context, brandID, language, kind string, data map[string]string) (mail.Rendered, error) {
			r, err := msgs.Render(ctx, brandID, language, kind, data)
			return mail.Rendered(r), err
		}))}
	if sender := authSvc.MessageSender(); sender != nil {
		mailOpts = append(mailOpts, mail.WithFallback(sender, authSvc))
	}
	return mail.New(integ, mailOpts...)
}

// startOutbox registers the App's handlers on its dispatcher and, unless
// cfg.OutboxManualStart, starts it.
func (a *App) startOutbox(cfg Config) {
	a.Outbox.Handle(outbox.ChannelMail, a.Mail)
	a.Outbox.Handle(outbox.ChannelEvent, a.Webhooks.EventHandler())
	a.Outbox.Handle(outbox.ChannelWebhook, a.Webhooks.DeliveryHandler())
	if !cfg.OutboxManualStart {
		a.Outbox.Start()
		// An App dropped without Close stops its dispatcher when it is
		// collected, so that the dispatcher's goroutine, which holds the
		// store, does not keep it (and poll it) for ever.
		runtime.AddCleanup(a, func(d *outbox.Dispatcher) { go d.Close() }, a.Outbox)
	}
}

// newWebhooks returns the webhooks service of an App on backend, its
// outbox included.
func newWebhooks(backend storecalls.Backend, keys *integrations.KeyRing, cfg Config) *webhooks.Service {
	return webhooks.NewService(backend, webhooks.WithQueue(backend), webhooks.WithKeyRing(keys),
		webhooks.WithClock(cfg.Clock), webhooks.WithAddressPolicy(webhooks.AddressPolicy(cfg.OutboundPolicy)),
		webhooks.WithAutoDisable(cfg.WebhookAutoDisable), webhooks.WithSecretOverlap(cfg.WebhookSecretOverlap),
		webhooks.WithLogger(cfg.Logger))
}

// newOutbox returns the App's dispatcher of store's outbox, with Config's
// clock, logger and meter provider, then Config.OutboxOptions.
func newOutbox(store outbox.Store, cfg Config) *outbox.Dispatcher {
	opts := []outbox.Option{outbox.WithClock(cfg.Clock), outbox.WithLogger(cfg.Logger),
		outbox.WithMeterProvider(cfg.MeterProvider)}
	return outbox.NewDispatcher(store, append(opts, cfg.OutboxOptions...)...)
}

// dbSystem returns the db.system.name of the store's calls, as a store of
// this module tells it (DBSystem: sqlite, postgresql or memory), else
// "other". The root package imports no store, so that a host links only
// the driver of the store it opens.
func dbSystem(store storage.Storage) string {
	if s, ok := store.(interface{ DBSystem() string }); ok {
		return s.DBSystem()
	}
	return "other"
}

// isEphemeral reports whether store says its data ends with the process.
func isEphemeral(store storage.Storage) bool {
	e, ok := store.(EphemeralStore)
	return ok && e.Ephemeral()
}

// Close stops the App's outbox dispatcher started by [New] (the attempts
// in flight are cancelled, settled due again at once, and waited for),
// ends the App's subscription to the changes of a shared store (see
// [New]) and stops its reference-data service reading the store (a read
// under way is cancelled and waited for; see refdata.Service.Close); it
// does not close the store. Call it before closing the store, so that no
// read reaches a closed store. It returns nil, and may be called more
// than once.
func (a *App) Close() error {
	a.Outbox.Close()
	if a.unsubscribe != nil {
		a.unsubscribe()
	}
	a.RefData.Close()
	return nil
}

// WarmUp reads the snapshot of reference data that lists answer from now
// rather than at the first list (refdata.Service.Ready, whose errors it
// returns).
func (a *App) WarmUp(ctx context.Context) error {
	return a.RefData.Ready(ctx)
}

// Handler returns the net/http handler of every /api/v1 route, to mount on
// a host's mux (see package httpadapter for the options). The adapter reads
// the time from Config.Clock too, unless opts set another clock.
//
// When the store is a [SharedLimiter] (storage/postgres), the limits that
// guard accounts and keys (the policies named as in
// httpadapter.DefaultRateLimits: LoginPerIdentifier, per identifier and per
// user, LoginPerIP, Refresh, Register and PasswordReset) keep their buckets in it, so that they hold
// across every instance sharing the store; the list and update limits stay
// in this instance's memory. An httpadapter.WithLimiter among opts
// replaces both. The handler logs to Config.Logger unless opts set
// another logger, and records with Config.MeterProvider and
// Config.TracerProvider, unless opts set other providers.
func (a *App) Handler(opts ...httpadapter.Option) (*httpadapter.Handler, error) {
	opts = append(slices.Clip(a.telemetry), opts...)
	if shared, ok := a.Store.(SharedLimiter); ok {
		d := httpadapter.DefaultRateLimits()
		opts = append([]httpadapter.Option{httpadapter.WithSharedLimiter(shared,
			d.LoginPerIdentifier.Name, d.LoginPerIP.Name, d.Refresh.Name, d.Register.Name, d.PasswordReset.Name)}, opts...)
	}
	if a.clock != nil {
		opts = append([]httpadapter.Option{httpadapter.WithClock(a.clock)}, opts...)
	}
	if a.logger != nil {
		opts = append([]httpadapter.Option{httpadapter.WithLogger(a.logger)}, opts...)
	}
	return httpadapter.New(httpadapter.Services{Auth: a.Auth, RefData: a.RefData, Integrations: a.Integrations, Mail: a.Mail,
		Webhooks: a.Webhooks, Messages: a.Messages}, opts...)
}

// messageOpts are the options of the App's messages service: the Config's
// clock and logger.
func messageOpts(cfg Config) []messages.Option {
	opts := []messages.Option{messages.WithClock(cfg.Clock)}
	if cfg.Logger != nil {
		opts = append(opts, messages.WithLogger(cfg.Logger))
	}
	return opts
}
