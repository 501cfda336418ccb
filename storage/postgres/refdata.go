package postgres

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/storage/internal/sqlstore"
)

var _ refdata.Store = (*Store)(nil)

const metaDatasetVersion = "refdata.dataset_version"

// itoa formats a placeholder number.
func itoa(n int) string { return strconv.Itoa(n) }

// filter builds the WHERE clause of a list query with numbered
// placeholders.
type filter struct {
	conds []string
	args  []any
	// nothing is set when a value cannot be stored (NUL, invalid UTF-8), or
	// the filter says so: no row matches.
	nothing bool
}

// arg adds v to the arguments and returns its placeholder.
func (w *filter) arg(v any) string {
	w.args = append(w.args, v)
	return "$" + itoa(len(w.args))
}

func (w *filter) add(cond string) { w.conds = append(w.conds, cond) }

// storable reports whether PostgreSQL text can hold every string of ss
// (valid UTF-8 without NUL): a filter value that it cannot hold is equal
// to, and a substring or prefix of, no stored value.
func storable(ss ...string) bool {
	for _, s := range ss {
		if !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 {
			return false
		}
	}
	return true
}

// Eq implements sqlstore.Conditions; a value text cannot hold matches
// nothing.
func (w *filter) Eq(col, v string) {
	if v != "" {
		w.nothing = w.nothing || !storable(v)
		w.add(col + " = " + w.arg(v))
	}
}

// Equal implements sqlstore.Conditions.
func (w *filter) Equal(col string, v any) { w.add(col + " = " + w.arg(v)) }

// Contains implements sqlstore.Conditions: strpos of col; a needle text
// cannot hold matches nothing.
func (w *filter) Contains(col, needle string) {
	if needle != "" {
		w.nothing = w.nothing || !storable(needle)
		w.add("strpos(" + col + ", " + w.arg(needle) + ") > 0")
	}
}

// Tags implements sqlstore.Conditions: strpos of col for each tag of an
// array; a tag text cannot hold matches nothing.
func (w *filter) Tags(col string, tags []string) {
	if len(tags) == 0 {
		return
	}
	keys := make([]string, len(tags))
	for i, t := range tags {
		keys[i] = "," + t + ","
	}
	w.nothing = w.nothing || !storable(keys...)
	w.add("EXISTS (SELECT 1 FROM unnest(" + w.arg(keys) + "::text[]) k WHERE strpos(" + col + ", k) > 0)")
}

// keywords adds the Keywords test on col (the prefixes of the folded
// words of a record): every term is one of them. "" is the prefix of every
// word: it is dropped.
func (w *filter) keywords(col string, terms []string, nothing bool) {
	if nothing || !storable(terms...) {
		w.nothing = true
		return
	}
	terms = slices.DeleteFunc(slices.Clone(terms), func(t string) bool { return t == "" })
	if len(terms) > 0 {
		w.add(col + " @> " + w.arg(terms) + "::text[]")
	}
}

