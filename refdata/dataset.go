package refdata

import (
	"context"
	_ "embed"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
)

// DatasetVersion names the version of the embedded default dataset. Stores
// record it, so that a store opened by a newer release is brought up to date.
const DatasetVersion = "2026.11.0"

//go:embed data/currencies.csv
var currenciesCSV string

var defaultCurrencies = sync.OnceValues(func() ([]Currency, error) {
	return parseCurrencies(strings.NewReader(currenciesCSV))
})

// DefaultCurrencies returns the currencies of the embedded dataset, ordered by
// code. The slice is a fresh copy.
func DefaultCurrencies() ([]Currency, error) {
	cs, err := defaultCurrencies()
	if err != nil {
		return nil, err
	}
	return append([]Currency(nil), cs...), nil
}

// LoadDefault loads the embedded dataset into store unless the store already
// holds this DatasetVersion. It is idempotent.
func LoadDefault(ctx context.Context, store Store) error {
	v, err := store.DatasetVersion(ctx)
	if err != nil {
		return err
	}
	if v == DatasetVersion {
		return nil
	}
	cs, err := defaultCurrencies()
	if err != nil {
		return err
	}
	if err := store.UpsertCurrencies(ctx, cs); err != nil {
		return err
	}
	return store.SetDatasetVersion(ctx, DatasetVersion)
}

func parseCurrencies(r io.Reader) ([]Currency, error) {
	cr := csv.NewReader(r)
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("refdata: currencies header: %w", err)
	}
	col := make(map[string]int, len(header))
	for i, h := range header {
		col[h] = i
	}
	var out []Currency
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("refdata: currencies: %w", err)
		}
		line, _ := cr.FieldPos(0)
		get := func(name string) string { return rec[col[name]] }
		digits, err := strconv.ParseInt(get("decimalDigits"), 10, 32)
		if err != nil {
			return nil, fmt.Errorf("refdata: currencies line %d: decimalDigits: %w", line, err)
		}
		rounding, err := strconv.ParseFloat(get("rounding"), 64)
		if err != nil {
			return nil, fmt.Errorf("refdata: currencies line %d: rounding: %w", line, err)
		}
		coin, err := strconv.ParseBool(get("isCoin"))
		if err != nil {
			return nil, fmt.Errorf("refdata: currencies line %d: isCoin: %w", line, err)
		}
		out = append(out, Currency{
			ID: CurrencyID(get("code")), Code: get("code"), Name: get("name"), NamePlural: get("namePlural"),
			Symbol: get("symbol"), SymbolNative: get("symbolNative"), DecimalDigits: int32(digits),
			Rounding: rounding, IsCoin: coin, Tags: get("tags"), Keywords: get("keywords"),
		})
	}
}
