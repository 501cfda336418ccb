package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/brandbase/brandbase/refdata"
)

const (
	metaDatasetVersion  = "refdata.dataset_version"
	metaRefDataRevision = "refdata.revision"
	// revisionTTL is how long RefDataRevision trusts its cached value when
	// this process has not written: writes by another process sharing the
	// file are seen after at most this long.
	revisionTTL = time.Second
)

// refState is the reference-data state a Store keeps in memory.
type refState struct {
	revision atomic.Pointer[cachedRevision]
	// writes counts the writes of reference data this Store has
	// committed: a revision cached before the last of them is stale.
	writes atomic.Uint64
	// revisionRead, when set (by tests), runs in RefDataRevision between
	// reading the revision and caching it.
	revisionRead func()
}

// templateImage returns the process's template database, as the bytes of
// a database file: a freshly migrated database holding the default
// dataset, built once per process (by upserts, in a private in-memory
// database). A database that Open creates starts as a copy of it
// (createFromTemplate, useTemplate), which is much cheaper than loading
// the dataset again (milliseconds instead of a tenth of a second).
var templateImage = sync.OnceValues(func() ([]byte, error) {
	ctx := context.Background() // the image outlives any caller
	db, err := sql.Open("sqlite", ":memory:?_pragma=foreign_keys(1)")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // one connection: one private database
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	t := &Store{w: db, r: db}
	if err := t.migrate(ctx); err != nil {
		return nil, err
	}
	if err := refdata.LoadDefault(ctx, t); err != nil {
		return nil, err
	}
	var image []byte
	err = rawConn(ctx, db, func(c driverConn) error {
		image, err = c.Serialize()
		return err
	})
	return image, err
})

// driverConn is the part of the driver's connection that copies whole
// databases.
type driverConn interface {
	Serialize() ([]byte, error)
	Deserialize(buf []byte) error
}

// rawConn runs fn on the driver connection of one of db's connections.
func rawConn(ctx context.Context, db *sql.DB, fn func(driverConn) error) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		c, ok := dc.(driverConn)
		if !ok {
			return errors.New("the driver cannot copy a database")
		}
		return fn(c)
	})
}

// createFromTemplate creates the database file at path as a copy of the
// template image. The copy is written, synced
// and closed under a new name beside path, then hard-linked to path, which
// fails if anything is there: a file that exists (a host's database, an
// empty file, the file of an Open running at the same time) is never
// written, and nobody sees a copy half written. It does nothing when a
// journal or WAL file of path exists (SQLite would apply it to the copy),
// or for a "file:" URI, whose file is not the path. Any failure (a file
// system without hard links, say) leaves path as it was, and Open then
// opens or creates it and loads the dataset by upserts.
func createFromTemplate(path string) {
	if strings.HasPrefix(path, "file:") {
		return
	}
	for _, p := range []string{path, path + "-wal", path + "-journal"} {
		if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
			return
		}
	}
	image, err := templateImage()
	if err != nil || len(image) < 100 { // 100: the database header
		return
	}
	dir := filepath.Dir(path)
	tmp := filepath.Join(dir, fmt.Sprintf(".%s.%016x.tmp", filepath.Base(path), rand.Uint64()))
	// 0644 before the umask, as SQLite creates database files.
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return
	}
	defer os.Remove(tmp)
	// The copy is a WAL database (file format versions 2 at bytes 18 and
	// 19 of its header), as Open makes every database: its first
	// connection then has no journal mode to change, which needs a lock
	// that the connections of concurrent Opens would refuse at once
	// (SQLITE_BUSY, whatever the busy timeout).
	_, err = f.Write(image[:18])
	if err == nil {
		_, err = f.Write([]byte{2, 2})
	}
	if err == nil {
		_, err = f.Write(image[20:])
	}
	if err == nil {
		err = f.Sync()
	}
	if err = errors.Join(err, f.Close()); err != nil {
		return
	}
	if os.Link(tmp, path) != nil {
		return
	}
	if d, err := os.Open(dir); err == nil { // make the new name durable
		_ = d.Sync() // not supported everywhere; SQLite syncs it again
		d.Close()
	}
}

