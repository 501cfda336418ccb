package postgres

import (
	"context"
	"errors"
	"hash/fnv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/storage/internal/sqlstore"
)

// Integrations: app integrations, the configurations of every kind in one
// table (integration_configs: a kind, the shared header columns, a JSON
// body and the sealed secrets), and revisions. One [reader] serves the
// Store (on the pool) and its transactions (on the pgx.Tx, which fails
// once the transaction has ended). Each write of a transaction runs in a
// savepoint, so a refused write leaves the transaction usable, and the
// schema's constraints decide the errors (constraintErrors).

var _ integrations.Store = (*Store)(nil)

// constraintErrors maps each constraint of the integration tables to the
// sentinel error its violation is.
var constraintErrors = map[string]*envelope.Error{
	"app_integrations_pkey":         integrations.ErrAppIntegrationExists,
	"app_integrations_brand":        auth.ErrBrandNotFound,
	"integration_configs_pkey":      integrations.ErrConfigExists,
	"integration_configs_brand":     auth.ErrBrandNotFound,
	"integration_configs_app":       integrations.ErrAppIntegrationNotFound,
	"integration_configs_default":   integrations.ErrDefaultTaken,
	"integration_revisions_brand":   auth.ErrBrandNotFound,
	"integration_revisions_id":      integrations.ErrRevisionExists,
	"integration_revisions_version": integrations.ErrRevisionExists,
}

// namedConstraintError maps a violation of a constraint of
// constraintErrors to its sentinel, and any other error through
// storeError.
func namedConstraintError(ctx context.Context, err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		if e := constraintErrors[pe.ConstraintName]; e != nil {
			return e.WithCause(err)
		}
	}
	return storeError(ctx, err)
}

// --- app integrations ---

func scanApp(row scanner) (integrations.AppIntegration, error) {
	var a integrations.AppIntegration
	var typ, status string
	if err := row.Scan(&a.ID, &a.BrandID, &typ, &a.Name, &a.Domain, &a.Description, &a.LogoURL, &status,
		&a.Version, &a.CreatedAt, &a.UpdatedAt); err != nil {
		return a, err
	}
	a.Type, a.Status = integrations.Type(typ), integrations.Status(status)
	a.CreatedAt, a.UpdatedAt = fromTime(a.CreatedAt), fromTime(a.UpdatedAt)
	return a, nil
}

// --- configurations ---

func scanConfig(row scanner) (integrations.ConfigRecord, error) {
	var r integrations.ConfigRecord
	var kind, status, body string
	var secrets []byte
	if err := row.Scan(&r.ID, &kind, &r.BrandID, &r.AppIntegrationID, &r.IsDefault, &status, &r.Version,
		&body, &secrets, &r.CreatedAt, &r.UpdatedAt); err != nil {
		return r, err
	}
	r.Kind, r.Status, r.Body = integrations.RecordKind(kind), integrations.Status(status), []byte(body)
	r.CreatedAt, r.UpdatedAt = fromTime(r.CreatedAt), fromTime(r.UpdatedAt)
	var err error
	r.Secrets, err = sqlstore.DecodeSecrets(secrets)
	return r, err
}

// encodeSecrets returns the secrets column of m (sqlstore.EncodeSecrets)
// as text, NULL when empty.
func encodeSecrets(m map[string][]byte) (any, error) {
	b, err := sqlstore.EncodeSecrets(m)
	if b == nil {
		return nil, err
	}
	return string(b), err
}

// --- revisions ---

func scanRevision(row scanner) (integrations.Revision, error) {
	var r integrations.Revision
	var kind string
	if err := row.Scan(&r.ID, &r.BrandID, &kind, &r.RecordID, &r.Version, &r.ActorUserID, &r.At, &r.Fields); err != nil {
		return r, err
	}
	r.Kind, r.At = integrations.RecordKind(kind), fromTime(r.At)
	if r.Fields == nil {
		r.Fields = []string{}
	}
	return r, nil
}

// --- reads: one reader for the Store and its transactions ---

// reader implements integrations.Reader on q: the pool for the Store, the
// pgx.Tx for a transaction.
type reader struct{ q querier }

var _ integrations.Reader = reader{}

