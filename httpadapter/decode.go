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
