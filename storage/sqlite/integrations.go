package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/integrations"
)

// integQuerier is what reads need: the reader pool or a transaction.
type integQuerier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

type integScanner interface{ Scan(...any) error }

func integMicro(t time.Time) int64 { return t.UnixMicro() }

func integTime(us int64) time.Time { return time.UnixMicro(us).UTC() }

// integNotFound maps sql.ErrNoRows to KindNotFound with msg, and other
// errors by storeError.
func integNotFound(err error, msg string) error {
	if errors.Is(err, sql.ErrNoRows) {
		return envelope.NotFound(msg)
	}
	return storeError(err)
}

// integWriteError maps a foreign-key violation (a brand or app integration
// that does not exist in the brand) to KindNotFound, and other errors by
// storeError.
func integWriteError(err error) error {
	var se *sqlite.Error
	if errors.As(err, &se) && se.Code() == sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY {
		return envelope.NotFound("The brand or app integration does not exist.").WithCause(err)
	}
	return storeError(err)
}

// integExecOne runs a write that must change one row; KindNotFound with msg
// if it changed none.
func integExecOne(ctx context.Context, tx *sql.Tx, msg, query string, args ...any) error {
	res, err := tx.ExecContext(ctx, query, args...)
	if err != nil {
		return integWriteError(err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return storeError(err)
	}
	if n == 0 {
		return envelope.NotFound(msg)
	}
	return nil
}

// integQueryAll runs a query and scans every row with scan.
func integQueryAll[T any](ctx context.Context, q integQuerier, scan func(integScanner) (T, error), query string, args ...any) ([]T, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, storeError(err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, storeError(err)
		}
		out = append(out, v)
	}
	return out, storeError(rows.Err())
}

// whereBrand returns the SQL condition and arguments selecting brandID ("":
// every brand).
func whereBrand(brandID string) (string, []any) {
	if brandID == "" {
		return "1 = 1", nil
	}
	return "brand_id = ?", []any{brandID}
}

// configWhere returns the WHERE clause and arguments of a ConfigFilter.
func configWhere(f integrations.ConfigFilter) (string, []any) {
	cond, args := whereBrand(f.BrandID)
	if f.AppIntegrationID != nil {
		cond += " AND app_integration_id = ?"
		args = append(args, *f.AppIntegrationID)
	}
	if f.IsDefault != nil {
		cond += " AND is_default = ?"
		args = append(args, *f.IsDefault)
	}
	return cond, args
}

// --- app integrations ---

const appColumns = `id, brand_id, type, name, domain, description, logo_url, status, version, created_at, updated_at`

func scanApp(row integScanner) (integrations.AppIntegration, error) {
	var a integrations.AppIntegration
	var typ, status string
	var logo sql.NullString
	var created, updated int64
	if err := row.Scan(&a.ID, &a.BrandID, &typ, &a.Name, &a.Domain, &a.Description, &logo, &status,
		&a.Version, &created, &updated); err != nil {
		return a, err
	}
	a.Type, a.Status = integrations.Type(typ), auth.Status(status)
	if logo.Valid {
		a.LogoURL = &logo.String
	}
	a.CreatedAt, a.UpdatedAt = integTime(created), integTime(updated)
	return a, nil
}

func appByID(ctx context.Context, q integQuerier, brandID, id string) (integrations.AppIntegration, error) {
	a, err := scanApp(q.QueryRowContext(ctx, `SELECT `+appColumns+` FROM app_integrations WHERE id = ? AND brand_id = ?`, id, brandID))
	return a, integNotFound(err, "The app integration does not exist.")
}

func listApps(ctx context.Context, q integQuerier, f integrations.AppIntegrationFilter) ([]integrations.AppIntegration, error) {
	cond, args := whereBrand(f.BrandID)
	if f.Type != nil {
		cond += " AND type = ?"
		args = append(args, string(*f.Type))
	}
	return integQueryAll(ctx, q, scanApp, `SELECT `+appColumns+` FROM app_integrations WHERE `+cond+` ORDER BY created_at, id`, args...)
}

// --- analytics ---

const analyticsColumns = `id, brand_id, app_integration_id, tracking_id, api_key, api_secret, metadata,
	account_config_notes, is_default, status, version, created_at, updated_at`