// AppIntegrationByID implements integrations.Reader:
// integrations.ErrAppIntegrationNotFound if absent.
func (r reader) AppIntegrationByID(ctx context.Context, brandID, id string) (integrations.AppIntegration, error) {
	return queryOne(ctx, r.q, scanApp, integrations.ErrAppIntegrationNotFound,
		`SELECT `+sqlstore.AppColumns+` FROM app_integrations WHERE id = $1 AND brand_id = $2`, id, brandID)
}

// ListAppIntegrations implements integrations.Reader.
func (r reader) ListAppIntegrations(ctx context.Context, f integrations.AppIntegrationFilter) ([]integrations.AppIntegration, error) {
	var w filter
	sqlstore.AppIntegrationConditions(&w, f)
	return queryAll(ctx, r.q, scanApp, `SELECT `+sqlstore.AppColumns+` FROM app_integrations`+w.where()+` ORDER BY created_at, id`, w.args...)
}

// ConfigByID implements integrations.Reader: integrations.ErrConfigNotFound
// if absent.
func (r reader) ConfigByID(ctx context.Context, kind integrations.RecordKind, brandID, id string) (integrations.ConfigRecord, error) {
	return queryOne(ctx, r.q, scanConfig, integrations.ErrConfigNotFound,
		`SELECT `+sqlstore.ConfigColumns+` FROM integration_configs WHERE id = $1 AND brand_id = $2 AND kind = $3`, id, brandID, string(kind))
}

// ListConfigs implements integrations.Reader.
func (r reader) ListConfigs(ctx context.Context, f integrations.ConfigFilter) ([]integrations.ConfigRecord, error) {
	var w filter
	sqlstore.ConfigConditions(&w, f)
	return queryAll(ctx, r.q, scanConfig, `SELECT `+sqlstore.ConfigColumns+` FROM integration_configs`+w.where()+` ORDER BY created_at, id`, w.args...)
}

// ListRevisions implements integrations.Reader.
func (r reader) ListRevisions(ctx context.Context, f integrations.RevisionFilter) ([]integrations.Revision, error) {
	var w filter
	sqlstore.RevisionConditions(&w, f)
	return queryAll(ctx, r.q, scanRevision, `SELECT `+sqlstore.RevisionColumns+` FROM integration_revisions`+w.where()+` ORDER BY seq`, w.args...)
}

// AppIntegrationByID implements integrations.Reader.
func (s *Store) AppIntegrationByID(ctx context.Context, brandID, id string) (integrations.AppIntegration, error) {
	return reader{s.db}.AppIntegrationByID(ctx, brandID, id)
}

// ListAppIntegrations implements integrations.Reader.
func (s *Store) ListAppIntegrations(ctx context.Context, f integrations.AppIntegrationFilter) ([]integrations.AppIntegration, error) {
	return reader{s.db}.ListAppIntegrations(ctx, f)
}

// ConfigByID implements integrations.Reader.
func (s *Store) ConfigByID(ctx context.Context, kind integrations.RecordKind, brandID, id string) (integrations.ConfigRecord, error) {
	return reader{s.db}.ConfigByID(ctx, kind, brandID, id)
}

// ListConfigs implements integrations.Reader.
func (s *Store) ListConfigs(ctx context.Context, f integrations.ConfigFilter) ([]integrations.ConfigRecord, error) {
	return reader{s.db}.ListConfigs(ctx, f)
}

// ListRevisions implements integrations.Reader.
func (s *Store) ListRevisions(ctx context.Context, f integrations.RevisionFilter) ([]integrations.Revision, error) {
	return reader{s.db}.ListRevisions(ctx, f)
}

// --- writes ---

