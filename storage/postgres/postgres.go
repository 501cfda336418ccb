// Package postgres implements storage.Storage on PostgreSQL through
// github.com/jackc/pgx/v5 (pgxpool), so that several instances of an
// application share one database.
//
// # Opening
//
// [Open] connects to a database URL; the store's tables live in the first
// schema of the connections' search_path (current_schema()). Open applies
// the embedded migrations (migrations/*.sql, versions recorded in
// schema_migrations, each in its own transaction) and loads the default
// reference dataset, both under a session-level advisory lock of that
// schema held on one dedicated connection: instances that start together
// wait for each other instead of racing, and the dataset is loaded once.
// A database made by an older version is migrated forward, keeping its
// rows. The pg_trgm extension must be installable (it is trusted: a
// database owner can create it) or already installed: migration 0002
// creates it.
//
// # Writes and notifications
//
// Every write runs in one transaction (begin, deferred rollback, commit).
// Read-modify-write methods lock the rows they read (SELECT ... FOR
// UPDATE), city upserts run one at a time, and integration transactions
// that touch the same integration of a brand are serialised by
// transaction-level advisory locks (other brands and integrations proceed
// in parallel), so concurrent writers, in this process or another, never
// lose an update. Writes that change what an instance may cache (brands, users
// and their keys and devices, reference data) issue a NOTIFY on
// [Store.Channel] inside their transaction, delivered only on commit; its
// payload is a [Change].
//
// The session-level lock of Open needs a session: connect to PostgreSQL
// itself or through a pooler in session mode, not transaction mode.
package postgres

import (
	"cmp"
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.opentelemetry.io/otel/metric"

	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/storage"
	"github.com/brandbase/brandbase/storage/internal/sqlstore"
)

var _ storage.Storage = (*Store)(nil)

//go:embed migrations/*.sql
var migrations embed.FS

// core is the SQL core, embedded: its methods implement auth.Store and
// integrations.Store.
type core = sqlstore.Core

// Store is a PostgreSQL-backed storage.Storage. It is safe for concurrent
// use, by several goroutines and by several processes sharing a database.
type Store struct {
	*core
	pool    *pgxpool.Pool
	db      db            // the pool, each statement one bounded call (bounds.go)
	timeout time.Duration // the query timeout
	outage  *outage
	log     *slog.Logger
	schema  string    // the schema of the store's tables
	channel string    // the NOTIFY channel of the schema
	multi   instances // listener and shared limiter (listen.go)
	// observed is the registration of the pool and listener instruments
	// (telemetry.go); nil without a meter provider.
	observed metric.Registration
}

// Option configures Open.
type Option func(*options)

type options struct {
	pool           []func(*pgxpool.Config)
	connectTimeout time.Duration
	queryTimeout   time.Duration
	log            *slog.Logger
	meterProvider  metric.MeterProvider
}

// WithPoolConfig lets the host adjust the pool's configuration (its size,
// connection lifetimes, hooks) before Open connects.
func WithPoolConfig(fn func(*pgxpool.Config)) Option {
	return func(o *options) { o.pool = append(o.pool, fn) }
}

// MinConns is the least number of connections the store's pool holds:
// a smaller pool_max_conns (or MaxConns of WithPoolConfig) is raised to it.
const MinConns = 2

// Default bounds of the waits on the database.
const (
	// DefaultConnectTimeout bounds a connection attempt (TCP connect, TLS,
	// authentication) unless the URL sets connect_timeout.
	DefaultConnectTimeout = 5 * time.Second
	// DefaultQueryTimeout bounds each call of the store: waiting for a
	// pool connection and running its statements.
	DefaultQueryTimeout = 5 * time.Second
)

// WithConnectTimeout bounds each connection attempt (dial, TLS and
// authentication) to d, instead of the URL's connect_timeout or, without
// one, DefaultConnectTimeout. A server that accepts and never answers
// fails Open within d.
func WithConnectTimeout(d time.Duration) Option {
	return func(o *options) { o.connectTimeout = d }
}