// useTemplate replaces the private in-memory database of db, which Open
// has just created (a ":memory:" store: one connection, nobody else sees
// it), with a copy of the template image. On failure the database is
// left as it was, for Open to load the dataset by upserts.
func useTemplate(ctx context.Context, db *sql.DB) {
	image, err := templateImage()
	if err != nil {
		return
	}
	_ = rawConn(ctx, db, func(c driverConn) error { return c.Deserialize(image) })
}

type cachedRevision struct {
	n      uint64
	at     time.Time
	writes uint64 // refState.writes before n was read
}

// filter builds the WHERE clause of a list query.
type filter struct {
	conds []string
	args  []any
}

func (w *filter) add(cond string, args ...any) {
	w.conds = append(w.conds, cond)
	w.args = append(w.args, args...)
}

// eq adds "col = v" unless v is "".
func (w *filter) eq(col, v string) {
	if v != "" {
		w.add(col+" = ?", v)
	}
}

// contains adds a substring test of col (a folded column) unless needle is
// "".
func (w *filter) contains(col, needle string) {
	if needle != "" {
		w.add("instr("+col+", ?) > 0", needle)
	}
}

// tags adds the any-of test of col (a tags_key column).
func (w *filter) tags(col string, tags []string) {
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

// searchTerms returns the Keywords terms to look up in a *_kw table, and
// false when no row can match them. The tables' ascii tokenizer splits
// only at ASCII bytes other than letters and digits (and folds ASCII upper
// case), and their text is folded words (refdata.SearchText), so a word of
// refdata.Words is always exactly one token and its query a prefix query.
// Any other term, which only a filter built by hand can hold, would become
// a phrase, which FTS5 refuses on detail='none' tables: a term with an
// ASCII byte other than a lower-case letter or digit (a space, a quote,
// NUL, upper case) is the prefix of no stored word, so nothing matches, as
// in refdata's reference; "" is the prefix of every word, so it is
// dropped.
func searchTerms(terms []string) ([]string, bool) {
	for _, t := range terms {
		for i := 0; i < len(t); i++ {
			if c := t[i]; c < utf8.RuneSelf && !('a' <= c && c <= 'z' || '0' <= c && c <= '9') {
				return nil, false
			}
		}
	}
	if slices.Contains(terms, "") {
		terms = slices.DeleteFunc(slices.Clone(terms), func(t string) bool { return t == "" })
	}
	return terms, true
}

// prefixQuery returns the FTS5 query of the rows that have, for every term,
// a token starting with it, and each of the whole tokens.
func prefixQuery(terms []string, tokens ...string) string {
	q := make([]string, 0, len(terms)+len(tokens))
	for _, t := range terms {
		q = append(q, ftsString(t)+"*")
	}
	for _, t := range tokens {
		if t != "" {
			q = append(q, ftsString(t))
		}
	}
	return strings.Join(q, " ")
}

// where returns the WHERE clause, or "".
func (w *filter) where() string {
	if len(w.conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(w.conds, " AND ")
}

// ftsString quotes s as an FTS5 string.
func ftsString(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// orderBy returns the ORDER BY clause for key then tie, both reversed when
// desc.
func orderBy(key, tie string, desc bool) string {
	dir := ""
	if desc {
		dir = " DESC"
	}
	if key == tie {
		return " ORDER BY " + key + dir
	}
	return " ORDER BY " + key + dir + ", " + tie + dir
}

// list runs the count and the page query of one list in one read
// transaction, so that both see the same data. count returns the number of
// matches; page returns the page query (which may depend on that number);
// scan reads one row.
func list[T any](ctx context.Context, s *Store, count func(*sql.Tx) (int, error),
	page func(total int) (string, []any), size int, scan func(*sql.Rows) (T, error)) ([]T, int, error) {
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
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, 0, storeError(err)
	}
	defer rows.Close()
	out := make([]T, 0, min(size, 1024))
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, 0, storeError(err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, storeError(err)
	}
	return out, total, storeError(tx.Commit())
}

// countOf returns a count function that runs query.
func countOf(ctx context.Context, query string, args []any) func(*sql.Tx) (int, error) {
	return func(tx *sql.Tx) (int, error) {
		var n int
		err := tx.QueryRowContext(ctx, query, args...).Scan(&n)
		return n, err
	}
}

// pageOf returns a page function that runs query with args and then the
// page's limit and offset.
func pageOf(query string, args []any, p refdata.Paging) func(int) (string, []any) {
	return func(int) (string, []any) {
		return query + ` LIMIT ? OFFSET ?`, append(append([]any{}, args...), p.Size, p.Offset())
	}
}

// bulk returns, for the statements of a loop of writes, ctx without its
// cancellation (the driver watches a cancellable context with a goroutine
// per statement, which doubled the cost of small inserts) and a function
// that reports ctx's error, for the loop to check each round.
func bulk(ctx context.Context) (context.Context, func() error) {
	return context.WithoutCancel(ctx), ctx.Err
}

// searchRows collects the rows a write transaction sets in one FTS5 table,
// to write them after every statement on the base tables: FTS5 flushes
// its pending index data at each statement savepoint, so interleaving the
// two made loading several times slower.
type searchRows struct {
	table, column string
	rows          []searchRow
}

type searchRow struct {
	rowid   int64
	text    string
	replace bool // the rowid may have a row already
}

func (r *searchRows) set(rowid int64, text string, replace bool) {
	r.rows = append(r.rows, searchRow{rowid: rowid, text: text, replace: replace})
}

// write writes the collected rows in tx.
func (r *searchRows) write(ctx context.Context, tx *sql.Tx) error {
	if len(r.rows) == 0 {
		return nil
	}
	ctx, done := bulk(ctx)
	ins, err := tx.PrepareContext(ctx, `INSERT INTO `+r.table+` (rowid, `+r.column+`) VALUES (?, ?)`)
	if err != nil {
		return err
	}
	defer ins.Close()
	del, err := tx.PrepareContext(ctx, `DELETE FROM `+r.table+` WHERE rowid = ?`)
	if err != nil {
		return err
	}
	defer del.Close()
	for _, row := range r.rows {
		if err := done(); err != nil {
			return err
		}
		if row.replace {
			if _, err := del.ExecContext(ctx, row.rowid); err != nil {
				return err
			}
		}
		if _, err := ins.ExecContext(ctx, row.rowid, row.text); err != nil {
			return err
		}
	}
	return nil
}

// bumpRevision records, inside a write transaction of writeRefData, that
// reference data changed.
func (s *Store) bumpRevision(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES (?, '1')
		ON CONFLICT (key) DO UPDATE SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT)`, metaRefDataRevision)
	return err
}

// writeRefData runs fn in a write transaction (s.write) that may change
// reference data and, once it has committed, counts the write, so that
// RefDataRevision trusts no revision it read before the commit.
func (s *Store) writeRefData(ctx context.Context, fn func(tx *sql.Tx) error) error {
	err := s.write(ctx, fn)
	if err == nil {
		s.ref.writes.Add(1)
	}
	return err
}

// RefDataRevision implements refdata.Store. A revision read from the
// database is trusted for revisionTTL, unless this Store has committed a
// write of reference data since: the count of writes is taken before the
// read, so a read that raced with a write (and may have seen the database
// before its commit) is not trusted once the write has returned, however
// the two interleave.
func (s *Store) RefDataRevision(ctx context.Context) (uint64, error) {
	writes := s.ref.writes.Load()
	if c := s.ref.revision.Load(); c != nil && c.writes == writes && time.Since(c.at) < revisionTTL {
		return c.n, nil
	}
	v, err := s.getMeta(ctx, metaRefDataRevision)
	if err != nil {
		return 0, err
	}
	n, _ := strconv.ParseUint(v, 10, 64)
	if s.ref.revisionRead != nil {
		s.ref.revisionRead()
	}
	s.ref.revision.Store(&cachedRevision{n: n, at: time.Now(), writes: writes})
	return n, nil
}

const currencyColumns = `id, code, name, name_plural, symbol, symbol_native, decimal_digits, rounding, is_coin, tags, keywords`

// currencyOrder maps a sort field to its column; isDefault is handled apart.
var currencyOrder = map[refdata.Field]string{
	refdata.FieldID: "id", refdata.FieldCode: "code", refdata.FieldName: "name_fold",
	refdata.FieldNamePlural: "name_plural_fold", refdata.FieldSymbol: "symbol_fold",
	refdata.FieldSymbolNative: "symbol_native_fold", refdata.FieldDecimalDigits: "decimal_digits",
	refdata.FieldRounding: "rounding", refdata.FieldIsCoin: "is_coin", refdata.FieldTags: "tags_key",
}

// ListCurrencies implements refdata.Store.
func (s *Store) ListCurrencies(ctx context.Context, f refdata.CurrencyFilter) ([]refdata.Currency, int, error) {
	var w filter
	w.eq("code", f.Code)
	w.contains("name_fold", f.Name)
	w.contains("name_plural_fold", f.NamePlural)
	w.contains("symbol_fold", f.Symbol)
	w.contains("symbol_native_fold", f.SymbolNative)
	if f.DecimalDigits != nil {
		w.add("decimal_digits = ?", *f.DecimalDigits)
	}
	if f.Rounding != nil {
		w.add("rounding = ?", *f.Rounding)
	}
	if f.IsCoin != nil {
		w.add("is_coin = ?", *f.IsCoin)
	}
	w.tags("tags_key", f.Tags)
	w.keywords("rowid", "currencies_kw", f.Keywords, f.Nothing)

	key, keyArgs := currencyOrder[f.Sort], []any(nil)
	if f.Sort == refdata.FieldIsDefault {
		key, keyArgs = "(code = ?)", []any{f.DefaultCode}
	}
	return list(ctx, s, countOf(ctx, `SELECT count(*) FROM currencies`+w.where(), w.args),
		pageOf(`SELECT `+currencyColumns+` FROM currencies`+w.where()+orderBy(key, "id", f.Desc),
			append(append([]any{}, w.args...), keyArgs...), f.Page),
		f.Page.Size, func(rows *sql.Rows) (refdata.Currency, error) {
			var c refdata.Currency
			err := rows.Scan(&c.ID, &c.Code, &c.Name, &c.NamePlural, &c.Symbol, &c.SymbolNative,
				&c.DecimalDigits, &c.Rounding, &c.IsCoin, &c.Tags, &c.Keywords)
			return c, err
		})
}

// UpsertCurrencies implements refdata.Store.
func (s *Store) UpsertCurrencies(ctx context.Context, cs []refdata.Currency) error {
	return s.writeRefData(ctx, func(tx *sql.Tx) error {
		ctx, done := bulk(ctx)
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO currencies (`+currencyColumns+`,
			name_fold, name_plural_fold, symbol_fold, symbol_native_fold, tags_key)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (id) DO UPDATE SET code = excluded.code, name = excluded.name,
			name_plural = excluded.name_plural, symbol = excluded.symbol, symbol_native = excluded.symbol_native,
			decimal_digits = excluded.decimal_digits, rounding = excluded.rounding, is_coin = excluded.is_coin,
			tags = excluded.tags, keywords = excluded.keywords, name_fold = excluded.name_fold,
			name_plural_fold = excluded.name_plural_fold, symbol_fold = excluded.symbol_fold,
			symbol_native_fold = excluded.symbol_native_fold, tags_key = excluded.tags_key
			RETURNING rowid`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		kw := searchRows{table: "currencies_kw", column: "kw"}
		for _, c := range cs {
			if err := done(); err != nil {
				return err
			}
			var rowid int64
			if err := stmt.QueryRowContext(ctx, c.ID, c.Code, c.Name, c.NamePlural, c.Symbol, c.SymbolNative,
				c.DecimalDigits, c.Rounding, c.IsCoin, c.Tags, c.Keywords, refdata.Fold(c.Name),
				refdata.Fold(c.NamePlural), refdata.Fold(c.Symbol), refdata.Fold(c.SymbolNative),
				refdata.TagKey(c.Tags)).Scan(&rowid); err != nil {
				return err
			}
			kw.set(rowid, c.SearchText(), true)
		}
		if err := kw.write(ctx, tx); err != nil {
			return err
		}
		return s.bumpRevision(ctx, tx)
	})
}

