package sqlstore

import (
	"cmp"
	"slices"

	"github.com/brandbase/brandbase/refdata"
)

// DatasetOrder returns ids (of stored currencies or countries) in the order
// of storage (FieldCreatedDate) a store gives records it held before it
// recorded that order: the embedded dataset's records first, in the
// dataset's order (as LoadDefault stores them), then the others in the
// order given. It fails when the embedded dataset cannot be read.
func DatasetOrder(ids []string) ([]string, error) {
	currencies, err := refdata.DefaultCurrencies()
	if err != nil {
		return nil, err
	}
	countries, err := refdata.DefaultCountries()
	if err != nil {
		return nil, err
	}
	place := make(map[string]int, len(currencies)+len(countries))
	for i, c := range currencies {
		place[c.ID] = i
	}
	for i, c := range countries {
		place[c.ID] = i
	}
	out := slices.Clone(ids)
	slices.SortStableFunc(out, func(a, b string) int {
		pa, ina := place[a]
		pb, inb := place[b]
		switch {
		case ina && inb:
			return cmp.Compare(pa, pb)
		case ina:
			return -1
		case inb:
			return 1
		}
		return 0
	})
	return out, nil
}
