// Package refdata holds the reference data of brandbase (currencies,
// countries, cities), the embedded default dataset, the typed queries of the
// three list endpoints and the [Service] that validates and answers them.
//
// The package declares the [Store] it needs: persistence only (rows in
// their order of storage, the changes since a revision, upserts);
// storage/memory, storage/sqlite and storage/postgres implement it. The
// Service answers every list itself, from an in-process snapshot of the
// store (one list engine for every store: see docs/reference-data.md).
// Every failure is an *envelope.Error.
package refdata

import (
	"github.com/google/uuid"
)

// Namespace is the UUID namespace of reference-data IDs. A record's ID is
// uuid.NewSHA1(Namespace, "currency:USD") (or "country:US"), so IDs are the
// same on every install.
var Namespace = uuid.MustParse("6f1c2b8e-4d0a-5b7e-9c3f-2a1d8e6b4c70")

// CurrencyID returns the stable ID of the currency with the given code.
func CurrencyID(code string) string {
	return uuid.NewSHA1(Namespace, []byte("currency:"+code)).String()
}

// CountryID returns the stable ID of the country with the given alpha-2 code.
func CountryID(alpha2 string) string {
	return uuid.NewSHA1(Namespace, []byte("country:"+alpha2)).String()
}

// Currency is one currency or cryptocurrency, as the currency list answers
// it.
type Currency struct {
	ID            string  `json:"id"`
	Code          string  `json:"code"`
	Name          string  `json:"name"`
	NamePlural    string  `json:"namePlural"`
	Symbol        string  `json:"symbol"`
	SymbolNative  string  `json:"symbolNative"`
	DecimalDigits int32   `json:"decimalDigits"`
	Rounding      float64 `json:"rounding"`
	IsCoin        bool    `json:"isCoin"`
	// IsDefault is true for the requesting brand's default currency; stores
	// leave it false and the Service sets it.
	IsDefault bool `json:"isDefault"`
	// Tags is a comma-separated list, filterable but not part of the item.
	Tags string `json:"-"`
	// Keywords is free text searched by the Keywords filter, not part of
	// the item.
	Keywords string `json:"-"`
}

// Page is the data of every list endpoint.
type Page[T any] struct {
	// Items are the records of this page, never nil.
	Items []T `json:"items"`
	// TotalItems is the number of records matching the whole query.
	TotalItems int `json:"totalItems"`
	// PageNumber is the page returned, from 0.
	PageNumber int `json:"pageNumber"`
	// PageSize is the page size used, after defaults and clamping.
	PageSize int `json:"pageSize"`
}

// Country is one ISO 3166-1 country, as the country list answers it.
type Country struct {
	ID          string `json:"id"`
	Region      string `json:"region"`
	Subregion   string `json:"subregion"`
	CodeAlpha2  string `json:"codeAlpha2"`
	CodeAlpha3  string `json:"codeAlpha3"`
	CodeNumeric int32  `json:"codeNumeric"`
	// CodePhone is the international dialing prefix with its "+", e.g. "+44".
	CodePhone string `json:"codePhone"`
	Name      string `json:"name"`
	Capital   string `json:"capital"`
	// Currency is the ISO 4217 code of the country's main currency.
	Currency string `json:"currency"`
	// Tld is the country-code top-level domain with its leading dot.
	Tld    string `json:"tld"`
	Native string `json:"native"`
	// Tags is a comma-separated list.
	Tags string `json:"tags"`
	// Keywords is free text searched by the Keywords filter, not part of
	// the item.
	Keywords string `json:"-"`
}

// City is one city, as the city list answers it. Cities have no public ID.
type City struct {
	// CountryCode is the ISO 3166-1 alpha-2 code of the city's country.
	CountryCode string `json:"countryCode"`
	// StateCode is the ISO 3166-2 subdivision code without the country
	// prefix ("CA", not "US-CA"); empty when unknown.
	StateCode string `json:"stateCode"`
	Name      string `json:"name"`
	// Tags is a comma-separated list.
	Tags string `json:"tags"`
}
