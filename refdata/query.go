package refdata

import (
	"github.com/brandbase/brandbase/envelope"
)

// Paging limits.
const (
	DefaultPageSize = 200
	MaxPageSize     = 1000
)

// Paging selects one page of a list.
type Paging struct {
	// Number is the page number, from 0.
	Number int
	// Size is the page size; 0 means DefaultPageSize and a size above
	// MaxPageSize is clamped to it.
	Size int
}

// Offset returns the index of the page's first record.
func (p Paging) Offset() int { return p.Number * p.Size }

// normalize validates p and applies the default and the clamp.
func (p Paging) normalize(v *envelope.Validation) Paging {
	if p.Number < 0 {
		v.Add("PageNumber", "out_of_range", "PageNumber must be 0 or more.")
	}
	switch {
	case p.Size < 0:
		v.Add("PageSize", "out_of_range", "PageSize must be between 1 and 1000.")
	case p.Size == 0:
		p.Size = DefaultPageSize
	case p.Size > MaxPageSize:
		p.Size = MaxPageSize
	}
	return p
}

// CurrencyQuery selects currencies (spec 4.2). Nil fields are not filtered on.
type CurrencyQuery struct {
	Code          *string
	Name          *string
	NamePlural    *string
	Symbol        *string
	SymbolNative  *string
	DecimalDigits *int32
	Rounding      *float64
	Tags          *string
	IsCoin        *bool
	Keywords      *string
	Page          Paging
}
