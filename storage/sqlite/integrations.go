package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/integrations"
	"github.com/brandbase/brandbase/storage/internal/sqlstore"
)

// Integrations: app integrations, the configurations of every kind in one
// table (integration_configs: a kind, the shared header columns, a JSON
// body and the sealed secrets), and revisions. One [reader] serves the
// Store (on the reader pool) and its transactions (on the *sql.Tx, which
// fails with sql.ErrTxDone once the transaction has ended).

// --- app integrations ---

func scanApp(row scanner) (integrations.AppIntegration, error) {
	var a integrations.AppIntegration
	var typ, status string
	var logo sql.NullString
	var created, updated int64
	if err := row.Scan(&a.ID, &a.BrandID, &typ, &a.Name, &a.Domain, &a.Description, &logo, &status,
		&a.Version, &created, &updated); err != nil {
		return a, err
	}
	a.Type, a.Status = integrations.Type(typ), integrations.Status(status)
	if logo.Valid {
		a.LogoURL = &logo.String
	}
	a.CreatedAt, a.UpdatedAt = fromMicro(created), fromMicro(updated)
	return a, nil
}

// --- configurations ---

func scanConfig(row scanner) (integrations.ConfigRecord, error) {
	var r integrations.ConfigRecord
	var kind, status, body string
	var secrets []byte
	var created, updated int64
	if err := row.Scan(&r.ID, &kind, &r.BrandID, &r.AppIntegrationID, &r.IsDefault, &status, &r.Version,
		&body, &secrets, &created, &updated); err != nil {
		return r, err
	}
	r.Kind, r.Status, r.Body = integrations.RecordKind(kind), integrations.Status(status), []byte(body)
	r.CreatedAt, r.UpdatedAt = fromMicro(created), fromMicro(updated)
	var err error
	r.Secrets, err = sqlstore.DecodeSecrets(secrets)
	return r, err
}

// encodeSecrets returns the secrets column of m (sqlstore.EncodeSecrets),
// NULL when empty.
func encodeSecrets(m map[string][]byte) (any, error) {
	b, err := sqlstore.EncodeSecrets(m)
	if b == nil {
		return nil, err
	}
	return b, err
}

// --- revisions ---

func scanRevision(row scanner) (integrations.Revision, error) {
	var r integrations.Revision
	var kind, fields string
	var at int64
	if err := row.Scan(&r.ID, &r.BrandID, &kind, &r.RecordID, &r.Version, &r.ActorUserID, &at, &fields); err != nil {
		return r, err
	}
	r.Kind, r.At = integrations.RecordKind(kind), fromMicro(at)
	r.Fields = []string{}
	if fields != "" {
		r.Fields = strings.Split(fields, ",")
	}
	return r, nil
}

// --- reads: one reader for the Store and its transactions ---

// reader implements integrations.Reader on q: the reader pool for the
// Store, the *sql.Tx for a transaction.
type reader struct{ q querier }

var _ integrations.Reader = reader{}

// AppIntegrationByID implements integrations.Reader.
func (r reader) AppIntegrationByID(ctx context.Context, brandID, id string) (integrations.AppIntegration, error) {
	return queryOne(ctx, r.q, scanApp, integrations.ErrAppIntegrationNotFound,
		`SELECT `+sqlstore.AppColumns+` FROM app_integrations WHERE id = ? AND brand_id = ?`, id, brandID)
}

// ListAppIntegrations implements integrations.Reader.
func (r reader) ListAppIntegrations(ctx context.Context, f integrations.AppIntegrationFilter) ([]integrations.AppIntegration, error) {
	var w filter
	sqlstore.AppIntegrationConditions(&w, f)
	return queryAll(ctx, r.q, scanApp, `SELECT `+sqlstore.AppColumns+` FROM app_integrations`+w.where()+` ORDER BY created_at, id`, w.args...)
}

