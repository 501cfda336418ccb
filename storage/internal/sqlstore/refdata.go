package sqlstore

// Reference data (refdata.Store) in the core: rows in their order of
// storage (seq), read whole or since a revision in one read transaction;
// upserts in one write transaction that bumps the revision; the dataset
// version in the meta table.

import (
	"cmp"
	"context"
	"crypto/rand"
	"slices"
	"strings"

	"github.com/brandbase/brandbase/internal/refrows"
	"github.com/brandbase/brandbase/internal/textfold"
	"github.com/brandbase/brandbase/refdata"
)

// Scanner reads a row: *sql.Row, *sql.Rows, pgx.Row, pgx.Rows.
type Scanner interface{ Scan(dest ...any) error }

// ScanColumn reads a row of one column.
func ScanColumn[T any](row Scanner) (T, error) {
	var v T
	err := row.Scan(&v)
	return v, err
}

// CurrencyColumns are the columns of the currencies table a record is
// stored in (then seq, its place in the order of storage).
var CurrencyColumns = []string{"id", "code", "name", "name_plural", "symbol", "symbol_native", "decimal_digits",
	"rounding", "is_coin", "tags", "keywords"}

// ScanCurrency reads a row of CurrencyColumns; it returns the scan's error.
func ScanCurrency(row Scanner) (refdata.Currency, error) {
	var c refdata.Currency
	err := row.Scan(&c.ID, &c.Code, &c.Name, &c.NamePlural, &c.Symbol, &c.SymbolNative,
		&c.DecimalDigits, &c.Rounding, &c.IsCoin, &c.Tags, &c.Keywords)
	return c, err
}

// CurrencyRow returns the values of CurrencyColumns for c.
func CurrencyRow(c refdata.Currency) []any {
	return []any{c.ID, c.Code, c.Name, c.NamePlural, c.Symbol, c.SymbolNative,
		c.DecimalDigits, c.Rounding, c.IsCoin, c.Tags, c.Keywords}
}

// CountryColumns are the columns of the countries table a record is
// stored in (then seq).
var CountryColumns = []string{"id", "region", "subregion", "code_alpha2", "code_alpha3", "code_numeric", "code_phone",
	"name", "capital", "currency", "tld", "native", "tags", "keywords"}

// ScanCountry reads a row of CountryColumns; it returns the scan's error.
func ScanCountry(row Scanner) (refdata.Country, error) {
	var c refdata.Country
	err := row.Scan(&c.ID, &c.Region, &c.Subregion, &c.CodeAlpha2, &c.CodeAlpha3, &c.CodeNumeric,
		&c.CodePhone, &c.Name, &c.Capital, &c.Currency, &c.Tld, &c.Native, &c.Tags, &c.Keywords)
	return c, err
}

// CountryRow returns the values of CountryColumns for c.
func CountryRow(c refdata.Country) []any {
	return []any{c.ID, c.Region, c.Subregion, c.CodeAlpha2, c.CodeAlpha3,
		c.CodeNumeric, c.CodePhone, c.Name, c.Capital, c.Currency, c.Tld, c.Native, c.Tags, c.Keywords}
}

// CityColumns are the columns ScanCity reads. The cities table also holds
// seq (the insertion order, the order of every read), name_fold (the
// folded name: with the codes, the natural key, unique) and rev (the
// revision of the write that last inserted or changed the city).
const CityColumns = `country_code, state_code, name, tags`

// ScanCity reads a row of CityColumns; it returns the scan's error.
func ScanCity(row Scanner) (refdata.City, error) {
	var c refdata.City
	err := row.Scan(&c.CountryCode, &c.StateCode, &c.Name, &c.Tags)
	return c, err
}

// metaDatasetVersion is the meta key of the dataset version.
const metaDatasetVersion = "refdata.dataset_version"

// MetaGeneration is the meta key of the reference data's generation
// (refdata.RefData.Generation): written, when absent, in the transaction
// of a reference-data write, so with the first one; a dump and its
// restore keep it with the data. An operator starts a new one by writing
// a new value (docs/reliability.md).
const MetaGeneration = "refdata.generation"

// ChangeRefData is the kind of change a Notifier is told about when
// reference data changed (the ID is empty).
const ChangeRefData = "refdata"