// WithQueryTimeout bounds each call of the store to d, instead of
// DefaultQueryTimeout: waiting for a pool connection and running the
// call's statements (a write's whole transaction). A fifth of d (at least
// 50 ms) before that, the server is asked to cancel the call's statement;
// unless the URL sets them, statement_timeout and lock_timeout are d less
// that fifth. A call that runs out fails with envelope.Unavailable.
func WithQueryTimeout(d time.Duration) Option {
	return func(o *options) { o.queryTimeout = d }
}

// WithLogger sets the logger of the store's outage log and of its
// listener, instead of slog.Default().
func WithLogger(l *slog.Logger) Option {
	return func(o *options) { o.log = l }
}

// parseConfig applies opts and parses url into the pool configuration
// that Open and ConnConfig both use, with the bounds: the connect timeout
// (the option, else the URL's, else the default), the pool's ping timeout
// and the session settings the URL leaves unset (server-side timeouts,
// read committed).
func parseConfig(url string, opts []Option) (*pgxpool.Config, options, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, o, fmt.Errorf("postgres: parse url: %w", err)
	}
	o.connectTimeout = cmp.Or(max(o.connectTimeout, 0), max(cfg.ConnConfig.ConnectTimeout, 0), DefaultConnectTimeout)
	cfg.ConnConfig.ConnectTimeout = o.connectTimeout
	o.queryTimeout = cmp.Or(max(o.queryTimeout, 0), DefaultQueryTimeout)
	cfg.PingTimeout = cmp.Or(max(cfg.PingTimeout, 0), serverMargin(o.queryTimeout))
	ms := strconv.FormatInt(serverTimeout(o.queryTimeout).Milliseconds(), 10)
	for p, v := range map[string]string{"statement_timeout": ms, "lock_timeout": ms, "default_transaction_isolation": "read committed"} {
		if _, ok := cfg.ConnConfig.RuntimeParams[p]; !ok {
			cfg.ConnConfig.RuntimeParams[p] = v
		}
	}
	o.log = cmp.Or(o.log, slog.Default())
	return cfg, o, nil
}

// ConnConfig returns the configuration of one connection to the database
// that url names, parsed as Open parses it (the pool_* parameters are
// ignored), with the settings Open would use with opts: for a connection
// of the host's own beside the store's pool (a session lock, say).
func ConnConfig(url string, opts ...Option) (*pgx.ConnConfig, error) {
	cfg, _, err := parseConfig(url, opts)
	if err != nil {
		return nil, err
	}
	return cfg.ConnConfig, nil
}

