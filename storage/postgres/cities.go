package postgres

import (
	"context"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/storage/internal/sqlstore"

	"github.com/brandbase/brandbase/internal/textfold"
)

// ListCities implements refdata.Store. Every filter has an index: the codes
// B-trees, a Name of three runes or more (with a run of three letters or
// digits) the pg_trgm index of name_fold, a shorter Name the GIN index of
// grams (its one token is exactly the substring test), Keywords the GIN
// index of prefixes (every term is one); PostgreSQL's planner combines them.
// The total of an unfiltered list, and of a short Name alone, is read from
// counters, not counted; an unfiltered page in insertion order starts at
// a known seq (seq is dense) instead of skipping rows.
func (s *Store) ListCities(ctx context.Context, f refdata.CityFilter) ([]refdata.City, int, error) {
	q, nothing := planCities(f)
	return list(ctx, s, q, f.Page, nothing, sqlstore.ScanCity)
}

// cityReadTx begins the transaction of a filtered city list: readTx, in
// which the planner uses an index whenever one applies (every filter has
// one): its estimates of GIN indexes (trigrams, grams, prefixes) chose a
// scan of the whole table for filters that many cities match, which costs
// more than the index and grows with the table. Nor does it start
// parallel workers, whose start costs more than these queries.
const cityReadTx = readTx + `; SET LOCAL enable_seqscan = off; SET LOCAL max_parallel_workers_per_gather = 0`

// planCities returns the queries of f, and whether no city can match.
func planCities(f refdata.CityFilter) (listQuery, bool) {
	if f.Unfiltered() {
		return allCities(f), false
	}
	var w filter
	var q listQuery
	q.begin = cityReadTx
	w.Eq("country_code", f.CountryCode)
	w.Eq("state_code", f.StateCode)
	nameAlone := false
	if f.Name != "" {
		w.nothing = w.nothing || !storable(f.Name)
		switch runes := utf8.RuneCountInString(f.Name); {
		case runes <= 2:
			w.add("grams @> " + w.arg([]string{f.Name}) + "::text[]")
			nameAlone = len(w.conds) == 1 && len(f.Keywords) == 0
		case trigrams(f.Name):
			w.add("name_fold LIKE " + w.arg(likePattern(f.Name)))
		default: // the pairs narrow, LIKE decides
			w.add("grams @> " + w.arg(runePairs(f.Name)) + "::text[] AND name_fold LIKE " + w.arg(likePattern(f.Name)))
		}
	}
	w.keywords("prefixes", f.Keywords, f.Nothing)
	q.count, q.countArgs = `SELECT count(*) FROM cities`+w.where(), w.args
	if nameAlone {
		q.count, q.countArgs = `SELECT coalesce((SELECT n FROM cities_grams_n WHERE gram = $1), 0)`, []any{f.Name}
	}
	if f.Name == "" && len(f.Keywords) == 0 { // codes: their indexes hold the sort keys
		q.page, q.pageArgs = deferredPage(w, f)
		return q, w.nothing
	}
	q.page, q.pageArgs = `SELECT `+sqlstore.CityColumns+` FROM cities`+w.where()+orderBy(sqlstore.CityOrder[f.Sort], "seq", f.Desc), w.args
	return paged(q, f.Page), w.nothing
}

// deferredPage returns the page query of f, whose conditions w and sort
// key are all in one index with seq (codes only, or nothing): the page's
// seqs are found in that index alone (an index-only scan reads no row of
// the pages before), then their rows are read.
func deferredPage(w filter, f refdata.CityFilter) (string, []any) {
	order := orderBy(sqlstore.CityOrder[f.Sort], "seq", f.Desc)
	args := append(append([]any{}, w.args...), f.Page.Size, f.Page.Offset())
	return `SELECT ` + sqlstore.CityColumns + ` FROM cities WHERE seq = ANY (ARRAY(SELECT seq FROM cities` + w.where() + order +
		` LIMIT $` + itoa(len(args)-1) + ` OFFSET $` + itoa(len(args)) + `))` + order, args
}

// allCities returns the queries of an unfiltered list.
func allCities(f refdata.CityFilter) listQuery {
	q := listQuery{count: `SELECT cities FROM refdata_state WHERE id = 1`}
	switch {
	case f.Sort != refdata.FieldID && f.Sort != "":
		q.page, q.pageArgs = deferredPage(filter{}, f)
		return q
	case f.Desc: // seq is dense: 1..cities
		q.page = `SELECT ` + sqlstore.CityColumns + ` FROM cities WHERE seq <= (SELECT cities FROM refdata_state WHERE id = 1) - $1
			ORDER BY seq DESC LIMIT $2`
	default:
		q.page = `SELECT ` + sqlstore.CityColumns + ` FROM cities WHERE seq > $1 ORDER BY seq LIMIT $2`
	}
	q.pageArgs = []any{f.Page.Offset(), f.Page.Size}
	return q
}

