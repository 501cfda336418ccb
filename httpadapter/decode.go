package httpadapter

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/brandbase/brandbase/envelope"
)

// MaxBodyBytes is the largest request body the adapter reads (1 MiB).
const MaxBodyBytes = 1 << 20

// decodeJSON decodes r's JSON body into dst, a pointer to a struct. It
// fails with 415 unsupported_media_type when the Content-Type is not JSON
// (a request with neither body nor Content-Type counts as an empty object),
// 413 body_too_large past MaxBodyBytes, 408 request_timeout for a body
// that did not arrive before the server's read deadline, 400 malformed_json for a body that
// is not one JSON object, and 400 with one item per bad field: invalid_type
// for a value of the wrong type, duplicate_field for two keys that name one
// field (names match case-insensitively), invalid_format for a string that
// does not hold the text it seems to (see [rawText]). Unknown fields are
// ignored.
func decodeJSON(w http.ResponseWriter, r *http.Request, dst any) error {
	ct := r.Header.Get("Content-Type")
	if ct == "" && bodyEmpty(r) {
		return decodeObject([]byte("{}"), dst)
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
		return envelope.New(envelope.KindUnsupportedMediaType, "unsupported_media_type",
			"The request body must be JSON (Content-Type: application/json).")
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err != nil {
		return bodyError(err)
	}
	return decodeObject(body, dst)
}

// bodyEmpty reports whether r has no body at all. It reads at most one
// byte, so it is only called when the body would be refused otherwise.
func bodyEmpty(r *http.Request) bool {
	if r.Body == nil || r.Body == http.NoBody {
		return true
	}
	_, err := io.ReadFull(r.Body, make([]byte, 1))
	return err == io.EOF
}

func malformed(cause error) error {
	return envelope.New(envelope.KindInvalid, "malformed_json", "The request body is not valid JSON.").WithCause(cause)
}

var errNotObject = envelope.New(envelope.KindInvalid, "malformed_json", "The request body must be a JSON object.")

// member is one key of a JSON object with its raw value.
type member struct {
	key string
	raw json.RawMessage
}

// objectMembers splits body, one JSON object, into its members in order
// (a key given twice appears twice). A null body has none.
func objectMembers(body []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	tok, err := dec.Token()
	if err != nil {
		return nil, malformed(err)
	}
	var ms []member
	switch tok {
	case nil: // null: no members, as encoding/json treats it
	case json.Delim('{'):
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, malformed(err)
			}
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return nil, malformed(err)
			}
			ms = append(ms, member{key: k.(string), raw: raw})
		}
		if _, err := dec.Token(); err != nil {
			return nil, malformed(err)
		}
	default:
		return nil, errNotObject
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, malformed(errors.New("data after the JSON value"))
	}
	return ms, nil
}

// decodeObject decodes body into dst, a pointer to a struct, field by
// field, as decodeJSON describes; any other dst is an internal error.
func decodeObject(body []byte, dst any) error {
	v := reflect.ValueOf(dst)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return envelope.Internal(fmt.Errorf("httpadapter: cannot decode a body into %T", dst))
	}
	ms, err := objectMembers(body)
	if err != nil {
		return err
	}
	fields, names := bodyFields(v.Elem().Type())
	var bad envelope.Validation
	seen := map[string]string{} // field name -> the key that named it; "" once reported twice
	for _, m := range ms {
		name, ok := matchField(fields, names, m.key)
		if !ok {
			continue // unknown fields are ignored
		}
		if first, dup := seen[name]; dup {
			if first != "" { // reported once, naming the first two keys
				bad.Add(name, "duplicate_field", "The field "+name+" is given more than once ("+first+", "+m.key+").")
				seen[name] = ""
			}
			continue
		}
		seen[name] = m.key
		if !rawText(m.raw) {
			// encoding/json would store U+FFFD in place of the bad bytes
			// without a word.
			bad.Add(name, "invalid_format", "The field "+name+
				" must be UTF-8 text; a \\u escape must not name a lone UTF-16 surrogate (\\ud800 to \\udfff).")
			continue
		}
		fv := fieldByIndex(v.Elem(), fields[name].index)
		if err := json.Unmarshal(m.raw, fv.Addr().Interface()); err != nil {
			bad.Add(name, "invalid_type", fieldTypeError(name, fields[name].typ, err))
		}
	}
	return bad.Err()
}

// rawText reports whether every string in raw, one well-formed JSON value,
// decodes to exactly the text it was sent as: its bytes are valid UTF-8, and
// no \u escape names a UTF-16 surrogate outside a high-low pair. Both
// would become U+FFFD when decoded (an escaped U+FFFD itself is text).
func rawText(raw []byte) bool {
	if !utf8.Valid(raw) {
		return false
	}
	// In well-formed JSON a backslash only starts an escape inside a
	// string, and \u is followed by four hex digits.
	for i := 0; i < len(raw)-1; i++ {
		if raw[i] != '\\' {
			continue
		}
		i++ // the escaped character
		if raw[i] != 'u' {
			continue
		}
		r := hex4(raw[i+1 : i+5])
		i += 4
		switch {
		case r < 0xd800 || r > 0xdfff:
		case r < 0xdc00 && i+6 < len(raw) && raw[i+1] == '\\' && raw[i+2] == 'u' &&
			hex4(raw[i+3:i+7]) >= 0xdc00 && hex4(raw[i+3:i+7]) <= 0xdfff:
			i += 6 // a high surrogate and its low one: one character
		default:
			return false
		}
	}
	return true
}

