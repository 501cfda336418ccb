package sqlite

// The cities table: the query planner of ListCities (which full-text
// index drives a filtered list, see ListCities) and UpsertCities.

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/storage/internal/sqlstore"

	"github.com/brandbase/brandbase/internal/textfold"
)

// ListCities implements refdata.Store. A filtered query is planned here
// rather than left to SQLite, which cannot see how many rows an FTS5
// answer holds: full-text indexes drive when they apply, so that the
// rows read are about the rows that match.
//
//   - CountryCode or StateCode, without Keywords: the code's index drives
//     and the Name, if any, is tested in it (cities_country and
//     cities_state end with name_fold), which costs a tenth of reading a
//     row: cheaper than the rows of a name index, which must be read to
//     check the code.
//   - Name of three runes or more, without codes: the trigram index
//     answers the phrase query of the name, which is exactly the
//     substring test (folded names, case_sensitive trigrams).
//   - Name of one or two runes, without codes: the token of that rune or
//     pair in cities_grams, which is exactly the substring test.
//   - Keywords: a prefix query of every term; the codes, when given, are
//     added as whole tokens (a city's search text holds them), so that
//     the index intersects them too. The join then checks the codes, as a
//     name word can equal a code, and a Name given with a code.
//
// Two full-text answers (a Name and Keywords) are intersected by merging
// them, both in rowid order, before the join. When the full-text indexes
// alone decide, the total of a short Name is read from cities_grams_n
// instead of counted; a page in insertion order is taken before the
// join, so that skipped rows are not read; and a Name that many names
// hold, sorted by another field, walks that field's index testing the
// substring until the page is full (see walkCheaper), instead of sorting
// every match.
func (s *Store) ListCities(ctx context.Context, f refdata.CityFilter) ([]refdata.City, int, error) {
	terms, ok := searchTerms(f.Keywords)
	if f.Nothing || !ok {
		return list(ctx, s, countOf(ctx, `SELECT 0`, nil),
			pageOf(`SELECT `+sqlstore.CityColumns+` FROM cities WHERE 0`, nil, f.Page), sqlstore.ScanCity)
	}
	f.Keywords = terms
	if f.Unfiltered() {
		return s.listAllCities(ctx, f)
	}
	p := planCities(f)
	cities := 0
	count := func(q querier) (int, error) {
		var n int
		err := q.QueryRowContext(ctx, p.count, p.countArgs...).Scan(&n, &cities)
		return n, err
	}
	page := func(total int) (string, []any) { return p.page(total, cities) }
	return list(ctx, s, count, page, sqlstore.ScanCity)
}

// cityPlan holds the queries of a filtered city list: count returns the
// number of matches and the number of cities; page returns the page query
// for those two numbers.
type cityPlan struct {
	count     string
	countArgs []any
	page      func(total, cities int) (string, []any)
}

// planCities returns the plan of f, a filtered query (see ListCities).
func planCities(f refdata.CityFilter) cityPlan {
	trigrams := utf8.RuneCountInString(f.Name) >= 3 &&
		!strings.ContainsRune(f.Name, 0) // FTS5 query strings end at NUL
	gram, gramExact := gramToken(f.Name)
	var fts filter // the full-text queries that drive, each giving rowids
	nameIndexed := false
	switch {
	case f.CountryCode != "" || f.StateCode != "":
		// The code's index drives; it holds name_fold to test.
	case trigrams:
		fts.add("SELECT rowid FROM cities_tri WHERE cities_tri MATCH ?", ftsString(f.Name))
		nameIndexed = true
	case f.Name != "":
		fts.add("SELECT rowid FROM cities_grams WHERE cities_grams MATCH ?", ftsString(gram))
		nameIndexed = gramExact
	}
	if len(f.Keywords) > 0 {
		fts.add("SELECT rowid FROM cities_kw WHERE cities_kw MATCH ?",
			prefixQuery(f.Keywords, codeToken(f.CountryCode), codeToken(f.StateCode)))
	}
	driver := strings.Join(fts.conds, " INTERSECT ")
	from, seq := "cities c", "c.seq"
	if driver != "" {
		from, seq = "("+driver+") g JOIN cities c ON c.seq = g.rowid", "g.rowid"
	}
	var w filter // the tests of the rows, after the args of the driver
	w.args = fts.args
	w.Eq("c.country_code", f.CountryCode)
	w.Eq("c.state_code", f.StateCode)
	if !nameIndexed {
		w.Contains("c.name_fold", f.Name)
	}
	alone := driver != "" && len(w.conds) == 0 // the driver's answer is the answer
	nameAlone := alone && len(fts.conds) == 1 && len(f.Keywords) == 0

	p := cityPlan{count: `(SELECT count(*) FROM ` + from + w.where() + `)`, countArgs: w.args}
	switch {
	case nameAlone && !trigrams:
		p.count, p.countArgs = `coalesce((SELECT n FROM cities_grams_n WHERE gram = ?), 0)`, []any{gram}
	case alone:
		p.count = `(SELECT count(*) FROM (` + driver + `))`
	}
	p.count = `SELECT ` + p.count + `, (SELECT n FROM refdata_counts WHERE name = 'cities')`

	const columns = `SELECT c.country_code, c.state_code, c.name, c.tags FROM `
	key := "c." + sqlstore.CityOrder[f.Sort]
	if f.Sort == refdata.FieldID {
		key = seq // the driver gives its rows in this order
	}
	sorted := pageOf(columns+from+w.where()+orderBy(key, seq, f.Desc), w.args, f.Page)
	p.page = func(total, _ int) (string, []any) { return sorted(total) }
	switch {
	case alone && f.Sort == refdata.FieldID:
		query := columns + `(` + driver + orderBy("1", "1", f.Desc) + ` LIMIT ? OFFSET ?) g
			JOIN cities c ON c.seq = g.rowid` + orderBy("g.rowid", "g.rowid", f.Desc)
		args := append(append([]any{}, fts.args...), f.Page.Size, f.Page.Offset())
		p.page = func(int, int) (string, []any) { return query, args }
	case nameAlone:
		walk := pageOf(columns+`cities c WHERE instr(c.name_fold, ?) > 0`+orderBy(key, "c.seq", f.Desc),
			[]any{f.Name}, f.Page)
		p.page = func(total, cities int) (string, []any) {
			if walkCheaper(f, total, cities) {
				return walk(total)
			}
			return sorted(total)
		}
	}
	return p
}

