package httpadapter

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"
)

// schemaMode says whether a schema describes what the adapter answers or
// what it accepts: an answer always carries every field without omitempty
// (so they are all "required", pointers as nullable), while which fields a
// request needs is a rule of the domain, declared beside the route table.
type schemaMode int

const (
	modeResponse schemaMode = iota
	modeRequest
)

// schemas derives JSON Schema (2020-12, the dialect of OpenAPI 3.1) from Go
// types and their json tags, as encoding/json encodes them, so that the
// OpenAPI document follows the types the handlers really encode and decode.
// Named struct types become components; their names come from the Go type
// (Page[Currency] → CurrencyPage), made unique when two packages use one
// name. A type it cannot describe faithfully (a json.Marshaler it does not
// know) is recorded in err rather than guessed.
type schemas struct {
	components map[string]any
	// names maps a (type, mode) to its component name.
	names map[typeMode]string
	// owners maps a component name to its (type, mode).
	owners map[string]typeMode
	// enums lists the values of string types with a closed set of values
	// (canonical in answers; matched case-insensitively in requests).
	enums map[reflect.Type][]string
	err   error
}

type typeMode struct {
	t    reflect.Type
	mode schemaMode
}

func newSchemas(enums map[reflect.Type][]string) *schemas {
	return &schemas{
		components: map[string]any{},
		names:      map[typeMode]string{},
		owners:     map[string]typeMode{},
		enums:      enums,
	}
}

var (
	timeType          = reflect.TypeFor[time.Time]()
	rawMessageType    = reflect.TypeFor[json.RawMessage]()
	jsonMarshaler     = reflect.TypeFor[json.Marshaler]()
	textMarshaler     = reflect.TypeFor[encoding.TextMarshaler]()
	componentRefStart = "#/components/schemas/"
)

// ref returns the schema of t in mode, registering named structs as
// components and answering a $ref to them.
func (s *schemas) ref(t reflect.Type, mode schemaMode) map[string]any {
	switch {
	case t == timeType:
		return map[string]any{"type": "string", "format": "date-time"}
	case t == rawMessageType:
		return map[string]any{}
	case t.Kind() == reflect.Pointer:
		return nullable(s.ref(t.Elem(), mode))
	case implements(t, jsonMarshaler):
		s.fail(fmt.Errorf("httpadapter: %v has its own MarshalJSON; describe its schema in openapi.go", t))
		return map[string]any{}
	case implements(t, textMarshaler):
		return map[string]any{"type": "string"}
	}
	if values, ok := s.enums[t]; ok {
		if mode == modeRequest {
			return map[string]any{"type": "string", "description": "One of " + strings.Join(values, ", ") + " (any case)."}
		}
		return map[string]any{"type": "string", "enum": values}
	}
	switch t.Kind() {
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int32, reflect.Int16, reflect.Int8, reflect.Uint16, reflect.Uint8:
		return map[string]any{"type": "integer", "format": "int32"}
	case reflect.Int, reflect.Int64, reflect.Uint, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer", "format": "int64"}
	case reflect.Float32:
		return map[string]any{"type": "number", "format": "float"}
	case reflect.Float64:
		return map[string]any{"type": "number", "format": "double"}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 { // encoding/json writes []byte as base64 text
			return map[string]any{"type": "string", "contentEncoding": "base64"}
		}
		return map[string]any{"type": "array", "items": s.ref(t.Elem(), mode)}
	case reflect.Array:
		return map[string]any{"type": "array", "items": s.ref(t.Elem(), mode), "minItems": t.Len(), "maxItems": t.Len()}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": s.ref(t.Elem(), mode)}
	case reflect.Interface:
		return map[string]any{}
	case reflect.Struct:
		if t.Name() == "" {
			return s.object(t, mode)
		}
		return map[string]any{"$ref": componentRefStart + s.component(t, mode)}
	}
	s.fail(fmt.Errorf("httpadapter: no JSON schema for %v", t))
	return map[string]any{}
}

// component registers the named struct t in mode and returns its
// component name.
func (s *schemas) component(t reflect.Type, mode schemaMode) string {
	key := typeMode{t, mode}
	if name, ok := s.names[key]; ok {
		return name
	}
	name := componentName(t)
	if _, taken := s.owners[name]; taken && mode == modeRequest {
		name += "Input"
	}
	if _, taken := s.owners[name]; taken {
		pkg := t.PkgPath()
		pkg = pkg[strings.LastIndexByte(pkg, '/')+1:]
		name = strings.ToUpper(pkg[:1]) + pkg[1:] + name
	}
	s.names[key] = name
	s.owners[name] = key
	s.components[name] = map[string]any{} // a placeholder against recursion
	s.components[name] = s.object(t, mode)
	return name
}