// bulkLoad reports whether adding added cities to the stored ones changes
// the table enough to analyse it at once: a thousand cities, and a tenth
// of it.
func bulkLoad(added, stored int64) bool { return added >= 1000 && added*10 >= stored }

// trigrams reports whether pg_trgm finds trigrams in a LIKE pattern of
// needle: it holds three letters or digits in a row.
func trigrams(needle string) bool {
	run := 0
	for _, r := range needle {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			run++
			if run == 3 {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}

// likePattern returns the LIKE pattern of the names that hold needle.
func likePattern(needle string) string {
	return "%" + strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(needle) + "%"
}

// nameGrams returns the grams of a folded name: its distinct runes and
// distinct pairs of adjacent runes, in order of first appearance.
func nameGrams(fold string) []string {
	out := make([]string, 0, 2*len(fold))
	add := func(g string) {
		if !slices.Contains(out, g) {
			out = append(out, g)
		}
	}
	prev := -1
	for i, r := range fold {
		add(string(r))
		if prev >= 0 {
			add(fold[prev : i+utf8.RuneLen(r)])
		}
		prev = i
	}
	return out
}

// runePairs returns the distinct pairs of adjacent runes of needle.
func runePairs(needle string) []string {
	return slices.DeleteFunc(nameGrams(needle), func(g string) bool { return utf8.RuneCountInString(g) < 2 })
}

// UpsertCities implements refdata.Store. City upserts run one at a time
// (they lock the refdata_state row), which keeps seq dense: the cities
// (deduplicated as refdata.DedupCities does, each stored one's tags
// merged in front of its own: refdata.MergeTags) are copied (COPY) into a
// temporary table, the stored ones whose name or tags differ are updated
// in place, the others inserted in order with the next seqs, and the gram
// counters and the number of cities follow. It bumps the revision and
// notifies ChangeRefData, also when no city changed. Its bound is the
// query timeout for each started thousand cities.
func (s *Store) UpsertCities(ctx context.Context, cs []refdata.City) (int, error) {
	ctx = bulk(ctx, len(cs))
	cs = refdata.DedupCities(cs)
	folds := make([]string, len(cs))
	for i := range cs {
		folds[i] = textfold.Fold(cs[i].Name)
	}
	var added int64
	err := s.writeRefData(ctx, func(tx pgx.Tx) error {
		added = 0
		var base, rev int64 // rev: the revision this write bumps to, each written city's
		if err := tx.QueryRow(ctx, `SELECT cities, revision + 1 FROM refdata_state WHERE id = 1 FOR UPDATE`).Scan(&base, &rev); err != nil {
			return err
		}
		merged, err := withStoredTags(ctx, tx, cs, folds)
		if err != nil {
			return err
		}
		if err := stageCities(ctx, tx, merged, folds); err != nil {
			return err
		}
		updated, err := tx.Exec(ctx, `UPDATE cities c SET name = i.name, tags = i.tags, tags_key = i.tags_key,
				prefixes = i.prefixes, rev = $1
			FROM city_in i
			WHERE c.country_code = i.country_code AND c.state_code = i.state_code AND c.name_fold = i.name_fold
				AND (c.name <> i.name OR c.tags <> i.tags)`, rev)
		if err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, `WITH ins AS (
				INSERT INTO cities (seq, country_code, state_code, name, tags, name_fold, tags_key, grams, prefixes, rev)
				SELECT $1::bigint + row_number() OVER (ORDER BY i.ord), i.country_code, i.state_code, i.name, i.tags,
					i.name_fold, i.tags_key, i.grams, i.prefixes, $2::bigint
				FROM city_in i
				WHERE NOT EXISTS (SELECT 1 FROM cities c WHERE c.country_code = i.country_code
					AND c.state_code = i.state_code AND c.name_fold = i.name_fold)
				ORDER BY i.ord
				RETURNING grams
			), counted AS (
				INSERT INTO cities_grams_n (gram, n)
				SELECT g, count(*) FROM ins, unnest(ins.grams) g GROUP BY g
				ON CONFLICT (gram) DO UPDATE SET n = cities_grams_n.n + excluded.n
			)
			SELECT count(*) FROM ins`, base, rev).Scan(&added); err != nil {
			return err
		}
		return citiesChanged(ctx, tx, added > 0 || updated.RowsAffected() > 0, added, base)
	})
	if err != nil {
		return 0, err
	}
	return int(added), nil
}

// storedTagsSQL reads the tags of the stored cities among the keys $1
// (countries), $2 (states), $3 (folded names), with the ordinal of each
// key. It runs as an unnamed statement (pgx.QueryExecModeExec), planned
// for the batch's actual keys each time: a cached generic plan knows
// neither how many keys there are nor which states they name, and once
// chose to find each key through the (country, state) index and then
// filter by name, reading every stored city of the state once per key (a
// 5,000-city batch into a state of 35,000 cities took over a minute).
// Planned for its keys, the join finds them through the unique (country,
// state, name) index or hashes them.
const storedTagsSQL = `SELECT k.i, c.tags
		FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY k(cc, sc, nf, i)
		JOIN cities c ON c.country_code = k.cc COLLATE "C" AND c.state_code = k.sc COLLATE "C"
			AND c.name_fold = k.nf COLLATE "C"`

// withStoredTags returns cs with the tags of each city already stored
// merged in front of its own (refdata.MergeTags); folds[i] is
// textfold.Fold(cs[i].Name). The caller holds the lock of city upserts, so
// that they stay the stored ones until it commits.
func withStoredTags(ctx context.Context, tx pgx.Tx, cs []refdata.City, folds []string) ([]refdata.City, error) {
	cc, sc := make([]string, len(cs)), make([]string, len(cs))
	for i, c := range cs {
		cc[i], sc[i] = c.CountryCode, c.StateCode
	}
	rows, err := tx.Query(ctx, storedTagsSQL, pgx.QueryExecModeExec, cc, sc, folds)
	if err != nil {
		return nil, err
	}
	out := slices.Clone(cs)
	var i int64
	var tags string
	_, err = pgx.ForEachRow(rows, []any{&i, &tags}, func() error {
		out[i-1].Tags = refdata.MergeTags(tags, out[i-1].Tags)
		return nil
	})
	return out, err
}

// stageCities copies cs, with their derived columns, into a new temporary
// table city_in, dropped when tx ends; folds[i] is textfold.Fold(cs[i].Name).
func stageCities(ctx context.Context, tx pgx.Tx, cs []refdata.City, folds []string) error {
	if _, err := tx.Exec(ctx, `CREATE TEMPORARY TABLE city_in (ord integer, country_code text COLLATE "C",
		state_code text COLLATE "C", name text, tags text, name_fold text COLLATE "C", tags_key text COLLATE "C",
		grams text[], prefixes text[]) ON COMMIT DROP`); err != nil {
		return err
	}
	_, err := tx.CopyFrom(ctx, pgx.Identifier{"city_in"},
		[]string{"ord", "country_code", "state_code", "name", "tags", "name_fold", "tags_key", "grams", "prefixes"},
		pgx.CopyFromSlice(len(cs), func(i int) ([]any, error) {
			c, fold := cs[i], folds[i]
			return []any{int32(i), c.CountryCode, c.StateCode, c.Name, c.Tags, fold, textfold.TagKey(c.Tags),
				nameGrams(fold), wordPrefixes(c.SearchText())}, nil
		}))
	return err
}

// citiesChanged, after an upsert of cities that added added cities to base
// stored ones, counts them and, when anything changed, moves the GIN
// indexes' pending entries into the indexes; after a bulk load it
// analyses the table (autovacuum would up to a minute later: until then
// the planner would estimate the new rows from the old statistics).
func citiesChanged(ctx context.Context, tx pgx.Tx, changed bool, added, base int64) error {
	if !changed {
		return nil
	}
	if _, err := tx.Exec(ctx, `UPDATE refdata_state SET cities = cities + $1 WHERE id = 1`, added); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `SELECT gin_clean_pending_list(i::regclass)
		FROM unnest('{cities_name_trgm,cities_grams,cities_prefixes}'::text[]) i`); err != nil {
		return err
	}
	if bulkLoad(added, base) {
		if _, err := tx.Exec(ctx, `ANALYZE cities`); err != nil {
			return err
		}
	}
	return nil
}

// CitiesChangedSince implements refindex.CityChanges: the cities that a
// write after revision rev inserted or changed, in the order of storage,
// the page p of them, and how many there are.
func (s *Store) CitiesChangedSince(ctx context.Context, rev uint64, p refdata.Paging) ([]refdata.City, int, error) {
	return list(ctx, s, changedSince(rev, p), p, false, sqlstore.ScanCity)
}

// changedSince returns the queries of CitiesChangedSince.
func changedSince(rev uint64, p refdata.Paging) listQuery {
	return listQuery{
		count: `SELECT count(*) FROM cities WHERE rev > $1`, countArgs: []any{int64(rev)},
		page:     `SELECT ` + sqlstore.CityColumns + ` FROM cities WHERE rev > $1 ORDER BY seq LIMIT $2 OFFSET $3`,
		pageArgs: []any{int64(rev), p.Size, p.Offset()},
	}
}
