package refdata

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/brandbase/brandbase/envelope"
)

// ImportCurrenciesCSV imports a currencies file in the columns of the
// embedded dataset's currencies.csv (a header row naming code, name,
// namePlural, symbol, symbolNative, decimalDigits, rounding, isCoin, tags,
// keywords, in any order and case; code and name required): each good row
// is upserted by its code (a new currency is appended to the order of
// storage, a known one replaced in place), all in one store call. Bad rows
// are skipped and reported as ImportCities reports them; the report's
// UnknownStateCodes stay 0. It fails with KindInvalid for a file that is
// not such a CSV (no header, a required column missing), and with the
// store's error.
func (s *Service) ImportCurrenciesCSV(ctx context.Context, r io.Reader, opts ImportOptions) (ImportReport, error) {
	known := map[string]bool{}
	if sn, err := s.ix.current(ctx); err == nil {
		for _, c := range sn.currencies.inOrder() {
			known[c.ID] = true
		}
	} else {
		return ImportReport{}, err
	}
	return importList(ctx, r, opts, []string{"code", "name"}, func(rw row) (Currency, string, error) {
		c, err := parseCurrency(withDefaults(rw, map[string]string{"decimalDigits": "2", "rounding": "0", "isCoin": "false"}))
		switch {
		case err != nil:
		case c.Code == "" || !isASCIIAlnum(c.Code, true) || len(c.Code) > 10:
			err = fmt.Errorf("code: a currency code is 1 to 10 letters or digits")
		case c.Name == "":
			err = fmt.Errorf("name: required")
		}
		return c, c.ID, err
	}, known, s.store.UpsertCurrencies)
}

// ImportCountriesCSV imports a countries file in the columns of the
// embedded dataset's countries.csv (codeAlpha2, codeAlpha3, codeNumeric,
// codePhone, name, capital, currency, tld, native, region, subregion,
// tags, keywords; codeAlpha2 and name required), upserted by codeAlpha2
// as ImportCurrenciesCSV upserts currencies, with its errors.
func (s *Service) ImportCountriesCSV(ctx context.Context, r io.Reader, opts ImportOptions) (ImportReport, error) {
	known := map[string]bool{}
	if sn, err := s.ix.current(ctx); err == nil {
		for _, c := range sn.countries.rows() {
			known[c.ID] = true
		}
	} else {
		return ImportReport{}, err
	}
	return importList(ctx, r, opts, []string{"codeAlpha2", "name"}, func(rw row) (Country, string, error) {
		c, err := parseCountry(withDefaults(rw, map[string]string{"codeNumeric": "0"}))
		switch {
		case err != nil:
		case len(c.CodeAlpha2) != 2 || !isASCIIAlnum(c.CodeAlpha2, false):
			err = fmt.Errorf("codeAlpha2: two letters")
		case c.Name == "":
			err = fmt.Errorf("name: required")
		}
		return c, c.ID, err
	}, known, s.store.UpsertCountries)
}

// withDefaults returns r with the columns of defaults that r leaves empty
// or lacks set to their default.
func withDefaults(r row, defaults map[string]string) row {
	rec := append([]string(nil), r.rec...)
	col := make(map[string]int, len(r.col)+len(defaults))
	for k, j := range r.col {
		col[k] = j
	}
	for name, v := range defaults {
		i := r.index(name)
		if i < 0 {
			col[strings.ToLower(name)] = len(rec)
			rec = append(rec, v)
			continue
		}
		for len(rec) <= i {
			rec = append(rec, "")
		}
		if strings.TrimSpace(rec[i]) == "" {
			rec[i] = v
		}
	}
	return row{rec: rec, col: col, line: r.line}
}

// importList reads a list's CSV, parsing each row with parse (the record,
// its ID, or why the row is bad), and upserts the good rows in one call
// of upsert; known are the IDs stored before (for Added and Updated).
func importList[T any](ctx context.Context, r io.Reader, opts ImportOptions, required []string,
	parse func(row) (T, string, error), known map[string]bool, upsert func(context.Context, []T) error) (ImportReport, error) {
	if opts.MaxErrors <= 0 {
		opts.MaxErrors = 100
	}
	var report ImportReport
	bad := func(line int, err error) {
		report.Skipped++
		if len(report.Errors) < opts.MaxErrors {
			report.Errors = append(report.Errors, RowError{Line: line, Code: "invalid_format", Details: err.Error()})
		}
	}
	var good []T
	seen := map[string]bool{}
	err := readCSV(r, required, func(rw row) error {
		report.Rows++
		v, id, err := parse(rw)
		if err != nil {
			bad(rw.line, err)
			return nil
		}
		good = append(good, v)
		if known[id] || seen[id] {
			report.Updated++
		} else {
			report.Added++
		}
		seen[id] = true
		return nil
	}, func(line int, err error) error {
		report.Rows++
		bad(line, err)
		return nil
	})
	if err != nil {
		return report, envelope.New(envelope.KindInvalid, "invalid_import", "The file cannot be read as a CSV file of the expected columns: "+err.Error()+".")
	}
	if len(good) > 0 {
		if err := upsert(ctx, good); err != nil {
			return ImportReport{Rows: report.Rows, Skipped: report.Skipped, Errors: report.Errors}, err
		}
	}
	if opts.Progress != nil {
		opts.Progress(report)
	}
	return report, nil
}