// ReadRefData implements refdata.Store: one read transaction of the
// dialect (Read), which sees one state of the database.
func (c *Core) ReadRefData(ctx context.Context) (refdata.RefData, error) {
	return c.readRefData(ctx, false, 0, 0)
}

// RefDataChangesSince implements refdata.Store: one read transaction,
// the cities by the index of their revisions (cities_rev).
// When limit > 0, the changed cities are counted first, up to limit+1 of
// them on that index: more than limit, and every city is read instead.
func (c *Core) RefDataChangesSince(ctx context.Context, rev uint64, limit int) (refdata.RefData, error) {
	return c.readRefData(ctx, true, rev, limit)
}

// RefDataGeneration implements refdata.Store: one statement on the read
// handle, never from a cache.
func (c *Core) RefDataGeneration(ctx context.Context) (string, uint64, error) {
	read, _ := c.d.Revision()
	var gen string
	var rev int64
	err := c.r.QueryRow(ctx, c.bind(`SELECT coalesce((SELECT value FROM meta WHERE key = ?), ''), coalesce((`+read+`), 0)`),
		MetaGeneration).Scan(&gen, &rev)
	if err != nil {
		return "", 0, c.d.Error(ctx, err)
	}
	return gen, uint64(rev), nil
}

// EnsureGeneration writes a new generation (MetaGeneration) unless the
// database holds one: a store whose database may start as a copy of
// another (a template) calls it when it opens.
func (c *Core) EnsureGeneration(ctx context.Context) error {
	return c.write(ctx, func(tx DB) error {
		_, err := tx.Exec(ctx, c.bind(`INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING`), MetaGeneration, rand.Text())
		return err
	})
}

// RefDataWritten implements refdata.Store: the revision of the last
// reference-data write this Core committed.
func (c *Core) RefDataWritten() uint64 { return c.refWritten.Load() }

// readRefData reads, in one read transaction, the revision and the
// generation, the currencies and countries in their order of storage and
// the cities in insertion order (every city, or when changed is set those
// whose rev is above since, unless there are more than limit > 0 of
// them: then every city, and out.Whole).
func (c *Core) readRefData(ctx context.Context, changed bool, since uint64, limit int) (refdata.RefData, error) {
	var out refdata.RefData
	sinceArg := int64(min(since, 1<<63-1))
	err := c.d.Read(ctx, func(tx DB) error {
		rev, err := revision(ctx, c, tx, false)
		if err != nil {
			return err
		}
		out.Revision = uint64(rev)
		if out.Generation, err = ScanColumn[string](tx.QueryRow(ctx, c.bind(`SELECT value FROM meta WHERE key = ?`), MetaGeneration)); err != nil {
			if !c.d.Missing(err) {
				return err
			}
			out.Generation = ""
		}
		if changed && limit > 0 {
			n, err := ScanColumn[int64](tx.QueryRow(ctx, c.bind(`SELECT count(*) FROM (SELECT 1 FROM cities WHERE rev > ? LIMIT ?) t`),
				sinceArg, int64(limit)+1))
			if err != nil {
				return err
			}
			if n > int64(limit) {
				changed, out.Whole = false, true
			}
		}
		if out.Currencies, err = QueryAll(ctx, c, tx, ScanCurrency, `SELECT `+strings.Join(CurrencyColumns, ", ")+` FROM currencies ORDER BY seq`); err != nil {
			return err
		}
		if out.Countries, err = QueryAll(ctx, c, tx, ScanCountry, `SELECT `+strings.Join(CountryColumns, ", ")+` FROM countries ORDER BY seq`); err != nil {
			return err
		}
		if !changed {
			out.Cities, err = QueryAll(ctx, c, tx, ScanCity, `SELECT `+CityColumns+` FROM cities ORDER BY seq`)
			return err
		}
		type seqCity struct {
			seq  int64
			city refdata.City
		}
		rows, err := QueryAll(ctx, c, tx, func(row Scanner) (seqCity, error) {
			var r seqCity
			err := row.Scan(&r.seq, &r.city.CountryCode, &r.city.StateCode, &r.city.Name, &r.city.Tags)
			return r, err
		}, ChangedCitiesSQL("?"), sinceArg)
		slices.SortFunc(rows, func(a, b seqCity) int { return cmp.Compare(a.seq, b.seq) })
		out.Cities = make([]refdata.City, len(rows))
		for i, r := range rows {
			out.Cities[i] = r.city
		}
		return err
	})
	if err != nil {
		return refdata.RefData{}, err
	}
	return out, nil
}