// IntegrationsTx implements integrations.Store. Its transactions are
// serialised, across every instance sharing the schema, with those that
// touch the same integration of the same brand, and only with those: the
// integration records of a brand are partitioned by integration (an app
// integration of type T, and the configurations of kind T, which attach
// only to app integrations of that type), and a transaction takes a
// transaction-level advisory lock of a partition before it first reads or
// writes in it (see integTx.lock). So fn reads what every earlier
// transaction on the same records committed, and no other transaction
// writes them until it ends, while writes in other brands, or to the other
// integration of the brand, proceed in parallel. A read that spans a whole
// brand (no kind) locks every partition of the brand, one that spans every
// brand (the key rotation) locks them all.
func (s *Store) IntegrationsTx(ctx context.Context, fn func(tx integrations.Tx) error) error {
	return s.write(ctx, func(tx pgx.Tx) error {
		return fn(&integTx{reader: reader{tx}, tx: tx, schema: s.schema, held: map[string]bool{}, types: map[string]string{}})
	})
}

// integTx is an integrations.Tx on a pgx transaction. Each of its reads
// and writes first takes the lock of the partition it touches (lock).
type integTx struct {
	reader
	tx     pgx.Tx
	schema string
	// held records the locks taken: "" (every brand), "b:"+brand (every
	// partition of the brand), "p:"+brand+"\x00"+integration.
	held map[string]bool
	// types caches the type of each app integration read or written, by
	// brand and ID.
	types map[string]string
}

var _ integrations.Tx = (*integTx)(nil)

// The advisory locks of the integration partitions form a hierarchy, so
// that one statement can lock a whole brand or every brand: a partition
// is locked exclusively under shared locks of its brand and of the
// schema's integrations; a brand, exclusively under a shared lock of the
// schema's integrations; every brand, by an exclusive lock of the
// schema's integrations (the lock every integration transaction took
// before partitions existed, so instances of both versions exclude each
// other during a rolling upgrade). Locks are taken in that order, top
// down, and held until the transaction ends.
const (
	lockAll       = `SELECT pg_advisory_xact_lock(hashtextextended('brandbase.integrations.' || current_schema(), 0))`
	lockBrand     = `SELECT pg_advisory_xact_lock_shared(hashtextextended('brandbase.integrations.' || current_schema(), 0)), pg_advisory_xact_lock($1)`
	lockPartition = `SELECT pg_advisory_xact_lock_shared(hashtextextended('brandbase.integrations.' || current_schema(), 0)), pg_advisory_xact_lock_shared($1), pg_advisory_xact_lock($2)`
)

// lockKey is the advisory lock key of parts in the schema: a 64-bit FNV-1a
// hash, computed here so that any brand ID (even one no text column can
// hold) makes a key. Two keys that collide only serialise more.
func lockKey(schema string, parts ...string) int64 {
	h := fnv.New64a()
	h.Write([]byte("brandbase.integrations\x00" + schema))
	for _, p := range parts {
		h.Write([]byte{0})
		h.Write([]byte(p))
	}
	return int64(h.Sum64())
}

// lock takes, unless this transaction holds it or a wider one, the lock of
// the partition of integration in brandID; of the whole brand when
// integration is ""; of every brand when brandID is "". A transaction that
// widens its locks (a whole brand after one of its partitions) may
// deadlock with another doing the same; PostgreSQL then ends one of them
// with an error. The service's transactions each stay in one partition,
// or lock every brand first.
func (t *integTx) lock(ctx context.Context, brandID, integration string) error {
	if t.held[""] {
		return nil
	}
	var err error
	switch {
	case brandID == "":
		_, err = t.tx.Exec(ctx, lockAll)
		t.held[""] = err == nil
	case t.held["b:"+brandID]:
		return nil
	case integration == "":
		_, err = t.tx.Exec(ctx, lockBrand, lockKey(t.schema, brandID))
		t.held["b:"+brandID] = err == nil
	default:
		p := "p:" + brandID + "\x00" + integration
		if t.held[p] {
			return nil
		}
		_, err = t.tx.Exec(ctx, lockPartition, lockKey(t.schema, brandID), lockKey(t.schema, brandID, integration))
		t.held[p] = err == nil
	}
	return storeError(ctx, err)
}

// lockKind locks the partition of configurations of kind in brandID (the
// integration of a configuration kind has the kind's name: the
// configurations of kind Analytics attach to app integrations of type
// Analytics), or of the whole brand when kind is "".
func (t *integTx) lockKind(ctx context.Context, brandID string, kind integrations.RecordKind) error {
	return t.lock(ctx, brandID, string(kind))
}