func scanAnalytics(row integScanner) (integrations.AnalyticsRecord, error) {
	var r integrations.AnalyticsRecord
	var status string
	var meta, notes sql.NullString
	var created, updated int64
	if err := row.Scan(&r.ID, &r.BrandID, &r.AppIntegrationID, &r.TrackingID, &r.APIKey, &r.APISecret,
		&meta, &notes, &r.IsDefault, &status, &r.Version, &created, &updated); err != nil {
		return r, err
	}
	r.Status = auth.Status(status)
	r.Metadata, r.AccountConfigNotes = nullStr(meta), nullStr(notes)
	r.CreatedAt, r.UpdatedAt = integTime(created), integTime(updated)
	return r, nil
}

func analyticsByID(ctx context.Context, q integQuerier, brandID, id string) (integrations.AnalyticsRecord, error) {
	r, err := scanAnalytics(q.QueryRowContext(ctx, `SELECT `+analyticsColumns+` FROM analytics_integrations WHERE id = ? AND brand_id = ?`, id, brandID))
	return r, integNotFound(err, "The analytics integration does not exist.")
}

func listAnalytics(ctx context.Context, q integQuerier, f integrations.ConfigFilter) ([]integrations.AnalyticsRecord, error) {
	cond, args := configWhere(f)
	return integQueryAll(ctx, q, scanAnalytics, `SELECT `+analyticsColumns+` FROM analytics_integrations WHERE `+cond+` ORDER BY created_at, id`, args...)
}

// --- payment gateways ---

const gatewayColumns = `id, brand_id, app_integration_id, name, ipn_listener_link, cancel_link_without_login,
	cancel_link, return_link, public_key, private_key, description, notes, test_mode, is_default, status,
	version, created_at, updated_at`

func scanGateway(row integScanner) (integrations.PaymentGatewayRecord, error) {
	var r integrations.PaymentGatewayRecord
	var status string
	var ipn, cancelWL, cancel, ret, pub, desc, notes sql.NullString
	var created, updated int64
	if err := row.Scan(&r.ID, &r.BrandID, &r.AppIntegrationID, &r.Name, &ipn, &cancelWL, &cancel, &ret, &pub,
		&r.PrivateKey, &desc, &notes, &r.TestMode, &r.IsDefault, &status, &r.Version, &created, &updated); err != nil {
		return r, err
	}
	r.Status = auth.Status(status)
	r.IPNListenerLink, r.CancelLinkWithoutLogin, r.CancelLink, r.ReturnLink = nullStr(ipn), nullStr(cancelWL), nullStr(cancel), nullStr(ret)
	r.PublicKey, r.Description, r.Notes = nullStr(pub), nullStr(desc), nullStr(notes)
	r.CreatedAt, r.UpdatedAt = integTime(created), integTime(updated)
	return r, nil
}

func gatewayByID(ctx context.Context, q integQuerier, brandID, id string) (integrations.PaymentGatewayRecord, error) {
	r, err := scanGateway(q.QueryRowContext(ctx, `SELECT `+gatewayColumns+` FROM payment_gateway_integrations WHERE id = ? AND brand_id = ?`, id, brandID))
	return r, integNotFound(err, "The payment-gateway integration does not exist.")
}

func listGateways(ctx context.Context, q integQuerier, f integrations.ConfigFilter) ([]integrations.PaymentGatewayRecord, error) {
	cond, args := configWhere(f)
	return integQueryAll(ctx, q, scanGateway, `SELECT `+gatewayColumns+` FROM payment_gateway_integrations WHERE `+cond+` ORDER BY created_at, id`, args...)
}

// --- revisions ---

const revisionColumns = `id, brand_id, kind, record_id, version, actor_user_id, at, fields`

func scanRevision(row integScanner) (integrations.Revision, error) {
	var r integrations.Revision
	var kind, fields string
	var at int64
	if err := row.Scan(&r.ID, &r.BrandID, &kind, &r.RecordID, &r.Version, &r.ActorUserID, &at, &fields); err != nil {
		return r, err
	}
	r.Kind, r.At = integrations.RecordKind(kind), integTime(at)
	r.Fields = []string{}
	if fields != "" {
		r.Fields = strings.Split(fields, ",")
	}
	return r, nil
}

func listRevisions(ctx context.Context, q integQuerier, f integrations.RevisionFilter) ([]integrations.Revision, error) {
	cond, args := "brand_id = ?", []any{f.BrandID}
	if f.Kind != "" {
		cond += " AND kind = ?"
		args = append(args, string(f.Kind))
	}
	if f.RecordID != "" {
		cond += " AND record_id = ?"
		args = append(args, f.RecordID)
	}
	return integQueryAll(ctx, q, scanRevision, `SELECT `+revisionColumns+` FROM integration_revisions WHERE `+cond+` ORDER BY seq`, args...)
}

// integBlob binds b as a BLOB, or NULL when nil.
func integBlob(b []byte) any {
	if b == nil {
		return nil
	}
	return b
}

