package sqlstore

import (
	"context"
	"github.com/brandbase/brandbase/outbox"
	"slices"
	"strings"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/integrations"
)

// Equals builds the WHERE clause of a query of equality tests in a
// store's dialect.
type Equals interface {
	// Equal adds "col = v", joined to the others by AND.
	Equal(col string, v any)
}

// AppIntegrationConditions adds to w the conditions of f: its brand ("":
// every brand) and type.
func AppIntegrationConditions(w Equals, f integrations.AppIntegrationFilter) {
	if f.BrandID != "" {
		w.Equal("brand_id", f.BrandID)
	}
	if f.Type != nil {
		w.Equal("type", string(*f.Type))
	}
}

// ConfigConditions adds to w the conditions of f: its brand ("": every
// brand), kind, app integration and default.
func ConfigConditions(w Equals, f integrations.ConfigFilter) {
	if f.BrandID != "" {
		w.Equal("brand_id", f.BrandID)
	}
	if f.Kind != "" {
		w.Equal("kind", string(f.Kind))
	}
	if f.AppIntegrationID != nil {
		w.Equal("app_integration_id", *f.AppIntegrationID)
	}
	if f.IsDefault != nil {
		w.Equal("is_default", *f.IsDefault)
	}
}

// RevisionConditions adds to w the conditions of f: its brand (always),
// kind and record.
func RevisionConditions(w Equals, f integrations.RevisionFilter) {
	w.Equal("brand_id", f.BrandID)
	if f.Kind != "" {
		w.Equal("kind", string(f.Kind))
	}
	if f.RecordID != "" {
		w.Equal("record_id", f.RecordID)
	}
}

// --- integrations.Store on the core ---
//
// App integrations, the configurations of every kind in one table
// (integration_configs: a kind, the shared header columns, a JSON body and
// the sealed secrets), and revisions. One reader serves the store (on its
// read handle) and its transactions (on the transaction). The checks of a
// write run before it, inside the transaction, so that each failure is
// the contract's sentinel error and a refused write leaves the
// transaction usable; the schema's keys stay as a backstop.

var _ integrations.Store = (*Core)(nil)

// where is the WHERE clause of a list query: an Equals with "?"
// placeholders.
type where struct {
	conds []string
	args  []any
}

// Equal implements Equals.
func (w *where) Equal(col string, v any) {
	w.conds = append(w.conds, col+" = ?")
	w.args = append(w.args, v)
}