// hex4 returns the value of four hex digits.
func hex4(b []byte) rune {
	var r rune
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// fieldTypeError returns the details of a value of the wrong type for the
// body field name of type t.
func fieldTypeError(name string, t reflect.Type, err error) string {
	var ute *json.UnmarshalTypeError
	if errors.As(err, &ute) && ute.Field != "" {
		name += "." + ute.Field
		t = ute.Type
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return "The field " + name + " must be of type " + jsonTypeName(t.Kind().String()) + "."
}

// bodyFieldsCache maps a struct type to its JSON fields ([bodyFields]).
var bodyFieldsCache sync.Map

type fieldTable struct {
	fields map[string]jsonField
	names  []string
}

// bodyFields returns the JSON fields of struct t as encoding/json decodes
// them (collectFields), and their names in declaration order, computed
// once per type.
func bodyFields(t reflect.Type) (map[string]jsonField, []string) {
	if ft, ok := bodyFieldsCache.Load(t); ok {
		return ft.(fieldTable).fields, ft.(fieldTable).names
	}
	fs := map[string]jsonField{}
	var order []string
	collectFields(t, nil, fs, &order)
	order = slices.DeleteFunc(order, func(n string) bool { return fs[n].ambiguous })
	bodyFieldsCache.Store(t, fieldTable{fields: fs, names: order})
	return fs, order
}

// matchField returns the name of the field key names: the field of that
// exact name, else the first whose name matches case-insensitively, as
// encoding/json matches them.
func matchField(fields map[string]jsonField, names []string, key string) (string, bool) {
	if f, ok := fields[key]; ok && !f.ambiguous {
		return key, true
	}
	for _, n := range names {
		if strings.EqualFold(n, key) {
			return n, true
		}
	}
	return "", false
}

// fieldByIndex returns the field of struct v at index, allocating nil
// embedded struct pointers on the way.
func fieldByIndex(v reflect.Value, index []int) reflect.Value {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v
}

// errRequestTimeout answers a body that did not arrive before the server's
// read deadline.
var errRequestTimeout = envelope.New(envelope.KindRequestTimeout, "request_timeout",
	"The request body did not arrive in time.")

// bodyError maps an error reading the body to the envelope error a client
// gets: 413 body_too_large past MaxBodyBytes; 408 request_timeout when the
// read ran into a deadline (the server's ReadTimeout, whether the body
// stalled or came after the handler had already waited past it: a
// net.Error whose Timeout() is true, or os.ErrDeadlineExceeded); else 400
// malformed_json. The read error stays the cause, for the log.
func bodyError(err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return envelope.New(envelope.KindTooLarge, "body_too_large",
			"The request body is larger than "+strconv.Itoa(MaxBodyBytes)+" bytes.").WithCause(err)
	}
	var ne net.Error
	if errors.Is(err, os.ErrDeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return errRequestTimeout.WithCause(err)
	}
	return malformed(err)
}

func jsonTypeName(goKind string) string {
	switch {
	case goKind == "string":
		return "string"
	case goKind == "bool":
		return "boolean"
	case strings.HasPrefix(goKind, "int"), strings.HasPrefix(goKind, "uint"), strings.HasPrefix(goKind, "float"):
		return "number"
	case goKind == "slice", goKind == "array":
		return "array"
	}
	return "object"
}

// query reads the query parameters of a request with case-insensitive
// names (PageSize = pagesize, as the spec's origin does). An empty value
// counts as absent.
type query struct {
	vals map[string]string // lower-cased name -> first value
}

// newQuery reads r's query string. Of a parameter given more than once,
// under any spelling (PageSize=5&pagesize=10), the first in the query string
// counts; pairs that do not unescape are skipped, as url.ParseQuery does.
func newQuery(r *http.Request) query {
	vals := map[string]string{}
	for pair := range strings.SplitSeq(r.URL.RawQuery, "&") {
		k, val, _ := strings.Cut(pair, "=")
		k, err := url.QueryUnescape(k)
		if err != nil || k == "" {
			continue
		}
		if val, err = url.QueryUnescape(val); err != nil {
			continue
		}
		lk := strings.ToLower(k)
		if _, seen := vals[lk]; !seen {
			vals[lk] = val
		}
	}
	return query{vals: vals}
}

// get returns the value of the parameter name (any case), and whether it
// is given and not empty.
func (q query) get(name string) (string, bool) {
	s, ok := q.vals[strings.ToLower(name)]
	if !ok || s == "" {
		return "", false
	}
	return s, true
}
