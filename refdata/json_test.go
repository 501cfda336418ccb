package refdata_test

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/refdata"
	"github.com/brandbase/brandbase/refdata/refdatatest"
)

// encodingJSON returns v as a json.Encoder with HTML escaping off writes
// it, without the newline.
func encodingJSON(t testing.TB, v any) string {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(v))
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

// assertAppendsAsEncodingJSON checks that p.AppendJSON writes what
// encoding/json writes for p.
func assertAppendsAsEncodingJSON[T any](t *testing.T, p refdata.Page[T]) {
	t.Helper()
	got, err := p.AppendJSON([]byte("prefix"))
	require.NoError(t, err)
	assert.Equal(t, encodingJSON(t, p), string(got[len("prefix"):]))
}

// hostile is text that needs every escape of a JSON string.
const hostile = "\"q\" \\ <a&b> \t\n\x00\x1f Zürich 🙂 \xff\u2028"

func TestAppendJSONIsEncodingJSON(t *testing.T) {
	t.Parallel()
	currencies, err := refdata.DefaultCurrencies()
	require.NoError(t, err)
	countries, err := refdata.DefaultCountries()
	require.NoError(t, err)
	cities, err := refdata.DefaultCities()
	require.NoError(t, err)
	currencies[0].IsDefault = true
	currencies = append(currencies,
		refdata.Currency{ID: hostile, Code: hostile, Name: hostile, NamePlural: hostile, Symbol: hostile,
			SymbolNative: hostile, DecimalDigits: -3, Rounding: 1e-9, IsCoin: true, Tags: "not written"},
		refdata.Currency{Rounding: 2e21}, refdata.Currency{Rounding: 0.125})
	countries = append(countries, refdata.Country{ID: hostile, Region: hostile, Subregion: hostile, CodeAlpha2: hostile,
		CodeAlpha3: hostile, CodeNumeric: -1, CodePhone: hostile, Name: hostile, Capital: hostile, Currency: hostile,
		Tld: hostile, Native: hostile, Tags: hostile, Keywords: "not written"})
	cities = append(cities, refdatatest.Cities(2000, 7)...)
	cities = append(cities, refdata.City{CountryCode: hostile, StateCode: hostile, Name: hostile, Tags: hostile})

	assertAppendsAsEncodingJSON(t, refdata.Page[refdata.Currency]{Items: currencies, TotalItems: len(currencies), PageSize: 50})
	assertAppendsAsEncodingJSON(t, refdata.Page[refdata.Country]{Items: countries, TotalItems: 1 << 40, PageNumber: 3})
	assertAppendsAsEncodingJSON(t, refdata.Page[refdata.City]{Items: cities, TotalItems: -1, PageNumber: 7, PageSize: 50})
	assertAppendsAsEncodingJSON(t, refdata.Page[refdata.City]{Items: []refdata.City{}})
	assertAppendsAsEncodingJSON(t, refdata.Page[refdata.City]{})
	// Items of another type are written by encoding/json itself.
	assertAppendsAsEncodingJSON(t, refdata.Page[map[string]string]{Items: []map[string]string{{"k": hostile}}})

	_, err = refdata.Page[refdata.Currency]{Items: []refdata.Currency{{Rounding: math.NaN()}}}.AppendJSON(nil)
	assert.Error(t, err, "a NaN fails, as encoding/json fails")
}

// BenchmarkMarshalPage encodes the envelope of a page of 50 cities as the
// list routes do (envelope.Marshal, through Page.AppendJSON), beside
// encoding/json's reflection over the same page.
func BenchmarkMarshalPage(b *testing.B) {
	page := refdata.Page[refdata.City]{Items: refdatatest.Cities(50, 3), TotalItems: 50, PageSize: 50}
	b.Run("append", func(b *testing.B) {
		for b.Loop() {
			body, err := envelope.Marshal(envelope.Success(200, "", page))
			require.NoError(b, err)
			b.SetBytes(int64(len(body)))
		}
	})
	b.Run("reflection", func(b *testing.B) {
		type plain refdata.Page[refdata.City] // no AppendJSON method
		for b.Loop() {
			body, err := envelope.Marshal(envelope.Success(200, "", plain(page)))
			require.NoError(b, err)
			b.SetBytes(int64(len(body)))
		}
	})
}