func nullStr(n sql.NullString) *string {
	if !n.Valid {
		return nil
	}
	return &n.String
}

// --- the Store's reads, on the reader pool ---

// AppIntegrationByID implements integrations.Reader.
func (s *Store) AppIntegrationByID(ctx context.Context, brandID, id string) (integrations.AppIntegration, error) {
	return appByID(ctx, s.r, brandID, id)
}

// ListAppIntegrations implements integrations.Reader.
func (s *Store) ListAppIntegrations(ctx context.Context, f integrations.AppIntegrationFilter) ([]integrations.AppIntegration, error) {
	return listApps(ctx, s.r, f)
}

// AnalyticsByID implements integrations.Reader.
func (s *Store) AnalyticsByID(ctx context.Context, brandID, id string) (integrations.AnalyticsRecord, error) {
	return analyticsByID(ctx, s.r, brandID, id)
}

// ListAnalytics implements integrations.Reader.
func (s *Store) ListAnalytics(ctx context.Context, f integrations.ConfigFilter) ([]integrations.AnalyticsRecord, error) {
	return listAnalytics(ctx, s.r, f)
}

// PaymentGatewayByID implements integrations.Reader.
func (s *Store) PaymentGatewayByID(ctx context.Context, brandID, id string) (integrations.PaymentGatewayRecord, error) {
	return gatewayByID(ctx, s.r, brandID, id)
}

// ListPaymentGateways implements integrations.Reader.
func (s *Store) ListPaymentGateways(ctx context.Context, f integrations.ConfigFilter) ([]integrations.PaymentGatewayRecord, error) {
	return listGateways(ctx, s.r, f)
}

// ListRevisions implements integrations.Reader.
func (s *Store) ListRevisions(ctx context.Context, f integrations.RevisionFilter) ([]integrations.Revision, error) {
	return listRevisions(ctx, s.r, f)
}

// IntegrationsTx implements integrations.Store: fn runs in one transaction
// on the writer connection (BEGIN IMMEDIATE), so transactions are
// serialised and see each other's committed writes.
func (s *Store) IntegrationsTx(ctx context.Context, fn func(tx integrations.Tx) error) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		t := &integTx{tx: tx}
		defer func() { t.closed = true }()
		return fn(t)
	})
}

// integTx is an integrations.Tx on an SQL transaction.
type integTx struct {
	tx     *sql.Tx
	closed bool
}

var _ integrations.Tx = (*integTx)(nil)

var errIntegTxClosed = errors.New("sqlite: integrations transaction used after it ended")

// q returns the transaction, or an error once it has ended.
func (t *integTx) q() (*sql.Tx, error) {
	if t.closed {
		return nil, envelope.Internal(errIntegTxClosed)
	}
	return t.tx, nil
}

func (t *integTx) AppIntegrationByID(ctx context.Context, brandID, id string) (integrations.AppIntegration, error) {
	tx, err := t.q()
	if err != nil {
		return integrations.AppIntegration{}, err
	}
	return appByID(ctx, tx, brandID, id)
}

func (t *integTx) ListAppIntegrations(ctx context.Context, f integrations.AppIntegrationFilter) ([]integrations.AppIntegration, error) {
	tx, err := t.q()
	if err != nil {
		return nil, err
	}
	return listApps(ctx, tx, f)
}

func (t *integTx) AnalyticsByID(ctx context.Context, brandID, id string) (integrations.AnalyticsRecord, error) {
	tx, err := t.q()
	if err != nil {
		return integrations.AnalyticsRecord{}, err
	}
	return analyticsByID(ctx, tx, brandID, id)
}

func (t *integTx) ListAnalytics(ctx context.Context, f integrations.ConfigFilter) ([]integrations.AnalyticsRecord, error) {
	tx, err := t.q()
	if err != nil {
		return nil, err
	}
	return listAnalytics(ctx, tx, f)
}

func (t *integTx) PaymentGatewayByID(ctx context.Context, brandID, id string) (integrations.PaymentGatewayRecord, error) {
	tx, err := t.q()
	if err != nil {
		return integrations.PaymentGatewayRecord{}, err
	}
	return gatewayByID(ctx, tx, brandID, id)
}

func (t *integTx) ListPaymentGateways(ctx context.Context, f integrations.ConfigFilter) ([]integrations.PaymentGatewayRecord, error) {
	tx, err := t.q()
	if err != nil {
		return nil, err
	}
	return listGateways(ctx, tx, f)
}

