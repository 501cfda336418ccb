package sqlite

// The full-text search indexes of reference data (FTS5 tables *_kw,
// cities_tri, cities_grams): the terms and queries a filter looks up, the
// rows a write sets in them (buffered until the base tables are written),
// and the cities_grams tokens of a name.

import (
	"context"
	"database/sql"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// searchTerms returns the Keywords terms to look up in a *_kw table, and
// false when no row can match them. The tables' ascii tokenizer splits
// only at ASCII bytes other than letters and digits (and folds ASCII upper
// case), and their text is folded words (textfold.SearchText), so a word of
// textfold.Words is always exactly one token and its query a prefix query.
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

// ftsString quotes s as an FTS5 string.
func ftsString(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// searchRows collects the rows a write transaction sets in one FTS5 table,
// to write them after every statement on the base tables: FTS5 flushes
// its pending index data at each statement savepoint, so interleaving the
// two made loading several times slower.
type searchRows struct {
	table, column string
	rows          []searchRow
}

// searchRow is one row to write in a search index.
type searchRow struct {
	rowid   int64
	text    string
	replace bool // the rowid may have a row already
}

// set records the text of rowid; replace says it may have a row already.
func (r *searchRows) set(rowid int64, text string, replace bool) {
	r.rows = append(r.rows, searchRow{rowid: rowid, text: text, replace: replace})
}

// write writes the collected rows in tx.
func (r *searchRows) write(ctx context.Context, tx *sql.Tx) error {
	if len(r.rows) == 0 {
		return nil
	}
	ctx, done := bulk(ctx)
	stmts, closeAll, err := prepare(ctx, tx,
		`INSERT INTO `+r.table+` (rowid, `+r.column+`) VALUES (?, ?)`,
		`DELETE FROM `+r.table+` WHERE rowid = ?`)
	if err != nil {
		return err
	}
	defer closeAll()
	ins, del := stmts[0], stmts[1]
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

// addGramCounts adds counts (token -> cities added that have it) to
// cities_grams_n, in tx.
func addGramCounts(ctx context.Context, tx *sql.Tx, counts map[string]int) error {
	if len(counts) == 0 {
		return nil
	}
	ctx, done := bulk(ctx)
	stmts, closeAll, err := prepare(ctx, tx, `INSERT INTO cities_grams_n (gram, n) VALUES (?, ?)
		ON CONFLICT (gram) DO UPDATE SET n = n + excluded.n`)
	if err != nil {
		return err
	}
	defer closeAll()
	for gram, n := range counts {
		if err := done(); err != nil {
			return err
		}
		if _, err := stmts[0].ExecContext(ctx, gram, n); err != nil {
			return err
		}
	}
	return nil
}