// lockApp locks the partition of the app integration id of brandID: that
// of its type, read first (a type never changes). When there is no such
// app integration it locks nothing: no record attaches to it, and the
// transaction is as if it ran before the one that creates it.
func (t *integTx) lockApp(ctx context.Context, brandID, id string) error {
	if t.held[""] || t.held["b:"+brandID] {
		return nil
	}
	key := brandID + "\x00" + id
	typ, ok := t.types[key]
	if !ok {
		err := t.tx.QueryRow(ctx, `SELECT type FROM app_integrations WHERE id = $1 AND brand_id = $2`, id, brandID).Scan(&typ)
		var pe *pgconn.PgError
		switch {
		case errors.Is(err, pgx.ErrNoRows) || errors.As(err, &pe) && pe.Code == codeBadEncoding:
			return nil
		case err != nil:
			return storeError(ctx, err)
		}
		t.types[key] = typ
	}
	return t.lock(ctx, brandID, typ)
}

// AppIntegrationByID implements integrations.Reader, in the app
// integration's partition.
func (t *integTx) AppIntegrationByID(ctx context.Context, brandID, id string) (integrations.AppIntegration, error) {
	if err := t.lockApp(ctx, brandID, id); err != nil {
		return integrations.AppIntegration{}, err
	}
	return t.reader.AppIntegrationByID(ctx, brandID, id)
}

// ListAppIntegrations implements integrations.Reader, in the partition of
// f's type, or of f's brand, or of every brand.
func (t *integTx) ListAppIntegrations(ctx context.Context, f integrations.AppIntegrationFilter) ([]integrations.AppIntegration, error) {
	integration := ""
	if f.Type != nil {
		integration = string(*f.Type)
	}
	if err := t.lock(ctx, f.BrandID, integration); err != nil {
		return nil, err
	}
	return t.reader.ListAppIntegrations(ctx, f)
}

// ConfigByID implements integrations.Reader, in the kind's partition.
func (t *integTx) ConfigByID(ctx context.Context, kind integrations.RecordKind, brandID, id string) (integrations.ConfigRecord, error) {
	if err := t.lockKind(ctx, brandID, kind); err != nil {
		return integrations.ConfigRecord{}, err
	}
	return t.reader.ConfigByID(ctx, kind, brandID, id)
}

// ListConfigs implements integrations.Reader, in the partition of f's
// kind, or of its app integration, or of f's brand, or of every brand.
func (t *integTx) ListConfigs(ctx context.Context, f integrations.ConfigFilter) ([]integrations.ConfigRecord, error) {
	var err error
	switch {
	case f.BrandID != "" && f.Kind == "" && f.AppIntegrationID != nil:
		err = t.lockApp(ctx, f.BrandID, *f.AppIntegrationID)
	default:
		err = t.lockKind(ctx, f.BrandID, f.Kind)
	}
	if err != nil {
		return nil, err
	}
	return t.reader.ListConfigs(ctx, f)
}

// ListRevisions implements integrations.Reader, in the partition of f's
// kind or record, or of f's brand.
func (t *integTx) ListRevisions(ctx context.Context, f integrations.RevisionFilter) ([]integrations.Revision, error) {
	if err := t.lockRevisions(ctx, f.BrandID, f.Kind, f.RecordID); err != nil {
		return nil, err
	}
	return t.reader.ListRevisions(ctx, f)
}

// lockRevisions locks the partition of the revisions of kind (and record)
// in brandID.
func (t *integTx) lockRevisions(ctx context.Context, brandID string, kind integrations.RecordKind, recordID string) error {
	switch {
	case kind != integrations.KindAppIntegration:
		return t.lockKind(ctx, brandID, kind)
	case recordID != "":
		return t.lockApp(ctx, brandID, recordID)
	default:
		return t.lock(ctx, brandID, "")
	}
}

// exec runs one write in a savepoint, mapping constraint violations to the
// sentinels of constraintErrors, and missing when it changed no row (if
// missing is not nil).
func (t *integTx) exec(ctx context.Context, missing *envelope.Error, query string, args ...any) error {
	err := pgx.BeginFunc(ctx, t.tx, func(sp pgx.Tx) error {
		tag, err := sp.Exec(ctx, query, args...)
		if err == nil && missing != nil && tag.RowsAffected() == 0 {
			return missing
		}
		return err
	})
	return namedConstraintError(ctx, err)
}

