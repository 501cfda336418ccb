package envelope_test

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/envelope"
)

// encodingJSON returns v as a json.Encoder with HTML escaping off writes
// it, without the newline: what the Append functions must write.
func encodingJSON(t testing.TB, v any) ([]byte, error) {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// hostileStrings are strings every escape of a JSON string is needed for.
var hostileStrings = []string{
	"", "plain", `quote " and \ backslash`, "<script>&amp;</script>",
	"tab\tnew\nline\rcr\bbs\fff", "\x00\x01\x1f\x7f", "Zürich 東京 🙂",
	"bad \xff utf-8 \xe2\x82", "line\u2028para\u2029sep", "\xed\xa0\x80 surrogate",
	strings.Repeat("é", 40),
}

func TestAppendStringIsEncodingJSON(t *testing.T) {
	t.Parallel()
	var all []byte
	for c := range 256 {
		all = append(all, byte(c))
	}
	for _, s := range append(hostileStrings, string(all)) {
		want, err := encodingJSON(t, s)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(envelope.AppendString([]byte("x"), s)[1:]), "%q", s)
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range hostileStrings {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, err := encodingJSON(t, s)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(envelope.AppendString(nil, s)))
	})
}

func TestAppendFloatIsEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, f := range []float64{0, math.Copysign(0, -1), 0.5, 0.01, 1, 100, 1e-6, 9.99e-7, 1e-7, -3e-9, 1e20, 1e21,
		-1.5e300, 123456789.125, math.SmallestNonzeroFloat64, math.MaxFloat64} {
		want, err := encodingJSON(t, f)
		require.NoError(t, err)
		got, err := envelope.AppendFloat(nil, f)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got), "%v", f)
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		_, err := encodingJSON(t, f)
		require.Error(t, err, "encoding/json refuses %v", f)
		_, err = envelope.AppendFloat(nil, f)
		var unsupported *envelope.UnsupportedFloatError
		assert.ErrorAs(t, err, &unsupported, "%v", f)
	}
}

// pair is data that writes itself (an envelope.Appender); plainPair is the
// same data without the method, which Marshal encodes by reflection.
type pair struct {
	Name  string  `json:"name"`
	Ratio float64 `json:"ratio"`
}

type plainPair pair

func (p pair) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"name":`...)
	b = envelope.AppendString(b, p.Name)
	b = append(b, `,"ratio":`...)
	b, err := envelope.AppendFloat(b, p.Ratio)
	if err != nil {
		return nil, err
	}
	return append(b, '}'), nil
}

func TestMarshalAppenderIsReflection(t *testing.T) {
	t.Parallel()
	for _, s := range hostileStrings {
		for _, env := range []envelope.Envelope{
			envelope.Success(200, "", pair{s, 0.25}),
			envelope.Success(201, s, pair{s, 1e-9}),
			{Success: true, StatusCode: 200, Message: s, Data: pair{s, 3}}, // nil errors: null
		} {
			fast, err := envelope.Marshal(env)
			require.NoError(t, err)
			env.Data = plainPair(env.Data.(pair))
			slow, err := envelope.Marshal(env)
			require.NoError(t, err)
			assert.Equal(t, string(slow), string(fast))
		}
	}
	_, err := envelope.Marshal(envelope.Success(200, "", pair{"nan", math.NaN()}))
	assert.Error(t, err, "a NaN fails as encoding/json fails")
}
