package sqlite

// Reference data (refdata.Store) on SQLite: the shape every list query of
// the tables takes (a WHERE built by [filter], an ORDER BY with its tie,
// and the count and the page read in one transaction by [list]), and the
// dataset version. The tables are in tables.go (currencies, countries) and
// cities.go; their full-text indexes in search.go; the revision cache in
// revision.go; the template database new files start from in template.go.

import (
	"context"
	"strings"

	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/storage/internal/sqlstore"
)

// metaDatasetVersion is the meta key of the dataset version.
const metaDatasetVersion = "refdata.dataset_version"

// filter builds the WHERE clause of a list query.
type filter struct {
	conds []string
	args  []any
}

// add adds cond, with its arguments.
func (w *filter) add(cond string, args ...any) {
	w.conds = append(w.conds, cond)
	w.args = append(w.args, args...)
}

// Eq implements sqlstore.Conditions.
func (w *filter) Eq(col, v string) {
	if v != "" {
		w.add(col+" = ?", v)
	}
}

// Equal implements sqlstore.Conditions.
func (w *filter) Equal(col string, v any) { w.add(col+" = ?", v) }

// Contains implements sqlstore.Conditions: instr of col.
func (w *filter) Contains(col, needle string) {
	if needle != "" {
		w.add("instr("+col+", ?) > 0", needle)
	}
}

// Tags implements sqlstore.Conditions: instr of each tag, ORed.
func (w *filter) Tags(col string, tags []string) {
	if len(tags) == 0 {
		return
	}
	ors := make([]string, len(tags))
	args := make([]any, len(tags))
	for i, t := range tags {
		ors[i] = "instr(" + col + ", ?) > 0"
		args[i] = "," + t + ","
	}
	w.add("("+strings.Join(ors, " OR ")+")", args...)
}

// keywords adds the Keywords test: the row is in the FTS5 table's answer to
// prefixQuery(terms); or, when nothing is set or a term can match no word
// (see searchTerms), a test no row passes.
func (w *filter) keywords(rowid, table string, terms []string, nothing bool) {
	terms, ok := searchTerms(terms)
	switch {
	case nothing || !ok:
		w.add("0")
	case len(terms) > 0:
		w.add(rowid+" IN (SELECT rowid FROM "+table+" WHERE "+table+" MATCH ?)", prefixQuery(terms))
	}
}

// where returns the WHERE clause, or "".
func (w *filter) where() string {
	if len(w.conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(w.conds, " AND ")
}

// orderBy returns the ORDER BY clause for key then tie, both reversed when
// desc (sqlstore.OrderBy).
var orderBy = sqlstore.OrderBy

// list runs the count and the page query of one list in one read
// transaction, so that both see the same data. count returns the number of
// matches; page returns the page query (which may depend on that number);
// scan reads one row.
func list[T any](ctx context.Context, s *Store, count func(querier) (int, error),
	page func(total int) (string, []any), scan func(scanner) (T, error)) ([]T, int, error) {
	tx, err := s.r.BeginTx(ctx, nil)
	if err != nil {
		return nil, 0, storeError(err)
	}
	defer tx.Rollback()
	total, err := count(tx)
	if err != nil {
		return nil, 0, storeError(err)
	}
	query, args := page(total)
	out, err := queryAll(ctx, tx, scan, query, args...)
	if err != nil {
		return nil, 0, err
	}
	return out, total, storeError(tx.Commit())
}

// countOf returns a count function that runs query.
func countOf(ctx context.Context, query string, args []any) func(querier) (int, error) {
	return func(q querier) (int, error) { return sqlstore.ScanColumn[int](q.QueryRowContext(ctx, query, args...)) }
}

// pageOf returns a page function that runs query with args and then the
// page's limit and offset.
func pageOf(query string, args []any, p refdata.Paging) func(int) (string, []any) {
	return func(int) (string, []any) {
		return query + ` LIMIT ? OFFSET ?`, append(append([]any{}, args...), p.Size, p.Offset())
	}
}

// DatasetVersion implements refdata.Store.
func (s *Store) DatasetVersion(ctx context.Context) (string, error) {
	return s.getMeta(ctx, metaDatasetVersion)
}

// SetDatasetVersion implements refdata.Store.
func (s *Store) SetDatasetVersion(ctx context.Context, version string) error {
	return s.setMeta(ctx, metaDatasetVersion, version)
}
