package httpadapter

import (
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/brandbase/brandbase/envelope"
)

// MaxBodyBytes is the largest request body the adapter reads (1 MiB).
const MaxBodyBytes = 1 << 20

// decodeJSON decodes r's JSON body into dst. It fails with 415
// unsupported_media_type when the Content-Type is not JSON, 413
// body_too_large past MaxBodyBytes, 400 malformed_json for a body that is
// not one JSON object, and 400 invalid_type (naming the field) for a value
// of the wrong type. Unknown fields are ignored.
func decodeJSON(w http.ResponseWriter, r *http.Request, dst any) error {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
		return envelope.New(envelope.KindUnsupportedMediaType, "unsupported_media_type",
			"The request body must be JSON (Content-Type: application/json).")
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err := dec.Decode(dst); err != nil {
		return bodyError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return bodyError(err)
		}
		return malformed(errors.New("data after the JSON value"))
	}
	return nil
}

func malformed(cause error) error {
	return envelope.New(envelope.KindInvalid, "malformed_json", "The request body is not valid JSON.").WithCause(cause)
}

// bodyError maps a json decoding error to the envelope error a client gets.
func bodyError(err error) error {
	var mbe *http.MaxBytesError
	var ute *json.UnmarshalTypeError
	switch {
	case errors.As(err, &mbe):
		return envelope.New(envelope.KindTooLarge, "body_too_large",
			"The request body is larger than "+strconv.Itoa(MaxBodyBytes)+" bytes.")
	case errors.As(err, &ute):
		if ute.Field == "" {
			return envelope.New(envelope.KindInvalid, "malformed_json",
				"The request body must be a JSON object.").WithCause(err)
		}
		return envelope.Invalid("The request has a field of the wrong type.",
			envelope.Field(ute.Field, "invalid_type", "The field "+ute.Field+" must be of type "+jsonTypeName(ute.Type.Kind().String())+"."))
	default:
		return malformed(err)
	}
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

// query reads the query parameters of a request with case-insensitive names
// (PageSize = pagesize, as the spec's origin does) and records a field error
// for every value that does not parse. An empty value counts as absent.
type query struct {
	vals map[string]string // lower-cased name -> first value
	v    *envelope.Validation
}

// newQuery reads r's query string. Of a parameter given more than once,
// under any spelling (PageSize=5&pagesize=10), the first in the query string
// counts; pairs that do not unescape are skipped, as url.ParseQuery does.
func newQuery(r *http.Request, v *envelope.Validation) query {
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
	return query{vals: vals, v: v}
}

func (q query) get(name string) (string, bool) {
	s, ok := q.vals[strings.ToLower(name)]
	if !ok || s == "" {
		return "", false
	}
	return s, true
}

// str returns the parameter, or nil when absent.
func (q query) str(name string) *string {
	if s, ok := q.get(name); ok {
		return &s
	}
	return nil
}

// int32 returns the parameter as an int32, or nil when absent or invalid.
func (q query) int32(name string) *int32 {
	s, ok := q.get(name)
	if !ok {
		return nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 32)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			q.v.Add(name, "out_of_range", name+" is out of range.")
		} else {
			q.v.Add(name, "invalid_type", name+" must be an integer.")
		}
		return nil
	}
	i := int32(n)
	return &i
}

// float returns the parameter as a finite float64, or nil when absent or
// invalid.
func (q query) float(name string) *float64 {
	s, ok := q.get(name)
	if !ok {
		return nil
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || f != f || f > 1e308 || f < -1e308 {
		q.v.Add(name, "invalid_type", name+" must be a number.")
		return nil
	}
	return &f
}

// bool returns the parameter as a bool, or nil when absent or invalid.
func (q query) bool(name string) *bool {
	s, ok := q.get(name)
	if !ok {
		return nil
	}
	b, err := strconv.ParseBool(strings.TrimSpace(s))
	if err != nil {
		q.v.Add(name, "invalid_type", name+" must be true or false.")
		return nil
	}
	return &b
}