// wordPrefixes returns the distinct prefixes, of one rune or more, of the
// words of text (refdata's SearchText: folded words separated by spaces).
func wordPrefixes(text string) []string {
	out := []string{}
	for w := range strings.SplitSeq(text, " ") {
		for i := range w {
			if i > 0 && !slices.Contains(out, w[:i]) {
				out = append(out, w[:i])
			}
		}
		if w != "" && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// where returns the WHERE clause, or "".
func (w *filter) where() string {
	if len(w.conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(w.conds, " AND ")
}

// orderBy returns the ORDER BY clause for key then tie, both reversed when
// desc; by tie alone when key is "" (a filter built by hand, without a
// sort field).
func orderBy(key, tie string, desc bool) string {
	if key == "" {
		key = tie
	}
	return sqlstore.OrderBy(key, tie, desc)
}

// listQuery is the pair of queries of one list: the count of the matches
// and the page, and the statement that begins their transaction ("": the
// default, readTx).
type listQuery struct {
	count     string
	countArgs []any
	page      string
	pageArgs  []any
	begin     string
}

// readTx begins the transaction of a list: read-only and repeatable-read,
// so that its count and page see the same data.
const readTx = `BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY`

// paged returns q with the page's LIMIT and OFFSET added to the page query.
func paged(q listQuery, p refdata.Paging) listQuery {
	q.pageArgs = append(append([]any{}, q.pageArgs...), p.Size, p.Offset())
	q.page += " LIMIT $" + itoa(len(q.pageArgs)-1) + " OFFSET $" + itoa(len(q.pageArgs))
	return q
}

// list runs the count and the page query of q in one read-only
// repeatable-read transaction, so that both see the same data; the page
// is not read when it starts past the matches. nothing answers no match
// without reading.
func list[T any](ctx context.Context, s *Store, q listQuery, p refdata.Paging, nothing bool, scan func(scanner) (T, error)) ([]T, int, error) {
	if nothing {
		return []T{}, 0, storeError(ctx, ctx.Err())
	}
	var out []T
	total := 0
	begin := q.begin
	if begin == "" {
		begin = readTx
	}
	err := s.inTx(ctx, pgx.TxOptions{BeginQuery: begin}, func(tx pgx.Tx) error {
		out = []T{}
		if err := tx.QueryRow(ctx, q.count, q.countArgs...).Scan(&total); err != nil {
			return err
		}
		if p.Offset() >= total {
			return nil
		}
		var err error
		out, err = queryAll(ctx, tx, scan, q.page, q.pageArgs...)
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	return out, total, nil
}

// writeRefData runs fn in a write transaction, and bumps the revision by
// one and notifies ChangeRefData in the same transaction: also when fn
// changed nothing, because the reference-data index (refindex) takes a
// revision one above its snapshot's, read after its own write, as that
// write's alone, which would be wrong if a write that changed nothing left
// the revision to another instance's write (docs/several-instances.md).
func (s *Store) writeRefData(ctx context.Context, fn func(tx pgx.Tx) error) error {
	defer s.multi.revision.forget() // seen by this store at once, before the notification
	return s.write(ctx, func(tx pgx.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE refdata_state SET revision = revision + 1 WHERE id = 1`); err != nil {
			return err
		}
		return s.notify(ctx, tx, Change{Kind: ChangeRefData})
	})
}

// The statements of UpsertCurrencies and UpsertCountries.
var (
	upsertCurrency = upsertSQL("currencies", sqlstore.CurrencyColumns)
	upsertCountry  = upsertSQL("countries", sqlstore.CountryColumns)
)

// upsertSQL returns the statement that inserts a row of table (columns,
// then its prefixes) or, when its id is stored, replaces it if any column
// differs.
func upsertSQL(table string, columns []string) string {
	var vals, sets, old, excl []string
	for i, c := range columns {
		vals = append(vals, "$"+itoa(i+1))
		if c != "id" {
			sets = append(sets, c+" = excluded."+c)
			old = append(old, table+"."+c)
			excl = append(excl, "excluded."+c)
		}
	}
	return `INSERT INTO ` + table + ` (` + strings.Join(columns, ", ") + `, prefixes) VALUES (` + strings.Join(vals, ", ") +
		`, $` + itoa(len(columns)+1) + `)
		ON CONFLICT (id) DO UPDATE SET ` + strings.Join(sets, ", ") + `, prefixes = excluded.prefixes
		WHERE (` + strings.Join(old, ", ") + `) IS DISTINCT FROM (` + strings.Join(excl, ", ") + `)`
}

// upsertRows runs query once per row of rows, in one batch in tx.
func upsertRows(ctx context.Context, tx pgx.Tx, query string, rows [][]any) error {
	var b pgx.Batch
	for _, r := range rows {
		b.Queue(query, r...)
	}
	return tx.SendBatch(ctx, &b).Close()
}

// RefDataRevision implements refdata.Store: the revision is read from the
// database, so that it is the same for every instance, and kept while the
// store listens and hears no reference-data change (listen.go).
func (s *Store) RefDataRevision(ctx context.Context) (uint64, error) {
	return s.multi.revision.get(s.Listening(), func() (uint64, error) {
		var n int64
		if err := s.db.QueryRow(ctx, `SELECT revision FROM refdata_state WHERE id = 1`).Scan(&n); err != nil {
			return 0, storeError(ctx, err)
		}
		return uint64(n), nil
	})
}

// DatasetVersion implements refdata.Store.
func (s *Store) DatasetVersion(ctx context.Context) (string, error) {
	return s.getMeta(ctx, metaDatasetVersion)
}

// SetDatasetVersion implements refdata.Store. It notifies ChangeRefData.
func (s *Store) SetDatasetVersion(ctx context.Context, version string) error {
	return s.write(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO meta (key, value) VALUES ($1, $2)
			ON CONFLICT (key) DO UPDATE SET value = excluded.value`, metaDatasetVersion, version); err != nil {
			return err
		}
		return s.notify(ctx, tx, Change{Kind: ChangeRefData})
	})
}

// ListCurrencies implements refdata.Store.
func (s *Store) ListCurrencies(ctx context.Context, f refdata.CurrencyFilter) ([]refdata.Currency, int, error) {
	var w filter
	sqlstore.CurrencyConditions(&w, f)
	w.keywords("prefixes", f.Keywords, f.Nothing)

	q := listQuery{count: `SELECT count(*) FROM currencies` + w.where(), countArgs: w.args}
	key := sqlstore.CurrencyOrder[f.Sort]
	switch {
	case f.Sort != refdata.FieldIsDefault:
	case storable(f.DefaultCode):
		key = "(code = " + w.arg(f.DefaultCode) + ")"
	default: // a code no currency can have: none is the default, all tie
		key = ""
	}
	q.page, q.pageArgs = `SELECT `+strings.Join(sqlstore.CurrencyColumns[:sqlstore.CurrencyScanned], ", ")+` FROM currencies`+w.where()+orderBy(key, "id", f.Desc), w.args
	return list(ctx, s, paged(q, f.Page), f.Page, w.nothing, sqlstore.ScanCurrency)
}

// UpsertCurrencies implements refdata.Store: of currencies with the same ID
// the last is stored, at the place of the first; new ones take the next
// seqs in the order given. It bumps the revision and notifies ChangeRefData,
// also when no row changed.
func (s *Store) UpsertCurrencies(ctx context.Context, cs []refdata.Currency) error {
	query := upsertCurrency
	return s.writeRefData(ctx, func(tx pgx.Tx) error {
		var rows [][]any
		for _, c := range refdata.NewCurrencyTable(cs).RecordsByCreation() {
			rows = append(rows, append(sqlstore.CurrencyRow(c), wordPrefixes(c.SearchText())))
		}
		return upsertRows(ctx, tx, query, rows)
	})
}

// ListCountries implements refdata.Store.
func (s *Store) ListCountries(ctx context.Context, f refdata.CountryFilter) ([]refdata.Country, int, error) {
	var w filter
	sqlstore.CountryConditions(&w, f)
	w.keywords("prefixes", f.Keywords, f.Nothing)

	q := listQuery{count: `SELECT count(*) FROM countries` + w.where(), countArgs: w.args,
		page:     `SELECT ` + strings.Join(sqlstore.CountryColumns[:sqlstore.CountryScanned], ", ") + ` FROM countries` + w.where() + orderBy(sqlstore.CountryOrder[f.Sort], "id", f.Desc),
		pageArgs: w.args}
	return list(ctx, s, paged(q, f.Page), f.Page, w.nothing, sqlstore.ScanCountry)
}

// UpsertCountries implements refdata.Store: of countries with the same ID
// the last is stored, at the place of the first; new ones take the next
// seqs in the order given. It bumps the revision and notifies ChangeRefData,
// also when no row changed.
func (s *Store) UpsertCountries(ctx context.Context, cs []refdata.Country) error {
	query := upsertCountry
	return s.writeRefData(ctx, func(tx pgx.Tx) error {
		var rows [][]any
		for _, c := range refdata.NewCountryTable(cs).RecordsByCreation() {
			rows = append(rows, append(sqlstore.CountryRow(c), wordPrefixes(c.SearchText())))
		}
		return upsertRows(ctx, tx, query, rows)
	})
}

// migrationSteps are the Go steps of migrations, by version: each runs in
// its migration's transaction, after its SQL.
var migrationSteps = map[int]func(context.Context, pgx.Tx) error{6: numberStored}

// numberStored numbers the currencies and countries stored before their
// order of storage was recorded again, from their seq sequence: in the
// embedded dataset's order (refdata.DatasetOrder), then in the order the
// migration gave the others.
func numberStored(ctx context.Context, tx pgx.Tx) error {
	for _, table := range []string{"currencies", "countries"} {
		ids, err := queryAll(ctx, tx, sqlstore.ScanColumn[string], `SELECT id FROM `+table+` ORDER BY seq`)
		if err != nil {
			return err
		}
		if ids, err = refdata.DatasetOrder(ids); err != nil {
			return err
		}
		var b pgx.Batch
		for _, id := range ids {
			b.Queue(`UPDATE `+table+` SET seq = nextval(pg_get_serial_sequence('`+table+`', 'seq')) WHERE id = $1`, id)
		}
		if err := tx.SendBatch(ctx, &b).Close(); err != nil {
			return err
		}
	}
	return nil
}