const countryColumns = `id, region, subregion, code_alpha2, code_alpha3, code_numeric, code_phone, name,
	capital, currency, tld, native, tags, keywords`

var countryOrder = map[refdata.Field]string{
	refdata.FieldID: "id", refdata.FieldRegion: "region_fold", refdata.FieldSubregion: "subregion_fold",
	refdata.FieldCodeAlpha2: "code_alpha2", refdata.FieldCodeAlpha3: "code_alpha3",
	refdata.FieldCodeNumeric: "code_numeric", refdata.FieldCodePhone: "code_phone",
	refdata.FieldName: "name_fold", refdata.FieldCapital: "capital_fold", refdata.FieldCurrency: "currency",
	refdata.FieldTld: "tld", refdata.FieldNative: "native_fold", refdata.FieldTags: "tags_key",
}

// ListCountries implements refdata.Store.
func (s *Store) ListCountries(ctx context.Context, f refdata.CountryFilter) ([]refdata.Country, int, error) {
	var w filter
	w.eq("code_alpha2", f.CodeAlpha2)
	w.eq("code_alpha3", f.CodeAlpha3)
	if f.CodeNumeric != nil {
		w.add("code_numeric = ?", *f.CodeNumeric)
	}
	w.eq("code_phone", f.CodePhone)
	w.eq("currency", f.Currency)
	w.eq("tld", f.Tld)
	w.contains("region_fold", f.Region)
	w.contains("subregion_fold", f.Subregion)
	w.contains("name_fold", f.Name)
	w.contains("capital_fold", f.Capital)
	w.contains("native_fold", f.Native)
	w.tags("tags_key", f.Tags)
	w.keywords("rowid", "countries_kw", f.Keywords, f.Nothing)

	return list(ctx, s, countOf(ctx, `SELECT count(*) FROM countries`+w.where(), w.args),
		pageOf(`SELECT `+countryColumns+` FROM countries`+w.where()+orderBy(countryOrder[f.Sort], "id", f.Desc), w.args, f.Page),
		f.Page.Size, func(rows *sql.Rows) (refdata.Country, error) {
			var c refdata.Country
			err := rows.Scan(&c.ID, &c.Region, &c.Subregion, &c.CodeAlpha2, &c.CodeAlpha3, &c.CodeNumeric,
				&c.CodePhone, &c.Name, &c.Capital, &c.Currency, &c.Tld, &c.Native, &c.Tags, &c.Keywords)
			return c, err
		})
}