// ConfigByID implements integrations.Reader.
func (r reader) ConfigByID(ctx context.Context, kind integrations.RecordKind, brandID, id string) (integrations.ConfigRecord, error) {
	return queryOne(ctx, r.q, scanConfig, integrations.ErrConfigNotFound,
		`SELECT `+sqlstore.ConfigColumns+` FROM integration_configs WHERE id = ? AND brand_id = ? AND kind = ?`, id, brandID, string(kind))
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
	return reader{s.r}.AppIntegrationByID(ctx, brandID, id)
}

// ListAppIntegrations implements integrations.Reader.
func (s *Store) ListAppIntegrations(ctx context.Context, f integrations.AppIntegrationFilter) ([]integrations.AppIntegration, error) {
	return reader{s.r}.ListAppIntegrations(ctx, f)
}

// ConfigByID implements integrations.Reader.
func (s *Store) ConfigByID(ctx context.Context, kind integrations.RecordKind, brandID, id string) (integrations.ConfigRecord, error) {
	return reader{s.r}.ConfigByID(ctx, kind, brandID, id)
}

// ListConfigs implements integrations.Reader.
func (s *Store) ListConfigs(ctx context.Context, f integrations.ConfigFilter) ([]integrations.ConfigRecord, error) {
	return reader{s.r}.ListConfigs(ctx, f)
}

// ListRevisions implements integrations.Reader.
func (s *Store) ListRevisions(ctx context.Context, f integrations.RevisionFilter) ([]integrations.Revision, error) {
	return reader{s.r}.ListRevisions(ctx, f)
}

// --- writes ---

// IntegrationsTx implements integrations.Store: fn runs in one transaction
// on the writer connection (BEGIN IMMEDIATE), so transactions are
// serialised and see each other's committed writes.
func (s *Store) IntegrationsTx(ctx context.Context, fn func(tx integrations.Tx) error) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		return fn(&integTx{reader: reader{tx}, tx: tx})
	})
}

// integTx is an integrations.Tx on an SQL transaction. Its checks run
// before each write, inside the serialised transaction, so that each
// failure is the contract's sentinel error; the schema's keys stay as a
// backstop.
type integTx struct {
	reader
	tx *sql.Tx
}

var _ integrations.Tx = (*integTx)(nil)

// rowCheck is one condition a write requires: taken when the query must find
// no row (else err), required when it must find one (else err).
type rowCheck struct {
	taken bool
	err   *envelope.Error
	query string
	args  []any
}

// checkRows runs the checks in order and returns the first failure.
func (t *integTx) checkRows(ctx context.Context, checks ...rowCheck) error {
	for _, c := range checks {
		var one int
		err := t.tx.QueryRowContext(ctx, c.query, c.args...).Scan(&one)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			if !c.taken {
				return c.err
			}
		case err != nil:
			return storeError(err)
		case c.taken:
			return c.err
		}
	}
	return nil
}

func brandCheck(brandID string) rowCheck {
	return rowCheck{err: auth.ErrBrandNotFound, query: `SELECT 1 FROM brands WHERE id = ?`, args: []any{brandID}}
}

// InsertAppIntegration implements integrations.Tx.
func (t *integTx) InsertAppIntegration(ctx context.Context, a integrations.AppIntegration) error {
	err := t.checkRows(ctx, brandCheck(a.BrandID), rowCheck{taken: true, err: integrations.ErrAppIntegrationExists,
		query: `SELECT 1 FROM app_integrations WHERE id = ?`, args: []any{a.ID}})
	if err != nil {
		return err
	}
	_, err = t.tx.ExecContext(ctx, `INSERT INTO app_integrations (`+sqlstore.AppColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		a.ID, a.BrandID, string(a.Type), a.Name, a.Domain, a.Description, a.LogoURL, string(a.Status),
		a.Version, toMicro(a.CreatedAt), toMicro(a.UpdatedAt))
	return storeError(err)
}

// UpdateAppIntegration implements integrations.Tx.
func (t *integTx) UpdateAppIntegration(ctx context.Context, a integrations.AppIntegration) error {
	return execOne(ctx, t.tx, integrations.ErrAppIntegrationNotFound, nil, `UPDATE app_integrations SET name = ?, domain = ?,
		description = ?, logo_url = ?, status = ?, version = ?, updated_at = ? WHERE id = ? AND brand_id = ?`,
		a.Name, a.Domain, a.Description, a.LogoURL, string(a.Status), a.Version, toMicro(a.UpdatedAt), a.ID, a.BrandID)
}