// Open connects to the PostgreSQL database that url names (a postgres:// or
// postgresql:// URL, or a keyword/value string, as pgx parses them: the
// pool_* parameters of pgxpool set the pool, connect_timeout bounds a
// connection attempt, other parameters are the connections' server
// settings), migrates its schema to the current version and loads the
// default reference dataset (see the package comment). Every wait on the
// database is bounded (WithConnectTimeout, WithQueryTimeout): a server
// that cannot be reached, or accepts and never answers, fails Open within
// the connect timeout. It fails with the connection's, a migration's or
// the load's error; nothing is left open then.
func Open(ctx context.Context, url string, opts ...Option) (*Store, error) {
	cfg, o, err := parseConfig(url, opts)
	if err != nil {
		return nil, err
	}
	for _, fn := range o.pool {
		fn(cfg)
	}
	// Open holds one connection (the schema's setup lock) while it loads
	// the dataset on another: with one, it would wait for itself.
	cfg.MaxConns = max(cfg.MaxConns, MinConns)
	s := &Store{log: o.log, timeout: o.queryTimeout,
		outage: &outage{log: o.log, now: time.Now, interval: o.queryTimeout * 3 / 2}}
	watchCalls(cfg, serverMargin(o.queryTimeout), s.outage)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: connect: %w", err)
	}
	s.pool, s.db = pool, db{q: pool, s: s}
	fsys, _ := fs.Sub(migrations, "migrations")
	s.core = sqlstore.New(dialect{s}, s.db, fsys)
	if err := s.setUp(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	if err := s.startInstances(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	if err := s.observe(o.meterProvider); err != nil {
		s.Close()
		return nil, fmt.Errorf("postgres: metrics: %w", err)
	}
	return s, nil
}

// Close closes the pool's connections. It returns nil.
func (s *Store) Close() error {
	if s.observed != nil {
		_ = s.observed.Unregister() // fails only for another provider's registration
	}
	s.stopInstances()
	s.pool.Close()
	return nil
}

// Pool returns the store's connection pool, for the parts of this package
// that need connections of their own (the change listener, the shared rate
// limiter) and for hosts' health checks. Writing the store's tables
// through it bypasses the store's rules.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Channel returns the NOTIFY channel of the store's schema: "brandbase_"
// and the schema's name, truncated to 63 bytes (PostgreSQL's longest
// identifier). Every store on the same schema uses the same channel.
func (s *Store) Channel() string { return s.channel }

// channelName returns the channel of schema.
func channelName(schema string) string {
	c := "brandbase_" + schema
	if len(c) > 63 {
		c = c[:63]
	}
	return c
}

// setUp, on one dedicated connection holding the schema's advisory lock,
// applies the migrations and loads the default dataset.
func (s *Store) setUp(ctx context.Context) error {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		cc := s.pool.Config().ConnConfig
		return fmt.Errorf("postgres: cannot connect to %s:%d (connect timeout %s): %w",
			cc.Host, cc.Port, cc.ConnectTimeout, err)
	}
	defer conn.Release()
	// Migrations may run long, and the lock below waits for other
	// instances' migrations: no statement or lock timeout on this session.
	if _, err := conn.Exec(ctx, `SET statement_timeout = 0; SET lock_timeout = 0`); err != nil {
		return fmt.Errorf("postgres: set up session: %w", err)
	}
	defer func() {
		// Back to the connection's settings before the pool reuses it.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.timeout)
		defer cancel()
		if _, err := conn.Exec(rctx, `RESET statement_timeout; RESET lock_timeout`); err != nil {
			conn.Conn().Close(rctx)
		}
	}()
	var schema string
	if err := conn.QueryRow(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		return fmt.Errorf("postgres: current schema: %w", err)
	}
	if schema == "" {
		return errors.New("postgres: no schema of the search_path exists")
	}
	s.schema, s.channel = schema, channelName(schema)
	const lock = `SELECT pg_advisory_lock(hashtextextended('brandbase.setup.' || current_schema(), 0))`
	if _, err := conn.Exec(ctx, lock); err != nil {
		return fmt.Errorf("postgres: migration lock: %w", err)
	}
	defer func() {
		// Closing the connection would release the lock too.
		uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.timeout)
		defer cancel()
		_, uerr := conn.Exec(uctx, `SELECT pg_advisory_unlock(hashtextextended('brandbase.setup.' || current_schema(), 0))`)
		if uerr != nil {
			conn.Conn().Close(uctx)
		}
	}()
	if err := migrate(ctx, conn.Conn(), 0); err != nil {
		return err
	}
	if err := refdata.LoadDefault(unbounded(ctx), s); err != nil {
		return fmt.Errorf("postgres: load default dataset: %w", err)
	}
	return nil
}