// UpsertCountries implements refdata.Store.
func (s *Store) UpsertCountries(ctx context.Context, cs []refdata.Country) error {
	return s.writeRefData(ctx, func(tx *sql.Tx) error {
		ctx, done := bulk(ctx)
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO countries (`+countryColumns+`,
			region_fold, subregion_fold, name_fold, capital_fold, native_fold, tags_key)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (id) DO UPDATE SET region = excluded.region, subregion = excluded.subregion,
			code_alpha2 = excluded.code_alpha2, code_alpha3 = excluded.code_alpha3,
			code_numeric = excluded.code_numeric, code_phone = excluded.code_phone, name = excluded.name,
			capital = excluded.capital, currency = excluded.currency, tld = excluded.tld,
			native = excluded.native, tags = excluded.tags, keywords = excluded.keywords,
			region_fold = excluded.region_fold, subregion_fold = excluded.subregion_fold,
			name_fold = excluded.name_fold, capital_fold = excluded.capital_fold,
			native_fold = excluded.native_fold, tags_key = excluded.tags_key
			RETURNING rowid`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		kw := searchRows{table: "countries_kw", column: "kw"}
		for _, c := range cs {
			if err := done(); err != nil {
				return err
			}
			var rowid int64
			if err := stmt.QueryRowContext(ctx, c.ID, c.Region, c.Subregion, c.CodeAlpha2, c.CodeAlpha3,
				c.CodeNumeric, c.CodePhone, c.Name, c.Capital, c.Currency, c.Tld, c.Native, c.Tags, c.Keywords,
				refdata.Fold(c.Region), refdata.Fold(c.Subregion), refdata.Fold(c.Name), refdata.Fold(c.Capital),
				refdata.Fold(c.Native), refdata.TagKey(c.Tags)).Scan(&rowid); err != nil {
				return err
			}
			kw.set(rowid, c.SearchText(), true)
		}
		if err := kw.write(ctx, tx); err != nil {
			return err
		}
		return s.bumpRevision(ctx, tx)
	})
}

var cityOrder = map[refdata.Field]string{
	refdata.FieldID: "seq", refdata.FieldCountryCode: "country_code", refdata.FieldStateCode: "state_code",
	refdata.FieldName: "name_fold", refdata.FieldTags: "tags_key",
}

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
	scan := func(rows *sql.Rows) (refdata.City, error) {
		var c refdata.City
		err := rows.Scan(&c.CountryCode, &c.StateCode, &c.Name, &c.Tags)
		return c, err
	}
	terms, ok := searchTerms(f.Keywords)
	if f.Nothing || !ok {
		return list(ctx, s, countOf(ctx, `SELECT 0`, nil),
			pageOf(`SELECT country_code, state_code, name, tags FROM cities WHERE 0`, nil, f.Page), 0, scan)
	}
	f.Keywords = terms
	if f.Unfiltered() {
		return s.listAllCities(ctx, f, scan)
	}
	p := planCities(f)
	cities := 0
	count := func(tx *sql.Tx) (int, error) {
		var n int
		err := tx.QueryRowContext(ctx, p.count, p.countArgs...).Scan(&n, &cities)
		return n, err
	}
	page := func(total int) (string, []any) { return p.page(total, cities) }
	return list(ctx, s, count, page, f.Page.Size, scan)
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
	w.eq("c.country_code", f.CountryCode)
	w.eq("c.state_code", f.StateCode)
	if !nameIndexed {
		w.contains("c.name_fold", f.Name)
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
	key := "c." + cityOrder[f.Sort]
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

// appendGram appends the cities_grams token of rune a, or of the pair a b
// when pair is set: their code points in hex, joined by "x".
func appendGram(dst []byte, a, b rune, pair bool) []byte {
	dst = strconv.AppendUint(dst, uint64(a), 16)
	if pair {
		dst = append(dst, 'x')
		dst = strconv.AppendUint(dst, uint64(b), 16)
	}
	return dst
}

// nameGrams returns the cities_grams text of a folded name: the tokens of
// its distinct runes and distinct pairs of adjacent runes, space-separated.
// It adds one to counts[token] for each.
func nameGrams(fold string, counts map[string]int) string {
	var (
		out  = make([]byte, 0, 6*len(fold))
		seen = make([]uint64, 0, 2*len(fold))
		prev rune
	)
	add := func(a, b rune, pair bool) {
		k := uint64(a) // a rune is below 1<<21, a pair's key above 1<<32
		if pair {
			k = uint64(a+1)<<32 | uint64(b)
		}
		if slices.Contains(seen, k) {
			return
		}
		seen = append(seen, k)
		if len(out) > 0 {
			out = append(out, ' ')
		}
		at := len(out)
		out = appendGram(out, a, b, pair)
		counts[string(out[at:])]++
	}
	for i, r := range fold {
		add(r, 0, false)
		if i > 0 {
			add(prev, r, true)
		}
		prev = r
	}
	return string(out)
}

// gramToken returns the cities_grams token of the first rune pair of a
// folded needle (of its rune, when it has one), and whether the token's
// rows are exactly the names that hold needle: needle is valid UTF-8 of
// one or two runes. It returns "" for "".
func gramToken(needle string) (string, bool) {
	a, n := utf8.DecodeRuneInString(needle)
	if n == 0 {
		return "", false
	}
	b, m := utf8.DecodeRuneInString(needle[n:])
	exact := utf8.ValidString(needle) && n+m == len(needle)
	return string(appendGram(nil, a, b, m > 0)), exact
}

// codeToken returns the token of a code in a search text (lower case), or
// "" when the code is not ASCII letters and digits, as every stored code
// is (NormalizeCity): such a code matches no city, which the join finds.
func codeToken(code string) string {
	for i := 0; i < len(code); i++ {
		if c := code[i]; !('A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return ""
		}
	}
	return strings.ToLower(code)
}

// listAllCities answers an unfiltered city query. The total is kept by
// triggers. In insertion order with seq dense (1..n, as cities are never
// deleted), a page starts at a known seq instead of skipping rows.
func (s *Store) listAllCities(ctx context.Context, f refdata.CityFilter, scan func(*sql.Rows) (refdata.City, error)) ([]refdata.City, int, error) {
	const columns = `SELECT country_code, state_code, name, tags FROM cities`
	dense := false
	count := func(tx *sql.Tx) (int, error) {
		var n, last int
		err := tx.QueryRowContext(ctx, `SELECT n, (SELECT coalesce(max(seq), 0) FROM cities)
			FROM refdata_counts WHERE name = 'cities'`).Scan(&n, &last)
		dense = n == last
		return n, err
	}
	page := func(total int) (string, []any) {
		if f.Sort != refdata.FieldID || !dense {
			return pageOf(columns+orderBy(cityOrder[f.Sort], "seq", f.Desc), nil, f.Page)(total)
		}
		if f.Desc {
			return columns + ` WHERE seq <= ? ORDER BY seq DESC LIMIT ?`, []any{total - f.Page.Offset(), f.Page.Size}
		}
		return columns + ` WHERE seq > ? ORDER BY seq LIMIT ?`, []any{f.Page.Offset(), f.Page.Size}
	}
	return list(ctx, s, count, page, f.Page.Size, scan)
}

// UpsertCities implements refdata.Store: each city is looked up by its
// natural key, then inserted (with its search rows) or, when its name or
// tags differ, updated in place.
func (s *Store) UpsertCities(ctx context.Context, cs []refdata.City) (int, error) {
	added := 0
	err := s.writeRefData(ctx, func(tx *sql.Tx) error {
		added = 0
		ctx, done := bulk(ctx)
		prep := func(query string) (*sql.Stmt, error) { return tx.PrepareContext(ctx, query) }
		find, err := prep(`SELECT seq, name, tags FROM cities WHERE country_code = ? AND state_code = ? AND name_fold = ?`)
		if err != nil {
			return err
		}
		defer find.Close()
		insert, err := prep(`INSERT INTO cities (country_code, state_code, name, tags, name_fold, tags_key)
			VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING seq`)
		if err != nil {
			return err
		}
		defer insert.Close()
		update, err := prep(`UPDATE cities SET name = ?, tags = ?, tags_key = ? WHERE seq = ?`)
		if err != nil {
			return err
		}
		defer update.Close()
		kw := searchRows{table: "cities_kw", column: "kw"}
		tri := searchRows{table: "cities_tri", column: "name_fold"}
		grams := searchRows{table: "cities_grams", column: "grams"}
		gramCounts := map[string]int{}
		changed := false
		for _, c := range cs {
			if err := done(); err != nil {
				return err
			}
			fold := refdata.Fold(c.Name)
			var seq int64
			err := insert.QueryRowContext(ctx, c.CountryCode, c.StateCode, c.Name, c.Tags, fold, refdata.TagKey(c.Tags)).Scan(&seq)
			if err == nil {
				tri.set(seq, fold, false)
				grams.set(seq, nameGrams(fold, gramCounts), false)
				kw.set(seq, c.SearchText(), false)
				added++
				changed = true
				continue
			}
			if !errors.Is(err, sql.ErrNoRows) {
				return err
			}
			// The natural key is taken: replace name and tags if they differ.
			var name, tags string
			if err := find.QueryRowContext(ctx, c.CountryCode, c.StateCode, fold).Scan(&seq, &name, &tags); err != nil {
				return err
			}
			if name != c.Name || tags != c.Tags {
				if _, err := update.ExecContext(ctx, c.Name, c.Tags, refdata.TagKey(c.Tags), seq); err != nil {
					return err
				}
				if tags != c.Tags {
					kw.set(seq, c.SearchText(), true)
				}
				changed = true
			}
		}
		if !changed {
			return nil
		}
		if err := tri.write(ctx, tx); err != nil {
			return err
		}
		if err := grams.write(ctx, tx); err != nil {
			return err
		}
		if err := addGramCounts(ctx, tx, gramCounts); err != nil {
			return err
		}
		if err := kw.write(ctx, tx); err != nil {
			return err
		}
		return s.bumpRevision(ctx, tx)
	})
	return added, err
}

// addGramCounts adds counts (token -> cities added that have it) to
// cities_grams_n, in tx.
func addGramCounts(ctx context.Context, tx *sql.Tx, counts map[string]int) error {
	if len(counts) == 0 {
		return nil
	}
	ctx, done := bulk(ctx)
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO cities_grams_n (gram, n) VALUES (?, ?)
		ON CONFLICT (gram) DO UPDATE SET n = n + excluded.n`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for gram, n := range counts {
		if err := done(); err != nil {
			return err
		}
		if _, err := stmt.ExecContext(ctx, gram, n); err != nil {
			return err
		}
	}
	return nil
}

// DatasetVersion implements refdata.Store.
func (s *Store) DatasetVersion(ctx context.Context) (string, error) {
	return s.getMeta(ctx, metaDatasetVersion)
}

// SetDatasetVersion implements refdata.Store.
func (s *Store) SetDatasetVersion(ctx context.Context, version string) error {
	return s.setMeta(ctx, metaDatasetVersion, version)
}
