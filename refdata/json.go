package refdata

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/brandbase/brandbase/envelope"
)

// AppendJSON implements envelope.Appender: it appends p as encoding/json
// writes it (HTML escaping off), without reflection when its items are
// currencies, countries or cities. TestAppendJSONIsEncodingJSON holds the
// two encodings equal, field for field.
func (p Page[T]) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"items":`...)
	if p.Items == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range p.Items {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendItem(b, &p.Items[i]); err != nil {
				return nil, err
			}
		}
		b = append(b, ']')
	}
	b = append(b, `,"totalItems":`...)
	b = strconv.AppendInt(b, int64(p.TotalItems), 10)
	b = append(b, `,"pageNumber":`...)
	b = strconv.AppendInt(b, int64(p.PageNumber), 10)
	b = append(b, `,"pageSize":`...)
	b = strconv.AppendInt(b, int64(p.PageSize), 10)
	return append(b, '}'), nil
}

// appendItem appends the JSON of one item of a page.
func appendItem[T any](b []byte, item *T) ([]byte, error) {
	switch v := any(item).(type) {
	case *City:
		return v.appendJSON(b), nil
	case *Country:
		return v.appendJSON(b), nil
	case *Currency:
		return v.appendJSON(b)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(item); err != nil {
		return nil, err
	}
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...), nil
}

// appendJSON appends c as encoding/json writes it.
func (c *City) appendJSON(b []byte) []byte {
	b = append(b, `{"countryCode":`...)
	b = envelope.AppendString(b, c.CountryCode)
	b = append(b, `,"stateCode":`...)
	b = envelope.AppendString(b, c.StateCode)
	b = append(b, `,"name":`...)
	b = envelope.AppendString(b, c.Name)
	b = append(b, `,"tags":`...)
	b = envelope.AppendString(b, c.Tags)
	return append(b, '}')
}

// appendJSON appends c as encoding/json writes it.
func (c *Country) appendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = envelope.AppendString(b, c.ID)
	b = append(b, `,"region":`...)
	b = envelope.AppendString(b, c.Region)
	b = append(b, `,"subregion":`...)
	b = envelope.AppendString(b, c.Subregion)
	b = append(b, `,"codeAlpha2":`...)
	b = envelope.AppendString(b, c.CodeAlpha2)
	b = append(b, `,"codeAlpha3":`...)
	b = envelope.AppendString(b, c.CodeAlpha3)
	b = append(b, `,"codeNumeric":`...)
	b = strconv.AppendInt(b, int64(c.CodeNumeric), 10)
	b = append(b, `,"codePhone":`...)
	b = envelope.AppendString(b, c.CodePhone)
	b = append(b, `,"name":`...)
	b = envelope.AppendString(b, c.Name)
	b = append(b, `,"capital":`...)
	b = envelope.AppendString(b, c.Capital)
	b = append(b, `,"currency":`...)
	b = envelope.AppendString(b, c.Currency)
	b = append(b, `,"tld":`...)
	b = envelope.AppendString(b, c.Tld)
	b = append(b, `,"native":`...)
	b = envelope.AppendString(b, c.Native)
	b = append(b, `,"tags":`...)
	b = envelope.AppendString(b, c.Tags)
	return append(b, '}')
}

// appendJSON appends c as encoding/json writes it; it fails on a Rounding
// that JSON cannot hold, as encoding/json does.
func (c *Currency) appendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"id":`...)
	b = envelope.AppendString(b, c.ID)
	b = append(b, `,"code":`...)
	b = envelope.AppendString(b, c.Code)
	b = append(b, `,"name":`...)
	b = envelope.AppendString(b, c.Name)
	b = append(b, `,"namePlural":`...)
	b = envelope.AppendString(b, c.NamePlural)
	b = append(b, `,"symbol":`...)
	b = envelope.AppendString(b, c.Symbol)
	b = append(b, `,"symbolNative":`...)
	b = envelope.AppendString(b, c.SymbolNative)
	b = append(b, `,"decimalDigits":`...)
	b = strconv.AppendInt(b, int64(c.DecimalDigits), 10)
	b = append(b, `,"rounding":`...)
	b, err := envelope.AppendFloat(b, c.Rounding)
	if err != nil {
		return nil, err
	}
	b = append(b, `,"isCoin":`...)
	b = strconv.AppendBool(b, c.IsCoin)
	b = append(b, `,"isDefault":`...)
	b = strconv.AppendBool(b, c.IsDefault)
	return append(b, '}'), nil
}