// configChecks are the checks of a configuration about to be stored: its
// brand, its app integration in that brand, and its default.
func configChecks(r integrations.ConfigRecord) []rowCheck {
	checks := []rowCheck{brandCheck(r.BrandID), {err: integrations.ErrAppIntegrationNotFound,
		query: `SELECT 1 FROM app_integrations WHERE id = ? AND brand_id = ?`, args: []any{r.AppIntegrationID, r.BrandID}}}
	if r.IsDefault {
		checks = append(checks, rowCheck{taken: true, err: integrations.ErrDefaultTaken,
			query: `SELECT 1 FROM integration_configs WHERE brand_id = ? AND kind = ? AND is_default = 1 AND id <> ?`,
			args:  []any{r.BrandID, string(r.Kind), r.ID}})
	}
	return checks
}

// InsertConfig implements integrations.Tx.
func (t *integTx) InsertConfig(ctx context.Context, r integrations.ConfigRecord) error {
	exists := rowCheck{taken: true, err: integrations.ErrConfigExists,
		query: `SELECT 1 FROM integration_configs WHERE id = ?`, args: []any{r.ID}}
	if err := t.checkRows(ctx, append([]rowCheck{exists}, configChecks(r)...)...); err != nil {
		return err
	}
	secrets, err := encodeSecrets(r.Secrets)
	if err != nil {
		return storeError(err)
	}
	_, err = t.tx.ExecContext(ctx, `INSERT INTO integration_configs (`+sqlstore.ConfigColumns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.ID, string(r.Kind), r.BrandID, r.AppIntegrationID, r.IsDefault, string(r.Status), r.Version,
		string(r.Body), secrets, toMicro(r.CreatedAt), toMicro(r.UpdatedAt))
	return storeError(err)
}

// UpdateConfig implements integrations.Tx.
func (t *integTx) UpdateConfig(ctx context.Context, r integrations.ConfigRecord) error {
	found := rowCheck{err: integrations.ErrConfigNotFound,
		query: `SELECT 1 FROM integration_configs WHERE id = ? AND brand_id = ? AND kind = ?`,
		args:  []any{r.ID, r.BrandID, string(r.Kind)}}
	if err := t.checkRows(ctx, append([]rowCheck{found}, configChecks(r)...)...); err != nil {
		return err
	}
	secrets, err := encodeSecrets(r.Secrets)
	if err != nil {
		return storeError(err)
	}
	return execOne(ctx, t.tx, integrations.ErrConfigNotFound, integrations.ErrDefaultTaken, `UPDATE integration_configs SET
		app_integration_id = ?, is_default = ?, status = ?, version = ?, body = ?, secrets = ?, updated_at = ?
		WHERE id = ? AND brand_id = ? AND kind = ?`,
		r.AppIntegrationID, r.IsDefault, string(r.Status), r.Version, string(r.Body), secrets, toMicro(r.UpdatedAt),
		r.ID, r.BrandID, string(r.Kind))
}

// InsertRevision implements integrations.Tx.
func (t *integTx) InsertRevision(ctx context.Context, rev integrations.Revision) error {
	err := t.checkRows(ctx, brandCheck(rev.BrandID), rowCheck{taken: true, err: integrations.ErrRevisionExists,
		query: `SELECT 1 FROM integration_revisions WHERE id = ? OR (kind = ? AND record_id = ? AND version = ?)`,
		args:  []any{rev.ID, string(rev.Kind), rev.RecordID, rev.Version}})
	if err != nil {
		return err
	}
	_, err = t.tx.ExecContext(ctx, `INSERT INTO integration_revisions (`+sqlstore.RevisionColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		rev.ID, rev.BrandID, string(rev.Kind), rev.RecordID, rev.Version, rev.ActorUserID, toMicro(rev.At),
		strings.Join(rev.Fields, ","))
	return storeError(err)
}