// ChangedCitiesSQL returns the read of the cities changed since a
// revision (its first argument, placeholder mark), each with its seq
// first: in the order of the index of revisions (cities_rev), which the
// planners then use rather than scan the table in seq order;
// readRefData sorts them by seq.
func ChangedCitiesSQL(mark string) string {
	return `SELECT seq, ` + CityColumns + ` FROM cities WHERE rev > ` + mark + ` ORDER BY rev, seq`
}

// Revision returns the reference-data revision as stored (0 before the
// first write), read on the core's read handle.
func Revision(ctx context.Context, c *Core) (uint64, error) {
	n, err := revision(ctx, c, c.r, false)
	return uint64(n), err
}

// revision reads the revision on db, locking its row for the rest of the
// transaction when lock is set.
func revision(ctx context.Context, c *Core, db DB, lock bool) (int64, error) {
	read, _ := c.d.Revision()
	if lock {
		read += c.d.ForUpdate()
	}
	n, err := ScanColumn[int64](db.QueryRow(ctx, c.bind(read)))
	if err != nil && c.d.Missing(err) {
		return 0, nil
	}
	return n, c.d.Error(ctx, err)
}

// writeRefData runs fn in a write transaction that then bumps the
// revision by one, writes the generation if there is none yet
// (MetaGeneration) and tells the Notifier (ChangeRefData): also when fn
// changed nothing, because the reference-data service takes a revision
// one above its snapshot's, read after its own write, as that write's
// alone, which would be wrong if a write that changed nothing left the
// revision to another instance's write (docs/several-instances.md).
// Once the transaction has ended, a dialect that caches the revision
// (RevisionCache) is told.
func (c *Core) writeRefData(ctx context.Context, fn func(tx DB) error) error {
	if rc, ok := c.d.(RevisionCache); ok {
		defer rc.RefDataWritten()
	}
	var rev int64
	err := c.write(ctx, func(tx DB) error {
		if err := fn(tx); err != nil {
			return err
		}
		_, bump := c.d.Revision()
		var err error
		if rev, err = ScanColumn[int64](tx.QueryRow(ctx, c.bind(bump))); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, c.bind(`INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING`),
			MetaGeneration, rand.Text()); err != nil { // the first write of reference data: a generation with it
			return err
		}
		return c.changed(ctx, tx, ChangeRefData, "")
	})
	if err == nil {
		for old := c.refWritten.Load(); uint64(rev) > old && !c.refWritten.CompareAndSwap(old, uint64(rev)); old = c.refWritten.Load() {
		}
	}
	return err
}

// upsertSQL returns the statement that inserts a row of columns (starting
// with id) into table, at the end of the order of storage (seq), or, when
// its id is stored and any other column differs, replaces every column
// but seq.
func (c *Core) upsertSQL(table string, cols []string) string {
	var set, old, excl []string
	for _, col := range cols[1:] {
		set = append(set, col+" = excluded."+col)
		old = append(old, table+"."+col)
		excl = append(excl, "excluded."+col)
	}
	seqCol, seqVal := c.seq(table)
	return `INSERT INTO ` + table + ` (` + strings.Join(cols, ", ") + seqCol + `) VALUES (` + placeholders(len(cols)) + seqVal +
		`) ON CONFLICT (id) DO UPDATE SET ` + strings.Join(set, ", ") +
		` WHERE (` + strings.Join(old, ", ") + `) IS DISTINCT FROM (` + strings.Join(excl, ", ") + `)`
}

// UpsertCurrencies implements refdata.Store: of currencies with the same
// ID the last is stored, at the place of the first; new ones take the
// next places in the order given. It bumps the revision, also when no
// row changed.
func (c *Core) UpsertCurrencies(ctx context.Context, cs []refdata.Currency) error {
	return upsertRows(ctx, c, c.upsertSQL("currencies", CurrencyColumns), cs, func(r refdata.Currency) string { return r.ID }, CurrencyRow)
}