// clause returns " WHERE ..." or "" when there is no condition.
func (w *where) clause() string {
	if len(w.conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(w.conds, " AND ")
}

func (c *Core) scanApp(row Scanner) (integrations.AppIntegration, error) {
	var a integrations.AppIntegration
	var typ, status string
	if err := row.Scan(&a.ID, &a.BrandID, &typ, &a.Name, &a.Domain, &a.Description, &a.LogoURL, &status,
		&a.Version, c.d.ScanTime(&a.CreatedAt), c.d.ScanTime(&a.UpdatedAt)); err != nil {
		return a, err
	}
	a.Type, a.Status = integrations.Type(typ), integrations.Status(status)
	return a, nil
}

func (c *Core) scanConfig(row Scanner) (integrations.ConfigRecord, error) {
	var r integrations.ConfigRecord
	var kind, status, body string
	var secrets []byte
	if err := row.Scan(&r.ID, &kind, &r.BrandID, &r.AppIntegrationID, &r.IsDefault, &status, &r.Version,
		&body, &secrets, c.d.ScanTime(&r.CreatedAt), c.d.ScanTime(&r.UpdatedAt)); err != nil {
		return r, err
	}
	r.Kind, r.Status, r.Body = integrations.RecordKind(kind), integrations.Status(status), []byte(body)
	var err error
	r.Secrets, err = DecodeSecrets(secrets)
	return r, err
}

// secrets returns the secrets column of m: NULL when m is empty.
func (c *Core) secrets(m map[string][]byte) (any, error) {
	b, err := EncodeSecrets(m)
	if b == nil {
		return nil, err
	}
	return c.d.JSON(b), err
}

func (c *Core) scanRevision(row Scanner) (integrations.Revision, error) {
	var r integrations.Revision
	var kind string
	if err := row.Scan(&r.ID, &r.BrandID, &kind, &r.RecordID, &r.Version, &r.ActorUserID, c.d.ScanTime(&r.At),
		c.d.ScanList(&r.Fields)); err != nil {
		return r, err
	}
	r.Kind = integrations.RecordKind(kind)
	if r.Fields == nil {
		r.Fields = []string{}
	}
	return r, nil
}

// reader implements integrations.Reader on db: the store's read handle, or
// a transaction.
type reader struct {
	c  *Core
	db DB
}

var _ integrations.Reader = reader{}

// AppIntegrationByID implements integrations.Reader:
// integrations.ErrAppIntegrationNotFound if absent.
func (r reader) AppIntegrationByID(ctx context.Context, brandID, id string) (integrations.AppIntegration, error) {
	return queryOne(ctx, r.c, r.db, r.c.scanApp, integrations.ErrAppIntegrationNotFound,
		`SELECT `+AppColumns+` FROM app_integrations WHERE id = ? AND brand_id = ?`, id, brandID)
}

// ListAppIntegrations implements integrations.Reader.
func (r reader) ListAppIntegrations(ctx context.Context, f integrations.AppIntegrationFilter) ([]integrations.AppIntegration, error) {
	var w where
	AppIntegrationConditions(&w, f)
	return QueryAll(ctx, r.c, r.db, r.c.scanApp, `SELECT `+AppColumns+` FROM app_integrations`+w.clause()+` ORDER BY created_at, id`, w.args...)
}

// ConfigByID implements integrations.Reader: integrations.ErrConfigNotFound
// if absent.
func (r reader) ConfigByID(ctx context.Context, kind integrations.RecordKind, brandID, id string) (integrations.ConfigRecord, error) {
	return queryOne(ctx, r.c, r.db, r.c.scanConfig, integrations.ErrConfigNotFound,
		`SELECT `+ConfigColumns+` FROM integration_configs WHERE id = ? AND brand_id = ? AND kind = ?`, id, brandID, string(kind))
}

// ListConfigs implements integrations.Reader.
func (r reader) ListConfigs(ctx context.Context, f integrations.ConfigFilter) ([]integrations.ConfigRecord, error) {
	var w where
	ConfigConditions(&w, f)
	return QueryAll(ctx, r.c, r.db, r.c.scanConfig, `SELECT `+ConfigColumns+` FROM integration_configs`+w.clause()+` ORDER BY created_at, id`, w.args...)
}

// ListRevisions implements integrations.Reader.
func (r reader) ListRevisions(ctx context.Context, f integrations.RevisionFilter) ([]integrations.Revision, error) {
	var w where
	RevisionConditions(&w, f)
	return QueryAll(ctx, r.c, r.db, r.c.scanRevision, `SELECT `+RevisionColumns+` FROM integration_revisions`+w.clause()+` ORDER BY seq`, w.args...)
}

// AppIntegrationByID implements integrations.Reader.
func (c *Core) AppIntegrationByID(ctx context.Context, brandID, id string) (integrations.AppIntegration, error) {
	return reader{c, c.r}.AppIntegrationByID(ctx, brandID, id)
}

// ListAppIntegrations implements integrations.Reader.
func (c *Core) ListAppIntegrations(ctx context.Context, f integrations.AppIntegrationFilter) ([]integrations.AppIntegration, error) {
	return reader{c, c.r}.ListAppIntegrations(ctx, f)
}

// ConfigByID implements integrations.Reader.
func (c *Core) ConfigByID(ctx context.Context, kind integrations.RecordKind, brandID, id string) (integrations.ConfigRecord, error) {
	return reader{c, c.r}.ConfigByID(ctx, kind, brandID, id)
}

// ListConfigs implements integrations.Reader.
func (c *Core) ListConfigs(ctx context.Context, f integrations.ConfigFilter) ([]integrations.ConfigRecord, error) {
	return reader{c, c.r}.ListConfigs(ctx, f)
}

// ListRevisions implements integrations.Reader.
func (c *Core) ListRevisions(ctx context.Context, f integrations.RevisionFilter) ([]integrations.Revision, error) {
	return reader{c, c.r}.ListRevisions(ctx, f)
}

// IntegrationsTx implements integrations.Store: fn runs in one write
// transaction of the dialect. Where write transactions run in parallel
// (the dialect is a PartitionLocker), they are serialised with those that
// touch the same integration of the same brand, and only with those: the
// integration records of a brand are partitioned by integration (an app
// integration of type T, and the configurations of kind T, which attach
// only to app integrations of that type), and a transaction locks a
// partition before it first reads or writes in it. So fn reads what every
// earlier transaction on the same records committed, and no other
// transaction writes them until it ends, while writes in other brands, or
// to the other integration of the brand, proceed in parallel. A read that
// spans a whole brand (no kind) locks every partition of the brand, one
// that spans every brand (the key rotation) locks them all.
func (c *Core) IntegrationsTx(ctx context.Context, fn func(tx integrations.Tx) error) error {
	return c.write(ctx, func(tx DB) error {
		t := &integTx{reader: reader{c, tx}, tx: tx}
		if c.locker != nil {
			t.held, t.types = map[string]bool{}, map[string]string{}
		}
		return fn(t)
	})
}

// integTx is an integrations.Tx on a write transaction. Each of its reads
// and writes first locks the partition it touches (when the dialect is a
// PartitionLocker).
type integTx struct {
	reader
	tx DB
	// held records the locks taken: "" (every brand), "b:"+brand (every
	// partition of the brand), "p:"+brand+"\x00"+integration.
	held map[string]bool
	// types caches the type of each app integration read or written, by
	// brand and ID.
	types map[string]string
}

var _ integrations.Tx = (*integTx)(nil)

// Enqueue implements integrations.Tx: items go to the outbox in this
// transaction.
func (t *integTx) Enqueue(ctx context.Context, items ...outbox.Item) error {
	return t.c.enqueue(ctx, t.tx, items)
}

// lock locks, unless this transaction holds it or a wider one, the
// partition of integration in brandID; of the whole brand when
// integration is ""; of every brand when brandID is "". A transaction
// that widens its locks (a whole brand after one of its partitions) may
// deadlock with another doing the same; the database then ends one of
// them with an error. The service's transactions each stay in one
// partition, or lock every brand first.
func (t *integTx) lock(ctx context.Context, brandID, integration string) error {
	if t.c.locker == nil || t.held[""] {
		return nil
	}
	key := ""
	switch {
	case brandID == "":
	case t.held["b:"+brandID]:
		return nil
	case integration == "":
		key = "b:" + brandID
	default:
		key = "p:" + brandID + "\x00" + integration
	}
	if t.held[key] {
		return nil
	}
	if err := t.c.locker.LockPartition(ctx, t.tx, brandID, integration); err != nil {
		return t.c.d.Error(ctx, err)
	}
	t.held[key] = true
	return nil
}

// lockKind locks the partition of configurations of kind in brandID (the
// integration of a configuration kind has the kind's name), or of the
// whole brand when kind is "".
func (t *integTx) lockKind(ctx context.Context, brandID string, kind integrations.RecordKind) error {
	return t.lock(ctx, brandID, string(kind))
}

// lockApp locks the partition of the app integration id of brandID: that
// of its type, read first (a type never changes). When there is no such
// app integration it locks nothing: no record attaches to it, and the
// transaction is as if it ran before the one that creates it.
func (t *integTx) lockApp(ctx context.Context, brandID, id string) error {
	if t.c.locker == nil || t.held[""] || t.held["b:"+brandID] {
		return nil
	}
	key := brandID + "\x00" + id
	typ, ok := t.types[key]
	if !ok {
		err := t.tx.QueryRow(ctx, t.c.bind(`SELECT type FROM app_integrations WHERE id = ? AND brand_id = ?`), id, brandID).Scan(&typ)
		switch {
		case err != nil && t.c.d.Missing(err):
			return nil
		case err != nil:
			return t.c.d.Error(ctx, err)
		}
		t.types[key] = typ
	}
	return t.lock(ctx, brandID, typ)
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
	if f.BrandID != "" && f.Kind == "" && f.AppIntegrationID != nil {
		err = t.lockApp(ctx, f.BrandID, *f.AppIntegrationID)
	} else {
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

// rowCheck is one condition a write requires: taken when the query must
// find no row (else err), required when it must find one (else err).
type rowCheck struct {
	taken bool
	err   *envelope.Error
	query string
	args  []any
}

// check runs the checks in order and returns the first failure.
func (t *integTx) check(ctx context.Context, checks ...rowCheck) error {
	for _, ck := range checks {
		ok, err := t.c.found(ctx, t.tx, ck.query, ck.args...)
		switch {
		case err != nil:
			return err
		case ok == ck.taken:
			return ck.err
		}
	}
	return nil
}

func brandCheck(brandID string) rowCheck {
	return rowCheck{err: auth.ErrBrandNotFound, query: `SELECT 1 FROM brands WHERE id = ?`, args: []any{brandID}}
}

// configChecks are the checks of a configuration about to be stored: its
// brand, its app integration in that brand, and its default.
func configChecks(r integrations.ConfigRecord) []rowCheck {
	checks := []rowCheck{brandCheck(r.BrandID), {err: integrations.ErrAppIntegrationNotFound,
		query: `SELECT 1 FROM app_integrations WHERE id = ? AND brand_id = ?`, args: []any{r.AppIntegrationID, r.BrandID}}}
	if r.IsDefault {
		checks = append(checks, rowCheck{taken: true, err: integrations.ErrDefaultTaken,
			query: `SELECT 1 FROM integration_configs WHERE brand_id = ? AND kind = ? AND is_default = ? AND id <> ?`,
			args:  []any{r.BrandID, string(r.Kind), true, r.ID}})
	}
	return checks
}

// InsertAppIntegration implements integrations.Tx: auth.ErrBrandNotFound,
// integrations.ErrAppIntegrationExists.
func (t *integTx) InsertAppIntegration(ctx context.Context, a integrations.AppIntegration) error {
	if err := t.lock(ctx, a.BrandID, string(a.Type)); err != nil {
		return err
	}
	err := t.check(ctx, brandCheck(a.BrandID), rowCheck{taken: true, err: integrations.ErrAppIntegrationExists,
		query: `SELECT 1 FROM app_integrations WHERE id = ?`, args: []any{a.ID}})
	if err != nil {
		return err
	}
	if t.types != nil {
		t.types[a.BrandID+"\x00"+a.ID] = string(a.Type)
	}
	_, err = t.c.exec(ctx, t.tx, integrations.ErrAppIntegrationExists, auth.ErrBrandNotFound,
		`INSERT INTO app_integrations (`+AppColumns+`) VALUES (`+placeholders(11)+`)`,
		a.ID, a.BrandID, string(a.Type), a.Name, a.Domain, a.Description, a.LogoURL, string(a.Status),
		a.Version, t.c.d.Time(a.CreatedAt), t.c.d.Time(a.UpdatedAt))
	return err
}

// UpdateAppIntegration implements integrations.Tx:
// integrations.ErrAppIntegrationNotFound.
func (t *integTx) UpdateAppIntegration(ctx context.Context, a integrations.AppIntegration) error {
	if err := t.lockApp(ctx, a.BrandID, a.ID); err != nil {
		return err
	}
	return t.c.execOne(ctx, t.tx, integrations.ErrAppIntegrationNotFound, nil, `UPDATE app_integrations SET name = ?,
		domain = ?, description = ?, logo_url = ?, status = ?, version = ?, updated_at = ? WHERE id = ? AND brand_id = ?`,
		a.Name, a.Domain, a.Description, a.LogoURL, string(a.Status), a.Version, t.c.d.Time(a.UpdatedAt), a.ID, a.BrandID)
}

// InsertConfig implements integrations.Tx: integrations.ErrConfigExists,
// auth.ErrBrandNotFound, integrations.ErrAppIntegrationNotFound,
// integrations.ErrDefaultTaken.
func (t *integTx) InsertConfig(ctx context.Context, r integrations.ConfigRecord) error {
	if err := t.lockKind(ctx, r.BrandID, r.Kind); err != nil {
		return err
	}
	exists := rowCheck{taken: true, err: integrations.ErrConfigExists,
		query: `SELECT 1 FROM integration_configs WHERE id = ?`, args: []any{r.ID}}
	if err := t.check(ctx, append([]rowCheck{exists}, configChecks(r)...)...); err != nil {
		return err
	}
	secrets, err := t.c.secrets(r.Secrets)
	if err != nil {
		return t.c.d.Error(ctx, err)
	}
	_, err = t.c.exec(ctx, t.tx, integrations.ErrConfigExists, integrations.ErrAppIntegrationNotFound,
		`INSERT INTO integration_configs (`+ConfigColumns+`) VALUES (`+placeholders(11)+`)`,
		r.ID, string(r.Kind), r.BrandID, r.AppIntegrationID, r.IsDefault, string(r.Status), r.Version,
		string(r.Body), secrets, t.c.d.Time(r.CreatedAt), t.c.d.Time(r.UpdatedAt))
	return err
}

// UpdateConfig implements integrations.Tx: integrations.ErrConfigNotFound,
// then the errors of InsertConfig for its app integration and default.
func (t *integTx) UpdateConfig(ctx context.Context, r integrations.ConfigRecord) error {
	if err := t.lockKind(ctx, r.BrandID, r.Kind); err != nil {
		return err
	}
	found := rowCheck{err: integrations.ErrConfigNotFound,
		query: `SELECT 1 FROM integration_configs WHERE id = ? AND brand_id = ? AND kind = ?`,
		args:  []any{r.ID, r.BrandID, string(r.Kind)}}
	if err := t.check(ctx, append([]rowCheck{found}, configChecks(r)...)...); err != nil {
		return err
	}
	secrets, err := t.c.secrets(r.Secrets)
	if err != nil {
		return t.c.d.Error(ctx, err)
	}
	return t.c.execOne(ctx, t.tx, integrations.ErrConfigNotFound, integrations.ErrDefaultTaken, `UPDATE integration_configs SET
		app_integration_id = ?, is_default = ?, status = ?, version = ?, body = ?, secrets = ?, updated_at = ?
		WHERE id = ? AND brand_id = ? AND kind = ?`,
		r.AppIntegrationID, r.IsDefault, string(r.Status), r.Version, string(r.Body), secrets, t.c.d.Time(r.UpdatedAt),
		r.ID, r.BrandID, string(r.Kind))
}

// DeleteConfig implements integrations.Tx: integrations.ErrConfigNotFound.
// The row goes whole, secrets and default flag with it.
func (t *integTx) DeleteConfig(ctx context.Context, kind integrations.RecordKind, brandID, id string) error {
	if err := t.lockKind(ctx, brandID, kind); err != nil {
		return err
	}
	return t.c.execOne(ctx, t.tx, integrations.ErrConfigNotFound, nil,
		`DELETE FROM integration_configs WHERE id = ? AND brand_id = ? AND kind = ?`, id, brandID, string(kind))
}

// InsertRevision implements integrations.Tx: auth.ErrBrandNotFound,
// integrations.ErrRevisionExists.
func (t *integTx) InsertRevision(ctx context.Context, rev integrations.Revision) error {
	if err := t.lockRevisions(ctx, rev.BrandID, rev.Kind, rev.RecordID); err != nil {
		return err
	}
	err := t.check(ctx, brandCheck(rev.BrandID), rowCheck{taken: true, err: integrations.ErrRevisionExists,
		query: `SELECT 1 FROM integration_revisions WHERE id = ? OR (kind = ? AND record_id = ? AND version = ?)`,
		args:  []any{rev.ID, string(rev.Kind), rev.RecordID, rev.Version}})
	if err != nil {
		return err
	}
	fields := rev.Fields
	if fields == nil {
		fields = []string{}
	}
	_, err = t.c.exec(ctx, t.tx, integrations.ErrRevisionExists, auth.ErrBrandNotFound,
		`INSERT INTO integration_revisions (`+RevisionColumns+`) VALUES (`+placeholders(8)+`)`,
		rev.ID, rev.BrandID, string(rev.Kind), rev.RecordID, rev.Version, rev.ActorUserID, t.c.d.Time(rev.At),
		t.c.d.List(fields))
	return err
}

// sealedColumns are the columns of integrations.SealedSecrets.
const sealedColumns = `kind, brand_id, id, secrets`

func (c *Core) scanSealed(row Scanner) (integrations.SealedSecrets, error) {
	var s integrations.SealedSecrets
	var kind string
	var secrets []byte
	if err := row.Scan(&kind, &s.BrandID, &s.ID, &secrets); err != nil {
		return s, err
	}
	s.Kind = integrations.RecordKind(kind)
	var err error
	s.Secrets, err = DecodeSecrets(secrets)
	return s, err
}

// SealedSecrets implements integrations.Store: one query, whose brands
// come from the index on (brand_id, ...) and stop at the limit.
func (c *Core) SealedSecrets(ctx context.Context, afterBrand string, brands int) ([]integrations.SealedSecrets, error) {
	return QueryAll(ctx, c, c.r, c.scanSealed, `SELECT `+sealedColumns+` FROM integration_configs
		WHERE secrets IS NOT NULL AND brand_id IN (SELECT DISTINCT brand_id FROM integration_configs
			WHERE brand_id > ? AND secrets IS NOT NULL ORDER BY brand_id LIMIT ?)
		ORDER BY brand_id, id`, afterBrand, brands)
}

// LockSealedSecrets implements integrations.Tx: it locks each brand whole
// (every partition of it), then reads in one query.
func (t *integTx) LockSealedSecrets(ctx context.Context, refs []integrations.ConfigRef) ([]integrations.SealedSecrets, error) {
	want := make(map[string]integrations.ConfigRef, len(refs))
	args := make([]any, 0, len(refs))
	for _, r := range refs {
		if err := t.lock(ctx, r.BrandID, ""); err != nil {
			return nil, err
		}
		want[r.ID] = r
		args = append(args, r.ID)
	}
	if len(args) == 0 {
		return []integrations.SealedSecrets{}, nil
	}
	rows, err := QueryAll(ctx, t.c, t.tx, t.c.scanSealed, `SELECT `+sealedColumns+` FROM integration_configs
		WHERE secrets IS NOT NULL AND id IN (`+placeholders(len(args))+`) ORDER BY id`, args...)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(rows, func(s integrations.SealedSecrets) bool {
		r := want[s.ID]
		return r.BrandID != s.BrandID || r.Kind != s.Kind // not the configuration asked for: left alone
	}), nil
}

// UpdateSecrets implements integrations.Tx: one statement, which sets the
// secrets column alone of every configuration of ss, each in its brand's
// lock.
func (t *integTx) UpdateSecrets(ctx context.Context, ss []integrations.SealedSecrets) error {
	if len(ss) == 0 {
		return nil
	}
	args := make([]any, 0, 4*len(ss))
	for _, s := range ss {
		if err := t.lock(ctx, s.BrandID, ""); err != nil {
			return err
		}
		secrets, err := t.c.secrets(s.Secrets)
		if err != nil {
			return t.c.d.Error(ctx, err)
		}
		args = append(args, secrets, s.ID, s.BrandID, string(s.Kind))
	}
	values := strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?), ", len(ss)), ", ")
	_, err := t.c.exec(ctx, t.tx, nil, nil, `WITH v (secrets, id, brand_id, kind) AS (VALUES `+values+`)
		UPDATE integration_configs SET secrets = v.secrets FROM v
		WHERE integration_configs.id = v.id AND integration_configs.brand_id = v.brand_id AND integration_configs.kind = v.kind`, args...)
	return err
}