// walkCheaper reports whether the page of f (a Name filter alone, sorted
// by another field than id) with total matches among cities is cheaper to
// find by walking the sort field's index, testing the name on each entry,
// than by sorting every match. The walk reads about (offset+size) ×
// cities / total entries; sorting fetches total rows. An entry whose
// index holds name_fold (name, countryCode, stateCode) is tested in place,
// about six times cheaper than a row fetched (measured); tags must fetch.
func walkCheaper(f refdata.CityFilter, total, cities int) bool {
	inPlace := 6
	if f.Sort == refdata.FieldTags {
		inPlace = 1
	}
	t := float64(total)
	return total > 0 && float64(inPlace)*t*t >= float64(f.Page.Offset()+f.Page.Size)*float64(cities)
}

// listAllCities answers an unfiltered city query. The total is kept by
// triggers. In insertion order with seq dense (1..n, as cities are never
// deleted), a page starts at a known seq instead of skipping rows.
func (s *Store) listAllCities(ctx context.Context, f refdata.CityFilter) ([]refdata.City, int, error) {
	const columns = `SELECT ` + sqlstore.CityColumns + ` FROM cities`
	dense := false
	count := func(q querier) (int, error) {
		var n, last int
		err := q.QueryRowContext(ctx, `SELECT n, (SELECT coalesce(max(seq), 0) FROM cities)
			FROM refdata_counts WHERE name = 'cities'`).Scan(&n, &last)
		dense = n == last
		return n, err
	}
	page := func(total int) (string, []any) {
		if f.Sort != refdata.FieldID || !dense {
			return pageOf(columns+orderBy(sqlstore.CityOrder[f.Sort], "seq", f.Desc), nil, f.Page)(total)
		}
		if f.Desc {
			return columns + ` WHERE seq <= ? ORDER BY seq DESC LIMIT ?`, []any{total - f.Page.Offset(), f.Page.Size}
		}
		return columns + ` WHERE seq > ? ORDER BY seq LIMIT ?`, []any{f.Page.Offset(), f.Page.Size}
	}
	return list(ctx, s, count, page, sqlstore.ScanCity)
}

// UpsertCities implements refdata.Store: each city is looked up by its
// natural key, then inserted (with its search rows) or, when its name
// differs or it adds tags, updated in place. It bumps the revision, also
// when nothing changed.
func (s *Store) UpsertCities(ctx context.Context, cs []refdata.City) (int, error) {
	added := 0
	err := s.writeRefData(ctx, func(tx *sql.Tx) error {
		ctx, done := bulk(ctx)
		rev, err := nextRevision(ctx, tx)
		if err != nil {
			return err
		}
		w, err := newCityWriter(ctx, tx, rev)
		if err != nil {
			return err
		}
		defer w.close()
		defer func() { added = w.added }()
		for _, c := range cs {
			if err := done(); err != nil {
				return err
			}
			if err := w.upsert(ctx, c); err != nil {
				return err
			}
		}
		if w.changed {
			if err := w.writeIndexes(ctx, tx); err != nil {
				return err
			}
		}
		return s.bumpRevision(ctx, tx) // also when nothing changed: see bumpRevision
	})
	return added, err
}