// UpsertCountries implements refdata.Store, as UpsertCurrencies does.
func (c *Core) UpsertCountries(ctx context.Context, cs []refdata.Country) error {
	return upsertRows(ctx, c, c.upsertSQL("countries", CountryColumns), cs, func(r refdata.Country) string { return r.ID }, CountryRow)
}

// upsertRows upserts the last of recs of each ID, at the place of the
// first (one statement per ID: an upsert cannot touch a row twice), in
// one write of reference data.
func upsertRows[T any](ctx context.Context, c *Core, query string, recs []T, id func(T) string, row func(T) []any) error {
	at := make(map[string]int, len(recs))
	var args [][]any
	for _, r := range recs {
		if i, ok := at[id(r)]; ok {
			args[i] = row(r)
			continue
		}
		at[id(r)] = len(args)
		args = append(args, row(r))
	}
	return c.writeRefData(ctx, func(tx DB) error { return c.d.ExecBatch(ctx, tx, c.bind(query), args) })
}

// UpsertCities implements refdata.Store: the cities, deduplicated as
// DedupCities does, are each inserted or, when their natural key (country,
// state, folded name) is stored and the name differs or they add tags
// (refrows.MergeTags), updated in place, by the dialect's WriteCities; a
// written city takes the revision of the write. It bumps the revision,
// also when nothing changed, and returns how many cities it inserted. Its
// transaction is a bulk write of len(cs) rows (Dialect.Bulk).
func (c *Core) UpsertCities(ctx context.Context, cs []refdata.City) (int, error) {
	ctx = c.d.Bulk(ctx, len(cs))
	cs = DedupCities(cs)
	folds := make([]string, len(cs))
	for i := range cs {
		folds[i] = textfold.Fold(cs[i].Name)
	}
	added := 0
	err := c.writeRefData(ctx, func(tx DB) error {
		rev, err := revision(ctx, c, tx, true)
		if err != nil {
			return err
		}
		added, err = c.d.WriteCities(ctx, tx, rev+1, cs, folds)
		return err
	})
	if err != nil {
		return 0, err
	}
	return added, nil
}

// DatasetVersion implements refdata.Store.
func (c *Core) DatasetVersion(ctx context.Context) (string, error) {
	return Meta(ctx, c, metaDatasetVersion)
}

// SetDatasetVersion implements refdata.Store. It tells the Notifier
// (ChangeRefData).
func (c *Core) SetDatasetVersion(ctx context.Context, version string) error {
	return c.write(ctx, func(tx DB) error {
		if _, err := tx.Exec(ctx, c.bind(`INSERT INTO meta (key, value) VALUES (?, ?)
			ON CONFLICT (key) DO UPDATE SET value = excluded.value`), metaDatasetVersion, version); err != nil {
			return err
		}
		return c.changed(ctx, tx, ChangeRefData, "")
	})
}

// Meta returns the value stored under key in the meta table, or "".
func Meta(ctx context.Context, c *Core, key string) (string, error) {
	v, err := ScanColumn[string](c.r.QueryRow(ctx, c.bind(`SELECT value FROM meta WHERE key = ?`), key))
	if err != nil && c.d.Missing(err) {
		return "", nil
	}
	return v, c.d.Error(ctx, err)
}

// DedupCities returns cs with one city per natural key (refrows.CityKey),
// as a store holds them after UpsertCities(cs): at the place of the key's
// first occurrence, with the name of its last and the tags of all
// (refrows.MergeTags).
func DedupCities(cs []refdata.City) []refdata.City {
	out := make([]refdata.City, 0, len(cs))
	at := make(map[string]int, len(cs))
	for _, c := range cs {
		k := refrows.CityKey(c.CountryCode, c.StateCode, c.Name)
		if i, ok := at[k]; ok {
			out[i].Name, out[i].Tags = c.Name, refrows.MergeTags(out[i].Tags, c.Tags)
			continue
		}
		at[k] = len(out)
		out = append(out, c)
	}
	return out
}