// object returns the schema of struct t: its fields as encoding/json sees
// them (embedded structs flattened, "-" left out, the shallowest of two
// fields of one name kept). In answers every field without omitempty or
// omitzero is required.
func (s *schemas) object(t reflect.Type, mode schemaMode) map[string]any {
	fs := map[string]jsonField{}
	var order []string
	collectFields(t, nil, fs, &order)
	props := map[string]any{}
	required := []string{}
	for _, name := range order {
		f, ok := fs[name]
		if !ok || f.ambiguous {
			continue
		}
		sch := s.ref(f.typ, mode)
		if f.asString {
			sch = map[string]any{"type": "string"}
		}
		props[name] = sch
		if mode == modeResponse && !f.optional {
			required = append(required, name)
		}
	}
	out := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		out["required"] = required
	}
	return out
}

// jsonField is one field of a struct as encoding/json encodes it.
type jsonField struct {
	typ reflect.Type
	// index is the field's index sequence from the outer struct
	// (reflect.Value.FieldByIndex); its length less one is the depth.
	index     []int
	optional  bool // omitempty or omitzero
	asString  bool // the ",string" option
	ambiguous bool // two fields of this name at the same depth: json drops both
}

// collectFields adds the JSON fields of struct t, found at the index path
// prefix (nil for the outer struct), to fs (and their names, first seen
// first, to order).
func collectFields(t reflect.Type, prefix []int, fs map[string]jsonField, order *[]string) {
	depth := len(prefix)
	for i := range t.NumField() {
		f := t.Field(i)
		index := append(slices.Clone(prefix), i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		ft := f.Type
		if f.Anonymous && name == "" {
			inner := ft
			if inner.Kind() == reflect.Pointer {
				inner = inner.Elem()
			}
			if inner.Kind() == reflect.Struct {
				if !f.IsExported() && ft.Kind() == reflect.Pointer {
					continue // encoding/json ignores embedded pointers to unexported types
				}
				collectFields(inner, index, fs, order)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		jf := jsonField{
			typ:      ft,
			index:    index,
			optional: hasOption(opts, "omitempty") || hasOption(opts, "omitzero"),
			asString: hasOption(opts, "string") && isScalar(ft),
		}
		prev, seen := fs[name]
		switch {
		case !seen:
			*order = append(*order, name)
			fs[name] = jf
		case depth < len(prev.index)-1:
			fs[name] = jf
		case depth == len(prev.index)-1:
			prev.ambiguous = true
			fs[name] = prev
		}
	}
}

func hasOption(opts, want string) bool {
	for o := range strings.SplitSeq(opts, ",") {
		if o == want {
			return true
		}
	}
	return false
}

func isScalar(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.String, reflect.Bool, reflect.Float32, reflect.Float64,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return true
	}
	return false
}

func implements(t, iface reflect.Type) bool {
	return t.Implements(iface) || reflect.PointerTo(t).Implements(iface)
}

func (s *schemas) fail(err error) {
	if s.err == nil {
		s.err = err
	}
}

// componentName names the component of a named struct type: its name, with
// the type arguments of a generic type put first (Page[Currency] →
// CurrencyPage).
func componentName(t reflect.Type) string {
	base, args, generic := strings.Cut(t.Name(), "[")
	if !generic {
		return base
	}
	args = strings.TrimSuffix(args, "]")
	var b strings.Builder
	for a := range strings.SplitSeq(args, ",") {
		if i := strings.LastIndexByte(a, '.'); i >= 0 {
			a = a[i+1:]
		}
		b.WriteString(a)
	}
	b.WriteString(base)
	return b.String()
}

// nullable returns sch extended to allow null.
func nullable(sch map[string]any) map[string]any {
	if _, ok := sch["$ref"]; ok {
		return map[string]any{"anyOf": []any{sch, map[string]any{"type": "null"}}}
	}
	out := make(map[string]any, len(sch))
	for k, v := range sch {
		out[k] = v
	}
	switch typ := sch["type"].(type) {
	case string:
		out["type"] = []any{typ, "null"}
	case nil: // any value: null included
	default:
		return map[string]any{"anyOf": []any{sch, map[string]any{"type": "null"}}}
	}
	if enum, ok := sch["enum"].([]string); ok {
		out["enum"] = append(append([]any{}, anySlice(enum)...), nil)
	}
	return out
}

func anySlice(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
