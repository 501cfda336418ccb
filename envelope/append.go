package envelope

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// An Appender appends its own JSON encoding to b: byte for byte what
// encoding/json writes for it with HTML escaping off, and the same failures
// (a NaN, say). Marshal writes the data of an envelope that implements it
// without reflection, which is what keeps a list answer's encoding cheap;
// AppendString and AppendFloat are the pieces such an encoding is made of.
type Appender interface {
	AppendJSON(b []byte) ([]byte, error)
}

// hexDigits are the digits of \u escapes, lower case as encoding/json's.
const hexDigits = "0123456789abcdef"

// AppendString appends s to b as a JSON string, as encoding/json writes it
// with HTML escaping off: '"' and '\\' escaped, the control characters as
// \b, \f, \n, \r, \t or \u00XX, each byte of invalid UTF-8 as \ufffd, and
// U+2028 and U+2029 escaped; every other character as it is.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// AppendFloat appends f to b as encoding/json writes a float64: the
// shortest decimal that reads back as f, in exponent form below 1e-6 and
// from 1e21 on. It fails, as encoding/json does, on NaN and infinities.
func AppendFloat(b []byte, f float64) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, &UnsupportedFloatError{Value: f}
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if n := len(b); format == 'e' && n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
		b[n-2] = b[n-1] // e-07 is written e-7
		b = b[:n-1]
	}
	return b, nil
}

// UnsupportedFloatError is AppendFloat's failure: JSON has no NaN or
// infinity.
type UnsupportedFloatError struct {
	Value float64
}

func (e *UnsupportedFloatError) Error() string {
	return "envelope: unsupported value: " + strconv.FormatFloat(e.Value, 'g', -1, 64)
}

// appendSuccess appends env, whose Data is an Appender, as encoding/json
// (through Marshal's encoder) writes it, newline included.
func appendSuccess(b []byte, env Envelope, data Appender) ([]byte, error) {
	b = append(b, `{"success":`...)
	b = strconv.AppendBool(b, env.Success)
	b = append(b, `,"statusCode":`...)
	b = strconv.AppendInt(b, int64(env.StatusCode), 10)
	b = append(b, `,"message":`...)
	b = AppendString(b, env.Message)
	b = append(b, `,"data":`...)
	b, err := data.AppendJSON(b)
	if err != nil {
		return nil, err
	}
	if env.Errors == nil {
		return append(b, ",\"errors\":null}\n"...), nil
	}
	return append(b, ",\"errors\":[]}\n"...), nil
}
