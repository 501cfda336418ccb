package postgres

import (
	"context"
	"errors"

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
	a.Type, a.Status = integrations.Type(typ), auth.Status(status)
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
	r.Kind, r.Status, r.Body = integrations.RecordKind(kind), auth.Status(status), []byte(body)
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
	return reader{s.pool}.AppIntegrationByID(ctx, brandID, id)
}

// ListAppIntegrations implements integrations.Reader.
func (s *Store) ListAppIntegrations(ctx context.Context, f integrations.AppIntegrationFilter) ([]integrations.AppIntegration, error) {
	return reader{s.pool}.ListAppIntegrations(ctx, f)
}

// ConfigByID implements integrations.Reader.
func (s *Store) ConfigByID(ctx context.Context, kind integrations.RecordKind, brandID, id string) (integrations.ConfigRecord, error) {
	return reader{s.pool}.ConfigByID(ctx, kind, brandID, id)
}

// ListConfigs implements integrations.Reader.
func (s *Store) ListConfigs(ctx context.Context, f integrations.ConfigFilter) ([]integrations.ConfigRecord, error) {
	return reader{s.pool}.ListConfigs(ctx, f)
}

// ListRevisions implements integrations.Reader.
func (s *Store) ListRevisions(ctx context.Context, f integrations.RevisionFilter) ([]integrations.Revision, error) {
	return reader{s.pool}.ListRevisions(ctx, f)
}

// --- writes ---

// IntegrationsTx implements integrations.Store. Its transactions are
// serialised across every instance sharing the schema: each first takes a
// transaction-level advisory lock of the schema's integrations, so fn
// reads what every earlier transaction committed and no other transaction
// writes until it ends; no update is lost.
func (s *Store) IntegrationsTx(ctx context.Context, fn func(tx integrations.Tx) error) error {
	return s.write(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('brandbase.integrations.' || current_schema(), 0))`); err != nil {
			return err
		}
		return fn(&integTx{reader: reader{tx}, tx: tx})
	})
}

// integTx is an integrations.Tx on a pgx transaction.
type integTx struct {
	reader
	tx pgx.Tx
}

var _ integrations.Tx = (*integTx)(nil)

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
	return t.exec(ctx, nil, `INSERT INTO app_integrations (`+sqlstore.AppColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
		a.ID, a.BrandID, string(a.Type), a.Name, a.Domain, a.Description, a.LogoURL, string(a.Status),
		a.Version, a.CreatedAt, a.UpdatedAt)
}

// UpdateAppIntegration implements integrations.Tx:
// integrations.ErrAppIntegrationNotFound.
func (t *integTx) UpdateAppIntegration(ctx context.Context, a integrations.AppIntegration) error {
	return t.exec(ctx, integrations.ErrAppIntegrationNotFound, `UPDATE app_integrations SET name = $1, domain = $2,
		description = $3, logo_url = $4, status = $5, version = $6, updated_at = $7 WHERE id = $8 AND brand_id = $9`,
		a.Name, a.Domain, a.Description, a.LogoURL, string(a.Status), a.Version, a.UpdatedAt, a.ID, a.BrandID)
}

// InsertConfig implements integrations.Tx: integrations.ErrConfigExists,
// auth.ErrBrandNotFound, integrations.ErrAppIntegrationNotFound,
// integrations.ErrDefaultTaken.
func (t *integTx) InsertConfig(ctx context.Context, r integrations.ConfigRecord) error {
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
	fields := rev.Fields
	if fields == nil {
		fields = []string{}
	}
	return t.exec(ctx, nil, `INSERT INTO integration_revisions (`+sqlstore.RevisionColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
		rev.ID, rev.BrandID, string(rev.Kind), rev.RecordID, rev.Version, rev.ActorUserID, rev.At, fields)
}
