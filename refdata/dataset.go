package refdata

import (
	"context"
	"embed"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// DatasetVersion names the version of the embedded default dataset. Stores
// record it, so that a store opened by a newer release is brought up to date.
const DatasetVersion = "2026.11.2"

// data holds the embedded dataset: currencies.csv, countries.csv, the
// city files cities/*.csv, read in file-name order, and subdivisions.csv,
// the ISO 3166-2 codes that city state codes are checked against.
//
//go:embed data/currencies.csv data/countries.csv data/cities/*.csv data/subdivisions.csv
var data embed.FS

var defaultCurrencies = sync.OnceValues(func() ([]Currency, error) {
	return parseFile("data/currencies.csv", parseCurrency)
})

var defaultCountries = sync.OnceValues(func() ([]Country, error) {
	return parseFile("data/countries.csv", parseCountry)
})

var defaultCities = sync.OnceValues(func() ([]City, error) {
	names, err := fs.Glob(data, "data/cities/*.csv")
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	var all []City
	for _, name := range names {
		cs, err := parseFile(name, parseCity)
		if err != nil {
			return nil, err
		}
		all = append(all, cs...)
	}
	return all, nil
})

// DefaultCurrencies returns the currencies of the embedded dataset in file
// order. The slice is a fresh copy.
func DefaultCurrencies() ([]Currency, error) { return cloneOf(defaultCurrencies()) }

// DefaultCountries returns the countries of the embedded dataset in file
// order. The slice is a fresh copy.
func DefaultCountries() ([]Country, error) { return cloneOf(defaultCountries()) }

// DefaultCities returns the cities of the embedded dataset in file order
// (their default sort order). A store holds dedupCities of them. The slice
// is a fresh copy.
func DefaultCities() ([]City, error) { return cloneOf(defaultCities()) }

func cloneOf[T any](s []T, err error) ([]T, error) {
	if err != nil {
		return nil, err
	}
	return slices.Clone(s), nil
}

// LoadDefault loads the embedded dataset (currencies, countries and
// cities) into store unless the store already holds this DatasetVersion.
// It is idempotent: records are upserted (cities by their natural key), and
// the version is recorded last, so an interrupted load is completed by the
// next call. It fails with the first parse or store error.
func LoadDefault(ctx context.Context, store Store) error {
	v, err := store.DatasetVersion(ctx)
	if err != nil {
		return err
	}
	if v == DatasetVersion {
		return nil
	}
	currencies, err := defaultCurrencies()
	if err != nil {
		return err
	}
	countries, err := defaultCountries()
	if err != nil {
		return err
	}
	cities, err := defaultCities()
	if err != nil {
		return err
	}
	if err := store.UpsertCurrencies(ctx, currencies); err != nil {
		return err
	}
	if err := store.UpsertCountries(ctx, countries); err != nil {
		return err
	}
	if _, err := store.UpsertCities(ctx, cities); err != nil {
		return err
	}
	return store.SetDatasetVersion(ctx, DatasetVersion)
}

// row gives access to one CSV record by column name.
type row struct {
	rec  []string
	col  map[string]int // lower-cased column name -> index
	line int
}

// get returns the named column (case-insensitive), or "" when the file has
// no such column.
func (r row) get(name string) string {
	return r.at(r.index(name))
}

// index returns the index of the named column (case-insensitive), or -1.
func (r row) index(name string) int {
	if i, ok := r.col[strings.ToLower(name)]; ok {
		return i
	}
	return -1
}

// at returns column i, or "" when i is -1 or the record is shorter.
func (r row) at(i int) string {
	if i >= 0 && i < len(r.rec) {
		return r.rec[i]
	}
	return ""
}

// readCSV reads a CSV stream with a header row, calling fn for each record.
// Columns are found by name, case-insensitively and in any order (a UTF-8
// byte-order mark before the header is ignored); extra columns are ignored;
// the required ones must be present in the header. An error from fn stops
// the read. A malformed record stops it too when onBad is nil; otherwise
// onBad gets the record's line and error, and the read goes on unless it
// returns an error. Errors name the line.
func readCSV(r io.Reader, required []string, fn func(row) error, onBad func(line int, err error) error) error {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return errors.New("the file is empty")
	}
	if err != nil {
		return fmt.Errorf("header: %w", err)
	}
	col := make(map[string]int, len(header))
	for i, h := range header {
		if i == 0 {
			h = strings.TrimPrefix(h, "\ufeff")
		}
		h = strings.ToLower(strings.TrimSpace(h))
		if _, dup := col[h]; !dup {
			col[h] = i
		}
	}
	for _, name := range required {
		if _, ok := col[strings.ToLower(name)]; !ok {
			return fmt.Errorf("the header has no %q column", name)
		}
	}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) && onBad != nil {
			if err := onBad(pe.StartLine, pe.Err); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		line, _ := cr.FieldPos(0)
		if err := fn(row{rec: rec, col: col, line: line}); err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
	}
}

// parseFile parses one embedded CSV file with parse, one record per row.
func parseFile[T any](name string, parse func(row) (T, error)) ([]T, error) {
	f, err := data.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []T
	err = readCSV(f, nil, func(r row) error {
		v, err := parse(r)
		if err != nil {
			return err
		}
		out = append(out, v)
		return nil
	}, nil)
	if err != nil {
		return nil, fmt.Errorf("refdata: %s: %w", name, err)
	}
	return out, nil
}

func parseCurrency(r row) (Currency, error) {
	digits, err := strconv.ParseInt(r.get("decimalDigits"), 10, 32)
	if err != nil {
		return Currency{}, fmt.Errorf("decimalDigits: %w", err)
	}
	rounding, err := strconv.ParseFloat(r.get("rounding"), 64)
	if err != nil {
		return Currency{}, fmt.Errorf("rounding: %w", err)
	}
	coin, err := strconv.ParseBool(r.get("isCoin"))
	if err != nil {
		return Currency{}, fmt.Errorf("isCoin: %w", err)
	}
	code := strings.ToUpper(strings.TrimSpace(r.get("code")))
	return Currency{
		ID: CurrencyID(code), Code: code, Name: r.get("name"), NamePlural: r.get("namePlural"),
		Symbol: r.get("symbol"), SymbolNative: r.get("symbolNative"), DecimalDigits: int32(digits),
		Rounding: rounding, IsCoin: coin, Tags: r.get("tags"), Keywords: r.get("keywords"),
	}, nil
}

func parseCountry(r row) (Country, error) {
	numeric, err := strconv.ParseInt(r.get("codeNumeric"), 10, 32)
	if err != nil {
		return Country{}, fmt.Errorf("codeNumeric: %w", err)
	}
	a2 := upper(r.get("codeAlpha2"))
	return Country{
		ID: CountryID(a2), Region: r.get("region"), Subregion: r.get("subregion"), CodeAlpha2: a2,
		CodeAlpha3: upper(r.get("codeAlpha3")), CodeNumeric: int32(numeric),
		CodePhone: normalizePhone(r.get("codePhone")), Name: r.get("name"), Capital: r.get("capital"),
		Currency: upper(r.get("currency")), Tld: normalizeTld(r.get("tld")), Native: r.get("native"),
		Tags: r.get("tags"), Keywords: r.get("keywords"),
	}, nil
}

func upper(s string) string { return strings.ToUpper(strings.TrimSpace(s)) }

func parseCity(r row) (City, error) {
	return normalizeCity(City{CountryCode: r.get("countryCode"), StateCode: r.get("stateCode"), Name: r.get("name"), Tags: r.get("tags")})
}
