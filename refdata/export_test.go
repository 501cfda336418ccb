package refdata

// Test hooks: the engine's unexported parts under the names the tests of
// package refdata_test use. They exist in tests only.

type (
	CurrencyFilter = currencyFilter
	CountryFilter  = countryFilter
	CityFilter     = cityFilter
	CurrencyTable  = currencyTable
	CountryTable   = countryTable
	CityIndex      = cityIndex
)

var (
	SelectCities     = selectCities
	DedupCities      = dedupCities
	CityKey          = cityKey
	CitySortKey      = citySortKey
	NewCurrencyTable = newCurrencyTable
	NewCountryTable  = newCountryTable
	NewCityIndex     = newCityIndex
	Of               = cityIndexOf
	BuildCityIndex   = buildCityIndex
)

func (q CurrencyQuery) Filter() (CurrencyFilter, error) { return q.filter() }
func (q CountryQuery) Filter() (CountryFilter, error)   { return q.filter() }
func (q CityQuery) Filter() (CityFilter, error)         { return q.filter() }

func (p Paging) Offset() int                                     { return p.offset() }
func (p Paging) Bounds(n int) (start, end int)                   { return p.bounds(n) }
func (f CityFilter) Unfiltered() bool                            { return f.unfiltered() }
func (f CurrencyFilter) Match(c Currency) bool                   { return f.matches(c) }
func (f CountryFilter) Match(c Country) bool                     { return f.matches(c) }
func (f CityFilter) Match(c City) bool                           { return f.matches(c) }
func (c Currency) SearchText() string                            { return c.searchText() }
func (c Country) SearchText() string                             { return c.searchText() }
func (c City) SearchText() string                                { return c.searchText() }
func (t *CurrencyTable) List(f CurrencyFilter) ([]Currency, int) { return t.list(f) }
func (t *CurrencyTable) RecordsByCreation() []Currency           { return t.inOrder() }
func (t *CountryTable) List(f CountryFilter) ([]Country, int)    { return t.list(f) }
func (t *CityIndex) List(f CityFilter) ([]City, int)             { return t.list(f) }
func (t *CityIndex) Upsert(c City) bool                          { return t.upsertOne(c) }
func (t *CityIndex) FinishBatch()                                { t.finishBatch() }
func (t *CityIndex) Clone() *CityIndex                           { return t.clone() }
func (t *CityIndex) Freeze()                                     { t.freeze() }
func (t *CityIndex) Len() int                                    { return t.len() }
func (t *CityIndex) UpsertAll(cs []City)                         { t.upsertAll(cs) }

// SetDeltaMax sets the changes a sort order of t (and of its clones)
// keeps beside its base before merging them in (0: the default rule).
func (t *CityIndex) SetDeltaMax(n int) { t.deltaMax = n }

// Unclaim lets t be cloned in place once more: only for a benchmark that
// drops every clone made of t before.
func (t *CityIndex) Unclaim() { t.claimed.Store(false) }

type Field = field

const (
	FieldID          = fieldID
	FieldName        = fieldName
	FieldNative      = fieldNative
	FieldCreatedDate = fieldCreatedDate
	FieldTags        = fieldTags
	FieldCountryCode = fieldCountryCode
	FieldStateCode   = fieldStateCode
)

var (
	NormalizeCity  = normalizeCity
	NormalizePhone = normalizePhone
	NormalizeTld   = normalizeTld
)