func (t *integTx) ListRevisions(ctx context.Context, f integrations.RevisionFilter) ([]integrations.Revision, error) {
	tx, err := t.q()
	if err != nil {
		return nil, err
	}
	return listRevisions(ctx, tx, f)
}

func (t *integTx) InsertAppIntegration(ctx context.Context, a integrations.AppIntegration) error {
	tx, err := t.q()
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO app_integrations (`+appColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		a.ID, a.BrandID, string(a.Type), a.Name, a.Domain, a.Description, a.LogoURL, string(a.Status),
		a.Version, integMicro(a.CreatedAt), integMicro(a.UpdatedAt))
	return integWriteError(err)
}

func (t *integTx) UpdateAppIntegration(ctx context.Context, a integrations.AppIntegration) error {
	tx, err := t.q()
	if err != nil {
		return err
	}
	return integExecOne(ctx, tx, "The app integration does not exist.", `UPDATE app_integrations SET name = ?, domain = ?,
		description = ?, logo_url = ?, status = ?, version = ?, updated_at = ? WHERE id = ? AND brand_id = ?`,
		a.Name, a.Domain, a.Description, a.LogoURL, string(a.Status), a.Version, integMicro(a.UpdatedAt), a.ID, a.BrandID)
}

func (t *integTx) InsertAnalytics(ctx context.Context, r integrations.AnalyticsRecord) error {
	tx, err := t.q()
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO analytics_integrations (`+analyticsColumns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.ID, r.BrandID, r.AppIntegrationID, r.TrackingID, r.APIKey, integBlob(r.APISecret), r.Metadata, r.AccountConfigNotes,
		r.IsDefault, string(r.Status), r.Version, integMicro(r.CreatedAt), integMicro(r.UpdatedAt))
	return integWriteError(err)
}

func (t *integTx) UpdateAnalytics(ctx context.Context, r integrations.AnalyticsRecord) error {
	tx, err := t.q()
	if err != nil {
		return err
	}
	return integExecOne(ctx, tx, "The analytics integration does not exist.", `UPDATE analytics_integrations SET
		app_integration_id = ?, tracking_id = ?, api_key = ?, api_secret = ?, metadata = ?, account_config_notes = ?,
		is_default = ?, status = ?, version = ?, updated_at = ? WHERE id = ? AND brand_id = ?`,
		r.AppIntegrationID, r.TrackingID, r.APIKey, integBlob(r.APISecret), r.Metadata, r.AccountConfigNotes,
		r.IsDefault, string(r.Status), r.Version, integMicro(r.UpdatedAt), r.ID, r.BrandID)
}

func (t *integTx) InsertPaymentGateway(ctx context.Context, r integrations.PaymentGatewayRecord) error {
	tx, err := t.q()
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO payment_gateway_integrations (`+gatewayColumns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.ID, r.BrandID, r.AppIntegrationID, r.Name, r.IPNListenerLink, r.CancelLinkWithoutLogin, r.CancelLink,
		r.ReturnLink, r.PublicKey, integBlob(r.PrivateKey), r.Description, r.Notes, r.TestMode, r.IsDefault, string(r.Status),
		r.Version, integMicro(r.CreatedAt), integMicro(r.UpdatedAt))
	return integWriteError(err)
}

func (t *integTx) UpdatePaymentGateway(ctx context.Context, r integrations.PaymentGatewayRecord) error {
	tx, err := t.q()
	if err != nil {
		return err
	}
	return integExecOne(ctx, tx, "The payment-gateway integration does not exist.", `UPDATE payment_gateway_integrations SET
		app_integration_id = ?, name = ?, ipn_listener_link = ?, cancel_link_without_login = ?, cancel_link = ?,
		return_link = ?, public_key = ?, private_key = ?, description = ?, notes = ?, test_mode = ?, is_default = ?,
		status = ?, version = ?, updated_at = ? WHERE id = ? AND brand_id = ?`,
		r.AppIntegrationID, r.Name, r.IPNListenerLink, r.CancelLinkWithoutLogin, r.CancelLink, r.ReturnLink,
		r.PublicKey, integBlob(r.PrivateKey), r.Description, r.Notes, r.TestMode, r.IsDefault, string(r.Status),
		r.Version, integMicro(r.UpdatedAt), r.ID, r.BrandID)
}

func (t *integTx) InsertRevision(ctx context.Context, rev integrations.Revision) error {
	tx, err := t.q()
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO integration_revisions (`+revisionColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		rev.ID, rev.BrandID, string(rev.Kind), rev.RecordID, rev.Version, rev.ActorUserID, integMicro(rev.At),
		strings.Join(rev.Fields, ","))
	return integWriteError(err)
}