// InsertAppIntegration implements integrations.Tx: auth.ErrBrandNotFound,
// integrations.ErrAppIntegrationExists.
func (t *integTx) InsertAppIntegration(ctx context.Context, a integrations.AppIntegration) error {
	if err := t.lock(ctx, a.BrandID, string(a.Type)); err != nil {
		return err
	}
	t.types[a.BrandID+"\x00"+a.ID] = string(a.Type)
	return t.exec(ctx, nil, `INSERT INTO app_integrations (`+sqlstore.AppColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
		a.ID, a.BrandID, string(a.Type), a.Name, a.Domain, a.Description, a.LogoURL, string(a.Status),
		a.Version, a.CreatedAt, a.UpdatedAt)
}

// UpdateAppIntegration implements integrations.Tx:
// integrations.ErrAppIntegrationNotFound.
func (t *integTx) UpdateAppIntegration(ctx context.Context, a integrations.AppIntegration) error {
	if err := t.lockApp(ctx, a.BrandID, a.ID); err != nil {
		return err
	}
	return t.exec(ctx, integrations.ErrAppIntegrationNotFound, `UPDATE app_integrations SET name = $1, domain = $2,
		description = $3, logo_url = $4, status = $5, version = $6, updated_at = $7 WHERE id = $8 AND brand_id = $9`,
		a.Name, a.Domain, a.Description, a.LogoURL, string(a.Status), a.Version, a.UpdatedAt, a.ID, a.BrandID)
}

// InsertConfig implements integrations.Tx: integrations.ErrConfigExists,
// auth.ErrBrandNotFound, integrations.ErrAppIntegrationNotFound,
// integrations.ErrDefaultTaken.
func (t *integTx) InsertConfig(ctx context.Context, r integrations.ConfigRecord) error {
	if err := t.lockKind(ctx, r.BrandID, r.Kind); err != nil {
		return err
	}
	secrets, err := encodeSecrets(r.Secrets)
	if err != nil {
		return storeError(ctx, err)
	}
	return t.exec(ctx, nil, `INSERT INTO integration_configs (`+sqlstore.ConfigColumns+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
		r.ID, string(r.Kind), r.BrandID, r.AppIntegrationID, r.IsDefault, string(r.Status), r.Version,
		string(r.Body), secrets, r.CreatedAt, r.UpdatedAt)
}

// UpdateConfig implements integrations.Tx: integrations.ErrConfigNotFound,
// then the errors of InsertConfig for its app integration and default.
func (t *integTx) UpdateConfig(ctx context.Context, r integrations.ConfigRecord) error {
	if err := t.lockKind(ctx, r.BrandID, r.Kind); err != nil {
		return err
	}
	secrets, err := encodeSecrets(r.Secrets)
	if err != nil {
		return storeError(ctx, err)
	}
	return t.exec(ctx, integrations.ErrConfigNotFound, `UPDATE integration_configs SET
		app_integration_id = $1, is_default = $2, status = $3, version = $4, body = $5, secrets = $6, updated_at = $7
		WHERE id = $8 AND brand_id = $9 AND kind = $10`,
		r.AppIntegrationID, r.IsDefault, string(r.Status), r.Version, string(r.Body), secrets, r.UpdatedAt,
		r.ID, r.BrandID, string(r.Kind))
}

// InsertRevision implements integrations.Tx: auth.ErrBrandNotFound,
// integrations.ErrRevisionExists.
func (t *integTx) InsertRevision(ctx context.Context, rev integrations.Revision) error {
	if err := t.lockRevisions(ctx, rev.BrandID, rev.Kind, rev.RecordID); err != nil {
		return err
	}
	fields := rev.Fields
	if fields == nil {
		fields = []string{}
	}
	return t.exec(ctx, nil, `INSERT INTO integration_revisions (`+sqlstore.RevisionColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
		rev.ID, rev.BrandID, string(rev.Kind), rev.RecordID, rev.Version, rev.ActorUserID, rev.At, fields)
}