// cityWriter writes cities in one transaction of UpsertCities: its
// statements, and the rows it sets in the search indexes, written last
// (see searchRows).
type cityWriter struct {
	rev                  int64 // the revision this write bumps to: each written city's rev
	find, insert, update *sql.Stmt
	closeAll             func()
	kw, tri, grams       searchRows
	gramCounts           map[string]int // cities_grams_n increments
	added                int            // cities inserted
	changed              bool           // whether anything was written
}

// newCityWriter prepares a cityWriter's statements in tx, for a write
// that bumps the revision to rev.
func newCityWriter(ctx context.Context, tx *sql.Tx, rev int64) (*cityWriter, error) {
	stmts, closeAll, err := prepare(ctx, tx,
		`SELECT seq, name, tags FROM cities WHERE country_code = ? AND state_code = ? AND name_fold = ?`,
		`INSERT INTO cities (country_code, state_code, name, tags, name_fold, tags_key, rev)
			VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING seq`,
		`UPDATE cities SET name = ?, tags = ?, tags_key = ?, rev = ? WHERE seq = ?`)
	if err != nil {
		return nil, err
	}
	return &cityWriter{
		rev: rev, find: stmts[0], insert: stmts[1], update: stmts[2], closeAll: closeAll,
		kw:         searchRows{table: "cities_kw", column: "kw"},
		tri:        searchRows{table: "cities_tri", column: "name_fold"},
		grams:      searchRows{table: "cities_grams", column: "grams"},
		gramCounts: map[string]int{},
	}, nil
}

// close closes the statements.
func (w *cityWriter) close() { w.closeAll() }

// upsert inserts c or, when its natural key is taken, replaces the stored
// name and adds c's tags to the stored ones (refdata.MergeTags) if that
// changes them.
func (w *cityWriter) upsert(ctx context.Context, c refdata.City) error {
	fold := textfold.Fold(c.Name)
	seq, err := sqlstore.ScanColumn[int64](w.insert.QueryRowContext(ctx, c.CountryCode, c.StateCode, c.Name, c.Tags, fold, textfold.TagKey(c.Tags), w.rev))
	if err == nil {
		w.tri.set(seq, fold, false)
		w.grams.set(seq, nameGrams(fold, w.gramCounts), false)
		w.kw.set(seq, c.SearchText(), false)
		w.added++
		w.changed = true
		return nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	var name, tags string
	if err := w.find.QueryRowContext(ctx, c.CountryCode, c.StateCode, fold).Scan(&seq, &name, &tags); err != nil {
		return err
	}
	c.Tags = refdata.MergeTags(tags, c.Tags)
	if name == c.Name && tags == c.Tags {
		return nil
	}
	if _, err := w.update.ExecContext(ctx, c.Name, c.Tags, textfold.TagKey(c.Tags), w.rev, seq); err != nil {
		return err
	}
	if tags != c.Tags {
		w.kw.set(seq, c.SearchText(), true)
	}
	w.changed = true
	return nil
}

// writeIndexes writes the rows set in the search indexes, and the counts
// of cities_grams_n, in tx.
func (w *cityWriter) writeIndexes(ctx context.Context, tx *sql.Tx) error {
	for _, r := range []*searchRows{&w.tri, &w.grams} {
		if err := r.write(ctx, tx); err != nil {
			return err
		}
	}
	if err := addGramCounts(ctx, tx, w.gramCounts); err != nil {
		return err
	}
	return w.kw.write(ctx, tx)
}

// The queries of CitiesChangedSince, with the revision as their argument:
// the count, and the page (then its limit and offset). The page reads the
// index of revisions and sorts the few it finds; left to itself, SQLite
// would scan the table in seq order.
const (
	changedCount = `SELECT count(*) FROM cities WHERE rev > ?`
	changedPage  = `SELECT ` + sqlstore.CityColumns + ` FROM cities INDEXED BY cities_rev WHERE rev > ? ORDER BY seq`
)

// CitiesChangedSince implements refindex.CityChanges: the cities that a
// write after revision rev inserted or changed, in the order of storage,
// the page p of them, and how many there are.
func (s *Store) CitiesChangedSince(ctx context.Context, rev uint64, p refdata.Paging) ([]refdata.City, int, error) {
	return list(ctx, s, countOf(ctx, changedCount, []any{int64(rev)}), pageOf(changedPage, []any{int64(rev)}, p), sqlstore.ScanCity)
}