// migrate applies on conn the embedded migrations up to version upTo
// (all when upTo is 0) that the schema has not applied yet
// (sqlstore.Migrate), each in its own transaction. The caller holds the
// schema's lock.
func migrate(ctx context.Context, conn *pgx.Conn, upTo int) error {
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return fmt.Errorf("postgres: migrations table: %w", err)
	}
	all, err := sqlstore.Migrations(migrations, "migrations")
	if err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	if err := renumber(ctx, conn, all); err != nil {
		return fmt.Errorf("postgres: renumber migrations: %w", err)
	}
	begin := func(ctx context.Context, fn func(tx sqlstore.DB) error) error {
		return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error { return fn(db{q: tx}) })
	}
	steps := map[string]func(context.Context, sqlstore.DB) error{"0007_created_order.sql": numberStored,
		"0013_user_identifiers.sql": func(ctx context.Context, tx sqlstore.DB) error { return sqlstore.RekeyUsers(ctx, tx, true) },
		"0018_administration.sql":   func(ctx context.Context, tx sqlstore.DB) error { return sqlstore.FillUserWords(ctx, tx, true) }}
	if err := sqlstore.Migrate(ctx, all, true, begin, steps, upTo); err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	return nil
}

// renumber moves, in one transaction, the versions that a schema migrated
// before PostgreSQL's migrations were numbered as SQLite's recorded
// (0005_sessions, 0006_created_order, 0007_city_revisions: now 0006, 0007
// and 0008) to the versions of the embedded files of the same names
// (sqlstore.Renumber), keeping when they were applied. A schema numbered
// as the embedded files is left as it is (one query).
func renumber(ctx context.Context, conn *pgx.Conn, all []sqlstore.Migration) error {
	return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT version, name FROM schema_migrations`)
		if err != nil {
			return err
		}
		applied := map[int]string{}
		var v int
		var name string
		_, err = pgx.ForEachRow(rows, []any{&v, &name}, func() error {
			applied[v] = name
			return nil
		})
		if err != nil {
			return err
		}
		moves := sqlstore.Renumber(applied, all)
		for old := range moves {
			if _, err := tx.Exec(ctx, `UPDATE schema_migrations SET version = -version WHERE version = $1`, old); err != nil {
				return err
			}
		}
		for old, m := range moves {
			if _, err := tx.Exec(ctx, `UPDATE schema_migrations SET version = $1, name = $2 WHERE version = $3`,
				m.Version, m.Name, -old); err != nil {
				return err
			}
		}
		return nil
	})
}

// inTx runs fn in a transaction begun with opts (read committed unless
// opts.BeginQuery says otherwise), one call of the store (Store.call)
// whose context fn's statements run under: committed when fn returns nil,
// rolled back otherwise. Errors are mapped by storeError.
func (s *Store) inTx(ctx context.Context, opts pgx.TxOptions, fn func(ctx context.Context, tx pgx.Tx) error) error {
	bctx, end, err := s.call(ctx)
	if err != nil {
		return storeError(ctx, err)
	}
	defer end()
	// Under repeatable read or serializable (a database's default), the
	// snapshot would be taken before the advisory locks: 40001s.
	opts.BeginQuery = cmp.Or(opts.BeginQuery, "BEGIN ISOLATION LEVEL READ COMMITTED")
	if d := s.bound(ctx); d != s.timeout { // Open's own work (none), a bulk write (longer)
		opts.BeginQuery += fmt.Sprintf("; SET LOCAL statement_timeout = %[1]d; SET LOCAL lock_timeout = %[1]d",
			max(d-serverMargin(s.timeout), 0).Milliseconds())
	}
	tx, err := s.pool.BeginTx(bctx, opts)
	if s.db.retry(bctx, err) {
		tx, err = s.pool.BeginTx(bctx, opts)
	}
	if err != nil {
		return storeError(ctx, err)
	}
	defer func() {
		// After Commit it does nothing; a connection past the margin is
		// closed, which rolls back too.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), serverMargin(s.timeout))
		defer cancel()
		_ = tx.Rollback(rctx)
	}()
	if err := fn(bctx, tx); err != nil {
		return storeError(ctx, err)
	}
	return storeError(ctx, tx.Commit(bctx))
}

// Ping checks, within the query timeout (or ctx), that the database
// answers, on a connection of the pool: nil, or an envelope.Unavailable
// error. For readiness checks.
func (s *Store) Ping(ctx context.Context) error {
	_, err := s.db.Exec(ctx, "SELECT 1")
	return storeError(ctx, err)
}
